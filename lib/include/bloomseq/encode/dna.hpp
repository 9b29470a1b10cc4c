// 2-bit DNA alphabet: A=0 C=1 G=2 T=3; lower case is the same base, and U (RNA) is T, as blastn and the FASTA
// readers of the field read it (an rRNA database in the RNA alphabet is the same sequence); everything else (N and
// the IUPAC ambiguity codes) is kInvalidBase and breaks w-mer windows. Never mapped silently to a base.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bloomseq/hd.hpp"

namespace bloomseq {

constexpr uint8_t kInvalidBase = 4;
constexpr int kMaxWordSize = 32;  // a w-mer of up to 32 bases fits a uint64_t

// Maps one character to its 2-bit code, or kInvalidBase.
BLOOMSEQ_HD constexpr uint8_t base_code(char c) {
  switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': case 'U': case 'u': return 3;
    default: return kInvalidBase;
  }
}

BLOOMSEQ_HD char code_base(uint8_t code) { return code < 4 ? "ACGT"[code] : 'N'; }

BLOOMSEQ_HD uint8_t complement_code(uint8_t code) { return code < 4 ? uint8_t(3 - code) : kInvalidBase; }

// Mask of the 2w low bits of a w-mer.
BLOOMSEQ_HD uint64_t wmer_mask(int w) { return w >= 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * w)) - 1; }

// Reverse complement of a packed w-mer (first base in the most significant position).
BLOOMSEQ_HD uint64_t revcomp_wmer(uint64_t x, int w) {
  x = ~x;  // complement: 3 - c for every 2-bit code
  // Reverse the order of the 2-bit groups in the 64-bit word, then drop the unused low groups.
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
  x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
  x = (x >> 32) | (x << 32);
  return x >> (64 - 2 * w);
}

// The codes in the 8 bytes of x (byte j = base j, each 0..3) packed as sum b_j 4^j (first base lowest): three
// shift-or steps. A word read straight from a code array is keyed this way by the short-word scan.
BLOOMSEQ_HD uint64_t pack_code_bytes(uint64_t x) {
  x = (x | (x >> 6)) & 0x000F000F000F000FULL;
  x = (x | (x >> 12)) & 0x000000FF000000FFULL;
  return (x | (x >> 24)) & 0xFFFFULL;
}

// The canonical form of a w-mer is the smaller of it and its reverse complement, so both strands of the
// same site give the same key.
BLOOMSEQ_HD uint64_t canonical_wmer(uint64_t fwd, uint64_t rc) { return fwd < rc ? fwd : rc; }

// Rolling state of a w-mer scanner over 2-bit codes. Push codes one at a time; a window is complete when
// `valid` reaches w. An invalid code resets the window.
struct WmerRoller {
  uint64_t fwd = 0;
  uint64_t rc = 0;
  uint64_t mask = 0;
  int shift = 0;  // 2(w-1): where a complemented base enters the reverse complement
  int w = 0;
  int valid = 0;  // bases since the last invalid one, capped at w

  BLOOMSEQ_HD explicit WmerRoller(int word_size)
      : mask(wmer_mask(word_size)), shift(2 * (word_size - 1)), w(word_size) {}

  // Returns true when the last w codes pushed form a complete w-mer.
  BLOOMSEQ_HD bool push(uint8_t code) {
    if (code >= 4) {
      valid = 0;
      fwd = rc = 0;
      return false;
    }
    fwd = ((fwd << 2) | code) & mask;
    rc = (rc >> 2) | (uint64_t(3 - code) << shift);
    if (valid < w) ++valid;
    return valid == w;
  }
};

// Calls f(position, forward, reverse_complement) for every w-mer of codes[0..n) without an invalid base.
// `position` is the index of the w-mer's first base.
template <class F>
BLOOMSEQ_HD void for_each_wmer(const uint8_t* codes, size_t n, int w, F&& f) {
  WmerRoller r(w);
  for (size_t i = 0; i < n; ++i) {
    if (r.push(codes[i])) f(i + 1 - size_t(w), r.fwd, r.rc);
  }
}

// Packed sequences hold 32 bases per uint64_t, base i at bits [2*(i%32), 2*(i%32)+2) of word i/32.
BLOOMSEQ_HD uint8_t packed_base(const uint64_t* packed, size_t i) {
  return uint8_t((packed[i >> 5] >> (2 * (i & 31))) & 3);
}

// The w-mer starting at base `pos` of a packed sequence (first base most significant), read from at most two
// words. The caller checks the invalid-base mask separately.
BLOOMSEQ_HD uint64_t packed_wmer(const uint64_t* packed, size_t pos, int w) {
  uint64_t x = 0;
  for (int j = 0; j < w; ++j) x = (x << 2) | packed_base(packed, pos + size_t(j));
  return x;
}

}  // namespace bloomseq
