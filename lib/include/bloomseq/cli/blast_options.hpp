// The command line of `blast-bloom` as plain values: option definitions, parsing and every check that needs no
// file, separate from running, so that tests and the fuzzer can drive it in-process. Parsing never exits and does
// no I/O: bad usage throws UsageError (the message names the option), --help comes back as text to print.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/model/planner.hpp"

namespace bloomseq {

enum class BlastCommand { search, encode, calibrate, model };

struct BlastSearchOptions {
  std::string query, db;  // '-' = stdin (not both)
  BlastParams params;     // validated
  std::string stage = "hsp";  // what to print: 1a, 1b or hsp
  // --every-wmer: stage 1a tests every database w-mer for --stage hsp too (no probe word; see
  // BlastParams::probe_word).
  bool every_wmer = false;
  // --scan-word: the word stage 1a tests for --stage hsp (0 = chosen by short_word_plan.hpp or the defaults).
  int scan_word = 0;
  // --auto-tune: the objective and targets (sizes are filled in once the inputs are known).
  bool auto_tune = false;
  model::PlanRequest request;
  std::string profile;  // --profile ("" = the default profile)
  // Given explicitly, so --auto-tune keeps them fixed.
  bool given_n_sub = false, given_k = false, given_m_bits = false, given_threads = false, given_batch = false;
  std::string backend = "auto";  // auto, cpu or cuda
  int device = 0;
  std::string output = "-";
  bool stats = false;  // --stats given
  std::string stats_path;
  bool header = true;
  bool progress = false, no_progress = false;
};

struct BlastEncodeOptions {
  std::string input, output;
  bool lossy = false;
};

struct BlastOptions {
  BlastCommand command = BlastCommand::search;
  std::string help;      // non-empty: --help of search or encode; print on stdout, exit 0
  bool version = false;  // --version: print the version, exit 0
  BlastSearchOptions search;
  BlastEncodeOptions encode;
  ModelOptions model;          // command == model (its help and usage inside)
  CalibrateOptions calibrate;  // command == calibrate (its help inside)
};

// argv[0] is the program. Throws UsageError for bad usage (bad numbers, ranges, conflicting options).
BlastOptions parse_blast_options(int argc, const char* const* argv);

// Accepts plain integers and K/M/G suffixes (powers of 1024): 256K = 262144. `what` names the option in errors.
uint64_t parse_size(const std::string& s, const std::string& what);

}  // namespace bloomseq
