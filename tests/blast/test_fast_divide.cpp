// FastDivide32 equals the hardware division for every dividend and divisor class that can occur.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "bloomseq/blast/fast_divide.hpp"

using bloomseq::FastDivide32;

TEST_CASE("FastDivide32 equals plain division on edge and random values", "[blast][divide]") {
  std::mt19937_64 rng(20261125);
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 7, 10, 64, 989, 990, 1000, 4096, 65535, 65536, 65537,
                                    (1u << 31) - 1, 1u << 31, (1u << 31) + 1, UINT32_MAX - 1, UINT32_MAX};
  for (int i = 0; i < 200; ++i) divisors.push_back(uint32_t(rng() >> (32 + rng() % 32)) | 1u);
  for (int i = 0; i < 200; ++i) divisors.push_back(uint32_t(rng()) | 1u);
  for (int s = 1; s < 32; ++s) divisors.push_back(1u << s);
  for (uint32_t d : divisors) {
    const FastDivide32 f(d);
    REQUIRE(f.divisor() == d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, UINT32_MAX, UINT32_MAX - 1, UINT32_MAX / d * d,
                                UINT32_MAX / d * d - 1, 1u << 31, (1u << 31) - 1};
    for (int i = 0; i < 2000; ++i) ns.push_back(uint32_t(rng()));
    for (int i = 0; i < 200; ++i) ns.push_back(uint32_t(rng() % (uint64_t(d) * 4 + 1)));
    for (uint32_t n : ns) {
      INFO("n = " << n << ", d = " << d);
      REQUIRE(f.divide(n) == n / d);
    }
  }
  // Every dividend for a few small divisors around the default stride (n_sub 1000, w 11 -> 990).
  for (uint32_t d : {1u, 3u, 990u, 985u}) {
    const FastDivide32 f(d);
    for (uint32_t n = 0; n < (1u << 22); ++n)
      if (f.divide(n) != n / d) FAIL("n = " << n << ", d = " << d);
  }
}
