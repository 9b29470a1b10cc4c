// blastn's nucleotide scores (BlastScoreBlkNuclMatrixCreate) over the codes the extensions read: 0-3 the bases
// (encode/dna.hpp), kInvalidBase (4) N or an ambiguity code of unknown kind, and 16 + the NCBI4na bits of the bases
// it allows (A = 1, C = 2, G = 4, T = 8) for the other IUPAC codes of a subject's true codes (subject_bases.hpp) or of
// a query (QuerySet::true_codes). BLAST fills its matrix over its BLASTNA letters (A C G T R Y M K W S B D H V N)
// for index1 <= index2: two codes that share a base score round(((d - 1) * penalty + reward) / d), d the number of
// bases the code of the larger index allows (half away from zero: -1 for R against A at 2/-3, and for R against R),
// two that share none the penalty. So N (index 14) against anything scores the fully degenerate `ambiguous` (d = 4).
// Plain C++, header only.
#pragma once
#include <cstdint>

namespace bloomseq {

constexpr uint8_t kIupacCodeBase = 16;  // codes from here on: 16 + allowed-base bits (2 or 3 of them)

// BLAST's nearest integer (BLAST_Nint): half away from zero.
inline int blast_nint(double x) { return int(x + (x >= 0. ? 0.5 : -0.5)); }

// The score of two codes that share a base, `allowed` the bases of the one with the larger BLASTNA index.
inline int degenerate_match(unsigned allowed, int reward, int penalty) {
  const int d = __builtin_popcount(allowed);
  return blast_nint(double((d - 1) * penalty + reward) / double(d));
}

inline int iupac_against_base(uint8_t code, uint8_t base, int reward, int penalty) {
  const unsigned allowed = unsigned(code - kIupacCodeBase);
  if (!((allowed >> base) & 1u)) return penalty;
  return degenerate_match(allowed, reward, penalty);
}

// BLASTNA's index of the code allowing these NCBI4na bases (1..15); 0xFF for 0.
inline uint8_t blastna_index(unsigned allowed) {
  static constexpr uint8_t kIndex[16] = {0xFF, 0, 1, 6, 2, 4, 9, 13, 3, 8, 5, 12, 7, 11, 10, 14};
  return kIndex[allowed & 15u];
}

// The NCBI4na bases of BLASTNA letter i (0..14; 15, the gap, none).
inline unsigned blastna_allowed(uint8_t i) {
  static constexpr uint8_t kAllowed[16] = {1, 2, 4, 8, 5, 10, 3, 12, 9, 6, 14, 13, 11, 7, 15, 0};
  return kAllowed[i & 15u];
}

// The code the extensions read for BLASTNA letter i (0..14): a base, kInvalidBase for N, else 16 + bits.
inline uint8_t code_of_blastna(uint8_t i) {
  if (i < 4) return i;
  const unsigned allowed = blastna_allowed(i);
  return allowed == 15u ? uint8_t(4) : uint8_t(kIupacCodeBase + allowed);
}

// The BLASTNA letter of a code the extensions read (N, and anything else that is not a base or IUPAC code: 14).
inline uint8_t blastna_of_code(uint8_t c) {
  if (c < 4) return c;
  if (c > kIupacCodeBase && c < kIupacCodeBase + 15) return blastna_index(unsigned(c - kIupacCodeBase));
  return 14;
}

// The complement of a code the extensions read (A <-> T, C <-> G; bits reversed for IUPAC codes).
inline uint8_t complement_extension_code(uint8_t c) {
  if (c < 4) return uint8_t(3 - c);
  if (c < kIupacCodeBase) return c;
  const unsigned b = unsigned(c - kIupacCodeBase);
  return uint8_t(kIupacCodeBase + (((b & 1u) << 3) | ((b & 2u) << 1) | ((b & 4u) >> 1) | ((b & 8u) >> 3)));
}

inline int nucleotide_score(uint8_t a, uint8_t b, int reward, int penalty, int ambiguous) {
  if (a < 4 && b < 4) return a == b ? reward : penalty;
  if (a < 4 && b >= kIupacCodeBase) return iupac_against_base(b, a, reward, penalty);
  if (b < 4 && a >= kIupacCodeBase) return iupac_against_base(a, b, reward, penalty);
  if (a >= kIupacCodeBase && b >= kIupacCodeBase) {
    const unsigned x = unsigned(a - kIupacCodeBase), y = unsigned(b - kIupacCodeBase);
    if (!(x & y)) return penalty;
    return degenerate_match(blastna_index(x) > blastna_index(y) ? x : y, reward, penalty);
  }
  return ambiguous;
}

}  // namespace bloomseq
