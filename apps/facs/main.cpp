// facs: classify reads against Bloom filters of reference genomes (FACS and BioBloom Tools scoring).
//   facs build-filter -o refs.bf REF.fa [REF2.fa ...]
//   facs classify READS [--mate READS2] REFS.bf [MORE.bf ...]
//   facs merge -o CALLS --summary SUMMARY [--json J] PART...
//   facs plan-shards READS [--mate MATES] -n N -o PLAN
//   facs info REFS.bf
#include <cstdio>
#include <string>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/run_app.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/cli/facs_options.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/build_filter_run.hpp"
#include "bloomseq/facs/classify_run.hpp"
#include "bloomseq/facs/merge_parts.hpp"
#include "bloomseq/facs/plan_shards_run.hpp"

using namespace bloomseq;

int main(int argc, char** argv) {
  return run_app("facs", [&]() -> int {
    const FacsOptions o = parse_facs_options(argc, argv);
    switch (o.command) {
      case FacsCommand::usage:
        std::fputs(o.help.c_str(), stderr);
        return int(ExitCode::usage);
      case FacsCommand::help:
        std::fputs(o.help.c_str(), stdout);
        return 0;
      case FacsCommand::version:
        std::printf("facs %s\nbackends: %s\n", BLOOMSEQ_VERSION, backends_available().c_str());
        return 0;
      case FacsCommand::model:
        return run_model_command(o.model);
      default:
        break;
    }
    if (!o.help.empty()) {  // a subcommand's --help
      std::fputs(o.help.c_str(), stdout);
      return 0;
    }
    if (o.command == FacsCommand::build_filter) {
      BuildFilterRequest request = o.build;
      request.command_line = command_line(argc, argv);
      run_build_filter(request);
      return 0;
    }
    if (o.command == FacsCommand::classify) {
      ClassifyRequest request = o.classify;
      request.command_line = command_line(argc, argv);
      run_classify(request);
      return 0;
    }
    if (o.command == FacsCommand::merge) {
      FacsMergeRequest request = o.merge;
      request.command_line = command_line(argc, argv);
      run_facs_merge(request);
      return 0;
    }
    if (o.command == FacsCommand::plan_shards) {
      run_plan_shards(o.plan_shards, o.plan_shards.quiet ? nullptr : stderr);
      return 0;
    }
    for (const std::string& path : o.info.files) print_filter_info(path, stdout, o.info.verify);
    return 0;
  });
}
