// The router of an interleaved set: which of its groups may hold a k-mer, answered from one 64-byte cache line.
//
// A set whose references fall into several size groups queried every group for every quick k-mer: k rows of
// each, most of them in vain (a k-mer of one reference is in one group). The router is a blocked Bloom filter of
// the pairs (k-mer, group): hash 0 of the k-mer picks one 512-bit block, and group g's k bits in it are functions
// 1..k of the k-mer mixed with g. One line then gives every group's answer, and only the groups it admits are
// queried (Raptor's hierarchical interleaved Bloom filter routes a query the same way, through a top level).
//
// The router chooses which bins a read's scan visits, never what a bin answers: in FACS's quick pass a k-mer hits
// bin b of group g only where the router admits g, and a bin with such a hit (a candidate) is then scanned on its
// own answers, as without a router. A random k-mer makes a bin a candidate only if it passes both, so the bins can
// be sized at FACS's 5e-4 instead of 0.05 / references (docs/facs.md); checking the router for every scanned
// k-mer too cost one more cache miss per k-mer of every true candidate (1,024 references: 1.4x the time).
//
// The hashes are those of an H3 family of k + 1 functions seeded by group_router_seed(set seed), independent of
// the bins' functions. Blocks are stored as the rows of an InterleavedBloom of 512 bins (8 words per row), so
// that loading, mapping and checksumming are the groups'.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/hd.hpp"

namespace bloomseq {

constexpr uint32_t kRouterBlockWords = 8;       // 512 bits
constexpr uint32_t kRouterMaxGroups = 64;       // a router's answer is one 64-bit mask
constexpr double kRouterBitsPerElement = 5.0;   // FPR ~0.1 per (k-mer, group) at k = 3
constexpr int kRouterHashes = 3;

// The router's H3 seed: a fixed function of the set's, so that it needs no field of its own.
BLOOMSEQ_HD uint64_t group_router_seed(uint64_t set_seed) { return set_seed ^ 0xA0761D6478BD642FULL; }

// Bit of group g inside the block for hash h: murmur3's finaliser over h and g, top 9 bits, so that the groups'
// bits of one k-mer are independent of each other.
BLOOMSEQ_HD uint32_t router_bit(uint32_t h, uint32_t group) {
  uint32_t x = h ^ ((group + 1) * 0x9E3779B9u);
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x >> 23;
}

struct ConstGroupRouterView {
  const uint64_t* blocks = nullptr;  // kRouterBlockWords words per block
  uint64_t n_blocks = 0;
  uint32_t groups = 0;  // <= kRouterMaxGroups
  int k = 0;

  BLOOMSEQ_HD const uint64_t* block(uint32_t h0) const { return blocks + bloom_slot(h0, n_blocks) * kRouterBlockWords; }
  // Bit g of the answer: group g may hold the k-mer whose router hashes are hashes[0..k].
  BLOOMSEQ_HD uint64_t groups_of(const uint32_t* hashes) const {
    const uint64_t* b = block(hashes[0]);
    uint64_t out = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      bool all = true;
      for (int i = 1; i <= k && all; ++i) {
        const uint32_t bit = router_bit(hashes[i], g);
        all = (b[bit >> 6] >> (bit & 63)) & 1u;
      }
      out |= uint64_t(all) << g;
    }
    return out;
  }
  BLOOMSEQ_HD void prefetch(const uint32_t* hashes) const {
#if !defined(__CUDA_ARCH__)
    __builtin_prefetch(block(hashes[0]));
#else
    (void)hashes;
#endif
  }
};

struct GroupRouterView {
  uint64_t* blocks = nullptr;
  uint64_t n_blocks = 0;
  uint32_t groups = 0;
  int k = 0;

  BLOOMSEQ_HD uint64_t* block(uint32_t h0) const { return blocks + bloom_slot(h0, n_blocks) * kRouterBlockWords; }
  BLOOMSEQ_HD void insert(uint32_t group, const uint32_t* hashes) const {
    uint64_t* b = block(hashes[0]);
    for (int i = 1; i <= k; ++i) {
      const uint32_t bit = router_bit(hashes[i], group);
      b[bit >> 6] |= uint64_t(1) << (bit & 63);
    }
  }
  BLOOMSEQ_HD operator ConstGroupRouterView() const { return {blocks, n_blocks, groups, k}; }
};

}  // namespace bloomseq
