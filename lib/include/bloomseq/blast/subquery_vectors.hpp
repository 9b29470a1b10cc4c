// Building the stage-1a data structures from a query: sub-queries, one Bloom vector per sub-query (canonical
// w-mers, k shared affine-H3 functions), and optionally the same bits transposed into a bit-sliced matrix.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/fast_divide.hpp"
#include "bloomseq/blast/huge_buffer.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/split/subquery.hpp"

namespace bloomseq {

// BitslicedMatrix (the bit-sliced form of the vectors) is in backend/stage1a.hpp, beside SubqueryVectors.

// Everything stage 1a needs about the query, owning its memory.
class SubqueryFilters {
 public:
  SubqueryFilters() = default;
  // `queries`: 2-bit codes of every query record. Builds the per-sub-query vectors when `with_vectors` and the
  // bit-sliced matrix when `with_bitsliced` (the same bits; each is hundreds of MB for a genome-sized query).
  // With `by_position` (and w < 32) there is no stage-1b index but the w-mer of every query position
  // (subquery_occurrences): for probe words, whose few stage-1a hits each name the one sub-query to search.
  SubqueryFilters(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params, bool with_vectors,
                  bool with_bitsliced, bool by_position = false);

  const std::vector<SubQuery>& subqueries() const { return subqueries_; }
  uint32_t count() const { return uint32_t(subqueries_.size()); }
  // Distinct canonical w-mers inserted into vector v (the n of the FPR formula).
  // Counted once, on first use (only --stats and the model ask for it).
  uint64_t inserted(uint32_t v) const {
    std::call_once(*distinct_once_, [this] { by_position_ ? count_distinct_by_position() : count_distinct(); });
    return inserted_[v];
  }
  const H3Family& family() const { return family_; }

  // Stage 1b's index of every query w-mer (all records, both strands through the canonical key): occurrences
  // grouped by the top index bits of the key, sorted within a group by (key, query record, position). A look-up
  // reads one slot of the group table and the group's entries (one or two cache lines), whatever the sub-query.
  struct Occurrence {
    uint32_t query;  // query record
    uint32_t pos;    // 0-based w-mer start on the plus strand; kFwdIsKey set when the plus-strand w-mer is the key
  };
  static constexpr uint32_t kFwdIsKey = 0x80000000u;
  // In the direct-mapped index (w <= 11): a slot whose query field has this bit holds a count, not an occurrence.
  static constexpr uint32_t kIndirect = 0x80000000u;
  // The occurrences of canonical `key`: [begin, end) (empty when the query lacks it), in (record, position) order.
  void occurrences(uint64_t key, const Occurrence*& begin, const Occurrence*& end) const;
  // True when the index is direct-mapped (one slot per key: w <= 11 and a query of 4^w / 16 to 4^w / 2 w-mers).
  bool direct_index() const { return !direct_.empty(); }
  // A look-up in two steps, so that stage 1b can read the slots of a whole chunk's keys in one tight loop first:
  // many of their cache misses are then in flight at once, while look-ups spread over the merge loop wait on each
  // other (the reorder window holds only a few of its iterations). With the direct-mapped index, direct_slot copies
  // the key's slot and direct_occurrences gives its occurrences ([begin, end) may be the copy itself, which must
  // outlive their use); with the grouped index, group_slot copies {first, end} of the key's group (as an
  // Occurrence) and group_occurrences finds the key in it. Both give what occurrences() gives.
  Occurrence direct_slot(uint64_t key) const { return direct_[key]; }
  Occurrence group_slot(uint64_t key) const {
    const uint32_t* g = group_start_.data() + (key >> group_shift_);
    return Occurrence{g[0], g[1]};
  }
  void direct_occurrences(const Occurrence& slot, const Occurrence*& begin, const Occurrence*& end) const {
    if (!(slot.query & kIndirect)) {
      begin = &slot;
      end = &slot + 1;
      return;
    }
    end = occ_.data() + slot.pos;
    begin = end - (slot.query & ~kIndirect);
  }
  void group_occurrences(const Occurrence& slot, uint64_t key, const Occurrence*& begin,
                         const Occurrence*& end) const {
    group_occurrences(slot.query, slot.pos, key, begin, end);
  }
  // Prefetch the entries a copied slot points to (none for a direct slot that holds its occurrence).
  void prefetch_direct_entries(const Occurrence& slot) const {
    if (slot.query & kIndirect) __builtin_prefetch(occ_.data() + slot.pos - (slot.query & ~kIndirect));
  }
  void prefetch_group_entries(const Occurrence& slot) const {
    __builtin_prefetch(occ_.data() + slot.query);
    if (!occ_keys_.empty()) __builtin_prefetch(occ_keys_.data() + slot.query);
  }
  // Built by_position (no index): the occurrences of canonical `key` among the w-mers of sub-query v, in position
  // order, into `out` (cleared first): what occurrences() gives for the key, restricted to sub-query v. Reads the
  // sub-query's n_sub - w + 1 positions (a few microseconds): for the few look-ups of probe words, against an index
  // of every query w-mer whose random writes and fresh pages took most of the build of a genome-sized query.
  bool by_position() const { return by_position_; }
  void subquery_occurrences(uint32_t v, uint64_t key, std::vector<Occurrence>& out) const;

  // The sub-query holding the w-mer that starts at `pos` of query record `query` (w-mer starts partition them).
  uint32_t subquery_of(uint32_t query, uint32_t pos) const { return first_subquery_[query] + stride_.divide(pos); }

  bool has_vectors() const { return !words_.empty(); }
  SubqueryVectors vectors() const;
  bool has_bitsliced() const { return !matrix_.empty(); }
  BitslicedMatrix bitsliced() const;
  uint64_t vector_bytes() const { return uint64_t(words_.size()) * sizeof(uint32_t); }
  uint64_t bitsliced_bytes() const { return uint64_t(matrix_.size()) * sizeof(uint64_t); }

 private:
  // The occurrences of `key` in the group occ_[lo, hi) of the grouped index.
  void group_occurrences(size_t lo, size_t hi, uint64_t key, const Occurrence*& begin, const Occurrence*& end) const;
  // On `threads` threads (from a million w-mers on), each counting and placing the w-mers of a range of keys.
  void build_direct_index(const std::vector<std::vector<uint8_t>>& queries, int w, uint64_t starts, int threads);
  // On `threads` threads, each counting and placing the w-mers of a range of groups.
  void build_grouped_index(const std::vector<std::vector<uint8_t>>& queries, int w, uint64_t starts, int threads);
  void count_distinct() const;
  void build_vectors(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params);
  // The bit-sliced matrix, column block by column block (subquery_vectors.cpp says how).
  void build_bitsliced(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params);
  void build_position_words(const std::vector<std::vector<uint8_t>>& queries, int w);
  void count_distinct_by_position() const;

  uint64_t record_length(uint32_t r) const { return lengths_[r]; }
  // W-mer starts of sub-query v (over its records when it packs several).
  uint64_t starts_of(uint32_t v) const;

  std::vector<SubQuery> subqueries_;
  std::vector<uint64_t> lengths_;  // per query record
  mutable std::vector<uint64_t> inserted_;
  std::unique_ptr<std::once_flag> distinct_once_ = std::make_unique<std::once_flag>();  // movable, unlike the flag
  // by_position: the plus-strand w-mer starting at each position of each record (kNoWord where the window holds an
  // invalid base), records one after the other from word_start_[record].
  static constexpr uint64_t kNoWord = ~uint64_t(0);  // above every w-mer of w < 32 bases
  bool by_position_ = false;
  int w_ = 0;
  HugeBuffer<uint64_t> words_at_;
  std::vector<uint64_t> word_start_;
  std::vector<uint32_t> first_subquery_;  // per query record (records shorter than w: unused)
  FastDivide32 stride_;                   // w-mer starts per sub-query (n_sub <= 2^31); divided by per seed
  HugeBuffer<uint32_t> group_start_;      // 2^index bits + 1 offsets into occ_
  HugeBuffer<Occurrence> occ_;
  HugeBuffer<uint64_t> occ_keys_;         // the keys of occ_, kept only when the group bits do not say it all
  HugeBuffer<Occurrence> direct_;         // the direct-mapped index: one slot per key (then no group_start_)
  int group_shift_ = 0;
  H3Family family_;
  uint64_t m_bits_ = 0;
  uint64_t words_per_vector_ = 0;
  uint64_t words_per_row_ = 0;
  uint64_t full_blocks_ = 0;
  uint64_t tail_words_ = 0;
  HugeBuffer<uint32_t> words_;
  HugeBuffer<uint64_t> matrix_;
};

}  // namespace bloomseq
