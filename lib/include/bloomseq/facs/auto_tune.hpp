// --auto-tune for facs build-filter and classify: the loaded profile and the plan from the performance model
// (plan_facs / predict_facs in bloomseq/model). The options themselves are parsed in bloomseq/cli/facs_options.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"

namespace bloomseq {

// --auto-tune and its targets, shared by build-filter and classify (the profile is loaded by load_auto_tune).
struct FacsAutoTuneOptions {
  bool on = false;
  bool min_fpr = false;          // --target-throughput given (reads/s); otherwise minimum time under the FPR target
  double target_fpr = 0;         // 0 = not given
  double target_throughput = 0;  // reads/s
  uint64_t read_len = 150;       // --read-length
  std::string profile;           // --profile ("" = the default profile)
};

struct FacsAutoTune {
  bool on = false;
  bool min_fpr = false;          // --target-throughput given (reads/s); otherwise minimum time under the FPR target
  double target_fpr = 0;         // 0 = not given
  double target_throughput = 0;  // reads/s
  uint64_t reads = 1000000;      // workload the prediction is printed for
  uint64_t read_len = 150;
  model::LoadedProfile profile;
};

// The parsed options plus the profile, loaded (its one-line message on `log` unless null) only when --auto-tune is
// on.
FacsAutoTune load_auto_tune(const FacsAutoTuneOptions& o, const std::string& cmd, std::FILE* log);

// The predicted classification of `reads` reads against every filter of `filters` in one pass (times add up).
struct FacsFilterPrediction {
  std::string name;
  uint64_t kmers = 0, m_bits = 0;
  int k = 0;
  double fpr_per_kmer = 0, seconds = 0;
};
struct FacsRunPrediction {
  std::vector<FacsFilterPrediction> filters;
  int threads = 0;
  double seconds = 0, reads_per_s = 0, max_fpr = 0;
};
FacsRunPrediction predict_facs_run(const std::vector<const FilterEntry*>& filters, int w, uint64_t reads,
                                   uint64_t read_len, int threads, const FacsAutoTune& t);

// The classifier's own rate on a sample of the input: the model above prices every k-mer of every read against every
// filter (classic FACS), while the classifier looks up far fewer (a quick pass, then scans of the candidate filters
// only: 67 lookups per 150-base read against 7 filters where the model counts 910), so its reads/s can be 10x off.
// The sample is the first reads of a regular file, cut and parsed as the run does it (next_chunk, then parse into
// reused records) and classified on one thread: a first piece of 300 kbases warms up, then pieces are timed, reading
// included, until 30 ms were timed or `max_bases` read. Not taken (taken = false, `why_not` says why) for stdin,
// pipes and empty input.
struct FacsSample {
  bool taken = false;
  std::string why_not;
  uint64_t reads = 0;
  double seconds = 0;            // the timed reads' share of reading the sample, and their classification
  double lookups_per_read = 0;
  double per_thread_reads_per_s = 0;
  // The rate on `threads` threads: per-thread rate x threads, at most `cores` of them.
  double reads_per_s(int threads, int cores) const {
    return per_thread_reads_per_s * double(std::max(1, std::min(threads, std::max(cores, 1))));
  }
};
class Classifier;
FacsSample time_facs_sample(const Classifier& classifier, const std::string& reads_path, uint64_t max_bases);
std::string describe_facs_sample(const FacsSample& s, int threads, int cores);

// Human-readable plan ('# ' lines) for stderr.
std::string describe_facs_plan(const FacsRunPrediction& p, const FacsAutoTune& t, const std::string& what);
// The plan as a JSON object named "auto_tune" (the caller adds measured values inside it before closing).
void begin_facs_plan_json(JsonWriter& j, const FacsRunPrediction& p, const FacsAutoTune& t);

}  // namespace bloomseq
