#include "bloomseq/split/subquery.hpp"

#include <algorithm>
#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq {

std::vector<SubQuery> split_subqueries(const std::vector<uint64_t>& record_lengths, uint64_t n_sub, int w) {
  if (w < 1 || w > 32) throw UsageError("word size must be 1..32, got " + std::to_string(w));
  if (n_sub < uint64_t(w))
    throw UsageError("sub-query length (" + std::to_string(n_sub) + ") must be at least the word size (" +
                     std::to_string(w) + ")");
  const uint64_t stride = n_sub - uint64_t(w) + 1;  // w-mer starts per sub-query
  std::vector<SubQuery> out;
  bool open = false;        // out.back() packs whole records and may take more
  uint64_t open_starts = 0;  // its w-mer starts
  for (size_t r = 0; r < record_lengths.size(); ++r) {
    const uint64_t len = record_lengths[r];
    if (len < uint64_t(w)) continue;
    const uint64_t starts = len - uint64_t(w) + 1;
    if (starts <= stride) {
      if (open && open_starts + starts <= stride) {
        SubQuery& sq = out.back();
        for (size_t i = sq.query_id + sq.records; i <= r; ++i) sq.length += record_lengths[i];
        sq.records = uint32_t(r - sq.query_id + 1);
        open_starts += starts;
      } else {
        out.push_back({uint32_t(r), 0, len, 1});
        open = true;
        open_starts = starts;
      }
      continue;
    }
    open = false;
    for (uint64_t s = 0; s < starts; s += stride) {
      const uint64_t nstarts = std::min(stride, starts - s);
      out.push_back({uint32_t(r), s, nstarts + uint64_t(w) - 1, 1});
    }
  }
  return out;
}

}  // namespace bloomseq
