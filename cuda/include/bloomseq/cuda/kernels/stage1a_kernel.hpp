// BLAST stage-1a kernel body (Ma et al. 2011, §II-B): sub-query Bloom vectors in SHARED memory.
//
// Work item = (group of sub-query vectors, slice of the chunk). Blocks take work items grid-stride (more items
// than resident blocks = several passes, as in the paper). For its item a block
//   1. stages the H3 nibble tables (once) and its group's vectors from global into shared memory,
//   2. walks its slice in tiles of blockDim w-mers: thread t takes w-mer tile + t, so a warp reads 32 consecutive
//      w-mers from the same 1-2 packed words (coalesced), computes the canonical key and its k hashes once,
//   3. probes every vector of the group in shared memory (k unrolled up to KMax) and appends the hits with
//      warp-aggregated atomics. Slots past `capacity` are counted, not written: the host grows the buffer and
//      reruns the chunk, so no hit is ever dropped.
// When one vector does not fit the shared-memory budget the same body probes the vectors in global memory.
#pragma once
#include <cstdint>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/cuda/exec.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::cuda {

struct Stage1aKernelParams {
  // Sub-query vectors (global memory) and the shared hash family.
  const uint32_t* vector_words;
  uint32_t vector_count;
  uint32_t words_per_vector;
  uint64_t m_bits;
  int k;
  const uint32_t* nibble_tables;  // H3NibbleView layout, key_nibbles * 16 * k words
  int key_nibbles;
  // Decomposition.
  uint32_t vectors_per_group;
  uint32_t slices;           // chunk slices per group
  uint32_t vectors_in_shared;  // 0: probe the global copies
  // The chunk.
  const uint64_t* packed;
  const uint64_t* invalid;
  uint64_t n_starts;  // w-mers starting at [0, n_starts)
  int w;
  // Tested starts: first_tested + i * stride (DbChunk::stride; 0 counts as 1), the probe words of a short-word scan.
  uint64_t stride;
  uint64_t first_tested;
  // The bit-sliced layout instead of the vectors when `rows` is set (stage1a_bitsliced_kernel.hpp): BitslicedMatrix's
  // rows, m_bits of them per column block; vector_count is then the number of columns.
  const uint64_t* rows;
  uint64_t row_full_blocks;
  uint32_t row_tail_words;
  // Output: hit i = (hit_pos[i], hit_sub[i]), chunk-relative position.
  uint32_t* hit_pos;
  uint32_t* hit_sub;
  HitCounter capacity;
  HitCounter* hit_count;  // may exceed capacity: overflow
};

template <int KMax>
struct HashRegs {
  uint32_t h[KMax];
};

// Shared words the body needs for a given group size.
BLOOMSEQ_HD uint64_t stage1a_shared_words(int key_nibbles, int k, uint32_t vectors_per_group,
                                          uint32_t words_per_vector, bool vectors_in_shared) {
  return uint64_t(key_nibbles) * 16 * uint64_t(k) +
         (vectors_in_shared ? uint64_t(vectors_per_group) * words_per_vector : 0);
}

// The first phase of both stage-1a bodies: the nibble tables into shared memory (returns their words).
template <class Ctx>
BLOOMSEQ_KERNEL_BODY uint32_t stage_nibble_tables(Ctx& ctx, const Stage1aKernelParams& p) {
  uint32_t* shared = ctx.shared_words();
  const uint32_t T = ctx.threads();
  const uint32_t table_words = uint32_t(p.key_nibbles) * 16u * uint32_t(p.k);
  ctx.each_thread([&](uint32_t t) {
    for (uint32_t i = t; i < table_words; i += T) shared[i] = p.nibble_tables[i];
  });
  return table_words;
}

template <int KMax, class Ctx>
BLOOMSEQ_KERNEL_BODY void stage1a_body(Ctx& ctx, const Stage1aKernelParams& p) {
  uint32_t* shared = ctx.shared_words();
  const uint32_t T = ctx.threads();
  const uint32_t table_words = stage_nibble_tables(ctx, p);
  uint32_t* shared_vectors = shared + table_words;
  const H3NibbleView hash{shared, p.k, p.key_nibbles};

  auto valid = ctx.template local<uint8_t>();
  auto hit = ctx.template local<uint8_t>();
  auto regs = ctx.template local<HashRegs<KMax>>();

  const uint32_t groups = (p.vector_count + p.vectors_per_group - 1) / p.vectors_per_group;
  const uint64_t items = uint64_t(groups) * p.slices;
  // Slices and tiles count tested starts; thread t of a tile tests start first_tested + (tile + t) * stride, so a
  // warp still reads its windows from a few consecutive packed words at the strides a scan uses (<= 10).
  const uint64_t stride = p.stride ? p.stride : 1;
  const uint64_t tests = p.n_starts > p.first_tested ? (p.n_starts - p.first_tested + stride - 1) / stride : 0;
  const uint64_t slice_len = (tests + p.slices - 1) / p.slices;
  uint32_t staged_group = ~0u;
  for (uint64_t item = ctx.block(); item < items; item += ctx.blocks()) {
    const uint32_t group = uint32_t(item / p.slices);
    const uint64_t slice = item % p.slices;
    const uint32_t v0 = group * p.vectors_per_group;
    const uint32_t nv = p.vector_count - v0 < p.vectors_per_group ? p.vector_count - v0 : p.vectors_per_group;
    const uint32_t* vectors = p.vector_words + uint64_t(v0) * p.words_per_vector;
    if (p.vectors_in_shared) {
      if (group != staged_group) {
        ctx.barrier();  // nobody still probes the previous group
        const uint32_t n_words = nv * p.words_per_vector;
        ctx.each_thread([&](uint32_t t) {
          for (uint32_t i = t; i < n_words; i += T) shared_vectors[i] = vectors[i];
        });
        staged_group = group;
      }
      vectors = shared_vectors;
    }
    ctx.barrier();  // tables and vectors staged

    const uint64_t begin = slice * slice_len;
    const uint64_t end = begin + slice_len < tests ? begin + slice_len : tests;
    for (uint64_t tile = begin; tile < end; tile += T) {
      ctx.each_thread([&](uint32_t t) {
        const uint64_t pos = p.first_tested + (tile + t) * stride;
        uint64_t fwd = 0, rc = 0;
        valid(t) = tile + t < end && packed_window(p.packed, p.invalid, pos, p.w, fwd, rc);
        if (valid(t)) hash.hash_all_upto<KMax>(canonical_wmer(fwd, rc), regs(t).h);
      });
      for (uint32_t j = 0; j < nv; ++j) {
        const uint32_t* bits = vectors + uint64_t(j) * p.words_per_vector;
        const ConstBloomView vector{bits, p.m_bits};
        ctx.each_thread([&](uint32_t t) { hit(t) = valid(t) && vector.contains_upto<KMax>(regs(t).h, p.k); });
        ctx.warp_append(p.hit_count, hit, [&](uint32_t t, HitCounter slot) {
          if (slot < p.capacity) {
            p.hit_pos[slot] = uint32_t(p.first_tested + (tile + t) * stride);
            p.hit_sub[slot] = v0 + j;
          }
        });
      }
    }
  }
}

}  // namespace bloomseq::cuda
