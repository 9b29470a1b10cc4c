#include "bloomseq/blast/strided_seeds.hpp"

#include <algorithm>
#include <tuple>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

void seeds_from_probes(const std::vector<Stage1aHit>& all_hits, const DbBatch& batch,
                       const std::vector<std::vector<uint8_t>>& queries, int w, int probe_word,
                       const SubqueryFilters& probe_filters, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                       std::vector<uint64_t>& fp, const WordPresence* presence) {
  const int p = probe_word;
  const uint64_t s = uint64_t(w - p + 1);
  const uint8_t* db = batch.codes.data();
  const uint64_t db_n = batch.codes.size();
  // A probe in no query w-mer gives no seed; it is still a true positive of its sub-query, the filter being exact
  // (presence is only given with exact filters): the probe word is there, as the index would have said.
  thread_local std::vector<Stage1aHit> kept;
  const std::vector<Stage1aHit>* selected = &all_hits;
  if (presence && !presence->empty()) {
    // First every probe's answer, in a loop without branches on the answers, so that the table's cache misses
    // overlap; then the kept probes.
    thread_local std::vector<uint8_t> keep;
    keep.resize(all_hits.size());
    for (size_t i = 0; i < all_hits.size(); ++i)
      keep[i] = presence->any_containing(db, db_n, all_hits[i].db_pos - batch.first_pos, s);
    kept.clear();
    for (size_t i = 0; i < all_hits.size(); ++i) {
      if (keep[i]) kept.push_back(all_hits[i]);
      else ++tp[all_hits[i].subquery];
    }
    selected = &kept;
  }
  const std::vector<Stage1aHit>& hits = *selected;
  std::vector<Seed> at_t;  // the seeds found from one probe position, put in order before they are appended
  const bool by_position = probe_filters.by_position();
  std::vector<SubqueryFilters::Occurrence> in_v;
  // With the index (probes of a short word hit often), the words and index slots of all the chunk's probe positions
  // are read first in one tight loop, so that their cache misses overlap, and the entries a slot points to are
  // prefetched a few positions ahead (as verify_hits does).
  using Occurrence = SubqueryFilters::Occurrence;
  const bool direct = probe_filters.direct_index();
  std::vector<uint64_t> fwds;
  std::vector<Occurrence> slots;
  if (!by_position) {
    for (size_t i = 0; i < hits.size(); ++i) {
      if (i > 0 && hits[i].db_pos == hits[i - 1].db_pos) continue;
      const uint64_t t = hits[i].db_pos - batch.first_pos;
      uint64_t fwd = 0;
      for (int j = 0; j < p; ++j) fwd = (fwd << 2) | db[t + uint64_t(j)];
      fwds.push_back(fwd);
    }
    slots.resize(fwds.size());
    for (size_t j = 0; j < fwds.size(); ++j) {
      const uint64_t key = canonical_wmer(fwds[j], revcomp_wmer(fwds[j], p));
      slots[j] = direct ? probe_filters.direct_slot(key) : probe_filters.group_slot(key);
    }
  }
  constexpr size_t kAhead = 8;
  for (size_t i = 0, at = 0; i < hits.size(); ++at) {
    const uint64_t db_pos = hits[i].db_pos;
    size_t last = i;
    while (last < hits.size() && hits[last].db_pos == db_pos) ++last;
    const uint64_t t = db_pos - batch.first_pos;  // local offset of the probe
    uint64_t fwd = 0;
    if (by_position)
      for (int j = 0; j < p; ++j) fwd = (fwd << 2) | db[t + uint64_t(j)];
    else
      fwd = fwds[at];
    const uint64_t rc = revcomp_wmer(fwd, p);
    const uint64_t key = canonical_wmer(fwd, rc);
    const Occurrence *o = nullptr, *o_end = nullptr;
    if (!by_position) {
      if (at + kAhead < slots.size()) {
        if (direct) probe_filters.prefetch_direct_entries(slots[at + kAhead]);
        else probe_filters.prefetch_group_entries(slots[at + kAhead]);
      }
      if (direct) probe_filters.direct_occurrences(slots[at], o, o_end);
      else probe_filters.group_occurrences(slots[at], key, o, o_end);
    }
    at_t.clear();
    size_t record = SIZE_MAX;
    for (; i < last; ++i) {
      // The key's occurrences in sub-query v: [o_v, o_v_end).
      const uint32_t v = hits[i].subquery;
      const SubqueryFilters::Occurrence *o_v, *o_v_end;
      if (by_position) {
        probe_filters.subquery_occurrences(v, key, in_v);
        o_v = in_v.data();
        o_v_end = o_v + in_v.size();
      } else {
        while (o < o_end && probe_filters.subquery_of(o->query, o->pos & ~SubqueryFilters::kFwdIsKey) < v) ++o;
        o_v = o;
        while (o < o_end && probe_filters.subquery_of(o->query, o->pos & ~SubqueryFilters::kFwdIsKey) == v) ++o;
        o_v_end = o;
      }
      const bool any = o_v != o_v_end;
      for (const SubqueryFilters::Occurrence* oc = o_v; oc < o_v_end; ++oc) {
        const uint32_t q = oc->pos & ~SubqueryFilters::kFwdIsKey;
        const std::vector<uint8_t>& qc = queries[oc->query];
        const uint64_t q_len = qc.size();
        const uint64_t qfwd = (oc->pos & SubqueryFilters::kFwdIsKey) ? key : revcomp_wmer(key, p);
        if (record == SIZE_MAX) record = batch.record_at(t);
        const uint64_t rec_start = batch.local_starts[record];
        // Invalid codes (N, record separators) never match, so the runs stop at record ends by themselves; the
        // bounds checks cover the batch's first base and the query record's ends.
        if (qfwd == fwd) {  // plus: db[t + i] == q[q + i]
          uint64_t left = 0, right = uint64_t(p);
          while (left + 1 < s && left < t && left < q && db[t - left - 1] < 4 && db[t - left - 1] == qc[q - left - 1])
            ++left;
          while (right < uint64_t(w) && t + right < db_n && q + right < q_len && db[t + right] < 4 &&
                 db[t + right] == qc[q + right])
            ++right;
          // The w-mer at t - l matches when l <= left and right >= w - l.
          for (uint64_t l = left + 1; l-- > 0;)
            if (right + l >= uint64_t(w)) at_t.push_back(Seed{t - l - rec_start, oc->query, 0, uint32_t(q - l), 0});
        }
        if (qfwd == rc) {  // minus: db[t + i] == complement(q[q + p - 1 - i])
          const uint64_t qe = q + uint64_t(p) - 1;  // the query base paired with db[t]
          uint64_t left = 0, right = uint64_t(p);
          while (left + 1 < s && left < t && qe + left + 1 < q_len && db[t - left - 1] < 4 &&
                 db[t - left - 1] == complement_code(qc[qe + left + 1]))
            ++left;
          while (right < uint64_t(w) && t + right < db_n && right <= qe && db[t + right] < 4 &&
                 db[t + right] == complement_code(qc[qe - right]))
            ++right;
          // The db w-mer at t - l pairs with the query w-mer ending at qe + l: it starts at qe + l - w + 1.
          for (uint64_t l = left + 1; l-- > 0;)
            if (right + l >= uint64_t(w))
              at_t.push_back(Seed{t - l - rec_start, oc->query, 0, uint32_t(qe + l + 1 - uint64_t(w)), 1});
        }
      }
      ++(any ? tp : fp)[v];
    }
    if (at_t.empty()) continue;
    std::sort(at_t.begin(), at_t.end(), [](const Seed& a, const Seed& b) {
      return std::tie(a.s_pos, a.query, a.q_pos, a.strand) < std::tie(b.s_pos, b.query, b.q_pos, b.strand);
    });
    const uint32_t subject = batch.first_record + uint32_t(record);
    for (Seed& x : at_t) {
      x.subject = subject;
      seeds.push_back(x);
    }
  }
}

}  // namespace bloomseq
