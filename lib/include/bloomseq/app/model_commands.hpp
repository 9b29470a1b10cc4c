// The performance-model commands shared by bloomseq-model, bloomseq-calibrate and the `model` / `calibrate`
// subcommands of blast-bloom and facs (one implementation, several entry points).
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/kernel_fit.hpp"

namespace bloomseq {

enum class ModelCommand { usage, tradeoff, blocks, units, plan, profile };

// The options of `PROGRAM COMMAND [options]`, parsed and checked without touching any file (the device profile
// is resolved when the command runs).
struct ModelOptions {
  std::string program;  // how usage and help name the tool, e.g. "bloomseq-model" or "blast-bloom model"
  ModelCommand command = ModelCommand::usage;
  // Non-empty: print instead of running. usage_error: no command was given (print on stderr, exit 64);
  // otherwise --help (stdout, exit 0).
  std::string help;
  bool usage_error = false;
  // Common to all commands.
  std::string device = "gtx480";
  std::string profile;
  std::string output = "-";
  uint64_t query_bases = 250000000, db_bases = 50000000;
  int w = 11, k = 6;
  uint64_t m_bits = 262144;
  // tradeoff
  model::Layout layout = model::Layout::PaperVector;
  uint64_t n_sub_min = 10000, n_sub_max = 300000;
  int steps = 30;
  // blocks
  std::vector<int> block_threads;  // T_r values
  int max_blocks = 90;
  uint64_t n_sub = 50000;
  int registers = 32;
  uint64_t static_shared = 256;
  // units
  int cores = 0, max_units = 32;
  // plan
  bool target_fpr_given = false, target_throughput_given = false;
  double target_fpr = 0, target_throughput = 0;
  int cpu_threads = 0;
  bool json = false;
};

// argv[0] names the entry point (ignored), argv[1] is COMMAND (tradeoff, blocks, units, plan, profile).
// Throws UsageError for bad options; never prints.
ModelOptions parse_model_options(const std::string& program, int argc, const char* const* argv);
// Runs a parsed command (help and usage included); returns the exit code.
int run_model_command(const ModelOptions& options);
// parse_model_options + run_model_command.
int model_command(const std::string& program, int argc, char** argv);

struct CalibrateOptions {
  std::string help;     // non-empty: --help, print on stdout
  std::string profile;  // "" = the default profile path
  int threads = 0;      // 0 = all cores
  bool quick = false;
  std::string csv;      // "" = no CSV files
  bool show = false;
  bool kernel_probe = true;  // --no-kernel-probe: skip timing blast-bloom's own stage-1a kernels
  // Runs the kernel probe (blast/kernel_probe.hpp; set by the apps, which link the blast library): (quick, log).
  // Unset: no kernel coefficients in the profile.
  std::function<std::vector<model::KernelSample>(bool, std::ostream*)> run_kernel_probe;
};

// argv[0] ignored, options follow. `program` names the tool in help. Throws UsageError; never prints.
CalibrateOptions parse_calibrate_options(const std::string& program, int argc, const char* const* argv);
// Calibrates this CPU and writes the profile (or --show / --help).
int run_calibrate(const std::string& program, const CalibrateOptions& options);
// parse_calibrate_options + run_calibrate.
int calibrate_command(const std::string& program, int argc, char** argv);

}  // namespace bloomseq
