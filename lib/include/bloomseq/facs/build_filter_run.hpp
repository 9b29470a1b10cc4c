// `facs build-filter` and `facs info` as library calls: one filter per reference file (or per FASTA record),
// sized for the FPR target or by the --auto-tune plan, appended to a .bf container; and the container's
// description. The tool only parses its command line and calls these.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "bloomseq/facs/auto_tune.hpp"
#include "bloomseq/facs/classify_run.hpp"
#include "bloomseq/facs/params.hpp"

namespace bloomseq {

struct BuildFilterRequest {
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
  std::string command_line;       // recorded in the container and the JSON report
};

struct BuildFilterReport {
  std::vector<std::string> built;  // names of the filters this run added
  int w = 0;
};

BuildFilterReport run_build_filter(const BuildFilterRequest& request, const FacsSinks& sinks = {});

// `facs info`: the container's header and one line per filter, on `out`.
// The file is mapped; its whole-file checksum is verified if `verify` or if it is at most kMapVerifyLimit bytes,
// else the output says "# checksum: not verified (use --verify)".
void print_filter_info(const std::string& path, std::FILE* out, bool verify = false);

// The file name without directories and sequence-file extensions (the default filter name).
std::string file_stem(const std::string& path);

}  // namespace bloomseq
