#include "bloomseq/bloom/bloom_vector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

BloomVector::BloomVector(uint64_t m_bits) : m_bits_(m_bits) {
  // The layout's own limit (2^32 classic, 2^41 blocked) is checked where the layout is known.
  if (m_bits == 0 || m_bits > kMaxBlockedBloomBits)
    throw UsageError("Bloom vector size must be 1..2^41 bits, got " + std::to_string(m_bits));
  words_.assign(bloom_words(m_bits), 0);
}

BloomVector::BloomVector(uint64_t m_bits, const std::function<void(uint64_t, uint64_t)>& zeroed) : m_bits_(m_bits) {
  if (m_bits == 0 || m_bits > kMaxBlockedBloomBits)
    throw UsageError("Bloom vector size must be 1..2^41 bits, got " + std::to_string(m_bits));
  const size_t words = bloom_words(m_bits);
  constexpr size_t kSlice = size_t(16) << 20;  // words (64 MB)
  words_.reserve(words);  // no reallocation below: each resize only zeroes the new slice
  while (words_.size() < words) {
    words_.resize(std::min(words, words_.size() + kSlice), 0);
    if (zeroed) zeroed(uint64_t(words_.size()) * 4, uint64_t(words) * 4);
  }
}

BloomVector BloomVector::borrowed(const uint32_t* words, uint64_t m_bits, std::shared_ptr<const void> owner) {
  if (m_bits == 0 || m_bits > kMaxBlockedBloomBits)
    throw UsageError("Bloom vector size must be 1..2^41 bits, got " + std::to_string(m_bits));
  BloomVector v;
  v.m_bits_ = m_bits;
  v.borrowed_ = words;
  v.owner_ = std::move(owner);
  return v;
}

std::vector<uint32_t>& BloomVector::words() {
  if (borrowed_) {  // copy on first write: the mapping is read-only
    words_.assign(borrowed_, borrowed_ + bloom_words(m_bits_));
    borrowed_ = nullptr;
    owner_.reset();
  }
  return words_;
}

const std::vector<uint32_t>& BloomVector::words() const {
  if (borrowed_) throw std::logic_error("BloomVector::words() const on a borrowed vector (use data())");
  return words_;
}

uint64_t BloomVector::popcount() const {
  uint64_t n = 0;
  const uint32_t* w = data();
  for (uint64_t i = 0, end = word_count(); i < end; ++i) n += uint64_t(__builtin_popcount(w[i]));
  return n;
}

double expected_fpr(uint64_t n, uint64_t m_bits, int k) {
  if (m_bits == 0) return 1.0;
  // (1 - 1/m)^(kn) computed in log space so that large m does not lose precision.
  const double empty = std::exp(double(k) * double(n) * std::log1p(-1.0 / double(m_bits)));
  return std::pow(1.0 - empty, double(k));
}

double fpr_from_fill(double fill, int k) { return std::pow(fill, double(k)); }

int optimal_hashes(uint64_t n, uint64_t m_bits) {
  if (n == 0) return 1;
  const double k = std::round(double(m_bits) / double(n) * std::log(2.0));
  return int(std::clamp(k, 1.0, double(kMaxHashes)));
}

uint64_t bits_for_fpr(uint64_t n, double p) {
  if (!(p > 0.0 && p < 1.0)) throw UsageError("target false-positive rate must be in (0, 1), got " + std::to_string(p));
  const double ln2 = std::log(2.0);
  const double m = std::ceil(-double(n) * std::log(p) / (ln2 * ln2));
  return std::max<uint64_t>(64, uint64_t(m));
}

uint64_t bits_for_fpr_with_hashes(uint64_t n, double p, int k) {
  const uint64_t best = bits_for_fpr(n, p);  // validates p
  if (k < 1) throw UsageError("number of hash functions must be positive, got " + std::to_string(k));
  const double m = std::ceil(-double(k) * double(n) / std::log1p(-std::pow(p, 1.0 / double(k))));
  return std::max<uint64_t>(best, uint64_t(m));
}

int fewest_hashes_within(uint64_t n, double p, double extra) {
  uint64_t fewest_bits = UINT64_MAX;
  for (int k = 1; k <= kMaxHashes; ++k) fewest_bits = std::min(fewest_bits, bits_for_fpr_with_hashes(n, p, k));
  const double limit = double(fewest_bits) * (1.0 + extra);
  int k = 1;
  while (double(bits_for_fpr_with_hashes(n, p, k)) > limit) ++k;  // ends at the k of fewest_bits at the latest
  return k;
}

}  // namespace bloomseq
