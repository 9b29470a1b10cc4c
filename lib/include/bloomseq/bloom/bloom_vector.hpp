// The Bloom vector (its words owned, or borrowed from a read-only mapping of a filter file) and the sizing
// formulas.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
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
  // A vector whose bloom_words(m_bits) words live elsewhere (a read-only mapping of a .bf file), kept alive by
  // `owner`. It reads like an owned one; the first access for writing (view(), words()) copies the words into
  // a buffer of its own, so the mapping is never written.
  static BloomVector borrowed(const uint32_t* words, uint64_t m_bits, std::shared_ptr<const void> owner);

  uint64_t m_bits() const { return m_bits_; }
  bool is_borrowed() const { return borrowed_ != nullptr; }
  const uint32_t* data() const { return borrowed_ ? borrowed_ : words_.data(); }
  uint64_t word_count() const { return borrowed_ ? bloom_words(m_bits_) : uint64_t(words_.size()); }
  BloomView view() { return {words().data(), m_bits_}; }
  ConstBloomView view() const { return {data(), m_bits_}; }
  void insert(const uint32_t* hashes, int k) { view().insert(hashes, k); }
  bool contains(const uint32_t* hashes, int k) const { return view().contains(hashes, k); }

  std::vector<uint32_t>& words();
  // Owned vectors only (a borrowed one throws std::logic_error): use data() and word_count() to read either.
  const std::vector<uint32_t>& words() const;
  uint64_t popcount() const;
  double fill_fraction() const { return m_bits_ ? double(popcount()) / double(m_bits_) : 0.0; }

 private:
  uint64_t m_bits_ = 0;
  std::vector<uint32_t> words_;
  const uint32_t* borrowed_ = nullptr;
  std::shared_ptr<const void> owner_;  // keeps borrowed_ valid
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
// Bits needed for n keys at false-positive rate p with exactly k functions: ceil(-k n / ln(1 - p^(1/k))), at
// least 64 (never fewer than bits_for_fpr).
uint64_t bits_for_fpr_with_hashes(uint64_t n, double p, int k);
// The fewest functions (1..kMaxHashes) whose bits_for_fpr_with_hashes are at most (1 + extra) x the fewest bits any
// number of functions needs: a lookup reads up to k bits, so a little memory buys fewer memory reads.
int fewest_hashes_within(uint64_t n, double p, double extra);

}  // namespace bloomseq
