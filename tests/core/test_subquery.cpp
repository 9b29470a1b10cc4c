// Sub-query splitting: every w-mer start of every record is in exactly one sub-query.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "bloomseq/error.hpp"
#include "bloomseq/split/subquery.hpp"

using namespace bloomseq;

TEST_CASE("each query w-mer start belongs to exactly one sub-query", "[split]") {
  std::mt19937_64 rng(31);
  for (int rep = 0; rep < 300; ++rep) {
    const int w = int(rng() % 32) + 1;
    const uint64_t n_sub = uint64_t(w) + rng() % 200;
    std::vector<uint64_t> lengths(rng() % 5 + 1);
    for (auto& l : lengths) l = rng() % 3 == 0 ? rng() % uint64_t(w + 1) : rng() % 2000;
    const auto subs = split_subqueries(lengths, n_sub, w);

    std::map<std::pair<uint32_t, uint64_t>, int> owners;
    for (const auto& s : subs) {
      REQUIRE(s.length <= n_sub);
      REQUIRE(s.length >= uint64_t(w));
      REQUIRE(s.offset + s.length <= lengths[s.query_id]);
      for (uint64_t p = s.offset; p + uint64_t(w) <= s.offset + s.length; ++p) ++owners[{s.query_id, p}];
    }
    uint64_t expected_starts = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
      if (lengths[r] < uint64_t(w)) continue;
      for (uint64_t p = 0; p + uint64_t(w) <= lengths[r]; ++p) {
        REQUIRE(owners[{uint32_t(r), p}] == 1);
        ++expected_starts;
      }
    }
    CHECK(owners.size() == expected_starts);
  }
}

TEST_CASE("sub-query edge sizes", "[split]") {
  // n_sub == w: one w-mer per sub-query.
  auto s = split_subqueries({10}, 4, 4);
  CHECK(s.size() == 7);
  // Exactly one full sub-query.
  s = split_subqueries({100}, 100, 11);
  REQUIRE(s.size() == 1);
  CHECK(s[0].length == 100);
  // Record shorter than w: none. Empty record list: none.
  CHECK(split_subqueries({10}, 100, 11).empty());
  CHECK(split_subqueries({}, 100, 11).empty());
  // Overlap of w-1 bases between consecutive sub-queries.
  s = split_subqueries({1000}, 100, 11);
  REQUIRE(s.size() >= 2);
  CHECK(s[1].offset == s[0].offset + 100 - 10);
  CHECK_THROWS_AS(split_subqueries({100}, 10, 11), UsageError);
  CHECK_THROWS_AS(split_subqueries({100}, 100, 0), UsageError);
  CHECK_THROWS_AS(split_subqueries({100}, 100, 33), UsageError);
}
