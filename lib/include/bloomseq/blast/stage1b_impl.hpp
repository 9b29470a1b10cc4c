// Template body of verify_hits (see stage1b.hpp).
#pragma once
#include <algorithm>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

// First index of `keys[0, n)` (sorted) not less than `key`. Branch-free: the comparisons of a search among ~1000
// keys are unpredictable, and a mispredicted branch per step cost more than the search itself.
inline size_t lower_bound_branchless(const uint64_t* keys, size_t n, uint64_t key) {
  if (n == 0) return 0;
  const uint64_t* base = keys;
  while (n > 1) {
    const size_t half = n / 2;
    base = base[half] < key ? base + half : base;
    n -= half;
  }
  return size_t(base - keys) + size_t(*base < key);
}

template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const SubqueryFilters& filters, Locate&& locate, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                 std::vector<uint64_t>& fp) {
  // Hits come sorted by db position with random sub-queries; looking each up directly would miss the caches on
  // every hit. Instead the hits are visited grouped by sub-query (a counting sort), so each sub-query's w-mer list
  // is fetched once for all its hits; the seeds found there go to a scratch array, and a last pass in stream order
  // (which stage 2 needs) gathers them, so the lists are read only once.
  constexpr size_t kLookAhead = 8;
  const std::vector<SubQuery>& subs = filters.subqueries();
  const size_t H = hits.size();
  if (H == 0) return;
  const uint32_t V = filters.count();
  // Bucketing pass (stream order, sequential): each hit's db w-mer and position go to its sub-query's bucket, so the
  // pass below reads the buckets sequentially and never goes back to the hit array.
  struct Entry {
    uint64_t fwd;     // the db w-mer, plus strand
    uint64_t db_pos;
    uint32_t first;   // its seeds in `found`: [first, first + count)
    uint32_t count;
  };
  std::vector<uint32_t> bucket(size_t(V) + 1, 0);
  for (const Stage1aHit& h : hits) ++bucket[h.subquery + 1];
  for (uint32_t v = 0; v < V; ++v) bucket[v + 1] += bucket[v];
  std::vector<Entry> entries(H);
  std::vector<uint32_t> entry_of_hit(H);
  {
    std::vector<uint32_t> fill(bucket.begin(), bucket.end() - 1);
    uint64_t last = ~uint64_t(0), f = 0;
    for (size_t i = 0; i < H; ++i) {
      if (hits[i].db_pos != last) {
        last = hits[i].db_pos;
        const uint8_t* c = batch_codes + (last - batch_first_pos);
        f = 0;
        for (int j = 0; j < w; ++j) f = (f << 2) | c[j];
      }
      const uint32_t o = fill[hits[i].subquery]++;
      entry_of_hit[i] = o;
      entries[o] = Entry{f, last, 0, 0};
    }
  }
  // Sub-query pass: find each key in the list (bucket, then a few keys), emit its seeds (subject coordinates are
  // filled in later), count TP/FP.
  std::vector<Seed> found;
  found.reserve(H + H / 8);
  for (uint32_t v = 0; v < V; ++v) {
    const SubqueryFilters::WmerList l = filters.wmers(v);
    const uint32_t query = subs[v].query_id;
    for (uint32_t o = bucket[v]; o < bucket[v + 1]; ++o) {
      // The list (tens of KB per sub-query, tens of MB in all) is mostly not in cache: fetch the lines a few
      // entries ahead.
      if (o + kLookAhead < bucket[v + 1]) {
        const uint64_t f = entries[o + kLookAhead].fwd, k2 = canonical_wmer(f, revcomp_wmer(f, w));
        size_t lo2, hi2;
        filters.key_bucket(v, k2, lo2, hi2);
        __builtin_prefetch(l.keys + lo2);
        __builtin_prefetch(l.pos + lo2);
      }
      Entry& e = entries[o];
      const uint64_t r = revcomp_wmer(e.fwd, w), key = canonical_wmer(e.fwd, r);
      size_t lo, hi;
      filters.key_bucket(v, key, lo, hi);
      const size_t first = found.size();
      for (size_t x = lo + lower_bound_branchless(l.keys + lo, hi - lo, key); x < hi && l.keys[x] == key; ++x) {
        // The query's plus-strand w-mer equals the db w-mer (plus seed) or its reverse complement (minus seed);
        // a reverse-palindromic w-mer is both.
        const uint64_t qfwd = (l.pos[x] & SubqueryFilters::kFwdIsKey) ? key : revcomp_wmer(key, w);
        const uint32_t q_pos = l.pos[x] & ~SubqueryFilters::kFwdIsKey;
        if (qfwd == e.fwd) found.push_back(Seed{0, query, 0, q_pos, 0});
        if (qfwd == r) found.push_back(Seed{0, query, 0, q_pos, 1});
      }
      e.first = uint32_t(first);
      e.count = uint32_t(found.size() - first);
      ++(e.count ? tp : fp)[v];
    }
  }
  // Gather pass (stream order): each hit's seeds, with the subject record and position.
  size_t out = seeds.size();
  seeds.resize(out + found.size());
  uint64_t last = ~uint64_t(0), s_pos = 0;
  uint32_t subject = 0;
  for (size_t i = 0; i < H; ++i) {
    if (i + 2 * kLookAhead < H) __builtin_prefetch(&entries[entry_of_hit[i + 2 * kLookAhead]]);
    if (i + kLookAhead < H) __builtin_prefetch(found.data() + entries[entry_of_hit[i + kLookAhead]].first);
    const Entry& e = entries[entry_of_hit[i]];
    if (e.count == 0) continue;
    if (e.db_pos != last) {
      last = e.db_pos;
      locate(last, subject, s_pos);
    }
    for (uint32_t j = 0; j < e.count; ++j) {
      Seed y = found[e.first + j];
      y.s_pos = s_pos;
      y.subject = subject;
      seeds[out++] = y;
    }
  }
}

}  // namespace bloomseq
