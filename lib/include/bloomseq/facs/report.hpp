// Outputs of `facs classify`: the per-read TSV lines and the run summary in BioBloom Tools' summary.tsv layout
// (header filter_id, hits, misses, shared, rate_hit, rate_miss, rate_shared, spelt and ordered exactly as BioBloom
// writes them, no '#': MultiQC recognises the file by that header line; then one row per filter, multiMatch and
// noMatch), which MultiQC's BioBloom Tools module parses. Two extra numeric columns after BioBloom's, best and
// rate_best, count the reads whose call is the filter (best score, no tie); MultiQC ignores them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/facs/classifier.hpp"

namespace bloomseq {

struct ClassifySummary {
  std::vector<uint64_t> hits;    // reads (pairs) that passed the filter's threshold
  std::vector<uint64_t> shared;  // ... and at least one other filter's
  std::vector<uint64_t> best;    // reads called to the filter
  uint64_t total = 0;
  uint64_t multi_match = 0;  // passed more than one filter
  uint64_t no_match = 0;     // passed none (includes unscored)
  uint64_t ties = 0;         // several filters share the best score
  uint64_t unscored = 0;     // no complete k-mer
  uint64_t lookups = 0;

  explicit ClassifySummary(size_t filters = 0) : hits(filters), shared(filters), best(filters) {}
  void add(const BatchScores& s);
  // The summary TSV; `names` are the filter names.
  std::string tsv(const std::vector<std::string>& names) const;
};

// Header of the per-read TSV; with `all_scores` one score column per filter follows.
std::string read_tsv_header(const std::vector<std::string>& names, bool all_scores);
// Appends the line of read r: id, call, score, matched filters (comma-separated, best first), per-filter scores.
void append_read_tsv(std::string& out, std::string_view id, const BatchScores& s, size_t r,
                     const std::vector<std::string>& names, bool all_scores);
// The call as text: a filter name, "tie", "novel" or "unscored".
std::string_view call_name(const BatchScores& s, size_t r, const std::vector<std::string>& names);

}  // namespace bloomseq
