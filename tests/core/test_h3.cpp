// The affine H3 family: deterministic from the seed, table-driven evaluation equal to the bit-loop definition.
#include <catch2/catch.hpp>

#include <random>

#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

namespace {
// Independent reconstruction of the generation rule (documented in h3.hpp/h3.cpp): splitmix64 from the seed, for each
// function 64 rows (the high 32 bits of each draw) then the constant; h = c XOR rows of the set key bits.
uint32_t oracle_hash(uint64_t seed, int function, int w, uint64_t key) {
  uint64_t state = seed;
  auto next = [&]() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  uint32_t rows[64] = {};
  uint32_t c = 0;
  for (int i = 0; i <= function; ++i) {
    for (auto& r : rows) r = uint32_t(next() >> 32);
    c = uint32_t(next() >> 32);
  }
  uint32_t h = c;
  for (int j = 0; j < 2 * w; ++j)
    if (key >> j & 1) h ^= rows[j];
  return h;
}
}  // namespace

TEST_CASE("H3 functions are determined by the seed alone", "[h3]") {
  std::mt19937_64 rng(11);
  for (int w : {4, 11, 21, 32}) {
    const H3Family fam(6, w, 12345);
    for (int rep = 0; rep < 100; ++rep) {
      const uint64_t key = rng() & ((w == 32) ? ~0ULL : ((1ULL << (2 * w)) - 1));
      for (int i = 0; i < 6; ++i) REQUIRE(fam.hash_bitloop(i, key) == oracle_hash(12345, i, w, key));
    }
  }
  // Function i does not depend on k: filters with different k can share one hashing pass.
  const H3Family a(3, 11, 7), b(10, 11, 7);
  for (int i = 0; i < 3; ++i) CHECK(a.hash_bitloop(i, 0x12345) == b.hash_bitloop(i, 0x12345));
  // Another seed gives other functions.
  const H3Family c(3, 11, 8);
  CHECK(a.hash_bitloop(0, 0x12345) != c.hash_bitloop(0, 0x12345));
}

TEST_CASE("byte and nibble tables agree exactly with the bit loop", "[h3]") {
  std::mt19937_64 rng(12);
  for (int w : {1, 3, 4, 11, 16, 21, 28, 31, 32}) {
    for (int k : {1, 6, 13}) {
      const H3Family fam(k, w, rng());
      const auto bytes = fam.byte_view();
      const auto nibbles = fam.nibble_view();
      uint32_t out_b[kMaxHashes], out_n[kMaxHashes];
      for (int rep = 0; rep < 300; ++rep) {
        const uint64_t key = rng() & ((w == 32) ? ~0ULL : ((1ULL << (2 * w)) - 1));
        bytes.hash_all(key, out_b);
        nibbles.hash_all(key, out_n);
        for (int i = 0; i < k; ++i) {
          const uint32_t want = fam.hash_bitloop(i, key);
          REQUIRE(out_b[i] == want);
          REQUIRE(out_n[i] == want);
          REQUIRE(bytes.hash(i, key) == want);
        }
      }
    }
  }
}

TEST_CASE("H3 is affine: the all-A w-mer maps to the constant, not to 0", "[h3]") {
  const H3Family fam(8, 11, kDefaultH3Seed);
  uint32_t out[kMaxHashes];
  fam.byte_view().hash_all(0, out);
  int zeros = 0;
  for (int i = 0; i < 8; ++i) {
    CHECK(out[i] == fam.constant(i));
    zeros += out[i] == 0;
  }
  CHECK(zeros == 0);
  // Linearity around the constant: h(x ^ y) = h(x) ^ h(y) ^ c.
  std::mt19937_64 rng(13);
  for (int rep = 0; rep < 100; ++rep) {
    const uint64_t x = rng() & 0x3FFFFF, y = rng() & 0x3FFFFF;
    CHECK(fam.hash_bitloop(2, x ^ y) == (fam.hash_bitloop(2, x) ^ fam.hash_bitloop(2, y) ^ fam.constant(2)));
  }
}

TEST_CASE("H3 parameters are validated", "[h3]") {
  CHECK_THROWS_AS(H3Family(0, 11, 1), UsageError);
  CHECK_THROWS_AS(H3Family(kMaxHashes + 1, 11, 1), UsageError);
  CHECK_THROWS_AS(H3Family(4, 0, 1), UsageError);
  CHECK_THROWS_AS(H3Family(4, 33, 1), UsageError);
}
