// A blocked Bloom filter (Putze, Sanders & Singler 2007) as a non-owning view over the same 32-bit words as
// BloomView: the m bits are split into 512-bit blocks (one 64-byte cache line each); hash function 0 picks the
// block (fast range over the block count) and functions 1..k each set or test one bit inside it (their top 9
// bits). A lookup therefore touches one cache line instead of k, at the price of a slightly higher FPR for the
// same m (blocks fill unevenly), which the builder pays for with ~15-20% more bits (blocked_bits_for_fpr).
// A filter with k probes uses k + 1 hash functions of the H3 family.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/hd.hpp"

namespace bloomseq {

// How a filter's bits are addressed; stored per filter in the .bf container.
enum class BloomLayout : uint8_t {
  classic = 0,     // k probes anywhere in m bits (bloom_view.hpp)
  blocked512 = 1,  // all k probes in one 512-bit block picked by hash 0 (this file)
};

constexpr uint64_t kBloomBlockBits = 512;
constexpr uint64_t kBloomBlockWords = kBloomBlockBits / 32;

// Hash functions a filter with k probes consumes.
BLOOMSEQ_HD int layout_hashes(BloomLayout layout, int k) { return layout == BloomLayout::blocked512 ? k + 1 : k; }

// First word of the block that hash 0 selects, for m bits (a multiple of 512).
BLOOMSEQ_HD uint64_t blocked_block_word(uint32_t h0, uint64_t m_bits) {
  return ((uint64_t(h0) * (m_bits / kBloomBlockBits)) >> 32) * kBloomBlockWords;
}
// Bit inside the block for hash i >= 1.
BLOOMSEQ_HD uint32_t blocked_bit(uint32_t h) { return h >> 23; }

struct ConstBlockedBloomView {
  const uint32_t* words = nullptr;
  uint64_t m_bits = 0;  // a multiple of kBloomBlockBits

  BLOOMSEQ_HD const uint32_t* block(uint32_t h0) const { return words + blocked_block_word(h0, m_bits); }
  // True if all k bits picked by hashes[1..k] are set in the block of hashes[0].
  BLOOMSEQ_HD bool contains(const uint32_t* hashes, int k) const { return contains_upto<33>(hashes, k); }
  // The same for k + 1 <= KMax hashes, the loop unrolled to KMax on the device.
  template <int KMax, class Load = PlainLoad>
  BLOOMSEQ_HD bool contains_upto(const uint32_t* hashes, int k, Load load = {}) const {
    const uint32_t* b = block(hashes[0]);
    BLOOMSEQ_UNROLL
    for (int i = 1; i < KMax; ++i) {
      if (i > k) break;
      const uint32_t bit = blocked_bit(hashes[i]);
      if (!((load(b + (bit >> 5)) >> (bit & 31)) & 1u)) return false;
    }
    return true;
  }
};

struct BlockedBloomView {
  uint32_t* words = nullptr;
  uint64_t m_bits = 0;

  BLOOMSEQ_HD void insert(const uint32_t* hashes, int k) const {
    uint32_t* b = words + blocked_block_word(hashes[0], m_bits);
    for (int i = 1; i <= k; ++i) {
      const uint32_t bit = blocked_bit(hashes[i]);
      b[bit >> 5] |= 1u << (bit & 31);
    }
  }
  BLOOMSEQ_HD bool contains(const uint32_t* hashes, int k) const {
    return ConstBlockedBloomView{words, m_bits}.contains(hashes, k);
  }
  BLOOMSEQ_HD operator ConstBlockedBloomView() const { return {words, m_bits}; }
};

}  // namespace bloomseq
