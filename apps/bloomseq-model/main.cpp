// bloomseq-model: the performance model's predictions as CSV, without running anything (tradeoff, blocks, units,
// plan, profile). The same commands are `blast-bloom model ...` and `facs model ...`.
#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/run_app.hpp"

int main(int argc, char** argv) {
  return bloomseq::run_app("bloomseq-model", [&] { return bloomseq::model_command("bloomseq-model", argc, argv); });
}
