#include "bloomseq/backend/cpu_reference.hpp"

#include <algorithm>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

void stage1a_reference(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) {
  uint32_t h[kMaxHashes];
  const uint64_t end = std::min(chunk.n, chunk.n_starts + uint64_t(chunk.w) - 1);
  for_each_wmer(chunk.codes, size_t(end), chunk.w, [&](size_t pos, uint64_t fwd, uint64_t rc) {
    if (pos >= chunk.n_starts || (chunk.first_pos + pos) % chunk_stride(chunk) != 0) return;
    vectors.hash.hash_all(canonical_wmer(fwd, rc), h);
    for (uint32_t v = 0; v < vectors.count; ++v) {
      const ConstBloomView bits{vectors.words + v * vectors.words_per_vector, vectors.m_bits};
      if (bits.contains(h, vectors.k)) hits.push_back({chunk.first_pos + pos, v});
    }
  });
}

void classify_reference(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) {
  const int w = bank.family->w();
  out.reset(reads, bank.count, w);
  const H3ByteView hash = bank.family->byte_view();
  uint32_t h[kMaxHashes];
  for (uint32_t r = 0; r < reads.count; ++r) {
    const uint64_t start = reads.offsets[r];
    const uint32_t words = frame_words(out.frames[r]);
    for_each_wmer(reads.codes + start, size_t(reads.offsets[r + 1] - start), w,
                  [&](size_t pos, uint64_t fwd, uint64_t rc) {
                    hash.hash_all(canonical_wmer(fwd, rc), h);
                    for (uint32_t f = 0; f < bank.count; ++f) {
                      if (!bank_filter_contains(bank, bank.filters[f], h)) continue;
                      out.bitmaps[out.bitmap_offset[r] + uint64_t(f) * words + (pos >> 5)] |= 1u << (pos & 31);
                      ++out.hit_frames[size_t(r) * bank.count + f];
                    }
                  });
  }
}

}  // namespace bloomseq
