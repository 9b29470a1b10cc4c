// Blocked Bloom filters: no false negatives, measured FPR within a statistical bound of the blocked formula, and
// sizing that meets its target.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <unordered_set>

#include "bloomseq/bloom/blocked_bloom.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

TEST_CASE("blocked filter: no false negatives, FPR matches blocked_expected_fpr within 5 standard errors",
          "[bloom][blocked]") {
  std::mt19937_64 rng(22);
  const int w = 16;
  const uint64_t key_mask = (1ULL << (2 * w)) - 1;
  struct Case {
    uint64_t m;
    int k;
    uint64_t n;
  };
  // Dense filters (high FPR, measurable) with few and many blocks; k from 3 to 10.
  for (const Case c : {Case{512 * 64, 6, 3000}, Case{512 * 1000, 8, 40000}, Case{512 * 257, 3, 30000},
                       Case{512 * 4000, 10, 150000}}) {
    const H3Family fam(layout_hashes(BloomLayout::blocked512, c.k), w, rng());
    const auto hv = fam.byte_view();
    BloomVector bv(c.m);
    const BlockedBloomView view{bv.words().data(), c.m};
    std::unordered_set<uint64_t> truth;
    uint32_t h[kMaxHashes];
    while (truth.size() < c.n) {
      const uint64_t key = rng() & key_mask;
      if (!truth.insert(key).second) continue;
      hv.hash_all(key, h);
      view.insert(h, c.k);
    }
    for (uint64_t key : truth) {
      hv.hash_all(key, h);
      REQUIRE(view.contains(h, c.k));
    }
    const int trials = 200000;
    int fp = 0, negatives = 0;
    while (negatives < trials) {
      const uint64_t key = rng() & key_mask;
      if (truth.count(key)) continue;
      ++negatives;
      hv.hash_all(key, h);
      fp += view.contains(h, c.k);
    }
    const double p = blocked_expected_fpr(c.n, c.m, c.k);
    const double measured = double(fp) / trials;
    const double se = std::sqrt(p * (1 - p) / trials);
    INFO("m=" << c.m << " k=" << c.k << " n=" << c.n << " expected=" << p << " measured=" << measured
              << " classic formula=" << expected_fpr(c.n, c.m, c.k));
    CHECK(std::abs(measured - p) <= 5 * se + 1e-5);
    // Blocks fill unevenly: the blocked FPR is above the classic one for the same m, n, k.
    CHECK(p > expected_fpr(c.n, c.m, c.k));
  }
}

TEST_CASE("blocked filter: every bit of a key lies in one 64-byte block", "[bloom][blocked]") {
  std::mt19937_64 rng(5);
  const uint64_t m = 512 * 777;
  for (int t = 0; t < 10000; ++t) {
    const uint32_t h0 = uint32_t(rng());
    const uint64_t word = blocked_block_word(h0, m);
    CHECK(word % 16 == 0);
    CHECK(word + 16 <= m / 32);
    CHECK(blocked_bit(uint32_t(rng())) < 512);
  }
  CHECK(blocked_block_word(0xFFFFFFFFu, m) == (m / 512 - 1) * 16);
  CHECK(blocked_block_word(0, m) == 0);
}

TEST_CASE("blocked sizing meets the FPR target with few extra bits", "[bloom][blocked]") {
  for (uint64_t n : {uint64_t(10), uint64_t(5000), uint64_t(2000000)}) {
    for (double p : {1e-2, 5e-4, 1e-5}) {
      const uint64_t m = blocked_bits_for_fpr(n, p);
      const int k = blocked_optimal_hashes(n, m);
      INFO("n=" << n << " p=" << p << " m=" << m << " k=" << k);
      CHECK(m % 512 == 0);
      CHECK(k >= 1);
      CHECK(k < kMaxHashes);
      CHECK(blocked_expected_fpr(n, m, k) <= p);
      if (n >= 5000) {  // minimal: one block less misses the target; and within 35% of a classic filter
        CHECK(blocked_expected_fpr(n, m - 512, blocked_optimal_hashes(n, m - 512)) > p * 0.999);
        CHECK(double(m) < 1.35 * double(bits_for_fpr(n, p)));
      }
    }
  }
  CHECK(blocked_expected_fpr(0, 512, 4) == 0.0);
  CHECK(blocked_expected_fpr(100, 0, 4) == 1.0);
}
