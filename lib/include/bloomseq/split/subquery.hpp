// Splitting a query into sub-queries of n_sub bases that overlap by w-1, so that every w-mer start of the query
// belongs to exactly one sub-query (Mercury BLAST: one Bloom vector per sub-query). Records too short to fill a
// sub-query share one: consecutive whole records are packed while their w-mer starts fit in one sub-query's, so the
// number of sub-queries (and of filters) follows the query's bases, not its record count. No w-mer spans two
// records: a packed sub-query holds each record's w-mers separately.
#pragma once
#include <cstdint>
#include <vector>

namespace bloomseq {

struct SubQuery {
  uint32_t query_id;     // index of the (first) query record
  uint64_t offset;       // first base of the sub-query within the record (0 when records > 1)
  uint64_t length;       // bases (with records > 1: the records' total)
  uint32_t records = 1;  // > 1: the whole records query_id .. query_id + records - 1
};

// Sub-queries for query records of the given lengths. A record of L >= w bases with at most n_sub - w + 1 w-mer
// starts is packed whole with its neighbours while their starts together fit in n_sub - w + 1; a longer record
// contributes ceil((L - w + 1) / (n_sub - w + 1)) sub-queries of its own; records shorter than w have no w-mers.
// Sub-queries are in record order. Throws UsageError unless 1 <= w <= 32 and n_sub >= w.
std::vector<SubQuery> split_subqueries(const std::vector<uint64_t>& record_lengths, uint64_t n_sub, int w);

// Calls f(record, offset, length) for each stretch of one record that sub-query `sq` holds (records shorter than w
// included when packed: they have no w-mers). `length_of(r)`: the length of record r.
template <class LengthOf, class F>
void for_each_piece(const SubQuery& sq, LengthOf&& length_of, F&& f) {
  if (sq.records <= 1) {
    f(sq.query_id, sq.offset, sq.length);
    return;
  }
  for (uint32_t r = sq.query_id; r < sq.query_id + sq.records; ++r) f(r, uint64_t(0), uint64_t(length_of(r)));
}

}  // namespace bloomseq
