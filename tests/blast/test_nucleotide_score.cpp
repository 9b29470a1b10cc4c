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

TEST_CASE("Two IUPAC codes score by the degeneracy of the one later in BLASTNA's order", "[nucleotide_score]") {
  // BLASTNA: A C G T R Y M K W S B D H V N. matrix[i][j] for i <= j is filled from the degeneracy of j and mirrored.
  constexpr uint8_t M = kIupacCodeBase + (1 | 2), K = kIupacCodeBase + (4 | 8), S = kIupacCodeBase + (2 | 4),
                    D = kIupacCodeBase + (1 | 4 | 8);
  // R against R (index 4, d = 2): (-3 + 2) / 2 -> -1; not a match's reward.
  REQUIRE(nucleotide_score(R, R, 2, -3, -2) == -1);
  // R against Y: no base in common -> the penalty.
  REQUIRE(nucleotide_score(R, Y, 2, -3, -2) == -3);
  REQUIRE(nucleotide_score(M, K, 2, -3, -2) == -3);
  // R (index 4, d 2) against B (index 10, d 3; shares G): B's degeneracy, (-6 + 2) / 3 -> -1; either order.
  REQUIRE(nucleotide_score(R, B, 2, -3, -2) == -1);
  REQUIRE(nucleotide_score(B, R, 2, -3, -2) == -1);
  // At 4/-5: R against B (-10 + 4) / 3 = -2, where R's degeneracy would give (-5 + 4) / 2 -> -1.
  REQUIRE(nucleotide_score(R, B, 4, -5, -3) == -2);
  REQUIRE(nucleotide_score(B, R, 4, -5, -3) == -2);
  // S (index 9, d 2) against D (index 11, d 3; shares G): D's, -2 at 4/-5; M (index 6) against S (shares C): S's
  // d = 2, (-5 + 4) / 2 -> -1.
  REQUIRE(nucleotide_score(S, D, 4, -5, -3) == -2);
  REQUIRE(nucleotide_score(M, S, 4, -5, -3) == -1);
  // N (index 14) is later than every code: the fully degenerate score.
  REQUIRE(nucleotide_score(N, B, 4, -5, -3) == -3);
  REQUIRE(nucleotide_score(D, N, 2, -3, -2) == -2);
}

TEST_CASE("BLASTNA letters, NCBI4na bases and complements of the codes the extensions read", "[nucleotide_score]") {
  // BLASTNA's order, written out: A C G T R Y M K W S B D H V N, with the bases each allows (A 1, C 2, G 4, T 8).
  const unsigned allowed[15] = {1, 2, 4, 8, 1 | 4, 2 | 8, 1 | 2, 4 | 8, 1 | 8, 2 | 4, 2 | 4 | 8, 1 | 4 | 8,
                                1 | 2 | 8, 1 | 2 | 4, 15};
  for (uint8_t i = 0; i < 15; ++i) {
    INFO("BLASTNA letter " << int(i));
    REQUIRE(blastna_allowed(i) == allowed[i]);
    REQUIRE(blastna_index(allowed[i]) == i);
    const uint8_t code = code_of_blastna(i);
    REQUIRE(blastna_of_code(code) == i);
    if (i < 4) REQUIRE(code == i);
    else if (i == 14) REQUIRE(code == N);
    else REQUIRE(code == kIupacCodeBase + allowed[i]);
  }
  // Complements: A-T, C-G; R (A, G) - Y (C, T); M (A, C) - K (G, T); B (C, G, T) - V (A, C, G); W, S and N stay.
  REQUIRE(complement_extension_code(A) == T);
  REQUIRE(complement_extension_code(G) == C);
  REQUIRE(complement_extension_code(R) == Y);
  REQUIRE(complement_extension_code(Y) == R);
  REQUIRE(complement_extension_code(B) == V);
  REQUIRE(complement_extension_code(kIupacCodeBase + (1 | 2)) == kIupacCodeBase + (4 | 8));
  REQUIRE(complement_extension_code(kIupacCodeBase + (1 | 8)) == kIupacCodeBase + (1 | 8));
  REQUIRE(complement_extension_code(N) == N);
}
