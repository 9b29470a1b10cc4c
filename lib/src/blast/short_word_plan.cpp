#include "bloomseq/blast/short_word_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/word_presence.hpp"
#include "bloomseq/model/profiles.hpp"
#include "bloomseq/split/subquery.hpp"

namespace bloomseq {

namespace {
// Per database base / tested word / probe / hit / seed, in ns (short_word_plan.hpp), fitted to stage timings of
// 10- and 48.5-kb queries against 200 Mbases with p = 9, 10, 11 (docs/benchmarks.md, "short query").
constexpr double kDecodeNs = 0.2;  // a database base decoded to its code byte and packed for the scan
// A word read from the packed bases: with AVX-512 16 words share a load and a gather (stage1a_exact).
double test_ns() { return std::strcmp(exact_scan_isa(), "avx512") == 0 ? 0.15 : 0.6; }
constexpr double kProbeNs[] = {0.5, 0.5, 4.0, 15.0};  // filters in L1, L2, L3, DRAM
// A hit of a word shorter than w: the presence check of its w-mers (WordPresence, w <= 12), or, without one, the
// walk of the index for it. A hit of a word of w bases is a seed.
constexpr double kPresenceNs = 18.0, kHitNoPresenceNs = 60.0;
// A seed: its index walk, its extension to w, its place in stage 2's order. The same for every p, so it decides
// nothing between words; it makes ns_per_base comparable with the Bloom plan's stage 1a + 1b.
constexpr double kSeedNs = 50.0;
constexpr int kMinExactWord = 3;  // 4^3 = 64 bits, the smallest vector
// A filter of a word shorter than w that lets more probes through than this is no filter: each hit costs a
// presence check, and the Bloom path with every w-mer does better.
constexpr double kMaxHitsPerProbe = 0.25;
// The Bloom path's bit-sliced stage 1a per database base and sub-query (its hits cost stage 1b what the scan's
// seeds cost). Measured 0.21-0.48 ns on genome-sized queries (docs/benchmarks.md, "Dense queries"); the low end
// is taken, so that the scan replaces the Bloom filters only where it wins by a margin.
constexpr double kBloomColumnNs = 0.2;

// The plan of word p (use = false when the query has no record of w bases or more). Records share sub-queries
// (split_subqueries) up to a quarter of the filter's canonical keys in w-mers, where a filter still lets few random
// probes through: the filters' count, size and probes then follow the query's bases, not its record count (one filter
// of 4^p bits per record took tens of GB for 10^5 primers). A query of one record keeps n_sub = its length.
ShortWordPlan priced(int w, int p, const std::vector<uint64_t>& record_lengths,
                     const std::vector<uint64_t>& cache_bytes) {
  ShortWordPlan plan;
  uint64_t longest = 0, total = 0;
  for (uint64_t n : record_lengths)
    if (n >= uint64_t(w)) {
      longest = std::max(longest, n);
      total += n;
    }
  if (longest == 0 || longest > (uint64_t(1) << 31)) return plan;
  const double keys = std::ldexp(1.0, 2 * p) / 2.0;
  const uint64_t shared = std::min(total, uint64_t(keys / 4) + uint64_t(w) - 1);
  const uint64_t n_sub = std::max(longest, shared);
  double V = 0, hits = 0, seeds = 0;
  const double w_keys = std::ldexp(1.0, 2 * w) / 2.0;
  for (const SubQuery& sq : split_subqueries(record_lengths, n_sub, w)) {
    V += 1;
    // The sub-query's p-mers (a packed one's records each lose p - 1 at the end), and its w-mers.
    const double pmers = std::max(0.0, double(sq.length) - double(sq.records) * double(p - 1));
    const double wmers = std::max(0.0, double(sq.length) - double(sq.records) * double(w - 1));
    hits += 1.0 - std::exp(-pmers / keys);
    seeds += wmers / w_keys;  // expected matches: a dense query's w-mer matches several of its positions
  }
  const double bytes = V * std::ldexp(1.0, 2 * p) / 8.0;
  // A level holds the filters when they take at most half of it: the database codes stream through it too.
  size_t level = 0;
  while (level < cache_bytes.size() && bytes > double(cache_bytes[level]) / 2) ++level;
  const double probe = kProbeNs[level == cache_bytes.size() ? 3 : std::min<size_t>(level, 2)];
  const double s = double(w - p + 1);
  plan.use = true;
  plan.word = p;
  plan.stride = uint64_t(s);
  plan.n_sub = n_sub;
  plan.hits_per_probe = hits;
  const double hit = p == w ? 0.0 : w <= WordPresence::kMaxWord ? kPresenceNs : kHitNoPresenceNs;
  plan.ns_per_base = kDecodeNs + (test_ns() + V * probe + hits * hit) / s + seeds * kSeedNs;
  return plan;
}

// What the defaults' Bloom path costs per database base: every database w-mer tested against the sub-queries of
// default_cpu_sub_query(0) bases, bit-sliced, and the same seeds as any scan.
double bloom_ns_per_base(int w, const std::vector<uint64_t>& record_lengths) {
  double V = 0, seeds = 0;
  const double w_keys = std::ldexp(1.0, 2 * w) / 2.0;
  for (const SubQuery& sq : split_subqueries(record_lengths, default_cpu_sub_query(0), w)) {
    V += 1;
    seeds += std::max(0.0, double(sq.length) - double(sq.records) * double(w - 1)) / w_keys;
  }
  return kDecodeNs + V * kBloomColumnNs + seeds * kSeedNs;
}
}  // namespace

ShortWordPlan plan_short_word_scan(int w, const std::vector<uint64_t>& record_lengths,
                                   const std::vector<uint64_t>& cache_bytes) {
  ShortWordPlan best;
  for (int p = std::min(w, kMaxExactWord); p >= kMinExactWord; --p) {
    ShortWordPlan plan = priced(w, p, record_lengths, cache_bytes);
    if (!plan.use) continue;
    if (plan.hits_per_probe > kMaxHitsPerProbe) {
      // A dense query (a genome at w <= 12) fills its exact filter of w-mers, but that filter's hits are exactly
      // the Bloom path's true positives, one bit read per database w-mer instead of a column per sub-query: it
      // replaces the Bloom filters when priced below them. The batch stays the default: the query, not the
      // database, is large, and a record longer than a batch is searched in windows with the query's length of
      // context on either side.
      if (p != w || !(plan.ns_per_base < bloom_ns_per_base(w, record_lengths))) continue;
      plan.dense = true;
      plan.batch_bases = 0;
    }
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
  if (!keep_batch && plan.batch_bases > 0) p.batch_bases = plan.batch_bases;
  p.probe_word = plan.word < p.w ? plan.word : 0;
  p.exact_filter = true;
  p.k = 1;
  p.m_bits = uint64_t(1) << (2 * plan.word);
  p.n_sub = plan.n_sub;
}

}  // namespace bloomseq
