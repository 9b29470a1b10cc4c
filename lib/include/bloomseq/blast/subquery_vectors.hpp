// Building the stage-1a data structures from a query: sub-queries, one Bloom vector per sub-query (canonical
// w-mers, k shared affine-H3 functions), and optionally the same bits transposed into a bit-sliced matrix.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/huge_buffer.hpp"
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

  // The sub-query's w-mers for exact verification (stage 1b), sorted by (canonical key, position): `n` entries
  // from `keys`, with the query position (0-based, plus strand; bit 31 set when the plus-strand w-mer is the key).
  struct WmerList {
    const uint64_t* keys;
    const uint32_t* pos;
    size_t n;
  };
  static constexpr uint32_t kFwdIsKey = 0x80000000u;
  // Smallest and largest key of sub-query v's list (0 for an empty list); small arrays that stay cached.
  uint64_t min_key(uint32_t v) const { return key_range_[2 * size_t(v)]; }
  uint64_t max_key(uint32_t v) const { return key_range_[2 * size_t(v) + 1]; }
  WmerList wmers(uint32_t v) const {
    return {keys_.data() + key_begin_[v], key_pos_.data() + key_begin_[v], size_t(key_count_[v])};
  }

  // Where `key` can lie in sub-query v's list: [lo, hi) holds the keys sharing its top bits (a few entries), so a
  // look-up touches one line of this table and one or two of the list instead of the ~log2(n) lines of a binary
  // search. Every key before lo is smaller and every key from hi on is larger.
  static constexpr uint32_t kKeyBuckets = 256;
  void key_bucket(uint32_t v, uint64_t key, size_t& lo, size_t& hi) const {
    const uint32_t* b = bucket_start_.data() + size_t(v) * (kKeyBuckets + 1) + (key >> bucket_shift_);
    lo = b[0];
    hi = b[1];
  }

  bool has_vectors() const { return !words_.empty(); }
  SubqueryVectors vectors() const;
  bool has_bitsliced() const { return !matrix_.empty(); }
  BitslicedMatrix bitsliced() const;
  uint64_t vector_bytes() const { return uint64_t(words_.size()) * sizeof(uint32_t); }
  uint64_t bitsliced_bytes() const { return uint64_t(matrix_.size()) * sizeof(uint64_t); }

 private:
  std::vector<SubQuery> subqueries_;
  std::vector<uint64_t> inserted_;
  HugeBuffer<uint64_t> keys_;
  HugeBuffer<uint32_t> key_pos_;
  std::vector<uint64_t> key_begin_, key_count_;
  std::vector<uint64_t> key_range_;
  std::vector<uint32_t> bucket_start_;  // per sub-query: kKeyBuckets + 1 list offsets by the key's top bits
  int bucket_shift_ = 0;
  H3Family family_;
  uint64_t m_bits_ = 0;
  uint64_t words_per_vector_ = 0;
  uint64_t words_per_row_ = 0;
  HugeBuffer<uint32_t> words_;
  HugeBuffer<uint64_t> matrix_;
};

}  // namespace bloomseq
