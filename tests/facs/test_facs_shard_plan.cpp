// Shard plans: the one-pass counting and finding (against the offsets of a brute-force line walk, across the
// 1 MiB read blocks), the plan's round trip through its text, refusal of every damaged or truncated plan text, and
// what the input fingerprint notices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/shard.hpp"
#include "bloomseq/facs/shard_plan.hpp"

using namespace bloomseq;

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("bloomseq_plan_test_" + std::to_string(::getpid()) + "_" + name))
          .string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// FASTQ (four lines a record) or multi-line FASTA of `n` records of varying length; `starts` gets every record's
// offset and `lines` the lines before it, counted while writing (the oracle).
std::string make_reads(char format, size_t n, uint32_t seed, std::vector<uint64_t>& starts,
                       std::vector<uint64_t>& lines) {
  std::mt19937 rng(seed);
  std::string t;
  uint64_t line = 0;
  for (size_t i = 0; i < n; ++i) {
    starts.push_back(t.size());
    lines.push_back(line);
    std::string seq(20 + rng() % 300, 'A');
    for (char& c : seq) c = "ACGT"[rng() % 4];
    if (format == '@') {
      t += "@r" + std::to_string(i) + "\n" + seq + "\n+\n" + std::string(seq.size(), '@') + "\n";
      line += 4;
    } else {
      t += ">r" + std::to_string(i) + "\n";
      ++line;
      for (size_t j = 0; j < seq.size(); j += 60, ++line) t += seq.substr(j, 60) + "\n";
    }
  }
  starts.push_back(t.size());
  lines.push_back(line);
  return t;
}
}  // namespace

TEST_CASE("shard plan: records found and counted in one pass = a line walk's offsets") {
  for (const char format : {'@', '>'}) {
    std::vector<uint64_t> starts, lines;
    const size_t n = 20000;  // several MiB: the search crosses read blocks
    const std::string path = temp_file(std::string("a") + (format == '@' ? ".fq" : ".fa"),
                                       make_reads(format, n, 7, starts, lines));
    std::mt19937 rng(3);
    std::vector<uint64_t> ks = {0, 0, 1, n / 2, n / 2, n - 1, n, n, n + 5};
    for (int i = 0; i < 40; ++i) ks.push_back(rng() % (n + 1));
    std::sort(ks.begin(), ks.end());
    std::vector<RecordCount> before;
    const std::vector<uint64_t> at = find_file_records(path, ks, format, before);
    REQUIRE(at.size() == ks.size());
    for (size_t j = 0; j < ks.size(); ++j) {
      const uint64_t k = std::min<uint64_t>(ks[j], n);
      INFO("format " << format << " record " << ks[j]);
      CHECK(at[j] == starts[k]);
      CHECK(before[j].lines == lines[k]);
      CHECK(before[j].records == k);
    }
    std::vector<uint64_t> offsets;
    for (const uint64_t k : ks) offsets.push_back(starts[std::min<uint64_t>(k, n)]);
    const std::vector<RecordCount> counts = count_file_records_at(path, offsets, format);
    for (size_t j = 0; j < ks.size(); ++j) {
      CHECK(counts[j].records == std::min<uint64_t>(ks[j], n));
      CHECK(counts[j].lines == lines[std::min<uint64_t>(ks[j], n)]);
    }
    std::filesystem::remove(path);
  }
}

TEST_CASE("shard plan: round trip through its text; every damaged or truncated text refused") {
  std::vector<uint64_t> s1, l1, s2, l2;
  const std::string reads = temp_file("r1.fq", make_reads('@', 300, 1, s1, l1));
  const std::string mates = temp_file("r2.fq", make_reads('@', 300, 2, s2, l2));
  const ShardPlan plan = make_shard_plan(reads, mates, 7);
  REQUIRE(plan.starts.size() == 7);
  for (const PlannedShard& s : plan.starts) {
    // Each shard's first mate is the record of the same index (the oracle: offsets written above).
    const auto r = std::find(s1.begin(), s1.end(), s.begin);
    REQUIRE(r != s1.end());
    CHECK(uint64_t(r - s1.begin()) == s.records);
    CHECK(s.mate_begin == (s.begin ? s2[s.records] : 0));
    CHECK(s.lines == 4 * s.records);
  }
  const std::string text = shard_plan_text(plan);
  const ShardPlan back = parse_shard_plan("p", text);
  CHECK(shard_plan_text(back) == text);
  CHECK(back.reads.size == s1.back());
  CHECK(back.mates.size == s2.back());
  const std::string path = temp_file("p.plan", "");
  write_shard_plan(path, plan);
  CHECK(shard_plan_text(read_shard_plan(path)) == text);
  for (size_t i = 0; i < text.size(); ++i) {
    for (const char c : {'0', '9', 'a', 'F', '\t', '\n', '#'}) {
      if (text[i] == c) continue;
      std::string t = text;
      t[i] = c;
      INFO("byte " << i << " set to " << int(c));
      CHECK_THROWS_AS(parse_shard_plan("p", t), DataError);
    }
  }
  for (size_t len = 0; len < text.size(); ++len) CHECK_THROWS_AS(parse_shard_plan("p", text.substr(0, len)), DataError);
  CHECK_THROWS_AS(read_shard_plan(path + ".missing"), NoInputError);
  for (const std::string& p : {reads, mates, path}) std::filesystem::remove(p);
}

TEST_CASE("shard plan: the input fingerprint sees the size and the bytes near the cuts only") {
  std::string t(100000, 'A');
  const std::vector<uint64_t> cuts = {30000, 70000};
  const uint64_t h = input_window_hash(t, cuts);
  for (const uint64_t at : {uint64_t(0), uint64_t(30000 - kPlanWindow), uint64_t(30000 + kPlanWindow - 1),
                            uint64_t(70000), uint64_t(100000 - 1)}) {
    std::string u = t;
    u[at] = 'C';
    CHECK(input_window_hash(u, cuts) != h);
  }
  std::string far = t;
  far[50000] = 'C';
  CHECK(input_window_hash(far, cuts) == h);
  CHECK(input_window_hash(t + "A", cuts) != h);
  CHECK(input_window_hash(t, {30000, 70001}) != h);
}
