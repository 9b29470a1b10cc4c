// blastn's nucleotide scores for IUPAC codes (nucleotide_score.hpp) against values worked out by hand from BLAST's
// rule (BlastScoreBlkNuclMatrixCreate): a base against a code allowing d bases, one of them the base, scores
// round(((d - 1) * penalty + reward) / d), half away from zero; otherwise the penalty.
#include <catch2/catch.hpp>

#include "bloomseq/blast/nucleotide_score.hpp"

using namespace bloomseq;

namespace {
constexpr uint8_t A = 0, C = 1, G = 2, T = 3, N = 4;
constexpr uint8_t R = kIupacCodeBase + (1 | 4), Y = kIupacCodeBase + (2 | 8), B = kIupacCodeBase + (2 | 4 | 8),
                  V = kIupacCodeBase + (1 | 2 | 4);
}  // namespace

TEST_CASE("IUPAC codes score as blastn's nucleotide matrix scores them", "[nucleotide_score]") {
  // 2/-3, N -2: R (A or G) against A: (-3 + 2) / 2 = -0.5 -> -1; against C: -3. B (C, G or T) against C:
  // (-6 + 2) / 3 = -1.33 -> -1; against A: -3.
  REQUIRE(nucleotide_score(A, A, 2, -3, -2) == 2);
  REQUIRE(nucleotide_score(A, C, 2, -3, -2) == -3);
  REQUIRE(nucleotide_score(A, R, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(G, R, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(C, R, 2, -3, -2) == -3);
  REQUIRE(nucleotide_score(R, A, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(C, B, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(A, B, 2, -3, -2) == -3);
  REQUIRE(nucleotide_score(T, Y, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(G, V, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(N, A, 2, -3, -2) == -2);
  REQUIRE(nucleotide_score(N, R, 2, -3, -2) == -2);
  // 1/-2, N -1: R against A: (-2 + 1) / 2 = -0.5 -> -1; B against C: (-4 + 1) / 3 = -1 exactly.
  REQUIRE(nucleotide_score(A, R, 1, -2, -1) == -1);
  REQUIRE(nucleotide_score(C, B, 1, -2, -1) == -1);
  REQUIRE(nucleotide_score(T, R, 1, -2, -1) == -2);
  // 1/-1: R against A: 0 / 2 = 0; B against C: (-2 + 1) / 3 = -0.33 -> 0.
  REQUIRE(nucleotide_score(A, R, 1, -1, -1) == 0);
  REQUIRE(nucleotide_score(C, B, 1, -1, -1) == 0);
  // 4/-5: R against A: -0.5 -> -1; B against C: (-10 + 4) / 3 = -2.
  REQUIRE(nucleotide_score(A, R, 4, -5, -3) == -1);
  REQUIRE(nucleotide_score(C, B, 4, -5, -3) == -2);
}
