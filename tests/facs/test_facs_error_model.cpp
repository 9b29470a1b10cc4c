// The error model against brute force: every error pattern of short reads enumerated, weighted by its
// probability, scored by the definition (a base is covered when an error-free frame contains it; the quick pass
// misses when every quick frame holds an error).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "bloomseq/facs/error_model.hpp"
#include "bloomseq/facs/read_scorer.hpp"

using namespace bloomseq;

namespace {

struct BruteForce {
  std::vector<double> covered;  // P(C = c)
  double quick_miss = 0;
};

BruteForce enumerate(int L, int w, double e, int step) {
  BruteForce b;
  b.covered.assign(size_t(L) + 1, 0.0);
  const int F = L - w + 1;
  for (uint32_t errors = 0; errors < (uint32_t(1) << L); ++errors) {
    const int n = __builtin_popcount(errors);
    const double p = std::pow(e, n) * std::pow(1 - e, L - n);
    auto clean = [&](int f) { return ((errors >> f) & ((uint32_t(1) << w) - 1)) == 0; };
    int covered = 0;
    for (int base = 0; base < L; ++base) {
      bool c = false;
      for (int f = std::max(0, base - w + 1); f <= std::min(base, F - 1); ++f) c = c || clean(f);
      covered += c;
    }
    b.covered[size_t(covered)] += p;
    bool quick_hit = false;
    for (int f = 0; f < F; f = FacsScorer::next_quick_frame(f, F, step)) quick_hit = quick_hit || clean(f);
    if (!quick_hit) b.quick_miss += p;
  }
  return b;
}

}  // namespace

TEST_CASE("error model: covered-bases distribution and quick-pass misses equal brute force") {
  for (const double e : {0.01, 0.1, 0.3}) {
    for (int w = 1; w <= 6; ++w) {
      for (int L = w; L <= 14; ++L) {
        const std::vector<double> model = FacsErrorModel::covered_distribution(L, w, e);
        const BruteForce b = enumerate(L, w, e, w);
        REQUIRE(model.size() == b.covered.size());
        double sum = 0;
        for (size_t c = 0; c < model.size(); ++c) {
          CHECK(model[c] == Approx(b.covered[c]).margin(1e-12));
          sum += model[c];
        }
        CHECK(sum == Approx(1.0));
        for (int s = 1; s <= w; ++s)
          CHECK(FacsErrorModel::quick_pass_miss(L, w, e, s) == Approx(enumerate(L, w, e, s).quick_miss).margin(1e-12));
      }
    }
  }
}

TEST_CASE("error model: the threshold is the 0.1% quantile of covered bases, at least w + 1") {
  const int w = 21;
  const FacsErrorModel m(w, 0.01);
  for (int L : {21, 22, 40, 60, 72, 100, 150, 250, 400}) {
    const std::vector<double> d = FacsErrorModel::covered_distribution(L, w, 0.01);
    // The quantile: the smallest q with P(C <= q) > 0.1%, so that at most 0.1% of reads fall below it.
    int q = 0;
    double below = 0;
    while (q < L && below + d[size_t(q)] <= FacsErrorModel::kThresholdMiss) below += d[size_t(q++)];
    INFO("L = " << L << ", threshold " << m.min_covered(L) << ", quantile " << q);
    CHECK(m.min_covered(L) == std::min(L, std::max(q, w + 1)));
  }
  // One error costs a short read a larger share than a long one: the fraction grows with the length.
  CHECK(double(m.min_covered(150)) / 150 > double(m.min_covered(100)) / 100);
  CHECK(double(m.min_covered(400)) / 400 > double(m.min_covered(150)) / 150);
  // More errors expected, a lower threshold.
  CHECK(FacsErrorModel(w, 0.03).min_covered(150) < m.min_covered(150));
  // No errors expected: every base must be covered.
  CHECK(FacsErrorModel(w, 0.0).min_covered(150) == 150);
  // Longer than the table: the last tabulated fraction.
  const int last = FacsErrorModel::kMaxTabulated;
  CHECK(m.min_covered(4 * last) == int(std::floor(double(m.min_covered(last)) / last * 4 * last)));
}

TEST_CASE("error model: quick step keeps FACS's frames where they lose few reads, shrinks for short reads") {
  const int w = 21;
  const FacsErrorModel m(w, 0.01);
  CHECK(m.quick_step(150) == w);
  CHECK(m.quick_step(100) == w);
  CHECK(m.quick_step(5000) == w);
  for (int L = w; L <= 200; ++L) {
    const int s = m.quick_step(L);
    INFO("L = " << L << ", step " << s);
    REQUIRE(s >= 1);
    REQUIRE(s <= w);
    // The largest step that meets the target (or 1).
    if (s > 1) CHECK(FacsErrorModel::quick_pass_miss(L, w, 0.01, s) <= FacsErrorModel::kQuickMiss);
    if (s < w) CHECK(FacsErrorModel::quick_pass_miss(L, w, 0.01, s + 1) > FacsErrorModel::kQuickMiss);
  }
  CHECK(m.quick_step(50) < w);
  // Error-free reads never miss: FACS's frames everywhere.
  const FacsErrorModel exact(w, 0.0);
  for (int L = w; L <= 200; ++L) CHECK(exact.quick_step(L) == w);
}

TEST_CASE("error model: a fixed fraction (-s) is covered >= fraction * L") {
  const FacsErrorModel m(21, 0.01, 0.55);
  for (int L = 1; L <= 300; ++L) {
    const int need = m.min_covered(L);
    CHECK(need >= 1);
    CHECK(double(need) >= 0.55 * L);
    CHECK((need == 1 || double(need - 1) < 0.55 * L));
  }
  CHECK_THROWS(FacsErrorModel(21, 0.5));
  CHECK_THROWS(FacsErrorModel(21, -0.01));
  CHECK_THROWS(FacsErrorModel(21, 0.01, 1.5));
}
