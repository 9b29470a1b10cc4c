// FACS classification kernel body (Ma & Chamberlain 2012, §V): reference filters in GLOBAL memory (too large for
// shared memory; read-only path), one block per read (grid-stride over the batch), the block's threads over the
// read's k-mer frames. For every frame a thread computes the canonical key and the hashes of the largest k once,
// then probes every filter with that filter's k. A warp ballot turns 32 frames' answers into one word of the
// frame bitmap (written by one lane, no atomics); the per-read, per-filter hit counts are reduced in shared
// memory and written once per read. Scores are computed from these on the host by the CPU scoring code.
//
// Interleaved groups (filters that are bins of one interleaved Bloom filter, format version 3) are answered per
// group, not per filter: a frame's k rows ANDed give every bin's answer at once (ConstInterleavedBloomView::
// query_word, the CPU path's probe). The block first stages its frames' hashes in shared memory, then its threads
// take (frame, row word) pairs with the word index varying fastest, so a warp reads consecutive words of the same
// row: a 512-bin row (8 words, one 64-byte line) is read by 8 adjacent lanes in one coalesced transaction, 4 rows
// per warp load, and rows of 2,048 bins or more fill whole warps. Thread per frame instead (each thread reading
// its own row's words one after another) would make every warp load touch 32 different rows. Only with 64 bins or
// fewer (one word per row) do a warp's lanes read 32 rows: the rows of different frames are random, nothing can
// coalesce them. The row words come back through shared memory, and one ballot per bin writes the bitmaps as for
// separate filters.
#pragma once
#include <cstdint>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/bloom/interleaved_bloom_view.hpp"
#include "bloomseq/cuda/exec.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::cuda {

struct FilterDesc {
  uint64_t word_offset;  // into ClassifyKernelParams::filter_words
  uint64_t m_bits;
  uint32_t k;
  uint32_t layout;  // BloomLayout, or kInterleavedBin: answered by its group, not probed on its own
};
constexpr uint32_t kInterleavedBin = 0xFFu;

// An interleaved group: its rows and its bins' filters live in ClassifyKernelParams::filter_words.
struct GroupDesc {
  uint64_t row_offset;         // 32-bit word offset of the rows (even: the rows are 64-bit words)
  uint64_t m_bits;             // rows
  uint64_t bin_filter_offset;  // bins words: the bank's filter index of every bin (kNoFilter for none)
  uint32_t k;
  uint32_t bins;
  uint32_t words_per_row;      // 64-bit words
  uint32_t pad;
};
constexpr uint32_t kNoFilter = 0xFFFFFFFFu;
// 64-bit row words per (frame, chunk) staged in shared memory: one 64-byte line of a row (512 bins).
constexpr uint32_t kRowChunkWords = 8;

struct ClassifyKernelParams {
  const uint32_t* filter_words;
  const FilterDesc* filters;
  uint32_t n_filters;
  const GroupDesc* groups;
  uint32_t n_groups;
  int k_max;
  const uint32_t* nibble_tables;  // k_max functions
  int key_nibbles;
  int w;
  // The batch: read r = bases [read_offset[r], read_offset[r+1]) of the packed stream.
  const uint64_t* packed;
  const uint64_t* invalid;
  const uint64_t* read_offset;
  uint32_t n_reads;
  // Output (layout of ClassifyHits).
  const uint64_t* bitmap_offset;
  uint32_t* bitmaps;
  uint32_t* hit_frames;  // n_reads * n_filters
};

// Shared memory: the nibble tables, one counter per filter and, with interleaved groups, per thread the frame's
// hashes, its validity and kRowChunkWords row words (64-bit aligned).
BLOOMSEQ_HD uint64_t classify_table_and_count_words(int key_nibbles, int k_max, uint32_t n_filters) {
  return uint64_t(key_nibbles) * 16 * uint64_t(k_max) + n_filters;
}
BLOOMSEQ_HD uint64_t classify_shared_words(int key_nibbles, int k_max, uint32_t n_filters, uint32_t threads = 0,
                                           bool groups = false) {
  const uint64_t base = classify_table_and_count_words(key_nibbles, k_max, n_filters);
  if (!groups) return base;
  return base + uint64_t(threads) * (uint64_t(k_max) + 1) + 1 + 2 * uint64_t(threads) * kRowChunkWords;
}

// One filter's answer for one frame's hashes, the bits read through the read-only cache (global memory).
template <int KMax>
BLOOMSEQ_HD bool filter_contains(const uint32_t* words, uint64_t m_bits, const uint32_t* h, int k, uint32_t layout) {
  if (layout == uint32_t(BloomLayout::blocked512))
    return ConstBlockedBloomView{words, m_bits}.contains_upto<KMax>(h, k, ReadOnlyLoad{});
  return ConstBloomView{words, m_bits}.contains_upto<KMax>(h, k, ReadOnlyLoad{});
}

// One tile of a read (frames tile .. tile + T - 1, thread t's frame in valid/regs) against every interleaved
// group: the frame bitmap words and counts of the groups' bins.
template <int KMax, class Ctx, class Flags, class Regs>
BLOOMSEQ_KERNEL_BODY void classify_groups_tile(Ctx& ctx, const ClassifyKernelParams& p, uint32_t* counts,
                                               uint32_t tile, uint32_t words, uint32_t* read_bitmaps, Flags& valid,
                                               Flags& hit, Regs& regs) {
  const uint32_t T = ctx.threads();
  const uint32_t K = uint32_t(p.k_max);
  uint32_t* frame_hashes = counts + p.n_filters;  // T x k_max
  uint32_t* frame_valid = frame_hashes + uint64_t(T) * K;
  const uint64_t row_at = (uint64_t(frame_valid + T - ctx.shared_words()) + 1) & ~uint64_t(1);
  uint64_t* row_words = reinterpret_cast<uint64_t*>(ctx.shared_words() + row_at);  // T x kRowChunkWords
  ctx.barrier();  // the previous tile's hashes are no longer read
  ctx.each_thread([&](uint32_t t) {
    frame_valid[t] = valid(t);
    BLOOMSEQ_UNROLL
    for (uint32_t i = 0; i < uint32_t(KMax); ++i)  // fixed indices: the hashes stay in registers
      if (i < K) frame_hashes[t * K + i] = valid(t) ? regs(t).h[i] : 0;
  });
  for (uint32_t g = 0; g < p.n_groups; ++g) {
    const GroupDesc gd = p.groups[g];
    const ConstInterleavedBloomView view{reinterpret_cast<const uint64_t*>(p.filter_words + gd.row_offset), gd.m_bits,
                                         gd.bins, gd.words_per_row};
    const uint32_t* bin_filter = p.filter_words + gd.bin_filter_offset;
    for (uint32_t c0 = 0; c0 < gd.words_per_row; c0 += kRowChunkWords) {
      const uint32_t cw = gd.words_per_row - c0 < kRowChunkWords ? gd.words_per_row - c0 : kRowChunkWords;
      ctx.barrier();  // hashes staged; the previous chunk's row words read
      // (frame, word) pairs, word fastest: adjacent lanes read adjacent words of one row (coalesced).
      ctx.each_thread([&](uint32_t t) {
        for (uint32_t pair = t; pair < T * cw; pair += T) {
          const uint32_t frame = pair / cw, x = pair % cw;
          row_words[frame * kRowChunkWords + x] =
              frame_valid[frame] ? view.query_word<KMax>(frame_hashes + frame * K, int(gd.k), c0 + x, ReadOnlyLoad{}) : 0;
        }
      });
      ctx.barrier();  // row words staged
      for (uint32_t x = 0; x < cw; ++x) {
        const uint32_t first_bin = (c0 + x) * 64;
        const uint32_t n_bins = gd.bins - first_bin < 64 ? gd.bins - first_bin : 64;
        for (uint32_t b = 0; b < n_bins; ++b) {
          const uint32_t f = bin_filter[first_bin + b];
          if (f == kNoFilter) continue;
          ctx.each_thread([&](uint32_t t) { hit(t) = (row_words[t * kRowChunkWords + x] >> b) & 1u; });
          ctx.warp_ballot(hit, [&](uint32_t first_thread, uint32_t mask) {
            const uint32_t word = (tile + first_thread) / 32;
            if (word < words) read_bitmaps[uint64_t(f) * words + word] = mask;
            if (mask) ctx.atomic_add(counts + f, popcount32(mask));
          });
        }
      }
    }
  }
}

// Interleaved: the instance that also answers p.groups (the plain one ignores them; the host picks by bank).
template <int KMax, bool Interleaved = true, class Ctx>
BLOOMSEQ_KERNEL_BODY void classify_body(Ctx& ctx, const ClassifyKernelParams& p) {
  uint32_t* shared = ctx.shared_words();
  const uint32_t T = ctx.threads();
  const uint32_t table_words = uint32_t(p.key_nibbles) * 16u * uint32_t(p.k_max);
  uint32_t* counts = shared + table_words;
  ctx.each_thread([&](uint32_t t) {
    for (uint32_t i = t; i < table_words; i += T) shared[i] = p.nibble_tables[i];
  });
  const H3NibbleView hash{shared, p.k_max, p.key_nibbles};

  auto valid = ctx.template local<uint8_t>();
  auto hit = ctx.template local<uint8_t>();
  auto regs = ctx.template local<HashRegs<KMax>>();

  for (uint32_t r = ctx.block(); r < p.n_reads; r += ctx.blocks()) {
    const uint64_t start = p.read_offset[r];
    const uint32_t frames = read_frames(p.read_offset[r + 1] - start, p.w);
    const uint32_t words = frame_words(frames);
    uint32_t* read_bitmaps = p.bitmaps + p.bitmap_offset[r];
    ctx.barrier();  // the previous read's counts have been written out
    ctx.each_thread([&](uint32_t t) {
      for (uint32_t f = t; f < p.n_filters; f += T) counts[f] = 0;
    });
    ctx.barrier();  // tables staged, counts zeroed

    for (uint32_t tile = 0; tile < frames; tile += T) {
      ctx.each_thread([&](uint32_t t) {
        const uint32_t frame = tile + t;
        uint64_t fwd = 0, rc = 0;
        valid(t) = frame < frames && packed_window(p.packed, p.invalid, start + frame, p.w, fwd, rc);
        if (valid(t)) hash.hash_all_upto<KMax>(canonical_wmer(fwd, rc), regs(t).h);
      });
      for (uint32_t f = 0; f < p.n_filters; ++f) {
        const FilterDesc d = p.filters[f];
        if (d.layout == kInterleavedBin) continue;
        const uint32_t* bits = p.filter_words + d.word_offset;
        ctx.each_thread([&](uint32_t t) { hit(t) = valid(t) && filter_contains<KMax>(bits, d.m_bits, regs(t).h, int(d.k), d.layout); });
        ctx.warp_ballot(hit, [&](uint32_t first_thread, uint32_t mask) {
          const uint32_t word = (tile + first_thread) / 32;
          if (word < words) read_bitmaps[uint64_t(f) * words + word] = mask;
          if (mask) ctx.atomic_add(counts + f, popcount32(mask));
        });
      }
      if constexpr (Interleaved) {
        if (p.n_groups) classify_groups_tile<KMax>(ctx, p, counts, tile, words, read_bitmaps, valid, hit, regs);
      }
    }
    ctx.barrier();  // all counts reduced
    ctx.each_thread([&](uint32_t t) {
      for (uint32_t f = t; f < p.n_filters; f += T) p.hit_frames[uint64_t(r) * p.n_filters + f] = counts[f];
    });
  }
}

}  // namespace bloomseq::cuda
