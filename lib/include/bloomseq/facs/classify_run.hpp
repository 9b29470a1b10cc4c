// `facs classify` as one library call: load and check the filter sets, choose the backend, plan threads with
// --auto-tune, run the ordered thread pipeline over the reads (or pairs), route split outputs and write the TSV,
// summary and JSON report. The tool only parses its command line into a ClassifyRequest and calls run_classify.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "bloomseq/facs/auto_tune.hpp"
#include "bloomseq/facs/filter_load_choice.hpp"
#include "bloomseq/facs/params.hpp"
#include "bloomseq/facs/report.hpp"
#include "bloomseq/facs/shard.hpp"

namespace bloomseq {

struct ClassifyRequest {
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
  bool sharded = false;              // --shard given (even 1/1: the outputs are part files)
  ShardSpec shard;                   // --shard I/N: classify block I of N, outputs become part files
  ShardBy shard_by = ShardBy::automatic;  // --shard-by: how the input is cut (facs/shard.hpp)
  std::string shard_plan;            // --shard-plan: where each shard starts (facs/shard_plan.hpp); "" if none
  std::string command_line;          // recorded in the TSV header and the JSON report
  FilterLoadChoice load = FilterLoadChoice::automatic;  // --load: how the .bf payloads get into memory
};

// Where a run's messages go besides its output files: the plan, created folders, the closing summary line.
struct FacsSinks {
  std::FILE* log = stderr;  // nullptr: silent
};

struct ClassifyReport {
  std::vector<std::string> filter_names;
  ClassifySummary summary;
  uint64_t bases = 0;  // read bases classified (both mates of pairs)
  int threads = 0;     // as run (--auto-tune may choose them)
  std::string backend;
  double load_seconds = 0, seconds = 0;
};

// The bases per batch a run against `filters` filters uses on the CPU: params.batch_bases if it was given, else that divided
// by filters / 64 for sets of more than 64 filters (at least 65,536). A batch's scores are reads x filters (at 2 M
// bases and 1,024 filters ~100 MB for each batch in flight), and its time grows with the filters, so that the
// last batches of a run leave threads idle for longer: 1,024 references, 100,000 reads, 2 threads: 0.80-0.83x the
// wall time, 210 MB less peak memory (docs/benchmarks.md).
uint64_t classify_batch_bases(const ClassifyParams& params, size_t filters);

ClassifyReport run_classify(const ClassifyRequest& request, const FacsSinks& sinks = {});

}  // namespace bloomseq
