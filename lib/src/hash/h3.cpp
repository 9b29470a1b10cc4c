#include "bloomseq/hash/h3.hpp"

#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq {

H3Family::H3Family(int k, int w, uint64_t seed) : k_(k), w_(w), seed_(seed) {
  if (k < 1 || k > kMaxHashes)
    throw UsageError("number of hash functions must be 1.." + std::to_string(kMaxHashes) + ", got " + std::to_string(k));
  if (w < 1 || w > 32) throw UsageError("word size must be 1..32, got " + std::to_string(w));

  // Generation order is part of the format: for each function, 64 rows then the constant.
  // Rows for key bits >= 2w are generated too (and never used) so that the functions for bits < 2w do not
  // depend on w beyond which rows are read.
  SplitMix64 rng(seed);
  rows_.resize(size_t(k) * 64);
  constants_.resize(size_t(k));
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < 64; ++j) rows_[size_t(i) * 64 + j] = uint32_t(rng.next() >> 32);
    constants_[size_t(i)] = uint32_t(rng.next() >> 32);
  }
  build_tables();
}

H3Family H3Family::injective(int w) {
  if (w < 1 || w > 16) throw UsageError("an injective hash needs a word of 1..16 bases, got " + std::to_string(w));
  H3Family f;
  f.k_ = 1;
  f.w_ = w;
  f.injective_ = true;
  f.rows_.assign(64, 0);
  f.constants_.assign(1, 0);
  for (int j = 0; j < 2 * w; ++j) f.rows_[size_t(j)] = uint32_t(1) << (32 - 2 * w + j);
  f.build_tables();
  return f;
}

void H3Family::build_tables() {
  const int k = k_, w = w_;
  const int nbytes = (2 * w + 7) / 8;
  byte_tables_.assign(size_t(nbytes) * 256 * k, 0);
  for (int b = 0; b < nbytes; ++b)
    for (int v = 0; v < 256; ++v)
      for (int i = 0; i < k; ++i) {
        uint32_t h = b == 0 ? constants_[size_t(i)] : 0;
        for (int bit = 0; bit < 8; ++bit) {
          const int j = 8 * b + bit;
          if ((v >> bit & 1) && j < 2 * w) h ^= row(i, j);
        }
        byte_tables_[(size_t(b) * 256 + v) * k + i] = h;
      }

  const int nnib = (2 * w + 3) / 4;
  nibble_tables_.assign(size_t(nnib) * 16 * k, 0);
  for (int b = 0; b < nnib; ++b)
    for (int v = 0; v < 16; ++v)
      for (int i = 0; i < k; ++i) {
        uint32_t h = b == 0 ? constants_[size_t(i)] : 0;
        for (int bit = 0; bit < 4; ++bit) {
          const int j = 4 * b + bit;
          if ((v >> bit & 1) && j < 2 * w) h ^= row(i, j);
        }
        nibble_tables_[(size_t(b) * 16 + v) * k + i] = h;
      }
}

uint32_t H3Family::hash_bitloop(int i, uint64_t key) const {
  uint32_t h = constants_[size_t(i)];
  for (int j = 0; j < 2 * w_; ++j)
    if (key >> j & 1) h ^= row(i, j);
  return h;
}

}  // namespace bloomseq
