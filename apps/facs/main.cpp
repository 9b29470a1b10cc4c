// facs: classify reads against Bloom filters of reference genomes (FACS and BioBloom Tools scoring).
//   facs build-filter -o refs.bf REF.fa [REF2.fa ...]
//   facs classify READS [--mate READS2] REFS.bf [MORE.bf ...]
//   facs info REFS.bf
#include <cstdio>
#include <cstring>
#include <string>

#include "bloomseq/app/run_app.hpp"
#include "bloomseq/error.hpp"
#include "facs_commands.hpp"

using namespace bloomseq;

namespace {

const char* kUsage =
    "facs " BLOOMSEQ_VERSION " - classify sequencing reads against Bloom filters of reference genomes\n"
    "\n"
    "Usage: facs <command> [options]\n"
    "\n"
    "Commands:\n"
    "  build-filter   build one Bloom filter per reference (file or FASTA record) into a .bf container\n"
    "  classify       score every read against every filter in one pass; per-read calls, summary, split reads\n"
    "  info           describe the filters in a .bf container\n"
    "\n"
    "Examples:\n"
    "  facs build-filter -o refs.bf ecoli.fa suis.fa.gz lambda.fa\n"
    "  facs classify reads.fq.gz refs.bf -o calls.tsv --summary summary.tsv -t 2\n"
    "  facs info refs.bf\n"
    "\n"
    "Run 'facs <command> --help' for the options of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  return run_app("facs", [&]() -> int {
    if (argc < 2) {
      std::fputs(kUsage, stderr);
      return int(ExitCode::usage);
    }
    const std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (cmd == "--version") {
      std::puts("facs " BLOOMSEQ_VERSION);
      return 0;
    }
    const std::string cl = command_line(argc, argv);
    if (cmd == "build-filter") return facs_build_filter(argc - 1, argv + 1, cl);
    if (cmd == "classify") return facs_classify(argc - 1, argv + 1, cl);
    if (cmd == "info") return facs_info(argc - 1, argv + 1);
    throw UsageError("unknown command '" + cmd + "' (expected build-filter, classify or info; see facs --help)");
  });
}
