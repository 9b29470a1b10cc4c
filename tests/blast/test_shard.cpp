// Sharding (shard.hpp) and the part file (part_file.hpp): the cut rule against its definition computed by brute
// force (contiguous, complete, every record in its midpoint's part), the parsing of I/N, and the part lines read
// back exactly (E-values bit for bit through hex floats).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "bloomseq/blast/part_file.hpp"
#include "bloomseq/blast/shard.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq;

namespace {

// The rule as documented, one record at a time, in long double arithmetic checked to be exact for these sizes.
uint32_t part_of(const std::vector<uint64_t>& lengths, size_t r, uint32_t count) {
  uint64_t total = 0, prefix = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    total += lengths[i];
    if (i < r) prefix += lengths[i];
  }
  uint64_t p = total ? (2 * prefix + lengths[r]) * count / (2 * total) : r * count / lengths.size();
  return uint32_t(std::min<uint64_t>(p, count - 1));
}

}  // namespace

TEST_CASE("shard cut: contiguous, complete, each record in its midpoint's part", "[shard]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t R = size_t(rng() % 40);
    std::vector<uint64_t> lengths(R);
    const int kind = trial % 4;
    for (auto& l : lengths) l = kind == 0 ? 0 : kind == 1 ? 1 + rng() % 10 : kind == 2 ? rng() % 100000 : 1000;
    for (uint32_t count : {1u, 2u, 3u, 7u, 16u, 50u}) {
      const std::vector<uint64_t> b = shard_boundaries(lengths, count);
      REQUIRE(b.size() == count + 1);
      REQUIRE(b.front() == 0);
      REQUIRE(b.back() == R);
      for (uint32_t i = 0; i < count; ++i) {
        REQUIRE(b[i] <= b[i + 1]);
        for (uint64_t r = b[i]; r < b[i + 1]; ++r) REQUIRE(part_of(lengths, size_t(r), count) == i);
      }
    }
  }
}

TEST_CASE("shard cut: balanced by bases, more parts than records leaves parts empty", "[shard]") {
  const std::vector<uint64_t> equal(12, 100);
  REQUIRE(shard_boundaries(equal, 3) == std::vector<uint64_t>{0, 4, 8, 12});
  REQUIRE(shard_boundaries(equal, 1) == std::vector<uint64_t>{0, 12});
  // One long record takes its part; the short ones fill the others.
  const std::vector<uint64_t> skewed{10, 10, 1000, 10, 10};
  const auto b = shard_boundaries(skewed, 3);
  REQUIRE(b == std::vector<uint64_t>{0, 2, 3, 5});
  const auto many = shard_boundaries({5, 5}, 7);
  size_t non_empty = 0;
  for (size_t i = 0; i < 7; ++i) non_empty += many[i + 1] > many[i];
  REQUIRE(non_empty == 2);
  REQUIRE(shard_boundaries({}, 4) == std::vector<uint64_t>{0, 0, 0, 0, 0});
  // Huge totals do not overflow (the rule is computed in 128 bits).
  const std::vector<uint64_t> huge{uint64_t(1) << 62, uint64_t(1) << 62, uint64_t(1) << 62};
  REQUIRE(shard_boundaries(huge, 3) == std::vector<uint64_t>{0, 1, 2, 3});
}

TEST_CASE("shard spec: I/N parsed, anything else refused", "[shard]") {
  const ShardSpec s = parse_shard("3/16", "--db-shard");
  REQUIRE(s.index == 3);
  REQUIRE(s.count == 16);
  REQUIRE(parse_shard("1/1", "x").whole());
  for (const char* bad : {"0/3", "4/3", "3", "/3", "3/", "a/b", "1/0", "-1/3", "1/3/4", "1/65537", " 1/2", "1/2 "})
    REQUIRE_THROWS_AS(parse_shard(bad, "--db-shard"), UsageError);
}

TEST_CASE("part file: header and HSP lines read back exactly", "[shard]") {
  PartHeader h;
  h.identity = "blast-bloom 0 w=11 evalue=0x1.4p+3";
  h.db = parse_shard("2/5", "db");
  h.query = parse_shard("1/3", "query");
  h.header = false;
  std::string line = part_header_line(h);
  REQUIRE(line.back() == '\n');
  line.pop_back();
  const PartHeader back = parse_part_header(line, "p");
  REQUIRE(back.identity == h.identity);
  REQUIRE(back.db.index == 2);
  REQUIRE(back.db.count == 5);
  REQUIRE(back.query.index == 1);
  REQUIRE(back.query.count == 3);
  REQUIRE(!back.header);
  // A changed identity no longer matches its fingerprint; other files are not parts.
  std::string tampered = line;
  tampered.back() = '4';
  REQUIRE_THROWS_AS(parse_part_header(tampered, "p"), DataError);
  REQUIRE_THROWS_AS(parse_part_header("# qaccver\tsaccver", "p"), DataError);
  REQUIRE_THROWS_AS(parse_part_header("", "p"), DataError);

  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    PartKey k;
    k.query = uint32_t(rng());
    k.subject = uint32_t(rng());
    uint64_t bits = rng();
    double e;
    std::memcpy(&e, &bits, sizeof e);
    if (std::isnan(e)) e = 0.0;
    k.evalue = i % 3 == 0 ? std::ldexp(double(rng() % 1000), -int(rng() % 1100)) : e;
    k.score = int64_t(rng()) >> (rng() % 60);
    std::string l = part_hsp_line(k, "q\ts\t99.5");
    REQUIRE(l.back() == '\n');
    l.pop_back();
    PartKey r;
    size_t at = 0;
    REQUIRE(parse_part_hsp_line(l, r, at));
    REQUIRE(r.query == k.query);
    REQUIRE(r.subject == k.subject);
    REQUIRE(std::memcmp(&r.evalue, &k.evalue, sizeof(double)) == 0);
    REQUIRE(r.score == k.score);
    REQUIRE(l.substr(at) == "q\ts\t99.5");
  }
  PartKey r;
  size_t at = 0;
  for (const char* bad : {"", "1\t2\t0x1p+0\t5", "x\t2\t0x1p+0\t5\tq", "1\t2\tzz\t5\tq", "1\t2\t0x1p+0\t5x\tq",
                          "1\t2\t\t5\tq", "99999999999\t2\t0x1p+0\t5\tq"})
    REQUIRE(!parse_part_hsp_line(bad, r, at));
}

TEST_CASE("part keys: the single run's order of subjects", "[shard]") {
  const PartKey a{0, 9, 1e-10, 50}, b{0, 3, 1e-5, 80}, c{0, 4, 1e-5, 70}, d{0, 5, 1e-5, 70}, e{1, 0, 0.0, 999};
  REQUIRE(part_key_less(a, b));  // lower E-value first
  REQUIRE(part_key_less(b, c));  // then the higher score
  REQUIRE(part_key_less(d, c));  // then the later subject (blastn's s_EvalueCompareHSPLists)
  REQUIRE(!part_key_less(c, d));
  REQUIRE(part_key_less(c, e));  // queries in input order first of all
  REQUIRE(!part_key_less(c, c));
}
