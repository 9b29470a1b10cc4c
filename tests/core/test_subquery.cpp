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
    std::vector<uint64_t> lengths(rng() % 40 + 1);
    for (auto& l : lengths) l = rng() % 3 == 0 ? rng() % uint64_t(w + 1) : rng() % 2 ? rng() % 2000 : rng() % 100;
    const auto subs = split_subqueries(lengths, n_sub, w);

    std::map<std::pair<uint32_t, uint64_t>, int> owners;
    uint32_t last_record = 0;
    for (const auto& s : subs) {
      REQUIRE(s.query_id >= last_record);  // record order
      last_record = s.query_id;
      uint64_t starts = 0;
      for_each_piece(s, [&](uint32_t r) { return lengths[r]; }, [&](uint32_t r, uint64_t off, uint64_t len) {
        REQUIRE(off + len <= lengths[r]);
        if (len < uint64_t(w)) return;
        REQUIRE((s.records == 1 || (off == 0 && len == lengths[r])));  // packed: whole records
        starts += len - uint64_t(w) + 1;
        for (uint64_t p = off; p + uint64_t(w) <= off + len; ++p) ++owners[{r, p}];
      });
      REQUIRE(starts >= 1);
      REQUIRE(starts <= n_sub - uint64_t(w) + 1);  // no more w-mers than one sub-query of n_sub bases
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

TEST_CASE("short records share sub-queries: their count follows the bases, not the records", "[split]") {
  const int w = 11;
  const uint64_t n_sub = 8000, stride = n_sub - w + 1;
  // 300,000 records of 30 bases: 20 w-mers each, 399 records per sub-query.
  const std::vector<uint64_t> lengths(300000, 30);
  const auto subs = split_subqueries(lengths, n_sub, w);
  const uint64_t starts = 300000 * 20;
  CHECK(subs.size() == (starts / 20 + stride / 20 - 1) / (stride / 20));
  CHECK(subs.size() <= starts / (stride - 19) + 1);
  REQUIRE(subs.size() >= 2);
  CHECK(subs[0].query_id == 0);
  CHECK(subs[0].records == stride / 20);
  CHECK(subs[0].length == 30 * (stride / 20));
  CHECK(subs[1].query_id == subs[0].records);
  // A long record between short ones has sub-queries of its own; the short ones after it start a new one.
  const auto mixed = split_subqueries({30, 30, 20000, 30, 5, 30}, n_sub, w);
  REQUIRE(mixed.size() == 5);
  CHECK((mixed[0].query_id == 0 && mixed[0].records == 2 && mixed[0].length == 60));
  CHECK((mixed[1].query_id == 2 && mixed[1].records == 1 && mixed[1].offset == 0));
  CHECK((mixed[3].query_id == 2 && mixed[3].records == 1));
  CHECK((mixed[4].query_id == 3 && mixed[4].records == 3 && mixed[4].length == 65));
}
