#include "bloomseq/blast/karlin.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/blast/gapped_karlin.hpp"
#include "bloomseq/blast/nucleotide_score.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

namespace {

// BLAST's helpers (ncbi_math.c), in its order of operations.
int blast_gcd(int a, int b) {
  b = std::abs(b);
  if (b > a) std::swap(a, b);
  while (b != 0) {
    const int c = a % b;
    a = b;
    b = c;
  }
  return a;
}

double blast_expm1(double x) {
  const double absx = std::fabs(x);
  if (absx > .33) return std::exp(x) - 1.;
  if (absx < 1.e-16) return x;
  return x * (1. + x * (1. / 2. + x * (1. / 6. + x * (1. / 24. + x * (1. / 120. + x * (1. / 720. + x * (1. / 5040. +
         x * (1. / 40320. + x * (1. / 362880. + x * (1. / 3628800. + x * (1. / 39916800. + x * (1. / 479001600. +
         x / 6227020800.))))))))))));
}

double blast_powi(double x, int n) {
  if (n == 0) return 1.;
  if (x == 0.) return n < 0 ? HUGE_VAL : 0.;
  if (n < 0) x = 1. / x, n = -n;
  double y = 1.;
  while (n > 0) {
    if (n & 1) y *= x;
    n /= 2;
    x *= x;
  }
  return y;
}

// Score probabilities indexed from `low` (obs_min) to `high` (obs_max), and the mean score.
struct ScoreProbabilities {
  int low = 0, high = 0;
  std::vector<double> p;  // p[s - low]
  double average = 0;
  double at(int s) const { return (s < low || s > high) ? 0.0 : p[size_t(s - low)]; }
};

// Lambda by Newton's method safeguarded by bisection, in x = exp(-lambda) (NlmKarlinLambdaNR).
double karlin_lambda(const ScoreProbabilities& sp, int d) {
  const double tolx = 1.e-5;
  const int itmax = 20, max_newton = 20 + 17;
  const int low = sp.low, high = sp.high;
  const double x0 = std::exp(-0.5);
  double x = (0 < x0 && x0 < 1) ? x0 : .5;
  double a = 0, b = 1, f = 4;
  bool is_newton = false;
  for (int k = 0; k < itmax; k++) {
    const double fold = f;
    const bool was_newton = is_newton;
    is_newton = false;
    double g = 0;
    f = sp.at(low);
    int i;
    for (i = low + d; i < 0; i += d) {
      g = x * g + f;
      f = f * x + sp.at(i);
    }
    g = x * g + f;
    f = f * x + sp.at(0) - 1;
    for (i = d; i <= high; i += d) {
      g = x * g + f;
      f = f * x + sp.at(i);
    }
    if (f > 0) a = x;
    else if (f < 0) b = x;
    else break;
    if (b - a < 2 * a * (1 - b) * tolx) {
      x = (a + b) / 2;
      break;
    }
    if (k >= max_newton || (was_newton && std::fabs(f) > .9 * std::fabs(fold)) || g >= 0) {
      x = (a + b) / 2;
    } else {
      const double step = -f / g;
      const double y = x + step;
      if (y <= a || y >= b) {
        x = (a + b) / 2;
      } else {
        is_newton = true;
        x = y;
        if (std::fabs(step) < tolx * x * (1 - x)) break;
      }
    }
  }
  return -std::log(x) / d;
}

// H (BlastKarlinLtoH).
double karlin_h(const ScoreProbabilities& sp, double lambda) {
  const double etonlam = std::exp(-lambda);
  double sum = sp.low * sp.at(sp.low);
  for (int score = sp.low + 1; score <= sp.high; score++) sum = score * sp.at(score) + etonlam * sum;
  const double scale = blast_powi(etonlam, sp.high);
  return scale > 0.0 ? lambda * sum / scale : lambda * std::exp(lambda * sp.high + std::log(sum));
}

// K (BlastKarlinLHtoK): closed forms when the lowest score is -1 or the highest 1, else a sum over alignment lengths
// of the probabilities of their scores, computed by dynamic programming.
double karlin_k(const ScoreProbabilities& sp, double lambda, double H) {
  if (lambda <= 0. || H <= 0. || sp.average >= 0.0) return -1.;
  int low = sp.low, high = sp.high, range = high - low;
  int divisor = -low;
  for (int i = 1; i <= range && divisor > 1; ++i)
    if (sp.at(low + i) != 0.0) divisor = blast_gcd(divisor, i);
  high /= divisor;
  low /= divisor;
  lambda *= divisor;
  range = high - low;
  double first_term = H / lambda;
  const double exp_minus_lambda = std::exp(-lambda);
  if (low == -1 && high == 1) {
    const double lo = sp.at(low * divisor), hi = sp.at(high * divisor);
    return (lo - hi) * (lo - hi) / lo;
  }
  if (low == -1 || high == 1) {
    if (high != 1) {
      const double average = sp.average / divisor;
      first_term = (average * average) / first_term;
    }
    return first_term * (1.0 - exp_minus_lambda);
  }
  const double sum_limit = 0.0001;
  const int iter_limit = 100;
  std::vector<double> P(size_t(iter_limit * range + 1), 0.0);  // probabilities of alignment scores, from the lowest
  // The score probabilities from the lowest, as BLAST reads them: from the lowest score before the division (the
  // same whenever the divisor is 1, as for every supported reward/penalty pair here).
  auto prob_low = [&](int k) { return sp.at(sp.low + k); };
  double outer_sum = 0., inner_sum = 1.;
  int low_score = 0, high_score = 0;
  P[0] = 1.;
  for (int iter = 0; iter < iter_limit && inner_sum > sum_limit;) {
    int first = range, last = range;
    low_score += low;
    high_score += high;
    for (int at = high_score - low_score; at >= 0; --at) {
      inner_sum = 0.;
      for (int p1 = at - first, p2 = first; p1 >= at - last; --p1, ++p2) inner_sum += P[size_t(p1)] * prob_low(p2);
      if (first) --first;
      if (at <= range) --last;
      P[size_t(at)] = inner_sum;
    }
    int at = 0;
    inner_sum = P[size_t(at)];
    int i;
    for (i = low_score + 1; i < 0; i++) inner_sum = P[size_t(++at)] + inner_sum * exp_minus_lambda;
    inner_sum *= exp_minus_lambda;
    for (; i <= high_score; ++i) inner_sum += P[size_t(++at)];
    inner_sum /= ++iter;
    outer_sum += inner_sum;
  }
  return -std::exp(-2.0 * outer_sum) / (first_term * blast_expm1(-lambda));
}

// Blast_KarlinBlkUngappedCalc on the score probabilities of BlastScoreFreqCalc for query letter probabilities p1
// (the BLASTNA letters but N) against the uniform subject. False where BLAST's computation gives no valid result.
bool karlin_from_letters(int reward, int penalty, const double p1[kBlastnaLetters - 1], KarlinParams& kp) {
  constexpr int kN = kBlastnaLetters - 1;
  const double p2 = 25.00 / 100.;
  // BlastScoreFreqCalc: the pairs in the matrix's order (query letter, then subject letter); the subject's letters
  // other than the four bases have probability 0 and add nothing.
  ScoreProbabilities sp;
  const int lo = penalty, hi = reward;
  std::vector<double> prob(size_t(hi - lo + 1), 0.0);
  const int ambiguous = degenerate_match(15u, reward, penalty);  // N; not reached (N is not counted)
  for (int a = 0; a < kN; ++a)
    for (uint8_t b = 0; b < 4; ++b)
      prob[size_t(nucleotide_score(code_of_blastna(uint8_t(a)), b, reward, penalty, ambiguous) - lo)] += p1[a] * p2;
  double sum = 0.;
  int obs_min = INT32_MIN, obs_max = INT32_MIN;
  for (int s = lo; s <= hi; ++s)
    if (prob[size_t(s - lo)] > 0.) {
      sum += prob[size_t(s - lo)];
      obs_max = s;
      if (obs_min == INT32_MIN) obs_min = s;
    }
  if (obs_min == INT32_MIN) return false;
  double average = 0.;
  for (int s = obs_min; s <= obs_max; ++s) {
    prob[size_t(s - lo)] /= sum;
    average += s * prob[size_t(s - lo)];
  }
  sp.low = obs_min;
  sp.high = obs_max;
  sp.p.assign(prob.begin() + (obs_min - lo), prob.begin() + (obs_max - lo) + 1);
  sp.average = average;
  if (sp.average >= 0. || sp.low >= 0 || sp.high <= 0) return false;
  // Blast_KarlinBlkUngappedCalc.
  int d = -sp.low;
  for (int i = 1; i <= sp.high - sp.low && d > 1; ++i)
    if (sp.at(i + sp.low) != 0.0) d = blast_gcd(d, i);
  kp.lambda = karlin_lambda(sp, d);
  if (kp.lambda < 0.) return false;
  kp.H = karlin_h(sp, kp.lambda);
  if (kp.H < 0.) return false;
  kp.K = karlin_k(sp, kp.lambda, kp.H);
  if (kp.K < 0.) return false;
  kp.logK = std::log(kp.K);
  kp.alpha = kp.lambda / kp.H;
  return true;
}

// s_GetUngappedBeta: BLAST's length adjustment beta of ungapped scores (of the pair as given, not reduced).
double ungapped_beta(int reward, int penalty) {
  return ((reward == 1 && penalty == -1) || (reward == 2 && penalty == -3)) ? -2 : 0;
}

}  // namespace

KarlinParams ungapped_karlin(int reward, int penalty) {
  if (!blastn_supports_scores(reward, penalty))
    throw UsageError("reward/penalty " + std::to_string(reward) + "/" + std::to_string(penalty) +
                     " not supported (blastn's: " + blastn_supported_scores() + ", or a multiple of one)");
  // Blast_ScoreBlkKbpIdealCalc: the standard composition (a quarter each base) on both sides.
  double p1[kBlastnaLetters - 1] = {};
  for (int b = 0; b < 4; ++b) p1[b] = 25.00 / 100.;
  KarlinParams kp;
  if (!karlin_from_letters(reward, penalty, p1, kp))  // cannot happen: every pair above has a negative mean
    throw std::logic_error("ungapped Karlin-Altschul values failed for " + std::to_string(reward) + "/" +
                           std::to_string(penalty));
  kp.beta = ungapped_beta(reward, penalty);
  return kp;
}

KarlinParams ungapped_karlin_for_composition(int reward, int penalty, const uint64_t counts[4]) {
  uint64_t letters[kBlastnaLetters] = {counts[0], counts[1], counts[2], counts[3]};
  return ungapped_karlin_for_letters(reward, penalty, letters);
}

KarlinParams ungapped_karlin_for_letters(int reward, int penalty, const uint64_t counts[kBlastnaLetters]) {
  // Called for both strands of every query record: the ideal values (as costly as the composition's) are computed
  // only where the composition gives none.
  if (!blastn_supports_scores(reward, penalty)) return ungapped_karlin(reward, penalty);  // throws the usage error
  // Blast_ResFreqResComp: the query's letter probabilities (N not counted: BlastResCompStr zeroes the ambiguous
  // residues, N and the gap, but counts the other IUPAC codes); the uniform ones (25 of 100) for the subject.
  constexpr int kN = kBlastnaLetters - 1;
  double total = 0.;
  for (int b = 0; b < kN; ++b) total += double(counts[b]);
  if (total == 0.) return ungapped_karlin(reward, penalty);
  double p1[kN];
  for (int b = 0; b < kN; ++b) p1[b] = double(counts[b]) / total;
  KarlinParams kp;
  if (!karlin_from_letters(reward, penalty, p1, kp)) return ungapped_karlin(reward, penalty);
  kp.beta = ungapped_beta(reward, penalty);
  return kp;
}

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
  const double s = std::ceil(std::log(kp.K * space / e) / kp.lambda);
  // An empty search space (a query record without sequence: log 0) needs no score; none can be reached either way.
  if (!(s > 1)) return 1;
  return s < 4.0e18 ? int64_t(s) : int64_t(4.0e18);
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
