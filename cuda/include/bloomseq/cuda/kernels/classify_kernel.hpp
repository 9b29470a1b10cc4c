// FACS classification kernel body (Ma & Chamberlain 2012, §V): reference filters in GLOBAL memory (too large for
// shared memory; read-only path), one block per read (grid-stride over the batch), the block's threads over the
// read's k-mer frames. For every frame a thread computes the canonical key and the hashes of the largest k once,
// then probes every filter with that filter's k. A warp ballot turns 32 frames' answers into one word of the
// frame bitmap (written by one lane, no atomics); the per-read, per-filter hit counts are reduced in shared
// memory and written once per read. Scores are computed from these on the host by the CPU scoring code.
#pragma once
#include <cstdint>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/cuda/exec.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::cuda {

struct FilterDesc {
  uint64_t word_offset;  // into ClassifyKernelParams::filter_words
  uint64_t m_bits;
  uint32_t k;
  uint32_t layout;  // BloomLayout
};

struct ClassifyKernelParams {
  const uint32_t* filter_words;
  const FilterDesc* filters;
  uint32_t n_filters;
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

BLOOMSEQ_HD uint64_t classify_shared_words(int key_nibbles, int k_max, uint32_t n_filters) {
  return uint64_t(key_nibbles) * 16 * uint64_t(k_max) + n_filters;
}

// One filter's answer for one frame's hashes, the bits read through the read-only cache (global memory).
template <int KMax>
BLOOMSEQ_HD bool filter_contains(const uint32_t* words, uint64_t m_bits, const uint32_t* h, int k, uint32_t layout) {
  if (layout == uint32_t(BloomLayout::blocked512))
    return ConstBlockedBloomView{words, m_bits}.contains_upto<KMax>(h, k, ReadOnlyLoad{});
  return ConstBloomView{words, m_bits}.contains_upto<KMax>(h, k, ReadOnlyLoad{});
}

template <int KMax, class Ctx>
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
        const uint32_t* bits = p.filter_words + d.word_offset;
        ctx.each_thread([&](uint32_t t) { hit(t) = valid(t) && filter_contains<KMax>(bits, d.m_bits, regs(t).h, int(d.k), d.layout); });
        ctx.warp_ballot(hit, [&](uint32_t first_thread, uint32_t mask) {
          const uint32_t word = (tile + first_thread) / 32;
          if (word < words) read_bitmaps[uint64_t(f) * words + word] = mask;
          if (mask) ctx.atomic_add(counts + f, popcount32(mask));
        });
      }
    }
    ctx.barrier();  // all counts reduced
    ctx.each_thread([&](uint32_t t) {
      for (uint32_t f = t; f < p.n_filters; f += T) p.hit_frames[uint64_t(r) * p.n_filters + f] = counts[f];
    });
  }
}

}  // namespace bloomseq::cuda
