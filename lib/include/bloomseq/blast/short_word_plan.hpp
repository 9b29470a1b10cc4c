// The scan blast-bloom uses for HSP searches whose filters can hold a short word exactly (short_word_plan): stage 1a
// tests a word of p <= w bases at every s-th database position, s = w - p + 1, against an exact filter of the
// query's p-mers (4^p bits per sub-query, one bit per key: BlastParams::exact_filter), short records sharing
// sub-queries (split_subqueries); stage 1b extends each probe match to the w-mer seeds that contain it (strided_seeds.hpp), so the seeds are
// those of testing every w-mer. This is how blastn is fast on a short query against a large database: a lookup word
// shorter than w, scanned at a stride, exact matches extended to w.
//
// The choice of p trades the stride against the filter's selectivity and size. Per database base:
//   cost(p) = decode_ns + (test_ns + V x probe_ns(V x 4^p / 8 bytes) + hits(p) x hit_ns(p)) / s + seeds x seed_ns,
// hits(p) = sum over sub-queries of 1 - exp(-p-mers / (4^p / 2)) (the chance that a random canonical p-mer is in the
// sub-query; 4^p / 2 canonical keys), seeds the expected w-mer matches, sum of L_w / (4^w / 2), probe_ns by the cache level whose half holds the V
// filters. Fitted on this project's benchmark machine (docs/benchmarks.md, "short query"): decoding and packing
// 0.2 ns per base, a tested word 0.15 ns with AVX-512 (0.6 without) plus its probe, 0.5 ns from L1/L2, 4 ns from
// L3, 15 ns from DRAM; a hit of p < w bases 18 ns for the presence check of its w-mers (w <= 12,
// word_presence.hpp), 60 ns without one; a hit of w bases is a seed; a seed 50 ns.
//
// A genome-sized query at w <= 12 takes the scan too, with p = w (stride 1; ShortWordPlan::dense): its exact filters
// (one per sub-query as long as its longest record) pass most database w-mers, but only true ones, for one bit read
// each, where the Bloom path reads a column per sub-query of 8 kbases (0.2 ns each) and gets the same seeds. The
// two are priced per database base and the cheaper taken.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/blast/params.hpp"

namespace bloomseq {

// The largest exact filter: 4^12 bits = 2 MB per sub-query; past it a Bloom vector holds the query in less.
constexpr int kMaxExactWord = 12;

struct ShortWordPlan {
  bool use = false;       // false: the filters cannot hold a short word selectively; keep the Bloom filters
  int word = 0;           // p
  uint64_t stride = 1;    // s = w - p + 1
  uint64_t n_sub = 0;     // at least the longest query record; shorter records share sub-queries
  // Database bases per batch: small, so that a batch's codes stay in cache from decoding to stage 1a and their pages
  // are faulted in once (64-Mbase batches cost more than the whole scan of a 1-kb query on a 200-Mbase database).
  uint64_t batch_bases = uint64_t(2) << 20;  // 0: keep the default
  double hits_per_probe = 0;
  // The word is w itself and the query fills its filter (hits_per_probe above the short words' limit): taken
  // because it is priced below the Bloom filters, whose hits it gives without their false positives.
  bool dense = false;
  double ns_per_base = 0;  // the predicted stage 1a + 1b cost per database base
};

// The plan for word size w and these query records (lengths in bases). `cache_bytes`: the capacities of the cache
// levels, ascending (the last one shared).
ShortWordPlan plan_short_word_scan(int w, const std::vector<uint64_t>& record_lengths,
                                   const std::vector<uint64_t>& cache_bytes);

// The same on this machine's caches (the cost model's CPU profile).
ShortWordPlan plan_short_word_scan(int w, const std::vector<uint64_t>& record_lengths);

// The plan for a given word p (--scan-word): exact filters when 3 <= p <= 12, else none (use = false).
ShortWordPlan forced_short_word_plan(int w, int word, const std::vector<uint64_t>& record_lengths);

// Sets `p` to scan as `plan` says: probe word (none when p = w), exact filter, its m and k, its n_sub,
// and the batch size unless `keep_batch`.
void apply_short_word_plan(const ShortWordPlan& plan, BlastParams& p, bool keep_batch = false);

}  // namespace bloomseq
