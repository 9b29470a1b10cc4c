// Template body of verify_hits (see stage1b.hpp).
#pragma once
#include <algorithm>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const SubqueryFilters& filters, Locate&& locate, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                 std::vector<uint64_t>& fp) {
  // Hits come sorted by db position with random sub-queries; looking each up directly would miss the caches on
  // every hit. Instead the hits are visited grouped by sub-query (a counting sort of their indices), so each
  // sub-query's sorted w-mer list stays in L1 while its hits are searched; the seeds are then written at offsets
  // computed in the original (stream) order, which stage 2 needs.
  const std::vector<SubQuery>& subs = filters.subqueries();
  const size_t H = hits.size();
  if (H == 0) return;
  const uint32_t V = filters.count();
  // Bucketing pass (stream order, sequential): each hit's db w-mer and position go to its sub-query's bucket, so the
  // passes below read the buckets sequentially and never go back to the (large, randomly indexed) hit array.
  struct Entry {
    uint64_t fwd;     // the db w-mer, plus strand
    uint64_t db_pos;
    uint32_t hit;     // index in `hits`
    uint32_t first;   // where its key starts in the sub-query list (pass 1)
  };
  std::vector<uint32_t> bucket(size_t(V) + 1, 0);
  for (const Stage1aHit& h : hits) ++bucket[h.subquery + 1];
  for (uint32_t v = 0; v < V; ++v) bucket[v + 1] += bucket[v];
  std::vector<Entry> entries(H);
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
      entries[fill[hits[i].subquery]++] = Entry{f, last, uint32_t(i), 0};
    }
  }
  // Pass 1 (sub-query order, its list hot in L1): find each key, count the seeds it yields, TP/FP.
  std::vector<uint64_t> offset(H + 1, 0);  // seeds of hit i: [offset[i], offset[i+1]) after the prefix sum
  for (uint32_t v = 0; v < V; ++v) {
    const SubqueryFilters::WmerList l = filters.wmers(v);
    for (uint32_t o = bucket[v]; o < bucket[v + 1]; ++o) {
      Entry& e = entries[o];
      const uint64_t r = revcomp_wmer(e.fwd, w), key = canonical_wmer(e.fwd, r);
      const size_t lb = size_t(std::lower_bound(l.keys, l.keys + l.n, key) - l.keys);
      uint64_t n = 0;
      for (size_t x = lb; x < l.n && l.keys[x] == key; ++x) {
        const uint64_t qfwd = (l.pos[x] & SubqueryFilters::kFwdIsKey) ? key : revcomp_wmer(key, w);
        n += uint64_t(qfwd == e.fwd) + uint64_t(qfwd == r);
      }
      e.first = uint32_t(lb);
      offset[e.hit + 1] = n;
      ++(n ? tp : fp)[v];
    }
  }
  for (size_t i = 0; i < H; ++i) offset[i + 1] += offset[i];
  const size_t base = seeds.size();
  seeds.resize(base + offset[H]);
  // Pass 2 (sub-query order again): write every seed at its stream-order offset.
  for (uint32_t v = 0; v < V; ++v) {
    const SubqueryFilters::WmerList l = filters.wmers(v);
    const uint32_t query = subs[v].query_id;
    for (uint32_t o = bucket[v]; o < bucket[v + 1]; ++o) {
      const Entry& e = entries[o];
      if (offset[e.hit] == offset[e.hit + 1]) continue;
      const uint64_t r = revcomp_wmer(e.fwd, w), key = canonical_wmer(e.fwd, r);
      uint32_t subject;
      uint64_t s_pos;
      locate(e.db_pos, subject, s_pos);
      Seed* out = seeds.data() + base + offset[e.hit];
      for (size_t x = e.first; x < l.n && l.keys[x] == key; ++x) {
        // The query's plus-strand w-mer equals the db w-mer (plus seed) or its reverse complement (minus seed);
        // a reverse-palindromic w-mer is both.
        const uint64_t qfwd = (l.pos[x] & SubqueryFilters::kFwdIsKey) ? key : revcomp_wmer(key, w);
        const uint32_t q_pos = l.pos[x] & ~SubqueryFilters::kFwdIsKey;
        if (qfwd == e.fwd) *out++ = Seed{s_pos, query, subject, q_pos, 0};
        if (qfwd == r) *out++ = Seed{s_pos, query, subject, q_pos, 1};
      }
    }
  }
}

}  // namespace bloomseq
