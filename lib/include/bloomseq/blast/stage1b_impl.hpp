// Template body of verify_hits (see stage1b.hpp).
#pragma once
#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const QueryIndex& index, const std::vector<SubQuery>& subqueries, Locate&& locate,
                 std::vector<Seed>& seeds, std::vector<uint64_t>& tp, std::vector<uint64_t>& fp) {
  uint64_t last_pos = ~uint64_t(0), fwd = 0, rc = 0;
  uint32_t subject = 0;
  uint64_t s_pos = 0;
  // Index look-ups miss the caches: prefetch the slot of the w-mer a few hits ahead.
  constexpr size_t kAhead = 16;
  auto key_at = [&](uint64_t pos) {
    const uint8_t* c = batch_codes + (pos - batch_first_pos);
    uint64_t f = 0;
    for (int j = 0; j < w; ++j) f = (f << 2) | c[j];
    return canonical_wmer(f, revcomp_wmer(f, w));
  };
  for (size_t hi_ = 0; hi_ < hits.size() && hi_ < kAhead; ++hi_) index.prefetch(key_at(hits[hi_].db_pos));
  for (size_t hit_i = 0; hit_i < hits.size(); ++hit_i) {
    const Stage1aHit& h = hits[hit_i];
    if (hit_i + kAhead < hits.size() && hits[hit_i + kAhead].db_pos != hits[hit_i + kAhead - 1].db_pos)
      index.prefetch(key_at(hits[hit_i + kAhead].db_pos));
    if (h.db_pos != last_pos) {  // hits come sorted by position: pack each db w-mer once
      last_pos = h.db_pos;
      const uint8_t* c = batch_codes + (h.db_pos - batch_first_pos);
      fwd = 0;
      for (int j = 0; j < w; ++j) fwd = (fwd << 2) | c[j];
      rc = revcomp_wmer(fwd, w);
      locate(h.db_pos, subject, s_pos);
    }
    const SubQuery& sq = subqueries[h.subquery];
    const uint64_t lo = sq.offset, hi = sq.offset + sq.length - uint64_t(w);  // w-mer starts of the sub-query
    size_t n = 0;
    const QueryIndex::Entry* e = index.find(canonical_wmer(fwd, rc), n);
    bool found = false;
    for (size_t i = 0; i < n; ++i) {
      if (e[i].query != sq.query_id || e[i].pos < lo || e[i].pos > hi) continue;
      found = true;
      // The query's plus-strand w-mer equals the db w-mer (plus seed) or its reverse complement (minus seed);
      // a reverse-palindromic w-mer is both.
      const uint64_t key = fwd < rc ? fwd : rc;
      const uint64_t qfwd = e[i].fwd_is_canonical ? key : revcomp_wmer(key, w);
      if (qfwd == fwd) seeds.push_back({e[i].query, subject, e[i].pos, s_pos, 0});
      if (qfwd == rc) seeds.push_back({e[i].query, subject, e[i].pos, s_pos, 1});
    }
    ++(found ? tp : fp)[h.subquery];
  }
}

}  // namespace bloomseq
