// Which w-mers occur in the query, on either strand: one bit per w-mer (4^w bits, so only for w <= kMaxWord), addressed
// by the word's 2-bit codes packed first base lowest (sum b_j 4^j: what one or two 8-byte loads of a code array give
// after three shift-or steps). Stage 1b asks it first whether a strided probe match can yield any seed at all: most
// probe matches of a short word lie in no matching w-mer, and this answer costs a few cache reads where the query
// index costs a walk through its entries.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

class WordPresence {
 public:
  static constexpr int kMaxWord = 12;  // 4^12 bits = 2 MB
  WordPresence() = default;
  // The w-mers of these query records (2-bit codes, invalid codes break words). Empty when w > kMaxWord.
  WordPresence(const std::vector<std::vector<uint8_t>>& queries, int w);

  bool empty() const { return bits_.empty(); }
  // True when the valid w-mer codes[u, u + w) occurs in the query on either strand. Needs 16 readable bytes at
  // codes + u when `padded`; otherwise reads only codes[u, u + w).
  // The bit of the word at `word` (16 readable bytes), 0 when it holds an invalid code.
  uint64_t bit(const uint8_t* word) const {
    uint64_t lo, hi;
    std::memcpy(&lo, word, 8);
    std::memcpy(&hi, word + 8, 8);
    lo &= lo_mask_;
    hi &= hi_mask_;
    const uint64_t valid = ((lo | hi) & 0xFCFCFCFCFCFCFCFCULL) ? 0 : 1;
    const uint64_t key = (pack_code_bytes(lo) | pack_code_bytes(hi) << 16) & (0 - valid);
    return (bits_[key >> 6] >> (key & 63)) & valid;
  }
  bool contains(const uint8_t* codes, uint64_t u, bool padded) const {
    uint64_t lo = 0, hi = 0;
    if (padded) {
      std::memcpy(&lo, codes + u, 8);
      std::memcpy(&hi, codes + u + 8, 8);
    } else {
      uint8_t word[16] = {};
      std::memcpy(word, codes + u, size_t(w_));
      std::memcpy(&lo, word, 8);
      std::memcpy(&hi, word + 8, 8);
    }
    lo &= lo_mask_;
    hi &= hi_mask_;
    if ((lo | hi) & 0xFCFCFCFCFCFCFCFCULL) return false;  // an invalid code
    const uint64_t key = pack_code_bytes(lo) | pack_code_bytes(hi) << 16;
    return (bits_[key >> 6] >> (key & 63)) & 1;
  }
  // True when some w-mer that starts in (t - s, t] and lies inside codes[0, n) occurs in the query: can the probe at
  // t (stride s) give a seed?
  bool any_containing(const uint8_t* codes, uint64_t n, uint64_t t, uint64_t s) const {
    if (t + 1 >= s && t + 16 <= n) {
      // Away from the edges: all s words read without branches, so their cache misses overlap.
      uint64_t any = 0;
      for (uint64_t l = 0; l < s; ++l) any |= bit(codes + t - l);
      return any != 0;
    }
    for (uint64_t l = 0; l < s && l <= t; ++l) {
      const uint64_t u = t - l;
      if (u + uint64_t(w_) > n) continue;
      if (contains(codes, u, u + 16 <= n)) return true;
    }
    return false;
  }

 private:
  std::vector<uint64_t> bits_;
  int w_ = 0;
  uint64_t lo_mask_ = 0, hi_mask_ = 0;
};

}  // namespace bloomseq
