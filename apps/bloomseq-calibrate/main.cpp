// bloomseq-calibrate: measure this machine once and write the performance profile the apps load for --auto-tune.
// The same command is `blast-bloom calibrate`.
#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/run_app.hpp"
#include "bloomseq/blast/kernel_probe.hpp"

int main(int argc, char** argv) {
  return bloomseq::run_app("bloomseq-calibrate", [&] {
    bloomseq::CalibrateOptions o = bloomseq::parse_calibrate_options("bloomseq-calibrate", argc, argv);
    o.run_kernel_probe = bloomseq::kernel_probe_for_calibration;
    return bloomseq::run_calibrate("bloomseq-calibrate", o);
  });
}
