// The stage-1a cost terms that follow the CPU kernels' control flow (part D of docs/model-validation.md), each
// against a brute-force count: sub-query shapes against split_subqueries, rows read by the bit-sliced kernel's two
// early-exit rules against a simulation of random columns, branch outcomes of the vector layout's probe loop.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "bloomseq/model/equations.hpp"
#include "bloomseq/split/subquery.hpp"

using namespace bloomseq;
using namespace bloomseq::model;

TEST_CASE("subquery_shape matches split_subqueries", "[model][kernel]") {
  for (uint64_t Q : {11ull, 12ull, 5000ull, 320000ull, 1000000ull})
    for (uint64_t n : {11ull, 500ull, 4000ull, 40000ull}) {
      const int w = 11;
      const auto subs = split_subqueries({Q}, n, w);
      const SubqueryShape s = subquery_shape(Q, n, w);
      INFO("Q=" << Q << " n_sub=" << n);
      REQUIRE(s.count == subs.size());
      size_t wrong = 0;
      for (size_t i = 0; i + 1 < subs.size(); ++i) wrong += subs[i].length - w + 1 != s.keys;
      CHECK(wrong == 0);
      CHECK(subs.back().length - w + 1 == s.last_keys);
    }
  // The validation grid's case: 320 kbases in 40,000-base sub-queries leaves a last one of 80 w-mers.
  CHECK(subquery_shape(320000, 40000, 11).last_keys == 320000 - 10 - 8 * 39990);
}

namespace {
// Rows the bit-sliced kernels read for one block of random columns: each column's bit in row j is set with
// probability rho (columns [0, c) at fill rho, then c_last columns at fill rho_last).
double simulate_rows(double rho, int c, double rho_last, int c_last, int k, bool all_after_two, int trials) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  double rows = 0;
  std::vector<std::vector<char>> bit(size_t(k), std::vector<char>(size_t(c + c_last)));
  for (int t = 0; t < trials; ++t) {
    for (int j = 0; j < k; ++j)
      for (int v = 0; v < c + c_last; ++v) bit[j][v] = u(rng) < (v < c ? rho : rho_last);
    std::vector<char> alive(size_t(c + c_last), 1);
    auto and_row = [&](int j) {
      bool any = false;
      for (int v = 0; v < c + c_last; ++v) any |= bool(alive[v] &= bit[j][v]);
      return any;
    };
    if (k == 1) {
      rows += 1;
      continue;
    }
    and_row(0);
    bool any = and_row(1);
    rows += 2;
    if (all_after_two) {
      if (any) rows += k - 2;  // AVX2: step B reads every remaining row
    } else {
      for (int j = 2; j < k && any; ++j) {  // scalar / AVX-512: stop at the first row that leaves no column
        rows += 1;
        any = and_row(j);
      }
    }
  }
  return rows / trials;
}

// A block of c columns at fill rho plus c_last at rho_last (the last sub-query), k rows.
struct Case {
  double rho;
  int c;
  double rho_last;
  int c_last;
  int k;
};
}  // namespace

TEST_CASE("bitsliced_rows_per_block matches a simulation of both early-exit rules", "[model][kernel]") {
  for (const Case& x : {Case{0.03, 511, 0.001, 1, 6}, Case{0.1, 64, 0, 0, 8}, Case{0.3, 20, 0, 0, 10},
                        Case{0.5, 3, 0.2, 1, 4}, Case{0.02, 250, 0, 0, 1}})
    for (bool all_after_two : {true, false}) {
      const double sim = simulate_rows(x.rho, x.c, x.rho_last, x.c_last, x.k, all_after_two, 20000);
      const double f = bitsliced_rows_per_block(x.rho, x.c, x.rho_last, x.c_last, x.k, all_after_two);
      INFO("rho=" << x.rho << " columns=" << x.c << " k=" << x.k << " all_after_two=" << all_after_two);
      CHECK(f == Approx(sim).epsilon(0.02));
    }
  // Limits: an empty block reads two rows, a full one k rows.
  CHECK(bitsliced_rows_per_block(0.0, 512, 0, 0, 8, true) == 2.0);
  CHECK(bitsliced_rows_per_block(1.0, 512, 0, 0, 8, false) == 8.0);
}

TEST_CASE("bitsliced_block_mispredicts matches a simulated best-guess predictor", "[model][kernel]") {
  // A block of c columns (+ c_last at the last sub-query's fill); row j's bit of a column is set with probability
  // rho. Each early-exit test is a branch site; a predictor that always guesses a site's more likely outcome errs
  // min(taken, not taken) times there, counted here from the simulated outcomes themselves.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (const Case& x : {Case{0.1, 511, 0.01, 1, 6}, Case{0.2, 64, 0, 0, 8}, Case{0.35, 30, 0, 0, 10},
                        Case{0.6, 3, 0.2, 1, 5}, Case{0.05, 100, 0, 0, 6}})
    for (bool all_after_two : {true, false}) {
      const int trials = 20000;
      std::vector<double> taken(size_t(x.k), 0), reached(size_t(x.k), 0);
      for (int t = 0; t < trials; ++t) {
        std::vector<bool> alive(size_t(x.c + x.c_last), true);
        auto and_row = [&] {
          bool any = false;
          for (size_t v = 0; v < alive.size(); ++v) {
            alive[v] = alive[v] && u(rng) < (int(v) < x.c ? x.rho : x.rho_last);
            any = any || alive[v];
          }
          return any;
        };
        and_row();
        bool any = and_row();
        for (int j = 2; j < x.k; ++j) {  // the test after row j (rows 0..j-1 ANDed)
          reached[size_t(j)] += 1;
          if (!any) break;
          taken[size_t(j)] += 1;
          if (all_after_two) break;
          any = and_row();
        }
      }
      double mis = 0;
      for (int j = 2; j < x.k; ++j) mis += std::min(taken[size_t(j)], reached[size_t(j)] - taken[size_t(j)]);
      INFO("rho=" << x.rho << " columns=" << x.c << " k=" << x.k << " all_after_two=" << all_after_two);
      CHECK(bitsliced_block_mispredicts(x.rho, x.c, x.rho_last, x.c_last, x.k, all_after_two) ==
            Approx(mis / trials).margin(0.01).epsilon(0.03));
    }
  // An empty or a full matrix never surprises the predictor.
  CHECK(bitsliced_block_mispredicts(0.0, 512, 0, 0, 8, true) == 0.0);
  CHECK(bitsliced_block_mispredicts(1.0, 512, 0, 0, 8, false) == 0.0);
}

TEST_CASE("expected_mispredicts: min(rho, 1 - rho) per probe branch", "[model][kernel]") {
  // Simulated probe loop of a key not in the set: each probe's bit is set with probability rho; a predictor that
  // always guesses the more likely outcome errs min(rho, 1 - rho) of the time at each probe's branch.
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0, 1);
  for (double rho : {0.1, 0.4, 0.6, 0.95})
    for (int k : {4, 10}) {
      const bool guess_set = rho > 0.5;
      double wrong = 0;
      const int trials = 200000;
      for (int t = 0; t < trials; ++t)
        for (int j = 0; j < k; ++j) {
          const bool set = u(rng) < rho;
          wrong += set != guess_set;
          if (!set) break;
        }
      INFO("rho=" << rho << " k=" << k);
      CHECK(expected_mispredicts(rho, k) == Approx(wrong / trials).epsilon(0.02));
    }
  CHECK(expected_mispredicts(0.0, 6) == 0.0);
  CHECK(expected_mispredicts(1.0, 6) == 0.0);
}
