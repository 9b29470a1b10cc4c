// Empirical false-positive rate of stage 1a on random DNA against the model (Ma et al. 2011, eq. 2):
// FPR = (1 - (1 - 1/m)^(k n))^k with n the distinct canonical w-mers of a sub-query. Over ~10^7 tests the
// aggregate must agree within 10% (the binomial noise is < 1%; the rest allows for H3's limited independence and
// the spread of fill fractions around their mean); per sub-query, empirical FPRs stay within 30% of the model.
#include <catch2/catch.hpp>

#include <random>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "helpers.hpp"

using namespace bloomseq;
using namespace blast_test;

TEST_CASE("empirical FPR agrees with eq. 2 on random DNA", "[blast][fpr]") {
  std::mt19937_64 rng(42);
  Records q, db;
  q.names = {"q"};
  q.seqs = {random_dna(rng, 40 * 400)};
  db.names = {"d1", "d2"};
  db.seqs = {random_dna(rng, 150000), random_dna(rng, 100000)};
  BlastParams p;
  p.w = 16;
  p.n_sub = 400;
  p.k = 3;
  p.m_bits = 3000;
  p.threads = 2;
  BlastSearch s(make_queries(q), p, totals_of(db));
  s.run_stage2 = false;
  s.search(make_batch(db));
  const BlastStats& st = s.stats();
  REQUIRE(s.filters().count() == 42);
  double modeled_sum = 0, negatives = 0;
  int within = 0;
  for (uint32_t v = 0; v < s.filters().count(); ++v) {
    if (s.filters().inserted(v) < 300) continue;  // the short last sub-query
    modeled_sum += s.modeled_fpr(v) * (double(st.db_wmers) - double(st.tp[v]));
    negatives += double(st.db_wmers) - double(st.tp[v]);
    within += std::abs(s.empirical_fpr(v) / s.modeled_fpr(v) - 1) < 0.3;
  }
  double fp = 0;
  for (uint32_t v = 0; v < s.filters().count(); ++v)
    if (s.filters().inserted(v) >= 300) fp += double(st.fp[v]);
  const double empirical = fp / negatives, modeled = modeled_sum / negatives;
  INFO("empirical " << empirical << " modeled " << modeled);
  CHECK(modeled > 0.01);
  CHECK(empirical == Approx(modeled).epsilon(0.10));
  CHECK(within >= 37);
}
