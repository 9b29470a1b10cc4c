// The owning interleaved Bloom filter (see interleaved_bloom_view.hpp for the layout), and the grouping of bins
// of very different sizes into a few interleaved filters, so that small references do not pay for the largest.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/interleaved_bloom_view.hpp"

namespace bloomseq {

// Leaves new elements uninitialised (a loader overwrites them all: no zeroing pass over gigabytes first).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... A>
  void construct(U* p, A&&... a) { ::new (static_cast<void*>(p)) U(std::forward<A>(a)...); }
};

class InterleavedBloom {
 public:
  using Rows = std::vector<uint64_t, DefaultInitAllocator<uint64_t>>;
  InterleavedBloom() = default;
  // `bins` filters of `m_bits` bits each, all clear. Throws UsageError for 0 bins, m outside 1..2^32, or a size
  // that does not fit in 64 bits.
  InterleavedBloom(uint32_t bins, uint64_t m_bits);
  // The same size with the rows left uninitialised, for a loader that fills them all (data()). The memory is
  // offered to transparent huge pages first: lookups land on random rows, and with 4 KiB pages nearly every one
  // would also miss the TLB.
  static InterleavedBloom for_loading(uint32_t bins, uint64_t m_bits);
  // A filter whose rows live elsewhere (a read-only mapping of a .bf file), kept alive by `owner`. It reads like
  // an owned one; the first access for writing (view(), data(), insert, set_bin(s)) copies the rows into a
  // buffer of its own, so the mapping is never written.
  static InterleavedBloom borrowed(uint32_t bins, uint64_t m_bits, const uint64_t* rows,
                                   std::shared_ptr<const void> owner);

  uint32_t bins() const { return bins_; }
  uint64_t m_bits() const { return m_bits_; }
  uint32_t words_per_row() const { return words_per_row_; }
  uint64_t size_bytes() const { return m_bits_ * words_per_row_ * 8; }
  bool is_borrowed() const { return borrowed_ != nullptr; }
  const uint64_t* row_data() const { return borrowed_ ? borrowed_ : rows_.data(); }
  InterleavedBloomView view() { return {data(), m_bits_, bins_, words_per_row_}; }
  ConstInterleavedBloomView view() const { return {row_data(), m_bits_, bins_, words_per_row_}; }
  void insert(uint32_t bin, const uint32_t* hashes, int k) { view().insert(bin, hashes, k); }
  // Sets every bit of `bin` that is set in `v` (a filter built separately with the same m and hashes).
  void set_bin(uint32_t bin, const BloomVector& v);
  // set_bin for up to 64 bins at once: bins first_bin .. first_bin + count - 1 (first_bin a multiple of 64, all
  // in one row word) from vectors[0 .. count), null = leave clear. Transposes 64 x 64 bit blocks, so each row
  // word is written once, where set_bin touches every row once per bin.
  void set_bins(uint32_t first_bin, const BloomVector* const* vectors, uint32_t count);
  // Bin b as a plain Bloom vector (bit for bit what separate inserts into a BloomVector of m bits give).
  BloomVector bin_vector(uint32_t bin) const;
  uint64_t bin_popcount(uint32_t bin) const;
  // Every bin's set bits, in one pass over the rows (bin_popcount for each bin would read them all once per bin).
  std::vector<uint64_t> bin_popcounts() const;
  // Owned rows only (a borrowed filter throws std::logic_error): use row_data() to read either.
  const Rows& rows() const;
  uint64_t* data();  // for loading rows from a file

 private:
  uint32_t bins_ = 0;
  uint64_t m_bits_ = 0;
  uint32_t words_per_row_ = 0;
  Rows rows_;
  const uint64_t* borrowed_ = nullptr;
  std::shared_ptr<const void> owner_;  // keeps borrowed_ valid
};

// Bins of similar size share one interleaved filter sized for its largest member.
struct BinGroup {
  uint64_t m_bits = 0;             // the largest member's size
  std::vector<uint32_t> members;   // indices into the input, ascending size
};

// Groups bins (needed sizes in bits) so that within a group the largest size is at most `max_ratio` times the
// smallest (the memory a group wastes on its smaller members is then below that factor) and a group has at most
// `max_bins` members. Groups come in ascending size; every input index is in exactly one group.
std::vector<BinGroup> group_bins_by_size(const std::vector<uint64_t>& bits_needed, double max_ratio = 2.0,
                                         uint32_t max_bins = 4096);

// Groups bins (needed sizes in bits) so that the groups' rows take the fewest bits: a group of b bins whose
// largest member needs m bits takes m x 64 ceil(b / 64) bits (rows are whole 64-bit words), so a group of very
// different sizes wastes the small members' share and a small group wastes the rest of its last word. Groups are
// runs of the bins in ascending size (an exact dynamic programme over those), at most `max_bins` each; as above,
// they come in ascending size and every index is in exactly one. `group_cost_bits` prices a group beyond its rows:
// every group costs each lookup k more row reads, so a classifier wants few groups and pays some memory for them
// (0: memory alone decides, and bins of nearly equal size end up in many groups of 64).
std::vector<BinGroup> group_bins_min_memory(const std::vector<uint64_t>& bits_needed, uint32_t max_bins = 4096,
                                            uint64_t group_cost_bits = 0);

}  // namespace bloomseq
