// Building filters: the exact count's block sort and merge against the k-mers taken straight from the sequence.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "bloomseq/facs/filter_builder.hpp"

using namespace bloomseq;

TEST_CASE("build: exact count over many sorted blocks gives the distinct k-mers and the same bits") {
  // 3.5 Mbases: several sort blocks; a repeated stretch and N's give duplicates across blocks and skipped k-mers.
  std::mt19937_64 rng(5);
  std::string a(2000000, 'A');
  for (char& c : a) c = "ACGT"[rng() % 4];
  std::string b = a.substr(100000, 1500000);
  for (size_t i = 0; i < b.size(); i += 100000) b[i] = 'N';
  const std::vector<std::string_view> seqs{a, b};

  BuildParams exact;
  exact.w = 21;
  exact.m_bits = 1 << 24;
  exact.hashes = 7;
  BuildParams streamed = exact;
  streamed.count = KmerCount::hyperloglog;  // inserts every k-mer as it comes: no sort, no merge

  uint64_t reports = 0;
  const FilterEntry e = build_filter(seqs, exact, "e", "mem", [&](const char*, uint64_t done, uint64_t total) {
    CHECK(done <= total);
    ++reports;
  });
  const FilterEntry s = build_filter(seqs, streamed, "s", "mem");
  CHECK(e.elements == distinct_canonical_wmers(seqs, 21).size());
  CHECK(e.bits.words() == s.bits.words());
  CHECK(reports > 20);  // reading, sorting, counting and inserting all reported
}
