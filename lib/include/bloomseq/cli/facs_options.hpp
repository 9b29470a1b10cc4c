// The command line of `facs` as plain values: option definitions, parsing and every check that needs no file,
// separate from running, so that tests and the fuzzer can drive it in-process. Parsing never exits and does no
// I/O: bad usage throws UsageError (the message names the option), --help comes back as text to print.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/facs/build_filter_run.hpp"
#include "bloomseq/facs/classify_run.hpp"
#include "bloomseq/facs/merge_parts.hpp"
#include "bloomseq/facs/params.hpp"
#include "bloomseq/facs/plan_shards_run.hpp"

namespace bloomseq {

enum class FacsCommand { usage, help, version, build_filter, classify, merge, plan_shards, info, model };

// The subcommands' options are the library's requests (facs/classify_run.hpp, facs/build_filter_run.hpp).
using FacsBuildOptions = BuildFilterRequest;
using FacsClassifyOptions = ClassifyRequest;
using FacsMergeOptions = FacsMergeRequest;
using FacsPlanShardsOptions = PlanShardsRequest;

struct FacsInfoOptions {
  std::vector<std::string> files;
  bool verify = false;  // --verify: the whole-file checksum even for files above kMapVerifyLimit
};

struct FacsOptions {
  FacsCommand command = FacsCommand::usage;
  // --help of the tool or of a subcommand (command says which): print on stdout and exit 0. For `usage`
  // (no command at all) print it on stderr and exit with the usage code.
  std::string help;
  FacsBuildOptions build;
  FacsClassifyOptions classify;
  FacsMergeOptions merge;
  FacsPlanShardsOptions plan_shards;
  FacsInfoOptions info;
  ModelOptions model;
};

// argv[0] is the program; argv[1] the command. Throws UsageError for bad usage.
FacsOptions parse_facs_options(int argc, const char* const* argv);

// The subcommands alone (argv[0] is the subcommand name); `help` is set when --help was given.
FacsBuildOptions parse_facs_build_filter(int argc, const char* const* argv, std::string* help);
FacsClassifyOptions parse_facs_classify(int argc, const char* const* argv, std::string* help);
FacsMergeOptions parse_facs_merge(int argc, const char* const* argv, std::string* help);
FacsPlanShardsOptions parse_facs_plan_shards(int argc, const char* const* argv, std::string* help);
FacsInfoOptions parse_facs_info(int argc, const char* const* argv, std::string* help);

}  // namespace bloomseq
