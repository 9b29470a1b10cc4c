// The H3 hash family (Carter & Wegman), in its affine form.
//
// h_i(x) = c_i XOR (XOR of the rows q_i[j] for every set bit j of the key x), with a random 32-bit constant c_i.
// Plain H3 is linear, so every function would map the all-A w-mer (x = 0) to 0; the constant removes that.
// All k functions are generated from one 64-bit seed by splitmix64, so the same seed gives the same
// functions on every platform. Outputs are 32-bit; Bloom vectors reduce them to m bits (see bloom_view.hpp).
//
// Evaluation is table-driven: for every key byte b and byte value v, a table holds the XOR of the rows selected
// by v, for all k functions side by side ([byte][value][function]), so one key is hashed by all k functions with
// ceil(2w/8) table rows and the inner loop over functions vectorises. The constants are folded into byte 0.
// A nibble-sliced form (16 entries per nibble) is small enough for GPU shared memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bloomseq/hd.hpp"

namespace bloomseq {

constexpr int kMaxHashes = 32;

// Deterministic 64-bit generator (Steele et al.'s splitmix64): identical sequence on every platform.
struct SplitMix64 {
  uint64_t state;
  BLOOMSEQ_HD explicit SplitMix64(uint64_t seed) : state(seed) {}
  BLOOMSEQ_HD uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

// Non-owning view of byte-sliced tables: tables[(byte * 256 + value) * k + function].
struct H3ByteView {
  const uint32_t* tables = nullptr;
  int k = 0;
  int key_bytes = 0;  // ceil(2w / 8)

  // All k hashes of one key.
  BLOOMSEQ_HD void hash_all(uint64_t key, uint32_t* out) const {
    for (int i = 0; i < k; ++i) out[i] = 0;
    for (int b = 0; b < key_bytes; ++b) {
      const uint32_t* row = tables + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * size_t(k);
      for (int i = 0; i < k; ++i) out[i] ^= row[i];
    }
  }
  // Hash function i only (the paper's per-probe form).
  BLOOMSEQ_HD uint32_t hash(int i, uint64_t key) const {
    uint32_t h = 0;
    for (int b = 0; b < key_bytes; ++b) h ^= tables[(size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * size_t(k) + i];
    return h;
  }
};

// Non-owning view of nibble-sliced tables: tables[(nibble * 16 + value) * k + function]. 16x smaller than the
// byte tables (k = 6, w = 32: 6 KiB), for on-chip memory.
struct H3NibbleView {
  const uint32_t* tables = nullptr;
  int k = 0;
  int key_nibbles = 0;  // ceil(2w / 4)

  BLOOMSEQ_HD void hash_all(uint64_t key, uint32_t* out) const { hash_all_upto<kMaxHashes>(key, out); }
  // The same for k <= KMax, the loops over functions unrolled to KMax on the device, so that `out` can live in
  // registers instead of local memory.
  template <int KMax>
  BLOOMSEQ_HD void hash_all_upto(uint64_t key, uint32_t* out) const {
    BLOOMSEQ_UNROLL
    for (int i = 0; i < KMax; ++i)
      if (i < k) out[i] = 0;
    for (int b = 0; b < key_nibbles; ++b) {
      const uint32_t* row = tables + (size_t(b) * 16 + ((key >> (4 * b)) & 0xF)) * size_t(k);
      BLOOMSEQ_UNROLL
      for (int i = 0; i < KMax; ++i)
        if (i < k) out[i] ^= row[i];
    }
  }
};

// The owning family: the random matrices, constants and the derived tables.
class H3Family {
 public:
  H3Family() = default;
  // k functions (1..kMaxHashes) over keys of 2w bits (w = 1..32), generated from `seed`.
  H3Family(int k, int w, uint64_t seed);
  // The one function of the family that maps every key of 2w <= 32 bits to its own slot of a 4^w-bit vector:
  // row j = bit (32 - 2w + j), constant 0, so h(x) = x << (32 - 2w) and bloom_slot(h, 4^w) = x. A Bloom vector
  // with this single function is an exact set (no false positives) where 4^w bits are affordable (short words).
  static H3Family injective(int w);
  bool is_injective() const { return injective_; }

  int k() const { return k_; }
  int w() const { return w_; }
  int key_bits() const { return 2 * w_; }
  uint64_t seed() const { return seed_; }

  // Row j of function i's matrix (the word XORed in when key bit j is set), and its affine constant.
  uint32_t row(int i, int j) const { return rows_[size_t(i) * 64 + j]; }
  uint32_t constant(int i) const { return constants_[size_t(i)]; }

  // Reference evaluation, one key bit at a time (slow; the definition the fast forms must match).
  uint32_t hash_bitloop(int i, uint64_t key) const;

  H3ByteView byte_view() const { return {byte_tables_.data(), k_, (2 * w_ + 7) / 8}; }
  H3NibbleView nibble_view() const { return {nibble_tables_.data(), k_, (2 * w_ + 3) / 4}; }
  const std::vector<uint32_t>& byte_tables() const { return byte_tables_; }
  const std::vector<uint32_t>& nibble_tables() const { return nibble_tables_; }

 private:
  void build_tables();

  int k_ = 0;
  int w_ = 0;
  uint64_t seed_ = 0;
  bool injective_ = false;
  std::vector<uint32_t> rows_;       // k * 64
  std::vector<uint32_t> constants_;  // k
  std::vector<uint32_t> byte_tables_;
  std::vector<uint32_t> nibble_tables_;
};

constexpr uint64_t kDefaultH3Seed = 0x626C6F6F6D736571ULL;  // "bloomseq"

}  // namespace bloomseq
