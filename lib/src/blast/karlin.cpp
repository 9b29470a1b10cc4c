#include "bloomseq/blast/karlin.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq {

KarlinParams ungapped_karlin(int reward, int penalty) {
  KarlinParams kp;
  // BLAST+ blast_stat.c, ungapped rows of the blastn tables (uniform base composition).
  if (reward == 1 && penalty == -2) {
    kp.lambda = 1.33270576282382;
    kp.K = 0.620991117264207;
    kp.H = 1.12409184650114;
    kp.beta = 0;
  } else if (reward == 2 && penalty == -3) {
    kp.lambda = 0.633731443099174;
    kp.K = 0.408145662544724;
    kp.H = 0.91243839227971;
    kp.beta = -2;  // BLAST+ s_GetUngappedBeta
  } else {
    throw UsageError("reward/penalty " + std::to_string(reward) + "/" + std::to_string(penalty) +
                     " not supported (supported: 1/-2, 2/-3)");
  }
  kp.logK = std::log(kp.K);
  kp.alpha = kp.lambda / kp.H;
  return kp;
}

// A transcription of BLAST_ComputeLengthAdjustment (blast_stat.c): the largest integer ell with
// ell <= alpha/lambda * (ln K + ln((m - ell)(n - N ell))) + beta, found by a bracketed fixed-point iteration.
int64_t length_adjustment(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences) {
  const int kMaxIterations = 20;
  const double m = double(query_length), n = double(db_length), N = double(db_sequences);
  const double alpha_d_lambda = kp.alpha / kp.lambda;
  double ell_min = 0, ell_max, ell_next = 0, ell = 0, ss;
  bool converged = false;
  {
    const double a = N, mb = m * N + n, c = n * m - std::max(m, n) / kp.K;
    if (c < 0) return 0;
    ell_max = 2 * c / (mb + std::sqrt(mb * mb - 4 * a * c));
  }
  for (int i = 1; i <= kMaxIterations; i++) {
    ell = ell_next;
    ss = (m - ell) * (n - N * ell);
    const double ell_bar = alpha_d_lambda * (kp.logK + std::log(ss)) + kp.beta;
    if (ell_bar >= ell) {
      ell_min = ell;
      if (ell_bar - ell_min <= 1.0) {
        converged = true;
        break;
      }
      if (ell_min == ell_max) break;
    } else {
      ell_max = ell;
    }
    if (ell_min <= ell_bar && ell_bar <= ell_max) ell_next = ell_bar;
    else ell_next = (i == 1) ? ell_max : (ell_min + ell_max) / 2;
  }
  int64_t result = int64_t(ell_min);
  if (converged) {
    ell = std::ceil(ell_min);
    if (ell <= ell_max) {
      ss = (m - ell) * (n - N * ell);
      if (alpha_d_lambda * (kp.logK + std::log(ss)) + kp.beta >= ell) result = int64_t(ell);
    }
  }
  return result;
}

double effective_search_space(const KarlinParams& kp, uint64_t query_length, uint64_t db_length, uint64_t db_sequences) {
  const int64_t ell = length_adjustment(kp, query_length, db_length, db_sequences);
  int64_t eff_db = int64_t(db_length) - int64_t(db_sequences) * ell;
  int64_t eff_q = int64_t(query_length) - ell;
  if (eff_db < 1) eff_db = 1;
  if (eff_q < 1) eff_q = 1;
  return double(eff_db) * double(eff_q);  // BLAST multiplies the integers (Int8); exact below 2^53
}

int64_t score_for_evalue(const KarlinParams& kp, double space, double e) {
  e = std::max(e, 1.0e-297);
  const int64_t s = int64_t(std::ceil(std::log(kp.K * space / e) / kp.lambda));
  return std::max<int64_t>(1, s);
}

double evalue_of(const KarlinParams& kp, int64_t score, double search_space) {
  return search_space * std::exp(-kp.lambda * double(score) + kp.logK);
}

double bitscore_of(const KarlinParams& kp, int64_t score) {
  return (double(score) * kp.lambda - kp.logK) / 0.69314718055994530941723212145818;
}

int xdrop_raw(const KarlinParams& kp, double bits) {
  return int(std::ceil(bits * 0.69314718055994530941723212145818 / kp.lambda));
}

}  // namespace bloomseq
