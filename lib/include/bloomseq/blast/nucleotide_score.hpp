// blastn's nucleotide scores (BlastScoreBlkNuclMatrixCreate) over the codes the extensions read: 0-3 the bases
// (encode/dna.hpp), kInvalidBase (4) N or an ambiguity code of unknown kind, and 16 + the NCBI4na bits of the bases
// it allows (A = 1, C = 2, G = 4, T = 8) for a subject's other IUPAC codes, as the final alignments read the true
// subject (subject_bases.hpp). A base against a code that allows it scores round(((d - 1) * penalty + reward) / d)
// for a code allowing d bases (half away from zero: -1 for R against A at 2/-3), against one that does not the
// penalty; N, or two ambiguity codes, the fully degenerate score `ambiguous` (d = 4). Plain C++, header only.
#pragma once
#include <cstdint>

namespace bloomseq {

constexpr uint8_t kIupacCodeBase = 16;  // codes from here on: 16 + allowed-base bits (2 or 3 of them)

inline int iupac_against_base(uint8_t code, uint8_t base, int reward, int penalty) {
  const unsigned allowed = unsigned(code - kIupacCodeBase);
  if (!((allowed >> base) & 1u)) return penalty;
  const int d = __builtin_popcount(allowed);
  const double x = double((d - 1) * penalty + reward) / double(d);
  return int(x + (x >= 0. ? 0.5 : -0.5));  // BLAST_Nint
}

inline int nucleotide_score(uint8_t a, uint8_t b, int reward, int penalty, int ambiguous) {
  if (a < 4 && b < 4) return a == b ? reward : penalty;
  if (a < 4 && b >= kIupacCodeBase) return iupac_against_base(b, a, reward, penalty);
  if (b < 4 && a >= kIupacCodeBase) return iupac_against_base(a, b, reward, penalty);
  return ambiguous;
}

}  // namespace bloomseq
