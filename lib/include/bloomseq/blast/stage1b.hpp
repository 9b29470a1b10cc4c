// Stage 1b: exact verification of stage-1a hits against an index of the query's w-mers. A hit (db w-mer,
// sub-query) is a true positive when the w-mer (either strand) occurs in that sub-query; each occurrence is a seed.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"

namespace bloomseq {

// An exact w-mer match. Positions are 0-based starts of the w-mer on the plus strands; strand 1 means the db
// w-mer equals the reverse complement of the query w-mer.
struct Seed {
  uint64_t s_pos;      // within the subject record
  uint32_t query;
  uint32_t subject;    // global record index
  uint32_t q_pos;      // query records are limited to 2^31 bases
  uint8_t strand;      // 0 plus, 1 minus

  bool operator<(const Seed& o) const;
  bool operator==(const Seed& o) const;
};

// Verifies the hits of one chunk (db codes of its batch given by `batch_codes`, stream coordinate of
// batch_codes[0] = batch_first_pos) against the index of the query w-mers (SubqueryFilters::occurrences);
// appends seeds and counts true/false positives per sub-query.
// `locate(db_pos, subject, s_pos)` maps a stream coordinate to the record and offset.
template <class Locate>
void verify_hits(const std::vector<Stage1aHit>& hits, const uint8_t* batch_codes, uint64_t batch_first_pos, int w,
                 const SubqueryFilters& filters, Locate&& locate,
                 std::vector<Seed>& seeds, std::vector<uint64_t>& tp, std::vector<uint64_t>& fp);

}  // namespace bloomseq

#include "bloomseq/blast/stage1b_impl.hpp"
