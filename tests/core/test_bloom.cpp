// Bloom vectors: no false negatives against an exact set, and measured FPR within a statistical bound of the formula.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>
#include <random>
#include <unordered_set>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

TEST_CASE("no false negatives, and the FPR matches expected_fpr within 5 standard errors", "[bloom]") {
  std::mt19937_64 rng(21);
  const int w = 16;
  const uint64_t key_mask = (1ULL << (2 * w)) - 1;
  struct Case {
    uint64_t m;
    int k;
    uint64_t n;
  };
  // Powers of two (the paper's vectors) and odd sizes (fast-range reduction, partial last word).
  for (const Case c : {Case{1u << 15, 6, 2000}, Case{1u << 18, 6, 20000}, Case{100003, 4, 12000}, Case{4099, 3, 500}}) {
    const H3Family fam(c.k, w, rng());
    const auto hv = fam.byte_view();
    BloomVector bv(c.m);
    std::unordered_set<uint64_t> truth;
    uint32_t h[kMaxHashes];
    while (truth.size() < c.n) {
      const uint64_t key = rng() & key_mask;
      if (!truth.insert(key).second) continue;
      hv.hash_all(key, h);
      bv.insert(h, c.k);
    }
    for (uint64_t key : truth) {
      hv.hash_all(key, h);
      REQUIRE(bv.contains(h, c.k));
    }
    const int trials = 200000;
    int fp = 0, negatives = 0;
    while (negatives < trials) {
      const uint64_t key = rng() & key_mask;
      if (truth.count(key)) continue;
      ++negatives;
      hv.hash_all(key, h);
      fp += bv.contains(h, c.k);
    }
    const double p = expected_fpr(c.n, c.m, c.k);
    const double measured = double(fp) / trials;
    const double se = std::sqrt(p * (1 - p) / trials);
    INFO("m=" << c.m << " k=" << c.k << " n=" << c.n << " expected=" << p << " measured=" << measured);
    CHECK(std::abs(measured - p) <= 5 * se + 1e-5);
    // The fill fraction predicts the same rate: rho^k.
    CHECK(std::abs(fpr_from_fill(bv.fill_fraction(), c.k) - p) <= 0.05 * p + 1e-5);
  }
}

TEST_CASE("short canonical keys from a small universe still follow eq. 2", "[bloom]") {
  // Every canonical 8-mer (32,896 of them) is either inserted or tested, so each filter's FPR is measured exactly;
  // averaged over independent H3 draws and key sets it matches expected_fpr although the members are 4.6% of the
  // universe and H3 is linear. That is the average over the family: for one family whose slot maps all have full
  // rank the FPR is lower, by the finite-universe term (model::bloom_fpr_finite_universe, tests/model/
  // test_finite_universe.cpp), which explains the deficit seen on real DNA at w = 11 (docs/model-validation.md, B);
  // rank-deficient draws raise it by about as much.
  const int w = 8, k = 4;
  const uint64_t m = 4096, n = 1500;
  std::vector<uint64_t> canonical;
  for (uint64_t key = 0; key < (1u << (2 * w)); ++key)
    if (canonical_wmer(key, revcomp_wmer(key, w)) == key) canonical.push_back(key);
  REQUIRE(canonical.size() == (65536 + 256) / 2);
  std::mt19937_64 rng(5);
  double sum = 0;
  const int draws = 40;
  for (int d = 0; d < draws; ++d) {
    const H3Family fam(k, w, rng());
    const auto hv = fam.byte_view();
    std::vector<uint64_t> keys = canonical;
    std::shuffle(keys.begin(), keys.end(), rng);
    BloomVector bv(m);
    uint32_t h[kMaxHashes];
    for (uint64_t i = 0; i < n; ++i) {
      hv.hash_all(keys[i], h);
      bv.insert(h, k);
    }
    uint64_t fp = 0;
    for (size_t i = n; i < keys.size(); ++i) {
      hv.hash_all(keys[i], h);
      fp += bv.contains(h, k);
    }
    sum += double(fp) / double(keys.size() - n);
  }
  const double measured = sum / draws, expected = expected_fpr(n, m, k);
  INFO("measured " << measured << " eq. 2 " << expected);
  CHECK(std::abs(measured - expected) <= 0.02 * expected);
}

TEST_CASE("expected_fpr agrees with the closed form and sizing helpers hit their target", "[bloom]") {
  // (1 - e^{-kn/m})^k for large m.
  CHECK(expected_fpr(1000, 1u << 20, 6) == Approx(std::pow(1 - std::exp(-6.0 * 1000 / (1 << 20)), 6)).epsilon(1e-3));
  CHECK(expected_fpr(0, 1024, 4) == 0.0);
  for (double p : {1e-2, 5e-4, 1e-6}) {
    const uint64_t n = 1000000;
    const uint64_t m = bits_for_fpr(n, p);
    const int k = optimal_hashes(n, m);
    CHECK(expected_fpr(n, m, k) <= p * 1.02);
    CHECK(expected_fpr(n, m * 9 / 10, k) > p);  // and not grossly oversized
  }
  CHECK(optimal_hashes(1000, 10000) == 7);  // 10 * ln 2 = 6.93
  CHECK_THROWS_AS(bits_for_fpr(10, 0.0), UsageError);
  CHECK_THROWS_AS(bits_for_fpr(10, 1.0), UsageError);
  CHECK_THROWS_AS(BloomVector(0), UsageError);
}

TEST_CASE("sizing for a given number of hashes meets the target, and the fewest hashes within a memory margin", "[bloom]") {
  const uint64_t n = 500000;
  for (double p : {1e-2, 5e-4, 1e-6}) {
    for (int k = 1; k <= 16; ++k) {
      const uint64_t m = bits_for_fpr_with_hashes(n, p, k);
      INFO("p " << p << " k " << k << " m " << m);
      CHECK(m >= bits_for_fpr(n, p));  // the optimal k needs the fewest bits
      if (m > bits_for_fpr(n, p)) {
        // Just big enough: the exact formula meets p at m and misses it 1% below.
        CHECK(expected_fpr(n, m, k) <= p * 1.001);
        CHECK(expected_fpr(n, m * 99 / 100, k) > p);
      }
    }
    // The fewest hashes within 8% of the fewest bits of any k, found by trying every k.
    uint64_t fewest = UINT64_MAX;
    int best_k = 0;
    for (int k = 1; k <= kMaxHashes; ++k)
      if (bits_for_fpr_with_hashes(n, p, k) < fewest) fewest = bits_for_fpr_with_hashes(n, p, k), best_k = k;
    int want = 0;
    for (int k = kMaxHashes; k >= 1; --k)
      if (double(bits_for_fpr_with_hashes(n, p, k)) <= 1.08 * double(fewest)) want = k;
    CHECK(fewest_hashes_within(n, p, 0.08) == want);
    CHECK(fewest_hashes_within(n, p, 0.08) < optimal_hashes(n, bits_for_fpr(n, p)));
    // No margin: the k that needs the fewest bits, which is the optimal k of the sizing formula.
    CHECK(fewest_hashes_within(n, p, 0.0) == best_k);
    CHECK(std::abs(best_k - optimal_hashes(n, bits_for_fpr(n, p))) <= 1);
  }
  CHECK_THROWS_AS(bits_for_fpr_with_hashes(10, 5e-4, 0), UsageError);
}

TEST_CASE("bit addressing: slot reduction covers the whole vector and stays in range", "[bloom]") {
  CHECK(bloom_slot(0, 1000) == 0);
  CHECK(bloom_slot(0xFFFFFFFFu, 1000) == 999);
  CHECK(bloom_slot(0x80000000u, 1u << 16) == (1u << 15));  // power of two: the top bits
  uint32_t words[2] = {0, 0};
  set_bit(words, 33);
  CHECK(words[1] == 2u);
  CHECK(test_bit(words, 33));
  CHECK_FALSE(test_bit(words, 32));
}

TEST_CASE("a vector zeroed in slices with progress equals one zeroed at once", "[bloom]") {
  // 2^30 + 96 bits: two 64-MB slices and a short tail.
  for (uint64_t m : {uint64_t(64), uint64_t(1) << 20, (uint64_t(1) << 30) + 96}) {
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    BloomVector sliced(m, [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); });
    const BloomVector whole(m);
    REQUIRE(sliced.m_bits() == m);
    REQUIRE(sliced.words().size() == whole.words().size());
    REQUIRE(sliced.popcount() == 0);
    REQUIRE(!calls.empty());
    for (size_t i = 0; i < calls.size(); ++i) {
      REQUIRE(calls[i].second == whole.words().size() * 4);
      if (i) REQUIRE(calls[i].first > calls[i - 1].first);
    }
    REQUIRE(calls.back().first == calls.back().second);
    if (m > (uint64_t(1) << 30)) REQUIRE(calls.size() == 3);  // 64 MB + 64 MB + the 12-byte tail
  }
  REQUIRE_THROWS_AS(BloomVector(0, nullptr), UsageError);
}
