// Sizing of blocked Bloom filters (blocked_bloom_view.hpp), host side.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/blocked_bloom_view.hpp"

namespace bloomseq {

// Expected FPR of a blocked filter with n keys in m bits (a multiple of 512) and k probes per key: a query's
// block holds Poisson(512 n / m) keys, and i keys leave a bit set with probability 1 - (1 - 1/512)^(k i):
//   FPR = sum_i Pois(i; 512 n / m) (1 - (1 - 1/512)^(k i))^k.
double blocked_expected_fpr(uint64_t n, uint64_t m_bits, int k);
// k (1..kMaxHashes - 1) minimising blocked_expected_fpr.
int blocked_optimal_hashes(uint64_t n, uint64_t m_bits);
// Smallest m (a multiple of 512) whose best k reaches FPR <= p for n keys.
uint64_t blocked_bits_for_fpr(uint64_t n, double p);
// m rounded up to whole blocks.
inline uint64_t round_up_to_blocks(uint64_t m_bits) {
  return (m_bits + kBloomBlockBits - 1) / kBloomBlockBits * kBloomBlockBits;
}

}  // namespace bloomseq
