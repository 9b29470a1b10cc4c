// Splitting a query into sub-queries of n_sub bases that overlap by w-1, so that every w-mer start of the query
// belongs to exactly one sub-query (Mercury BLAST: one Bloom vector per sub-query).
#pragma once
#include <cstdint>
#include <vector>

namespace bloomseq {

struct SubQuery {
  uint32_t query_id;  // index of the query record
  uint64_t offset;    // first base of the sub-query within the record
  uint64_t length;    // bases (<= n_sub; the last one of a record may be shorter)
};

// Sub-queries for query records of the given lengths. Record r contributes ceil((L - w + 1) / (n_sub - w + 1))
// sub-queries, none if L < w. Throws UsageError unless 1 <= w <= 32 and n_sub >= w.
std::vector<SubQuery> split_subqueries(const std::vector<uint64_t>& record_lengths, uint64_t n_sub, int w);

}  // namespace bloomseq
