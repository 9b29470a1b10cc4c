#include "bloomseq/bloom/blocked_bloom.hpp"

#include <algorithm>
#include <cmath>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

double blocked_expected_fpr(uint64_t n, uint64_t m_bits, int k) {
  const uint64_t blocks = m_bits / kBloomBlockBits;
  if (blocks == 0) return 1.0;
  if (n == 0) return 0.0;
  const double lambda = double(n) / double(blocks);
  const double log_keep = std::log1p(-1.0 / double(kBloomBlockBits));  // a bit survives one probe
  // Sum the Poisson terms around the mean (they are negligible more than ~12 standard deviations away).
  const double spread = 12.0 * std::sqrt(lambda) + 20.0;
  const int64_t lo = std::max<int64_t>(0, int64_t(lambda - spread));
  const int64_t hi = int64_t(lambda + spread);
  double sum = 0.0;
  for (int64_t i = lo; i <= hi; ++i) {
    const double log_pois = -lambda + double(i) * std::log(lambda) - std::lgamma(double(i) + 1.0);
    const double set = -std::expm1(double(k) * double(i) * log_keep);
    sum += std::exp(log_pois + double(k) * std::log(set > 0 ? set : 1e-300));
  }
  return std::min(1.0, sum);
}

int blocked_optimal_hashes(uint64_t n, uint64_t m_bits) {
  if (n == 0) return 1;
  // The classic optimum is close; the blocked one is never far below it.
  int best = 1;
  double best_fpr = 2.0;
  for (int k = 1; k < kMaxHashes; ++k) {
    const double f = blocked_expected_fpr(n, m_bits, k);
    if (f < best_fpr) {
      best_fpr = f;
      best = k;
    }
  }
  return best;
}

uint64_t blocked_bits_for_fpr(uint64_t n, double p) {
  uint64_t m = round_up_to_blocks(bits_for_fpr(n, p));  // validates p; the blocked filter needs at least this
  // Grow by ~1% steps, then back off block by block (the FPR falls monotonically with m at the best k).
  uint64_t step = std::max<uint64_t>(kBloomBlockBits, round_up_to_blocks(m / 100));
  while (blocked_expected_fpr(n, m, blocked_optimal_hashes(n, m)) > p) m += step;
  while (step > kBloomBlockBits) {
    step = std::max<uint64_t>(kBloomBlockBits, round_up_to_blocks(step / 4));
    while (m > step && blocked_expected_fpr(n, m - step, blocked_optimal_hashes(n, m - step)) <= p) m -= step;
  }
  return m;
}

}  // namespace bloomseq
