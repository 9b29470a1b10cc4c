// The performance-model commands shared by bloomseq-model, bloomseq-calibrate and the `model` / `calibrate`
// subcommands of blast-bloom and facs (one implementation, several entry points).
#pragma once
#include <string>

namespace bloomseq {

// `PROGRAM COMMAND [options]` with COMMAND one of tradeoff, blocks, units, plan, profile. argv[0] names the
// entry point (ignored), argv[1] is COMMAND. `program` is how usage and help name the tool, e.g. "bloomseq-model"
// or "blast-bloom model". Returns the exit code; throws bloomseq::Error (UsageError for bad options).
int model_command(const std::string& program, int argc, char** argv);

// Calibrates this CPU and writes the profile (argv[0] ignored, options follow). `program` names the tool in help.
int calibrate_command(const std::string& program, int argc, char** argv);

}  // namespace bloomseq
