// Building the stage-1a data structures from a query: sub-queries, one Bloom vector per sub-query (canonical
// w-mers, k shared affine-H3 functions), and optionally the same bits transposed into a bit-sliced matrix.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/split/subquery.hpp"

namespace bloomseq {

// Bit-sliced form of V vectors: row r holds bit r of every vector, column v = vector v. Rows are padded to
// `words_per_row` 64-bit words (a multiple of 8, so a 512-bit SIMD block never straddles two rows).
struct BitslicedMatrix {
  const uint64_t* rows = nullptr;  // m_bits rows of words_per_row words
  uint32_t count = 0;              // V
  uint64_t m_bits = 0;
  uint64_t words_per_row = 0;
  int k = 0;
  H3ByteView hash;
};

// Everything stage 1a needs about the query, owning its memory.
class SubqueryFilters {
 public:
  SubqueryFilters() = default;
  // `queries`: 2-bit codes of every query record. Builds the per-sub-query vectors when `with_vectors` and the
  // bit-sliced matrix when `with_bitsliced` (the same bits; each is hundreds of MB for a genome-sized query).
  SubqueryFilters(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params, bool with_vectors,
                  bool with_bitsliced);

  const std::vector<SubQuery>& subqueries() const { return subqueries_; }
  uint32_t count() const { return uint32_t(subqueries_.size()); }
  // Distinct canonical w-mers inserted into vector v (the n of the FPR formula).
  uint64_t inserted(uint32_t v) const { return inserted_[v]; }
  const H3Family& family() const { return family_; }

  bool has_vectors() const { return !words_.empty(); }
  SubqueryVectors vectors() const;
  bool has_bitsliced() const { return !matrix_.empty(); }
  BitslicedMatrix bitsliced() const;
  uint64_t vector_bytes() const { return words_.size() * sizeof(uint32_t); }
  uint64_t bitsliced_bytes() const { return matrix_.size() * sizeof(uint64_t); }

 private:
  std::vector<SubQuery> subqueries_;
  std::vector<uint64_t> inserted_;
  H3Family family_;
  uint64_t m_bits_ = 0;
  uint64_t words_per_vector_ = 0;
  uint64_t words_per_row_ = 0;
  std::vector<uint32_t> words_;
  std::vector<uint64_t> matrix_;
};

}  // namespace bloomseq
