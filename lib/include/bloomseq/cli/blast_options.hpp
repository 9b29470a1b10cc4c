// The command line of `blast-bloom` as plain values: option definitions, parsing and every check that needs no
// file, separate from running, so that tests and the fuzzer can drive it in-process. Parsing never exits and does
// no I/O: bad usage throws UsageError (the message names the option), --help comes back as text to print.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/search_run.hpp"
#include "bloomseq/model/planner.hpp"

namespace bloomseq {

enum class BlastCommand { search, encode, calibrate, model, merge, plan };

// The search's options are the library's request (blast/search_run.hpp).
using BlastSearchOptions = SearchRequest;

struct BlastEncodeOptions {
  std::string input, output;
  bool lossy = false;
};

struct BlastMergeOptions {
  std::string output;
  std::vector<std::string> parts;
};

struct BlastOptions {
  BlastCommand command = BlastCommand::search;
  std::string help;      // non-empty: --help of search or encode; print on stdout, exit 0
  bool version = false;  // --version: print the version, exit 0
  std::string notice;    // a line for stderr before the search (blastn's command line: what differs), or empty
  BlastSearchOptions search;
  BlastEncodeOptions encode;
  BlastMergeOptions merge;
  ModelOptions model;          // command == model (its help and usage inside)
  CalibrateOptions calibrate;  // command == calibrate (its help inside)
};

// argv[0] is the program. Throws UsageError for bad usage (bad numbers, ranges, conflicting options).
BlastOptions parse_blast_options(int argc, const char* const* argv);

// Accepts plain integers and K/M/G suffixes (powers of 1024): 256K = 262144. `what` names the option in errors.
uint64_t parse_size(const std::string& s, const std::string& what);

}  // namespace bloomseq
