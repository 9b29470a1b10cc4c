#include "bloomseq/blast/strided_seeds.hpp"

#include <algorithm>
#include <tuple>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

void seeds_from_probes(const std::vector<Stage1aHit>& hits, const DbBatch& batch,
                       const std::vector<std::vector<uint8_t>>& queries, int w, int probe_word,
                       const SubqueryFilters& probe_filters, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                       std::vector<uint64_t>& fp) {
  const int p = probe_word;
  const uint64_t s = uint64_t(w - p + 1);
  const uint8_t* db = batch.codes.data();
  const uint64_t db_n = batch.codes.size();
  std::vector<Seed> at_t;  // the seeds found from one probe position, put in order before they are appended
  const bool by_position = probe_filters.by_position();
  std::vector<SubqueryFilters::Occurrence> in_v;
  for (size_t i = 0; i < hits.size();) {
    const uint64_t db_pos = hits[i].db_pos;
    size_t last = i;
    while (last < hits.size() && hits[last].db_pos == db_pos) ++last;
    const uint64_t t = db_pos - batch.first_pos;  // local offset of the probe
    uint64_t fwd = 0;
    for (int j = 0; j < p; ++j) fwd = (fwd << 2) | db[t + uint64_t(j)];
    const uint64_t rc = revcomp_wmer(fwd, p);
    const uint64_t key = canonical_wmer(fwd, rc);
    const SubqueryFilters::Occurrence *o = nullptr, *o_end = nullptr;
    if (!by_position) probe_filters.occurrences(key, o, o_end);
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
