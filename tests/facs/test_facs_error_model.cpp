// The error model against brute force: every error pattern of short reads enumerated, weighted by its
// probability, scored by the definition (a base is covered when an error-free frame contains it; the quick pass
// misses when every quick frame holds an error).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bloomseq/facs/error_model.hpp"
#include "bloomseq/facs/read_scorer.hpp"

using namespace bloomseq;

namespace {

struct BruteForce {
  std::vector<double> covered;  // P(C = c)
  double quick_miss = 0;
};

BruteForce enumerate(int L, int w, double e, int density) {
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
    for (int f = 0; f < F; f = FacsScorer::next_quick_frame(f, F, w, density)) quick_hit = quick_hit || clean(f);
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
        const BruteForce b = enumerate(L, w, e, 1);
        REQUIRE(model.size() == b.covered.size());
        double sum = 0;
        for (size_t c = 0; c < model.size(); ++c) {
          CHECK(model[c] == Approx(b.covered[c]).margin(1e-12));
          sum += model[c];
        }
        CHECK(sum == Approx(1.0));
        for (int d = 1; d <= w; ++d)
          CHECK(FacsErrorModel::quick_pass_miss(L, w, e, d) == Approx(enumerate(L, w, e, d).quick_miss).margin(1e-12));
      }
    }
  }
}

TEST_CASE("error model: the threshold is the kMiss quantile of covered bases, at least w + 1") {
  const int w = 21;
  const FacsErrorModel m(w, 0.01);
  for (int L : {21, 22, 40, 60, 72, 100, 150, 250, 400}) {
    const std::vector<double> d = FacsErrorModel::covered_distribution(L, w, 0.01);
    // The quantile: the smallest q with P(C <= q) > kMiss, so that at most kMiss of the reads fall below it.
    int q = 0;
    double below = 0;
    while (q < L && below + d[size_t(q)] <= FacsErrorModel::kMiss) below += d[size_t(q++)];
    INFO("L = " << L << ", threshold " << m.min_covered(L) << ", quantile " << q);
    CHECK(m.min_covered(L) == std::min(L, std::max(q, w + 1)));
    // Bases that N's leave uncoverable lower it, down to the same floor.
    CHECK(m.min_covered(L, 10) == std::min(L, std::max(q - 10, w + 1)));
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

TEST_CASE("error model: quick frames are FACS's plus evenly spaced ones in between") {
  for (int w = 1; w <= 32; ++w)
    for (int d = 1; d <= w; ++d)
      for (int F = 1; F <= 120; ++F) {
        // By definition: j w + floor(i w / d) for i < d, below F - 1, then F - 1.
        std::vector<int> expected;
        for (int base = 0; base < F - 1; base += w)
          for (int i = 0; i < d; ++i)
            if (base + i * w / d < F - 1) expected.push_back(base + i * w / d);
        expected.push_back(F - 1);
        std::vector<int> got;
        for (int f = 0; f < F; f = FacsScorer::next_quick_frame(f, F, w, d)) got.push_back(f);
        INFO("w " << w << " d " << d << " F " << F);
        REQUIRE(got == expected);
        REQUIRE(FacsScorer::quick_frame_count(F, w, d) == int(expected.size()));
      }
}

TEST_CASE("error model: quick density keeps FACS's frames where they lose few reads, grows for short reads") {
  const int w = 21;
  const FacsErrorModel m(w, 0.01);
  CHECK(m.quick_density(150) == 1);
  CHECK(m.quick_density(72) == 1);
  CHECK(m.quick_density(5000) == 1);
  CHECK(m.quick_density(50) > 1);
  for (int L = w; L <= 200; ++L) {
    const int d = m.quick_density(L);
    INFO("L = " << L << ", density " << d);
    REQUIRE(d >= 1);
    REQUIRE(d <= w);
    // The smallest density that meets the target (or w).
    if (d < w) CHECK(FacsErrorModel::quick_pass_miss(L, w, 0.01, d) <= FacsErrorModel::kQuickMiss);
    if (d > 1) CHECK(FacsErrorModel::quick_pass_miss(L, w, 0.01, d - 1) > FacsErrorModel::kQuickMiss);
  }
  // Error-free reads never miss: FACS's frames everywhere.
  const FacsErrorModel exact(w, 0.0);
  for (int L = w; L <= 200; ++L) CHECK(exact.quick_density(L) == 1);
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

TEST_CASE("error model: uncoverable bases are those outside N-free runs of w bases") {
  // Brute force: a base is coverable when some N-free window of w bases contains it.
  auto brute = [](const std::string& s, int w) {
    int n = 0;
    for (int b = 0; b < int(s.size()); ++b) {
      bool c = false;
      for (int f = std::max(0, b - w + 1); f <= b && f + w <= int(s.size()); ++f)
        c = c || s.compare(size_t(f), size_t(w), std::string(size_t(w), 'A')) == 0;
      n += !c;
    }
    return n;
  };
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int w = 1 + int(rng() % 8);
    std::string s(rng() % 40, 'A');
    for (char& ch : s)
      if (rng() % 6 == 0) ch = 'N';
    FacsErrorModel::Uncoverable u(w);
    for (char ch : s) u.push(ch == 'A');
    INFO(s << " w = " << w);
    CHECK(u.finish() == brute(s, w));
  }
}

TEST_CASE("error model: the tables filled on demand give every length the same rules in any order and from any thread") {
  const int w = 21;
  // Reference: each length's rules from its own distribution (the definitions checked above).
  auto quantile = [&](int L) {
    const std::vector<double> d = FacsErrorModel::covered_distribution(L, w, 0.01);
    int q = 0;
    double below = 0;
    while (q < L && below + d[size_t(q)] <= FacsErrorModel::kMiss) below += d[size_t(q++)];
    return std::min(L, std::max(q, w + 1));
  };
  const FacsErrorModel down(w, 0.01), up(w, 0.01);
  const int last = FacsErrorModel::kMaxTabulated;
  for (int L = last; L >= 1; L -= 37) CHECK(down.min_covered(L) == quantile(L));  // the whole table at once
  for (int L = 1; L <= last; L += 37) CHECK(up.min_covered(L) == quantile(L));    // grown step by step
  for (int L = 0; L <= last + 5; ++L) {
    REQUIRE(up.min_covered(L) == down.min_covered(L));
    REQUIRE(up.quick_density(L) == down.quick_density(L));
  }
  // Threads asking for different lengths at once (one model, shared): the same answers.
  const FacsErrorModel shared(w, 0.01);
  std::vector<std::thread> threads;
  std::vector<std::vector<int32_t>> seen(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int L = 1 + t * 7; L <= last; L += 13) seen[size_t(t)].push_back(shared.min_covered(L) * 64 + shared.quick_density(L));
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    size_t i = 0;
    for (int L = 1 + t * 7; L <= last; L += 13, ++i) REQUIRE(seen[size_t(t)][i] == down.min_covered(L) * 64 + down.quick_density(L));
  }
}
