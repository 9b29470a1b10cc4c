// Karlin–Altschul statistics for ungapped blastn scores, computed the way NCBI BLAST+ computes them so that
// E-values and bit scores print identically: the ideal (uniform composition) ungapped lambda, K, H for the
// reward/penalty pair, BLAST's length adjustment (BLAST_ComputeLengthAdjustment), and
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

// BLAST's integer length adjustment ell for a query of m bases against n bases in N sequences.
int64_t length_adjustment(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences);

// (m - ell) * (n - N ell), each factor at least 1.
double effective_search_space(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences);

// BLAST's BlastKarlinEtoS_simple: the smallest score whose E-value in `space` is at most e (at least 1).
int64_t score_for_evalue(const KarlinParams& kp, double space, double e);

double evalue_of(const KarlinParams& kp, int64_t score, double search_space);
double bitscore_of(const KarlinParams& kp, int64_t score);

// The raw X-drop for a value in bits: ceil(bits * ln 2 / lambda).
int xdrop_raw(const KarlinParams& kp, double bits);

}  // namespace bloomseq
