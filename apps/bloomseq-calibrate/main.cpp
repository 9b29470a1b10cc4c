// bloomseq-calibrate: measure this machine once and write the performance profile the apps load for --auto-tune.
// The same command is `blast-bloom calibrate`.
#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/run_app.hpp"

int main(int argc, char** argv) {
  return bloomseq::run_app("bloomseq-calibrate",
                           [&] { return bloomseq::calibrate_command("bloomseq-calibrate", argc, argv); });
}
