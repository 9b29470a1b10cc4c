// The read-classification problem (FACS): test every k-mer frame of every read against every reference filter.
// Plain data shared by every backend (CPU, CUDA kernels, the emulator), like stage1a.hpp.
//
// The answer is exact and backend-independent: for each (read, filter), which frames hit (all probes of the
// canonical w-mer set) as a bitmap, and how many. Scores (FACS, BioBloom) are computed from these on the host
// by the same scoring code whatever backend produced them.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/bloom/interleaved_bloom_view.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/hd.hpp"

namespace bloomseq {

// Reads as 2-bit codes (kInvalidBase for N): read r is codes[offsets[r] .. offsets[r + 1]).
struct ReadBatchView {
  const uint8_t* codes = nullptr;
  const uint64_t* offsets = nullptr;  // count + 1 entries
  uint32_t count = 0;
};

struct ClassifyFilter {
  ConstBloomView bits;
  int k = 0;  // bits probed: classic uses functions 0..k-1, blocked uses 0 (the block) and 1..k
  BloomLayout layout = BloomLayout::classic;
  // A bin of an interleaved group instead (FilterBank::groups[group], bin `bin`): `bits` and `k` are unused, the
  // group's k functions 0..k-1 probe its rows (bin for bin what a classic filter of the group's m answers).
  int32_t group = -1;
  uint32_t bin = 0;
};

// An interleaved Bloom filter whose bins are filters of the bank (interleaved_bloom_view.hpp).
struct ClassifyGroup {
  ConstInterleavedBloomView rows;
  int k = 0;
};

// Filters sharing one H3 family (k of the family >= every filter's k) and word size family->w().
struct FilterBank {
  const ClassifyFilter* filters = nullptr;
  uint32_t count = 0;
  const H3Family* family = nullptr;
  const ClassifyGroup* groups = nullptr;  // the groups filters with group >= 0 are bins of
  uint32_t group_count = 0;
};

// Whether filter f of a bank holds the w-mer of these hashes.
inline bool bank_filter_contains(const FilterBank& bank, const ClassifyFilter& f, const uint32_t* hashes) {
  if (f.group >= 0) {
    const ClassifyGroup& g = bank.groups[f.group];
    return g.rows.contains(f.bin, hashes, g.k);
  }
  if (f.layout == BloomLayout::blocked512) return ConstBlockedBloomView{f.bits.words, f.bits.m_bits}.contains(hashes, f.k);
  return f.bits.contains(hashes, f.k);
}

// Frames of a read of `length` bases: w-mer start positions (0 when the read is shorter than w).
BLOOMSEQ_HD uint32_t read_frames(uint64_t length, int w) { return length >= uint64_t(w) ? uint32_t(length - w + 1) : 0u; }
// 32-bit words of one frame bitmap.
BLOOMSEQ_HD uint32_t frame_words(uint32_t frames) { return (frames + 31) / 32; }

// Per-batch answer. Bitmap of (read r, filter f): bitmaps[bitmap_offset[r] + f * frame_words(frames[r]) ...],
// bit j of word j/32 set when frame j hits.
struct ClassifyHits {
  uint32_t n_reads = 0;
  uint32_t n_filters = 0;
  std::vector<uint32_t> frames;          // per read
  std::vector<uint32_t> hit_frames;      // per read * n_filters + filter
  std::vector<uint64_t> bitmap_offset;   // per read, n_reads + 1 entries
  std::vector<uint32_t> bitmaps;

  // Sizes the arrays for a batch (zeroed); shared by every backend so the layouts agree.
  void reset(const ReadBatchView& reads, uint32_t filters, int w) {
    n_reads = reads.count;
    n_filters = filters;
    frames.assign(reads.count, 0);
    hit_frames.assign(size_t(reads.count) * filters, 0);
    bitmap_offset.assign(size_t(reads.count) + 1, 0);
    for (uint32_t r = 0; r < reads.count; ++r) {
      frames[r] = read_frames(reads.offsets[r + 1] - reads.offsets[r], w);
      bitmap_offset[r + 1] = bitmap_offset[r] + uint64_t(frame_words(frames[r])) * filters;
    }
    bitmaps.assign(bitmap_offset.back(), 0);
  }
  const uint32_t* bitmap(uint32_t read, uint32_t filter) const {
    return bitmaps.data() + bitmap_offset[read] + uint64_t(filter) * frame_words(frames[read]);
  }
  bool frame_hit(uint32_t read, uint32_t filter, uint32_t frame) const {
    return (bitmap(read, filter)[frame >> 5] >> (frame & 31)) & 1u;
  }
  uint32_t hits(uint32_t read, uint32_t filter) const { return hit_frames[size_t(read) * n_filters + filter]; }
};

}  // namespace bloomseq
