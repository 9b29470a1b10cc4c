#include "bloomseq/bloom/interleaved_bloom.hpp"

#include <algorithm>
#include <numeric>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <stdexcept>
#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq {

InterleavedBloom::InterleavedBloom(uint32_t bins, uint64_t m_bits)
    : bins_(bins), m_bits_(m_bits), words_per_row_(interleaved_row_words(bins)) {
  if (bins == 0) throw UsageError("an interleaved Bloom filter needs at least one bin");
  if (m_bits == 0 || m_bits > kMaxBloomBits)
    throw UsageError("interleaved Bloom filter bins must be 1..2^32 bits, got " + std::to_string(m_bits));
  if (m_bits > UINT64_MAX / 8 / words_per_row_)
    throw UsageError("interleaved Bloom filter of " + std::to_string(bins) + " bins x " + std::to_string(m_bits) +
                     " bits is too large");
  rows_.assign(m_bits * words_per_row_, 0);
}

InterleavedBloom InterleavedBloom::for_loading(uint32_t bins, uint64_t m_bits) {
  InterleavedBloom b(bins, 1);  // checks the arguments' ranges with a one-row filter
  if (m_bits == 0 || m_bits > kMaxBloomBits) b = InterleavedBloom(bins, m_bits);  // throws the same error
  b.m_bits_ = m_bits;
  b.rows_ = Rows();
  b.rows_.reserve(m_bits * b.words_per_row_);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Before the first touch, so that the pages faulted in by the read are huge ones where the system allows.
  const uintptr_t huge = uintptr_t(2) << 20;
  const uintptr_t from = (reinterpret_cast<uintptr_t>(b.rows_.data()) + huge - 1) / huge * huge;
  const uintptr_t to = (reinterpret_cast<uintptr_t>(b.rows_.data() + m_bits * b.words_per_row_)) / huge * huge;
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#endif
  b.rows_.resize(m_bits * b.words_per_row_);  // default-initialised: not written
  return b;
}

InterleavedBloom InterleavedBloom::borrowed(uint32_t bins, uint64_t m_bits, const uint64_t* rows,
                                            std::shared_ptr<const void> owner) {
  InterleavedBloom b(bins, 1);  // checks the arguments' ranges as for_loading does
  if (m_bits == 0 || m_bits > kMaxBloomBits) b = InterleavedBloom(bins, m_bits);
  b.m_bits_ = m_bits;
  b.rows_ = Rows();
  b.borrowed_ = rows;
  b.owner_ = std::move(owner);
  return b;
}

const InterleavedBloom::Rows& InterleavedBloom::rows() const {
  if (borrowed_) throw std::logic_error("InterleavedBloom::rows() on a borrowed filter (use row_data())");
  return rows_;
}

uint64_t* InterleavedBloom::data() {
  if (borrowed_) {  // copy on first write: the mapping is read-only
    rows_.assign(borrowed_, borrowed_ + m_bits_ * words_per_row_);
    borrowed_ = nullptr;
    owner_.reset();
  }
  return rows_.data();
}

void InterleavedBloom::set_bin(uint32_t bin, const BloomVector& v) {
  if (bin >= bins_ || v.m_bits() != m_bits_)
    throw UsageError("set_bin: bin " + std::to_string(bin) + " of " + std::to_string(bins_) + ", vector of " +
                     std::to_string(v.m_bits()) + " bits for bins of " + std::to_string(m_bits_));
  const uint64_t bit = uint64_t(1) << (bin & 63);
  const uint32_t* words = v.data();
  uint64_t* rows = data();
  for (uint64_t w = 0; w < v.word_count(); ++w) {
    for (uint32_t x = words[w]; x; x &= x - 1) {
      const uint64_t r = w * 32 + uint64_t(__builtin_ctz(x));
      rows[r * words_per_row_ + (bin >> 6)] |= bit;
    }
  }
}

namespace {

// a[i] bit j <-> a[j] bit i (bit 0 the least significant).
void transpose64(uint64_t* a) {
  uint64_t m = 0x00000000FFFFFFFFULL;
  for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
  }
}

}  // namespace

void InterleavedBloom::set_bins(uint32_t first_bin, const BloomVector* const* vectors, uint32_t count) {
  if (first_bin % 64 != 0 || count > 64 || first_bin >= bins_ || count > bins_ - first_bin)
    throw UsageError("set_bins: bins " + std::to_string(first_bin) + " + " + std::to_string(count) + " of " +
                     std::to_string(bins_));
  for (uint32_t b = 0; b < count; ++b)
    if (vectors[b] && vectors[b]->m_bits() != m_bits_)
      throw UsageError("set_bins: a vector of " + std::to_string(vectors[b]->m_bits()) + " bits for bins of " +
                       std::to_string(m_bits_));
  const uint32_t col = first_bin / 64;
  uint64_t* const rows_out = data();
  uint64_t block[64];
  for (uint64_t r0 = 0; r0 < m_bits_; r0 += 64) {
    // block[b]: rows r0 .. r0 + 63 of bin b (two 32-bit words; bits past m are clear in a BloomVector)
    for (uint32_t b = 0; b < 64; ++b) {
      block[b] = 0;
      if (b >= count || !vectors[b]) continue;
      const uint32_t* words = vectors[b]->data();
      const uint64_t w = r0 / 32;
      block[b] = words[w] | (w + 1 < vectors[b]->word_count() ? uint64_t(words[w + 1]) << 32 : 0);
    }
    transpose64(block);  // block[i]: row r0 + i, bit b = bin first_bin + b
    const uint64_t rows = std::min<uint64_t>(64, m_bits_ - r0);
    for (uint64_t i = 0; i < rows; ++i) rows_out[(r0 + i) * words_per_row_ + col] |= block[i];
  }
}

BloomVector InterleavedBloom::bin_vector(uint32_t bin) const {
  if (bin >= bins_) throw UsageError("bin_vector: bin " + std::to_string(bin) + " of " + std::to_string(bins_));
  BloomVector v(m_bits_);
  const uint64_t* rows = row_data();
  uint32_t* out = v.words().data();
  for (uint64_t r = 0; r < m_bits_; ++r)
    if ((rows[r * words_per_row_ + (bin >> 6)] >> (bin & 63)) & 1u) set_bit(out, r);
  return v;
}

uint64_t InterleavedBloom::bin_popcount(uint32_t bin) const {
  uint64_t n = 0;
  const uint64_t* rows = row_data();
  for (uint64_t r = 0; r < m_bits_; ++r) n += (rows[r * words_per_row_ + (bin >> 6)] >> (bin & 63)) & 1u;
  return n;
}

std::vector<uint64_t> InterleavedBloom::bin_popcounts() const {
  std::vector<uint64_t> total(size_t(words_per_row_) * 64, 0);
  std::vector<uint32_t> count(total.size(), 0);  // per block of rows: a loop the compiler vectorises
  const uint64_t* rows = row_data();
  constexpr uint64_t kBlock = uint64_t(1) << 31;  // rows per block: a 32-bit count cannot overflow
  for (uint64_t first = 0; first < m_bits_; first += kBlock) {
    const uint64_t last = std::min(m_bits_, first + kBlock);
    for (uint64_t r = first; r < last; ++r) {
      const uint64_t* row = rows + r * words_per_row_;
      for (uint32_t w = 0; w < words_per_row_; ++w) {
        const uint64_t x = row[w];
        uint32_t* c = count.data() + size_t(w) * 64;
        for (uint32_t j = 0; j < 64; ++j) c[j] += uint32_t((x >> j) & 1u);
      }
    }
    for (size_t i = 0; i < total.size(); ++i) total[i] += count[i], count[i] = 0;
  }
  total.resize(bins_);
  return total;
}

std::vector<BinGroup> group_bins_by_size(const std::vector<uint64_t>& bits_needed, double max_ratio,
                                         uint32_t max_bins) {
  if (!(max_ratio >= 1.0)) throw UsageError("bin size ratio must be >= 1");
  if (max_bins == 0) throw UsageError("bins per group must be >= 1");
  std::vector<uint32_t> order(bits_needed.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return bits_needed[a] < bits_needed[b]; });
  std::vector<BinGroup> groups;
  for (uint32_t i : order) {
    const uint64_t need = std::max<uint64_t>(bits_needed[i], 1);
    if (groups.empty() || groups.back().members.size() >= max_bins ||
        double(need) > max_ratio * double(std::max<uint64_t>(bits_needed[groups.back().members.front()], 1))) {
      groups.emplace_back();
    }
    groups.back().members.push_back(i);
    groups.back().m_bits = need;  // ascending: the last member is the largest
  }
  return groups;
}

std::vector<BinGroup> group_bins_min_memory(const std::vector<uint64_t>& bits_needed, uint32_t max_bins,
                                            uint64_t group_cost_bits) {
  if (max_bins == 0) throw UsageError("bins per group must be >= 1");
  const size_t n = bits_needed.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return bits_needed[a] < bits_needed[b]; });
  // best[j]: lowest cost in bits for the j smallest bins; a group ending at j costs need(j) x 64 bits per row word
  // plus group_cost_bits. Lengths with the same word count cost the same, and best[] never decreases, so only the
  // longest length of each word count (64 q, or all j) needs trying.
  std::vector<long double> best(n + 1, 0);
  std::vector<size_t> from(n + 1, 0);
  for (size_t j = 1; j <= n; ++j) {
    const long double need = (long double)std::max<uint64_t>(bits_needed[order[j - 1]], 1);
    best[j] = -1;
    for (size_t q = 1; q <= (size_t(max_bins) + 63) / 64; ++q) {
      const size_t len = std::min<size_t>({j, 64 * q, size_t(max_bins)});
      const long double cost = best[j - len] + need * 64.0L * (long double)q + (long double)group_cost_bits;
      if (best[j] < 0 || cost < best[j]) best[j] = cost, from[j] = j - len;
      if (len == j) break;
    }
  }
  std::vector<BinGroup> groups;
  for (size_t j = n; j > 0; j = from[j]) {
    BinGroup g;
    g.members.assign(order.begin() + long(from[j]), order.begin() + long(j));
    g.m_bits = std::max<uint64_t>(bits_needed[order[j - 1]], 1);
    groups.push_back(std::move(g));
  }
  std::reverse(groups.begin(), groups.end());
  return groups;
}

}  // namespace bloomseq
