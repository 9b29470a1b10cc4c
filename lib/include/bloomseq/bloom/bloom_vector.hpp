// The owning Bloom vector and the sizing formulas.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "bloomseq/bloom/bloom_view.hpp"

namespace bloomseq {

// Largest classic vector the 32-bit hashes can address evenly (one hash picks one bit).
constexpr uint64_t kMaxBloomBits = uint64_t(1) << 32;
// Largest blocked vector: hash 0 picks one of up to 2^32 blocks of 512 bits (blocked_bloom_view.hpp), 256 GiB; a
// 3.1-Gbase genome at FPR 5e-4 needs about 2^36.
constexpr uint64_t kMaxBlockedBloomBits = uint64_t(1) << 41;

class BloomVector {
 public:
  BloomVector() = default;
  explicit BloomVector(uint64_t m_bits);
  // The same, zeroed in slices with zeroed(bytes done, bytes in all) after each: a genome's filter is gigabytes,
  // and faulting them in takes seconds that a progress line should show.
  BloomVector(uint64_t m_bits, const std::function<void(uint64_t, uint64_t)>& zeroed);

  uint64_t m_bits() const { return m_bits_; }
  BloomView view() { return {words_.data(), m_bits_}; }
  ConstBloomView view() const { return {words_.data(), m_bits_}; }
  void insert(const uint32_t* hashes, int k) { view().insert(hashes, k); }
  bool contains(const uint32_t* hashes, int k) const { return view().contains(hashes, k); }

  std::vector<uint32_t>& words() { return words_; }
  const std::vector<uint32_t>& words() const { return words_; }
  uint64_t popcount() const;
  double fill_fraction() const { return m_bits_ ? double(popcount()) / double(m_bits_) : 0.0; }

 private:
  uint64_t m_bits_ = 0;
  std::vector<uint32_t> words_;
};

// Probability that a key not inserted tests positive after n insertions with k functions into m bits:
// (1 - (1 - 1/m)^(k n))^k.
double expected_fpr(uint64_t n, uint64_t m_bits, int k);
// The same from the fill fraction actually reached: rho^k.
double fpr_from_fill(double fill, int k);
// k minimising the FPR for n keys in m bits: round(m/n ln 2), clamped to [1, kMaxHashes].
int optimal_hashes(uint64_t n, uint64_t m_bits);
// Bits needed for n keys at false-positive rate p with the optimal k: ceil(-n ln p / (ln 2)^2), at least 64.
uint64_t bits_for_fpr(uint64_t n, double p);

}  // namespace bloomseq
