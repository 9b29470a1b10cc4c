// The command line of `facs` as plain values: option definitions, parsing and every check that needs no file,
// separate from running, so that tests and the fuzzer can drive it in-process. Parsing never exits and does no
// I/O: bad usage throws UsageError (the message names the option), --help comes back as text to print.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/facs/params.hpp"

namespace bloomseq {

enum class FacsCommand { usage, help, version, build_filter, classify, info, model };

// --auto-tune and its targets, shared by build-filter and classify (the profile is loaded by the caller).
struct FacsAutoTuneOptions {
  bool on = false;
  bool min_fpr = false;          // --target-throughput given (reads/s); otherwise minimum time under the FPR target
  double target_fpr = 0;         // 0 = not given
  double target_throughput = 0;  // reads/s
  uint64_t read_len = 150;       // --read-length
  std::string profile;           // --profile ("" = the default profile)
};

struct FacsBuildOptions {
  std::string output;             // -o (required)
  std::vector<std::string> refs;  // at least one
  std::vector<std::string> names; // --name, empty or one per ref
  bool add = false;               // --add: append to the existing container
  bool quiet = false;
  bool progress = false, no_progress = false;
  bool json = false;              // --json given
  std::string json_path;
  std::string layout_name;        // as given ("blocked" or "classic"), for messages
  int threads = 0;                // -t: build threads for --count hll (0 = all cores)
  BuildParams params;             // with --auto-tune, params.fpr is the target
  FacsAutoTuneOptions tune;
};

struct FacsClassifyOptions {
  std::string reads;
  std::vector<std::string> filters;  // .bf files, at least one
  bool paired = false;               // --mate given
  std::string mate;
  bool output = false;               // -o given
  std::string output_path;
  bool scores = false;
  std::string summary = "-";
  bool json = false;
  std::string json_path;
  bool matched_out = false;
  std::string matched_prefix;
  bool unmatched_out = false;
  std::string unmatched_path;
  bool interleaved = false;          // pairs: both mates in one split file instead of _1 / _2 files
  int requested_w = 0;               // -w: refuse filters with another k-mer size (0 = any)
  bool threads_given = false;        // -t given (--auto-tune keeps it fixed)
  bool progress = false, no_progress = false;
  std::string backend = "cpu";
  int device = 0;
  ClassifyParams params;
  FacsAutoTuneOptions tune;
};

struct FacsInfoOptions {
  std::vector<std::string> files;
};

struct FacsOptions {
  FacsCommand command = FacsCommand::usage;
  // --help of the tool or of a subcommand (command says which): print on stdout and exit 0. For `usage`
  // (no command at all) print it on stderr and exit with the usage code.
  std::string help;
  FacsBuildOptions build;
  FacsClassifyOptions classify;
  FacsInfoOptions info;
  ModelOptions model;
};

// argv[0] is the program; argv[1] the command. Throws UsageError for bad usage.
FacsOptions parse_facs_options(int argc, const char* const* argv);

// The subcommands alone (argv[0] is the subcommand name); `help` is set when --help was given.
FacsBuildOptions parse_facs_build_filter(int argc, const char* const* argv, std::string* help);
FacsClassifyOptions parse_facs_classify(int argc, const char* const* argv, std::string* help);
FacsInfoOptions parse_facs_info(int argc, const char* const* argv, std::string* help);

}  // namespace bloomseq
