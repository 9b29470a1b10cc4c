// Template body of verify_hits (see stage1b.hpp).
#pragma once
#include <algorithm>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const SubqueryFilters& filters, Locate&& locate, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                 std::vector<uint64_t>& fp) {
  // Hits come sorted by (db position, sub-query). Each db position with hits is looked up once in the query index
  // (its occurrences come in (record, position) order, so in sub-query order) and merged with its hits: a hit is a
  // true positive when an occurrence lies in its sub-query, and each such occurrence is a seed. Seeds thus come in
  // stream order, and within a position by sub-query then query position. The index slots are random reads in
  // tens of MB, and a look-up inside the merge loop waits for the previous ones (the reorder window holds only a
  // few of its iterations, prefetches included). So the slots of all positions are copied first in one tight loop
  // (many misses in flight at once), then the entries they point to are prefetched kEntryAhead positions ahead.
  constexpr size_t kEntryAhead = 8;
  const size_t H = hits.size();
  if (H == 0) return;
  struct Run {
    uint64_t fwd;    // the db w-mer, plus strand
    uint64_t key;    // its canonical key
    size_t first;    // its hits: [first, next run's first)
  };
  std::vector<Run> runs;
  runs.reserve(H / 2 + 1);
  // Consecutive positions (most hits along a match) roll the previous w-mer by one base.
  const uint64_t mask = w >= 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * w)) - 1;
  uint64_t prev_pos = 0, f = 0;
  for (size_t i = 0; i < H; ++i) {
    if (i > 0 && hits[i].db_pos == hits[i - 1].db_pos) continue;
    const uint8_t* c = batch_codes + (hits[i].db_pos - batch_first_pos);
    if (i > 0 && hits[i].db_pos == prev_pos + 1) {
      f = ((f << 2) | c[w - 1]) & mask;
    } else {
      f = 0;
      for (int j = 0; j < w; ++j) f = (f << 2) | c[j];
    }
    prev_pos = hits[i].db_pos;
    runs.push_back(Run{f, canonical_wmer(f, revcomp_wmer(f, w)), i});
  }
  const size_t R = runs.size();
  std::vector<SubqueryFilters::Occurrence> slots(R);
  const bool direct = filters.direct_index();
  if (direct)
    for (size_t r = 0; r < R; ++r) slots[r] = filters.direct_slot(runs[r].key);
  else
    for (size_t r = 0; r < R; ++r) slots[r] = filters.group_slot(runs[r].key);
  // The merge, specialized for each kind of index: occurrences(r, o, o_end) gives run r's occurrences and
  // prefetch(r) prefetches them.
  auto merge = [&](auto&& occurrences, auto&& prefetch) {
    for (size_t r = 0; r < std::min(R, kEntryAhead); ++r) prefetch(r);
    for (size_t r = 0; r < R; ++r) {
      if (r + kEntryAhead < R) prefetch(r + kEntryAhead);
      const Run& run = runs[r];
      const size_t last = r + 1 < R ? runs[r + 1].first : H;
      const uint64_t db_pos = hits[run.first].db_pos;
      const uint64_t rc = revcomp_wmer(run.fwd, w);
      const SubqueryFilters::Occurrence *o, *o_end;
      occurrences(r, o, o_end);
      bool located = false;
      uint32_t subject = 0;
      uint64_t s_pos = 0;
      for (size_t i = run.first; i < last; ++i) {
        const uint32_t v = hits[i].subquery;
        while (o < o_end && filters.subquery_of(o->query, o->pos & ~SubqueryFilters::kFwdIsKey) < v) ++o;
        bool any = false;
        for (; o < o_end; ++o) {
          const uint32_t q_pos = o->pos & ~SubqueryFilters::kFwdIsKey;
          if (filters.subquery_of(o->query, q_pos) != v) break;
          if (!located) {
            locate(db_pos, subject, s_pos);
            located = true;
          }
          any = true;
          // The query's plus-strand w-mer equals the db w-mer (plus seed) or its reverse complement (minus seed);
          // a reverse-palindromic w-mer is both.
          const uint64_t qfwd = (o->pos & SubqueryFilters::kFwdIsKey) ? run.key : revcomp_wmer(run.key, w);
          if (qfwd == run.fwd) seeds.push_back(Seed{s_pos, o->query, subject, q_pos, 0});
          if (qfwd == rc) seeds.push_back(Seed{s_pos, o->query, subject, q_pos, 1});
        }
        ++(any ? tp : fp)[v];
      }
    }
  };
  using Occ = SubqueryFilters::Occurrence;
  if (direct)
    merge([&](size_t r, const Occ*& o, const Occ*& e) { filters.direct_occurrences(slots[r], o, e); },
          [&](size_t r) { filters.prefetch_direct_entries(slots[r]); });
  else
    merge([&](size_t r, const Occ*& o, const Occ*& e) { filters.group_occurrences(slots[r], runs[r].key, o, e); },
          [&](size_t r) { filters.prefetch_group_entries(slots[r]); });
}

}  // namespace bloomseq
