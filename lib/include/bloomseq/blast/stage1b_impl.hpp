// Template body of verify_hits (see stage1b.hpp).
#pragma once
#include <algorithm>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

// First index i in sorted keys[0, n) with keys[i] >= key, searched outwards from `guess`.
inline size_t lower_bound_from(const uint64_t* keys, size_t n, uint64_t key, size_t guess) {
  if (n == 0) return 0;
  if (guess >= n) guess = n - 1;
  size_t lo, hi;  // answer in (lo - 1, hi]: keys[lo - 1] < key <= keys[hi] conceptually
  if (keys[guess] < key) {
    size_t step = 1;
    lo = guess + 1;
    hi = lo;
    while (hi < n && keys[hi] < key) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > n) hi = n;
  } else {
    size_t step = 1;
    hi = guess;
    lo = guess;
    while (lo > 0 && keys[lo - 1] >= key) {
      hi = lo - 1;
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
  }
  return size_t(std::lower_bound(keys + lo, keys + hi, key) - keys);
}

template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const SubqueryFilters& filters, Locate&& locate, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                 std::vector<uint64_t>& fp) {
  const std::vector<SubQuery>& subs = filters.subqueries();
  uint64_t last_pos = ~uint64_t(0), fwd = 0, rc = 0, key = 0;
  uint32_t subject = 0;
  uint64_t s_pos = 0;
  // Software pipeline: the list position of hit i + kAhead is estimated (from the per-list key range, which stays
  // in cache) and prefetched, so the search of hit i finds its cache lines already loaded.
  constexpr size_t kAhead = 8;
  std::vector<uint32_t> guesses(hits.size());
  auto guess_of = [&](size_t i) {
    const uint8_t* c = batch_codes + (hits[i].db_pos - batch_first_pos);
    uint64_t f = 0;
    for (int j = 0; j < w; ++j) f = (f << 2) | c[j];
    const uint64_t k = canonical_wmer(f, revcomp_wmer(f, w));
    const SubqueryFilters::WmerList l = filters.wmers(hits[i].subquery);
    const uint64_t lo = filters.min_key(hits[i].subquery), hi = filters.max_key(hits[i].subquery);
    size_t g = 0;
    if (l.n > 0 && k > lo) {
      // Canonical keys are the smaller of two near-uniform values, so their density falls linearly: the expected
      // rank follows the CDF 1 - (1 - x)^2 over the key range (x = 1 at the largest canonical key, 4^w / 2).
      const double span = double(wmer_mask(w)) * 0.5 + 1.0;
      const double x = double(k) / span, xlo = double(lo) / span, xhi = double(hi) / span;
      const double F = 1 - (1 - x) * (1 - x), Flo = 1 - (1 - xlo) * (1 - xlo), Fhi = 1 - (1 - xhi) * (1 - xhi);
      const double r = Fhi > Flo ? (F - Flo) / (Fhi - Flo) : 0.0;
      g = k >= hi ? l.n - 1 : size_t(std::min(1.0, std::max(0.0, r)) * double(l.n - 1));
    }
    __builtin_prefetch(l.keys + g);
    __builtin_prefetch(l.keys + (g + 8 < l.n ? g + 8 : g));
    __builtin_prefetch(l.keys + (g >= 8 ? g - 8 : g));
    __builtin_prefetch(l.pos + g);
    guesses[i] = uint32_t(g);
  };
  for (size_t i = 0; i < hits.size() && i < kAhead; ++i) guess_of(i);
  for (size_t hit_i = 0; hit_i < hits.size(); ++hit_i) {
    if (hit_i + kAhead < hits.size()) guess_of(hit_i + kAhead);
    const Stage1aHit& h = hits[hit_i];
    if (h.db_pos != last_pos) {  // hits come sorted by position: pack each db w-mer once
      last_pos = h.db_pos;
      const uint8_t* c = batch_codes + (h.db_pos - batch_first_pos);
      fwd = 0;
      for (int j = 0; j < w; ++j) fwd = (fwd << 2) | c[j];
      rc = revcomp_wmer(fwd, w);
      key = canonical_wmer(fwd, rc);
      locate(h.db_pos, subject, s_pos);
    }
    const SubqueryFilters::WmerList l = filters.wmers(h.subquery);
    bool found = false;
    for (size_t i = lower_bound_from(l.keys, l.n, key, guesses[hit_i]); i < l.n && l.keys[i] == key; ++i) {
      found = true;
      // The query's plus-strand w-mer equals the db w-mer (plus seed) or its reverse complement (minus seed);
      // a reverse-palindromic w-mer is both.
      const uint64_t qfwd = (l.pos[i] & SubqueryFilters::kFwdIsKey) ? key : revcomp_wmer(key, w);
      const uint32_t query = subs[h.subquery].query_id, q_pos = l.pos[i] & ~SubqueryFilters::kFwdIsKey;
      if (qfwd == fwd) seeds.push_back({s_pos, query, subject, q_pos, 0});
      if (qfwd == rc) seeds.push_back({s_pos, query, subject, q_pos, 1});
    }
    ++(found ? tp : fp)[h.subquery];
  }
}

}  // namespace bloomseq
