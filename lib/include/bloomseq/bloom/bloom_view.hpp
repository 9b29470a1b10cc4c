// A Bloom vector of m bits as a non-owning, trivially copyable view: what kernels receive by value, whether the
// bits live in host memory, GPU global memory or shared memory.
//
// Bits are addressed through 32-bit words (bit b is bit b%32 of word b/32), which is also the byte layout of
// the file format and what GPU shared-memory banks serve. A 32-bit hash h is reduced to a bit index with
// (h * m) >> 32 (Lemire's fast range), so m need not be a power of two; for m = 2^j it takes the j top bits.
#pragma once
#include <cstdint>

#include "bloomseq/hd.hpp"

namespace bloomseq {

BLOOMSEQ_HD uint64_t bloom_slot(uint32_t h, uint64_t m_bits) { return (uint64_t(h) * m_bits) >> 32; }

BLOOMSEQ_HD bool test_bit(const uint32_t* words, uint64_t bit) { return (words[bit >> 5] >> (bit & 31)) & 1u; }
BLOOMSEQ_HD void set_bit(uint32_t* words, uint64_t bit) { words[bit >> 5] |= 1u << (bit & 31); }

// Words needed for m bits.
BLOOMSEQ_HD uint64_t bloom_words(uint64_t m_bits) { return (m_bits + 31) / 32; }

// How a probe loads a word: plainly (host memory, GPU shared memory) or, for bits in GPU global memory that no
// kernel writes, through the read-only data cache.
struct PlainLoad {
  BLOOMSEQ_HD uint32_t operator()(const uint32_t* p) const { return *p; }
  BLOOMSEQ_HD uint64_t operator()(const uint64_t* p) const { return *p; }
};
struct ReadOnlyLoad {
  BLOOMSEQ_HD uint32_t operator()(const uint32_t* p) const {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
  }
  BLOOMSEQ_HD uint64_t operator()(const uint64_t* p) const {
#if defined(__CUDA_ARCH__)
    return uint64_t(__ldg(reinterpret_cast<const unsigned long long*>(p)));
#else
    return *p;
#endif
  }
};

struct ConstBloomView {
  const uint32_t* words = nullptr;
  uint64_t m_bits = 0;

  // True if all k probed bits are set (early exit on the first zero).
  BLOOMSEQ_HD bool contains(const uint32_t* hashes, int k) const { return contains_upto<32>(hashes, k); }
  // The same for k <= KMax, the loop unrolled to KMax on the device (the hashes stay in registers).
  template <int KMax, class Load = PlainLoad>
  BLOOMSEQ_HD bool contains_upto(const uint32_t* hashes, int k, Load load = {}) const {
    BLOOMSEQ_UNROLL
    for (int i = 0; i < KMax; ++i) {
      if (i >= k) break;
      const uint64_t bit = bloom_slot(hashes[i], m_bits);
      if (!((load(words + (bit >> 5)) >> (bit & 31)) & 1u)) return false;
    }
    return true;
  }
};

struct BloomView {
  uint32_t* words = nullptr;
  uint64_t m_bits = 0;

  BLOOMSEQ_HD void insert(const uint32_t* hashes, int k) const {
    for (int i = 0; i < k; ++i) set_bit(words, bloom_slot(hashes[i], m_bits));
  }
  BLOOMSEQ_HD bool contains(const uint32_t* hashes, int k) const { return ConstBloomView{words, m_bits}.contains(hashes, k); }
  BLOOMSEQ_HD operator ConstBloomView() const { return {words, m_bits}; }
};

}  // namespace bloomseq
