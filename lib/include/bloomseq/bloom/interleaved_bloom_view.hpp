// Many Bloom filters of the same size m and the same hash functions, stored interleaved: row r holds bit r of
// every filter ("bin"), one bit per bin, so one w-mer's k hash values read k rows and their AND says which bins
// may contain it. The lookup cost is k row reads whatever the number of bins (a 512-bin row is one 64-byte
// cache line), where separate filters cost k probes per filter. SeqAn/Raptor call this an interleaved Bloom
// filter; blast-bloom's bit-sliced stage-1a matrix is the same idea for sub-query vectors.
//
// Bin b of the view is bit for bit the Bloom vector a BloomVector of m bits would hold after the same inserts:
// the same slot function (bloom_slot) maps a hash to a row. Rows are `words_per_row` 64-bit words; bin b is bit
// b % 64 of word b / 64.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/hd.hpp"

namespace bloomseq {

// Words of a row for `bins` bins.
BLOOMSEQ_HD uint32_t interleaved_row_words(uint32_t bins) { return (bins + 63) / 64; }

struct ConstInterleavedBloomView {
  const uint64_t* rows = nullptr;
  uint64_t m_bits = 0;        // rows (bits per bin)
  uint32_t bins = 0;
  uint32_t words_per_row = 0;

  BLOOMSEQ_HD const uint64_t* row(uint64_t r) const { return rows + r * words_per_row; }
  // The row a hash value selects: the probe of one hash function, the same for every bin.
  BLOOMSEQ_HD const uint64_t* row_of(uint32_t hash) const { return row(bloom_slot(hash, m_bits)); }

  // One word of a w-mer's answer: bins word * 64 .. word * 64 + 63 that hold all k slots (the AND of that word
  // of the k rows), stopping at the first row that clears it. The per-k-mer probe both the CPU (contains) and
  // the CUDA classify kernel (one row word per thread, through the read-only cache) run; k <= KMax.
  template <int KMax, class Load = PlainLoad>
  BLOOMSEQ_HD uint64_t query_word(const uint32_t* hashes, int k, uint32_t word, Load load = {}) const {
    uint64_t acc = ~uint64_t(0);
    BLOOMSEQ_UNROLL
    for (int i = 0; i < KMax; ++i) {
      if (i >= k || !acc) break;
      acc &= load(row_of(hashes[i]) + word);
    }
    return acc;
  }

  // out[0 .. words_per_row): the bins whose filter holds all k slots. Returns false (and stops reading rows)
  // as soon as no bin is left.
  BLOOMSEQ_HD bool query(const uint32_t* hashes, int k, uint64_t* out) const {
    const uint64_t* first = row_of(hashes[0]);
    uint64_t any = 0;
    for (uint32_t w = 0; w < words_per_row; ++w) any |= (out[w] = first[w]);
    for (int i = 1; i < k && any; ++i) {
      const uint64_t* r = row_of(hashes[i]);
      any = 0;
      for (uint32_t w = 0; w < words_per_row; ++w) any |= (out[w] &= r[w]);
    }
    return any != 0;
  }

  // query() in stages, as contains_rows() is contains(): rows from .. to - 1 of the k ANDed into out[0 ..
  // words_per_row) (from == 0 starts from the first row instead), so that a caller can query the rows it
  // prefetched, prefetch the next ones, and come back. Returns whether any bin is left; query() is the chain of
  // stages over [0, k) that stops at the first stage returning false.
  BLOOMSEQ_HD bool query_rows(const uint32_t* hashes, int from, int to, uint64_t* out) const {
    uint64_t any = 0;
    int i = from;
    if (i == 0 && to > 0) {
      const uint64_t* first = row_of(hashes[0]);
      for (uint32_t w = 0; w < words_per_row; ++w) any |= (out[w] = first[w]);
      ++i;
    } else {
      for (uint32_t w = 0; w < words_per_row; ++w) any |= out[w];
    }
    for (; i < to && any; ++i) {
      const uint64_t* r = row_of(hashes[i]);
      any = 0;
      for (uint32_t w = 0; w < words_per_row; ++w) any |= (out[w] &= r[w]);
    }
    return any != 0;
  }
  // The cache lines query_rows() reads: whole rows from .. to - 1.
  BLOOMSEQ_HD void prefetch_rows(const uint32_t* hashes, int from, int to) const {
#if !defined(__CUDA_ARCH__)
    for (int i = from; i < to; ++i) {
      const char* p = reinterpret_cast<const char*>(row_of(hashes[i]));
      for (uint32_t off = 0; off < words_per_row * 8; off += 64) __builtin_prefetch(p + off);
    }
#else
    (void)hashes;
    (void)from;
    (void)to;
#endif
  }

  // query() restricted to some words of a row: out[i] = mask[i] AND, over the k rows, word words[i] of the row
  // (words ascending). A caller that only needs a few bins (candidates) reads only their cache lines, and stops
  // as soon as none of them is left. Returns whether any is.
  BLOOMSEQ_HD bool query_words(const uint32_t* hashes, int k, const uint32_t* words, uint32_t n, const uint64_t* mask,
                               uint64_t* out) const {
    uint64_t any = 0;
    for (uint32_t i = 0; i < n; ++i) any |= (out[i] = mask[i]);
    for (int j = 0; j < k && any; ++j) {
      const uint64_t* r = row_of(hashes[j]);
      any = 0;
      for (uint32_t i = 0; i < n; ++i) any |= (out[i] &= r[words[i]]);
    }
    return any != 0;
  }
  // The cache lines query_words() will read, ahead of it.
  BLOOMSEQ_HD void prefetch_words(const uint32_t* hashes, int k, const uint32_t* words, uint32_t n) const {
#if !defined(__CUDA_ARCH__)
    for (int j = 0; j < k; ++j) {
      const uint64_t* r = row(bloom_slot(hashes[j], m_bits));
      for (uint32_t i = 0; i < n; ++i)
        if (i == 0 || (words[i] >> 3) != (words[i - 1] >> 3)) __builtin_prefetch(r + words[i]);
    }
#else
    (void)hashes;
    (void)k;
    (void)words;
    (void)n;
#endif
  }

  // Asks the memory system for the k rows of a w-mer ahead of query(): a caller that prefetches several w-mers
  // before querying them overlaps their DRAM latencies (the rows of a large filter are cache misses).
  BLOOMSEQ_HD void prefetch(const uint32_t* hashes, int k) const {
#if !defined(__CUDA_ARCH__)
    for (int i = 0; i < k; ++i) {
      const char* p = reinterpret_cast<const char*>(row(bloom_slot(hashes[i], m_bits)));
      for (uint32_t off = 0; off < words_per_row * 8; off += 64) __builtin_prefetch(p + off);
    }
#else
    (void)hashes;
    (void)k;
#endif
  }

  // Whether bin b holds all k slots (a single filter's membership test): b's word of each row, up to the first
  // row where b's bit is clear.
  BLOOMSEQ_HD bool contains(uint32_t bin, const uint32_t* hashes, int k) const {
    const uint32_t word = bin >> 6;
    const uint64_t bit = uint64_t(1) << (bin & 63);
    for (int i = 0; i < k; ++i)
      if (!(row_of(hashes[i])[word] & bit)) return false;
    return true;
  }
  // contains() in stages: whether bin b's bit is set in rows from .. to - 1 (of the k), so that a caller can test
  // the rows it prefetched and prefetch the next ones before it comes back; contains() is the AND over stages.
  BLOOMSEQ_HD bool contains_rows(uint32_t bin, const uint32_t* hashes, int from, int to) const {
    const uint32_t word = bin >> 6;
    const uint64_t bit = uint64_t(1) << (bin & 63);
    for (int i = from; i < to; ++i)
      if (!(row_of(hashes[i])[word] & bit)) return false;
    return true;
  }
  // The cache lines contains_rows() reads: b's word of rows from .. to - 1.
  BLOOMSEQ_HD void prefetch_bin(uint32_t bin, const uint32_t* hashes, int from, int to) const {
#if !defined(__CUDA_ARCH__)
    for (int i = from; i < to; ++i) __builtin_prefetch(row_of(hashes[i]) + (bin >> 6));
#else
    (void)bin;
    (void)hashes;
    (void)from;
    (void)to;
#endif
  }
};

struct InterleavedBloomView {
  uint64_t* rows = nullptr;
  uint64_t m_bits = 0;
  uint32_t bins = 0;
  uint32_t words_per_row = 0;

  BLOOMSEQ_HD void insert(uint32_t bin, const uint32_t* hashes, int k) const {
    for (int i = 0; i < k; ++i) rows[bloom_slot(hashes[i], m_bits) * words_per_row + (bin >> 6)] |= uint64_t(1) << (bin & 63);
  }
  BLOOMSEQ_HD operator ConstInterleavedBloomView() const { return {rows, m_bits, bins, words_per_row}; }
};

}  // namespace bloomseq
