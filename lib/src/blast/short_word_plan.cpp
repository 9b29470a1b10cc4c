#include "bloomseq/blast/short_word_plan.hpp"

#include <algorithm>
#include <cmath>

#include "bloomseq/model/profiles.hpp"

namespace bloomseq {

namespace {
// Per database base / probe / hit, in ns (short_word_plan.hpp).
constexpr double kScanNs = 2.0;
constexpr double kProbeNs[] = {1.5, 1.5, 4.0, 15.0};  // filters in L1, L2, L3, DRAM
constexpr double kHitNs = 120.0;
// The largest exact filter: 4^12 bits = 2 MB per sub-query; past it a Bloom vector holds the query in less.
constexpr int kMaxExactWord = 12;
constexpr int kMinExactWord = 3;  // 4^3 = 64 bits, the smallest vector
// A filter that lets more probes through than this is no filter: the Bloom path with every w-mer does better.
constexpr double kMaxHitsPerProbe = 0.25;

// The plan of word p (use = false when the query has no record of w bases or more).
ShortWordPlan priced(int w, int p, const std::vector<uint64_t>& record_lengths,
                     const std::vector<uint64_t>& cache_bytes) {
  ShortWordPlan plan;
  uint64_t longest = 0;
  double V = 0, hits = 0;
  const double keys = std::ldexp(1.0, 2 * p) / 2.0;
  for (uint64_t n : record_lengths)
    if (n >= uint64_t(w)) {
      longest = std::max(longest, n);
      V += 1;
      hits += 1.0 - std::exp(-double(n - uint64_t(p) + 1) / keys);
    }
  if (V == 0 || longest > (uint64_t(1) << 31)) return plan;
  const double bytes = V * std::ldexp(1.0, 2 * p) / 8.0;
  size_t level = 0;
  while (level < cache_bytes.size() && bytes > double(cache_bytes[level])) ++level;
  const double probe = kProbeNs[level == cache_bytes.size() ? 3 : std::min<size_t>(level, 2)];
  const double s = double(w - p + 1);
  plan.use = true;
  plan.word = p;
  plan.stride = uint64_t(s);
  plan.n_sub = longest;
  plan.hits_per_probe = hits;
  plan.ns_per_base = kScanNs + (V * probe + hits * kHitNs) / s;
  return plan;
}
}  // namespace

ShortWordPlan plan_short_word_scan(int w, const std::vector<uint64_t>& record_lengths,
                                   const std::vector<uint64_t>& cache_bytes) {
  ShortWordPlan best;
  for (int p = std::min(w, kMaxExactWord); p >= kMinExactWord; --p) {
    const ShortWordPlan plan = priced(w, p, record_lengths, cache_bytes);
    if (!plan.use || plan.hits_per_probe > kMaxHitsPerProbe) continue;
    if (!best.use || plan.ns_per_base < best.ns_per_base) best = plan;
  }
  return best;
}

ShortWordPlan forced_short_word_plan(int w, int word, const std::vector<uint64_t>& record_lengths) {
  if (word > kMaxExactWord || word < kMinExactWord || word > w) return ShortWordPlan{};
  return priced(w, word, record_lengths, {});
}

ShortWordPlan plan_short_word_scan(int w, const std::vector<uint64_t>& record_lengths) {
  static const std::vector<uint64_t> caches = [] {
    std::vector<uint64_t> c;
    for (const auto& l : model::detect_cpu_profile().caches)
      if (l.level > 0) c.push_back(l.size_bytes);
    return c;
  }();
  return plan_short_word_scan(w, record_lengths, caches);
}

void apply_short_word_plan(const ShortWordPlan& plan, BlastParams& p, bool keep_batch) {
  if (!plan.use) return;
  if (!keep_batch) p.batch_bases = plan.batch_bases;
  p.probe_word = plan.word < p.w ? plan.word : 0;
  p.exact_filter = true;
  p.k = 1;
  p.m_bits = uint64_t(1) << (2 * plan.word);
  p.n_sub = plan.n_sub;
}

}  // namespace bloomseq
