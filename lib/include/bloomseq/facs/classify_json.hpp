// The JSON report of `facs classify`, written from plain values so that `facs merge` rebuilds it from part files
// exactly as the single run writes it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bloomseq/facs/report.hpp"

namespace bloomseq {

class JsonWriter;

// What a classify run's outputs say besides the counters: parameters and filters.
struct ClassifyRunInfo {
  std::string version;
  std::string reads, mates;  // mates: empty for single reads
  bool paired = false;
  std::string pair_mode, score;
  double threshold = 0;
  bool has_error_rate = false;  // the facs score
  double error_rate = 0;
  int threads = 1;              // run-specific: not part of a shard's fingerprint
  uint64_t batch_bases = 0;
  int kmer_size = 0;
  uint64_t seed = 0;
  bool canonical = true;
  bool all_scores = false;      // --scores: per-filter columns in the per-read TSV
  struct Filter {
    std::string name, source;
    uint64_t kmers = 0;
    int hashes = 0;
    uint64_t bits = 0;
    double predicted_fpr = 0;
  };
  std::vector<Filter> filters;
  std::vector<std::string> names() const;
};

// The report, one line; `extra` (may be empty) adds members at the end of the top-level object (--auto-tune).
std::string classify_json(const ClassifyRunInfo& info, const std::string& command_line, const ClassifySummary& s,
                          double load_seconds, double seconds, const std::function<void(JsonWriter&)>& extra = {});

}  // namespace bloomseq
