// BLAST stage-1a kernel body for the bit-sliced layout (BitslicedMatrix, the CPU's default for many sub-queries):
// row r of the matrix holds bit r of every sub-query vector, so the k rows a w-mer hashes to, ANDed, name every
// sub-query that may contain it. The paper's kernel instead probes every vector in turn (O(sub-queries) tests per
// w-mer); here a w-mer costs k reads of one row word per 64 sub-queries, and the matrix (E. coli against S. suis:
// 625 columns) stays in the L2 cache.
//
// Work item = (tested start, row word): thread t of a tile takes item tile + t, so consecutive threads read
// consecutive words of the same rows (a 512-column block's row is one 64-byte line; the narrow block's row
// 1-4 words). Each thread hashes its start's canonical w-mer with the nibble tables staged in shared memory (the
// threads of one start repeat it: cheaper than a shuffle across the words of a row), ANDs its word of the k rows
// (stopping when nothing is left) and appends one hit per set column below vector_count, reserving its slots
// with one atomic add. Slots past `capacity` are counted, not written: the host grows the buffer and reruns.
// Blocks take tiles grid-stride. Hits come back unsorted; the host sorts them.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/cuda/exec.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::cuda {

BLOOMSEQ_HD int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

BLOOMSEQ_HD int lowest_bit64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// Words of one row over all column blocks.
BLOOMSEQ_HD uint64_t bitsliced_row_words(const Stage1aKernelParams& p) {
  return p.row_full_blocks * 8 + p.row_tail_words;
}

template <int KMax, class Ctx>
BLOOMSEQ_KERNEL_BODY void stage1a_bitsliced_body(Ctx& ctx, const Stage1aKernelParams& p) {
  const uint32_t T = ctx.threads();
  stage_nibble_tables(ctx, p);
  ctx.barrier();
  const H3NibbleView hash{ctx.shared_words(), p.k, p.key_nibbles};

  const uint64_t stride = p.stride ? p.stride : 1;
  const uint64_t tests = p.n_starts > p.first_tested ? (p.n_starts - p.first_tested + stride - 1) / stride : 0;
  const uint64_t W = bitsliced_row_words(p);
  const uint64_t items = tests * W;
  const uint64_t full_words = p.row_full_blocks * 8;
  const uint64_t block_words = p.m_bits * 8;
  const uint64_t* tail = p.rows + p.row_full_blocks * block_words;
  for (uint64_t tile = uint64_t(ctx.block()) * T; tile < items; tile += uint64_t(ctx.blocks()) * T) {
    ctx.each_thread([&](uint32_t t) {
      const uint64_t item = tile + t;
      if (item >= items) return;
      const uint64_t test = item / W, word = item % W;
      const uint64_t pos = p.first_tested + test * stride;
      uint64_t fwd = 0, rc = 0;
      if (!packed_window(p.packed, p.invalid, pos, p.w, fwd, rc)) return;
      uint32_t h[KMax] = {};
      hash.hash_all_upto<KMax>(canonical_wmer(fwd, rc), h);
      // Row r's copy of this word: in a full block's 8-word line, or in the narrow block's row.
      const bool full = word < full_words;
      const uint64_t* base = full ? p.rows + (word / 8) * block_words + word % 8 : tail + (word - full_words);
      const uint64_t step = full ? 8 : p.row_tail_words;
      uint64_t acc = ~uint64_t(0);
      BLOOMSEQ_UNROLL
      for (int j = 0; j < KMax; ++j)
        if (j < p.k && acc) acc &= base[bloom_slot(h[j], p.m_bits) * step];
      const uint64_t col0 = word * 64;
      if (col0 + 64 > p.vector_count)  // columns past V in the last word are padding
        acc &= p.vector_count > col0 ? (~uint64_t(0) >> (64 - (p.vector_count - col0))) : 0;
      if (!acc) return;
      HitCounter slot = ctx.atomic_add(p.hit_count, HitCounter(popcount64(acc)));
      for (; acc; acc &= acc - 1, ++slot) {
        if (slot >= p.capacity) continue;  // counted, not written: the host reruns with room for all
        p.hit_pos[slot] = uint32_t(pos);
        p.hit_sub[slot] = uint32_t(col0 + uint64_t(lowest_bit64(acc)));
      }
    });
  }
}

}  // namespace bloomseq::cuda

namespace bloomseq::cuda {

// The stage-1a kernel's body: the bit-sliced layout when the launch carries the matrix's rows, else the paper's
// vectors (a block-uniform choice: one kernel, no extra instance to plan for).
template <int KMax, class Ctx>
BLOOMSEQ_KERNEL_BODY void stage1a_kernel_body(Ctx& ctx, const Stage1aKernelParams& p) {
  if (p.rows) stage1a_bitsliced_body<KMax>(ctx, p);
  else stage1a_body<KMax>(ctx, p);
}

}  // namespace bloomseq::cuda
