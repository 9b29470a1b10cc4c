// Karlin–Altschul statistics for ungapped blastn scores, computed the way NCBI BLAST+ computes them so that
// E-values and bit scores print identically: the ideal (uniform composition) ungapped lambda, K, H for the
// reward/penalty pair, or the values of one query strand's composition (as blastn's E-values use them), BLAST's
// length adjustment (BLAST_ComputeLengthAdjustment), and
// E = searchsp * exp(-lambda * S + ln K), bits = (lambda * S - ln K) / ln 2.
#pragma once
#include <cstdint>

namespace bloomseq {

struct KarlinParams {
  double lambda = 0;
  double K = 0;
  double logK = 0;
  double H = 0;
  double alpha = 0;  // lambda / H (ungapped)
  double beta = 0;   // 0, or -2 for 2/-3 (as BLAST+)
};

// Throws UsageError for reward/penalty pairs without tabulated values (supported: 1/-2, 2/-3).
KarlinParams ungapped_karlin(int reward, int penalty);

// blastn's values for one query strand (Blast_ScoreBlkKbpUngappedCalc, one per context): lambda, H and K computed
// from the score probabilities of that strand's base composition (`counts` of A, C, G, T; ambiguity codes are not
// counted) against the uniform one, in BLAST's order of operations. They equal the tabulated ones to ~1e-16, but
// not always in the last bits, and not alike on the two strands: blastn's E-values of equal scores on the two
// strands then differ in the last bits, which decides its order among lines that print alike. The tabulated
// values (with the uniform beta) where the composition gives no valid result (no bases). Same support as above.
KarlinParams ungapped_karlin_for_composition(int reward, int penalty, const uint64_t counts[4]);
// The same from the counts of each BLASTNA letter (A C G T R Y M K W S B D H V N: blastna_index in
// nucleotide_score.hpp): blastn counts a query's IUPAC codes other than N in its composition, scored against each
// base as its matrix scores them.
constexpr int kBlastnaLetters = 15;
KarlinParams ungapped_karlin_for_letters(int reward, int penalty, const uint64_t counts[kBlastnaLetters]);

// BLAST's integer length adjustment ell for a query of m bases against n bases in N sequences.
int64_t length_adjustment(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences);

// (m - ell) * (n - N ell), each factor at least 1.
double effective_search_space(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences);

// BLAST's BlastKarlinEtoS_simple: the smallest score whose E-value in `space` is at most e (at least 1).
int64_t score_for_evalue(const KarlinParams& kp, double space, double e);

double evalue_of(const KarlinParams& kp, int64_t score, double search_space);

// How blastn orders E-values (s_EvalueComp): -1, 0 or 1; any two below 1e-180 (printed 0.0) are equal.
inline int compare_evalues(double a, double b) {
  if (a < 1.0e-180 && b < 1.0e-180) return 0;
  return a < b ? -1 : (a > b ? 1 : 0);
}
double bitscore_of(const KarlinParams& kp, int64_t score);

// The raw X-drop for a value in bits: ceil(bits * ln 2 / lambda).
int xdrop_raw(const KarlinParams& kp, double bits);

}  // namespace bloomseq
