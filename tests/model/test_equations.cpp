// Each equation against a direct computation, plus monotonicity and limits.
#include <catch2/catch.hpp>

#include <cmath>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq::model;

namespace {
// Eq. 2 written out literally in long double.
double fpr_direct(double m, int k, double n) {
  long double inner = std::pow(1.0L - 1.0L / (long double)m, (long double)k * (long double)n);
  return double(std::pow(1.0L - inner, (long double)k));
}
}  // namespace

TEST_CASE("FPR (eq. 2) equals the direct computation", "[fpr]") {
  for (double m : {8192.0, 65536.0, 262144.0, 4194304.0})
    for (int k : {1, 4, 6, 8, 10})
      for (double n : {1.0, 100.0, 1000.0, 10000.0, 50000.0, 300000.0}) {
        double a = bloom_fpr(m, k, n), b = fpr_direct(m, k, n);
        CHECK(a == Approx(b).epsilon(1e-9).margin(1e-300));
      }
  // The paper's operating point: k = 6, m = 256 Kbit, n = 50,000 keys -> (1 - e^{-1.1444})^6 = 0.1066...
  CHECK(bloom_fpr(262144, 6, 50000) == Approx(std::pow(1 - std::exp(-6.0 * 50000 / 262144), 6)).epsilon(1e-4));
  // Agrees with the core library's expected_fpr.
  CHECK(bloom_fpr(262144, 6, 20000) == Approx(bloomseq::expected_fpr(20000, 262144, 6)).epsilon(1e-12));
  CHECK(bloom_fpr(262144, 6, 0) == 0.0);
}

TEST_CASE("n_e = n_sub - w + 1 (canonical w-mers, one key per position) and sub-query counts", "[fpr]") {
  CHECK(keys_per_subquery(1000, 11) == 990);
  CHECK(keys_per_subquery(11, 11) == 1);
  CHECK(keys_per_subquery(10, 11) == 0);
  // 100 bases, w = 11 -> 90 keys; n_sub = 40 -> 30 keys per sub-query -> 3 sub-queries; n_sub = 39 -> 29 -> 4.
  CHECK(subquery_count(100, 40, 11) == 3);
  CHECK(subquery_count(100, 39, 11) == 4);
  CHECK(subquery_count(5, 40, 11) == 0);
  CHECK(wmer_count(100, 11) == 90);
}

TEST_CASE("FPR rises with n_sub, falls with m; k has an interior optimum", "[fpr][monotone]") {
  const int w = 11;
  double prev = 0;
  for (uint64_t n = 100; n <= 1000000; n = n * 3 / 2) {
    double f = bloom_fpr(262144, 6, double(keys_per_subquery(n, w)));
    CHECK(f >= prev);
    prev = f;
  }
  CHECK(prev <= 1.0);
  prev = 1.0;
  for (double m = 1024; m <= 1 << 26; m *= 2) {
    double f = bloom_fpr(m, 6, 50000);
    CHECK(f <= prev);
    prev = f;
  }
  // k_opt = m/n ln 2 = 262144/20000 * 0.693 = 9.08: FPR(9) < FPR(4) and FPR(9) < FPR(16).
  CHECK(bloom_fpr(262144, 9, 20000) < bloom_fpr(262144, 4, 20000));
  CHECK(bloom_fpr(262144, 9, 20000) < bloom_fpr(262144, 16, 20000));
}

TEST_CASE("cache: r_H = min(1, C/m), A_C flips at the cache size, f_cache blends with G", "[cache]") {
  const double C = 48 * 1024;
  CHECK(hit_rate(C, 8 * 1024) == 1.0);
  CHECK(hit_rate(C, 96 * 1024) == Approx(0.5));
  CHECK(indicator_ac(C - 1, C));
  CHECK_FALSE(indicator_ac(C, C));  // eq. 6 is strict: m < C
  CHECK_FALSE(indicator_ac(C + 1, C));
  CHECK(f_cache(C - 1, C, 8) == 1.0);
  CHECK(f_cache(2 * C, C, 8) == Approx(0.5 + 0.5 * 8));
  CHECK(f_cache(1e12, C, 8) == Approx(8).epsilon(1e-6));
  // f_cache grows monotonically with the working set.
  double prev = 0;
  for (double m = 1024; m < 1e9; m *= 1.7) {
    double f = f_cache(m, C, 8);
    CHECK(f >= prev);
    prev = f;
  }
}

TEST_CASE("multi-level cache factor reduces to eq. 11 with one level", "[cache][extension]") {
  std::vector<CacheLevel> one = {{1, 32768, 1.0, 1.0, false}, {0, 0, 8.0, 8.0, true}};
  for (double m : {1000.0, 32768.0, 50000.0, 1e6, 1e9}) CHECK(f_cache_levels(m, one) == Approx(f_cache(m, 32768, 8)));
  std::vector<CacheLevel> three = {{1, 32768, 1, 1, false}, {2, 524288, 4, 4, false}, {3, 8 << 20, 15, 15, true},
                                   {0, 0, 100, 100, true}};
  auto f = level_fractions(1 << 20, three);  // 1 MiB: L1 3.1%, L2 to 50%, L3 the rest
  REQUIRE(f.size() == 4);
  CHECK(f[0] == Approx(32768.0 / (1 << 20)));
  CHECK(f[0] + f[1] == Approx(0.5));
  CHECK(f[0] + f[1] + f[2] + f[3] == Approx(1.0));
  CHECK(f[3] == 0.0);
  CHECK(f_cache_levels(16384, three) == 1.0);
  double prev = 0;
  for (double m = 4096; m < 1e10; m *= 2) {
    double x = f_cache_levels(m, three);
    CHECK(x >= prev - 1e-12);
    prev = x;
  }
  CHECK(prev == Approx(100).epsilon(0.02));
}

TEST_CASE("time, throughput, f_app forms", "[time]") {
  CHECK(f_app_blast(6, 250e6, 50000, 50e6) == Approx(6 * 5000.0 * 50e6));
  CHECK(model_time(2.0, 10, 3, 1, 1) == 16);
  CHECK(throughput(100, 4) == 25);
  CHECK(throughput(100, 0) == 0);
  CHECK(f_app_microbenchmark(1 << 25) == double(1 << 25));
  // Eq. 6.3: with enough threads the work term wins; with few the latency term.
  CHECK(latency_bound_work(1000, 100, 400, 64) == 1000);
  CHECK(latency_bound_work(1000, 100, 400, 4) == Approx(10000));
}

TEST_CASE("early-exit probes: scalar and SIMT warp", "[extension]") {
  CHECK(expected_probes(0.0, 6) == 1.0);
  CHECK(expected_probes(1.0, 6) == 6.0);
  CHECK(expected_probes(0.5, 3) == Approx(1.75));
  // A warp of 32 lanes almost always runs all k probes at the papers' fill (~0.68): why Time ∝ k on the GPU.
  double rho = bloom_fill(262144, 6, 50000);
  CHECK(expected_probes_warp(rho, 6, 32) > 5.5);
  CHECK(expected_probes_warp(rho, 6, 1) == Approx(expected_probes(rho, 6)));
}

TEST_CASE("CPU work units: the same zigzag over P cores", "[extension]") {
  CHECK(f_sched_cpu(1, 2) == 2.0);
  CHECK(f_sched_cpu(2, 2) == 1.0);
  CHECK(f_sched_cpu(3, 2) == Approx(4.0 / 3));
  CHECK(f_sched_cpu(8, 2) == 1.0);
  CHECK(f_sched_cpu(9, 2) == Approx(10.0 / 9));
  CHECK(f_sched_cpu(5, 2, 2) == Approx(8.0 / 5));
}

TEST_CASE("active_blocks handles impossible blocks", "[occupancy]") {
  DeviceProfile g = gtx480();
  CHECK(active_blocks(g, 64 * 1024, 32, 256).blocks == 0);   // more shared memory than the MP has
  CHECK(active_blocks(g, 1024, 32, 2048).blocks == 0);       // more threads than a block may have
  CHECK(active_blocks(g, 1024, 80, 1024).blocks == 0);       // 80 x 1024 registers > R
  DeviceProfile h = h100();
  // 1 KiB reservation per block counts: 4 blocks of 56 KiB (57 KiB with the reservation) fit 228 KiB exactly.
  CHECK(active_blocks(h, 56 * 1024, 32, 256).blocks == 4);
  CHECK(active_blocks(h, 57 * 1024, 32, 256).blocks == 3);
}

TEST_CASE("f_sched_split: floor-split slices of indivisible items", "[extension]") {
  // Divisible: the same as f_sched.
  for (int U : {1, 2, 3, 4, 6, 12})
    for (int P : {1, 2, 3, 4}) CHECK(f_sched_split(12, U, P) == Approx(f_sched_cpu(U, P)));
  // 5 vectors in 2 units on 2 cores: slices 2 and 3 -> 2 x 3 / 5.
  CHECK(f_sched_split(5, 2, 2) == Approx(6.0 / 5));
  // 5 vectors in 3 units: slices 1, 2, 2; core 0 gets 1 + 2 -> 2 x 3 / 5.
  CHECK(f_sched_split(5, 3, 2) == Approx(6.0 / 5));
  // 17 in 3: 5, 6, 6 -> core 0: 11 -> 22/17.
  CHECK(f_sched_split(17, 3, 2) == Approx(22.0 / 17));
  CHECK(f_sched_split(0, 3, 2) == 0.0);
}
