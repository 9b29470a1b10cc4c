// Sharded classify: the block cut rule (against brute-force properties), --shard parsing, the counting and
// skipping passes (against a full parse) and the part file header and counters (round trip, fingerprint).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/part_file.hpp"
#include "bloomseq/facs/shard.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

TEST_CASE("shard blocks: contiguous, covering, balanced to one record") {
  for (uint64_t total = 0; total <= 60; ++total)
    for (uint64_t n = 1; n <= 20; ++n) {
      uint64_t next = 0, lo = UINT64_MAX, hi = 0;
      for (uint64_t i = 1; i <= n; ++i) {
        const RecordBlock b = shard_block(total, i, n);
        REQUIRE(b.begin == next);
        REQUIRE(b.end >= b.begin);
        lo = std::min(lo, b.end - b.begin);
        hi = std::max(hi, b.end - b.begin);
        next = b.end;
      }
      REQUIRE(next == total);
      REQUIRE(hi - lo <= 1);
    }
  // No overflow for large inputs and shard counts.
  const uint64_t big = uint64_t(1) << 44;
  CHECK(shard_block(big, 1000000, 1000000).end == big);
  CHECK(shard_block(big, 2, 4).begin == big / 4);
}

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("bloomseq_shard_test_" + std::to_string(::getpid()) + "_" + name))
          .string();
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("counting and skipping records agree with a full parse") {
  std::string fq, fa;
  for (int i = 0; i < 1000; ++i) {
    const std::string seq(50 + i % 40, "ACGT"[i % 4]);
    fq += "@r" + std::to_string(i) + "\n" + seq + "\n+\n" + std::string(seq.size(), i % 3 ? 'I' : '@') + "\n";
    fa += ">r" + std::to_string(i) + "\n" + seq.substr(0, 30) + "\n" + seq.substr(30) + "\n";  // multi-line
  }
  for (const std::string& path : {temp_file("a.fq", fq), temp_file("a.fa", fa)}) {
    const size_t all = read_all_sequences(path).size();
    {
      SequenceReader r(path);
      CHECK(count_records(r, 1000) == all);
    }
    for (uint64_t skip : {0, 1, 17, 999, 1000, 1005}) {
      SequenceReader r(path);
      CHECK(skip_records(r, skip, 700) == std::min<uint64_t>(skip, all));
      SequenceRecord rec;
      if (skip < all) {
        REQUIRE(r.next(rec));
        CHECK(rec.name == "r" + std::to_string(skip));
      } else {
        CHECK_FALSE(r.next(rec));
      }
    }
    std::remove(path.c_str());
  }
}

namespace {
PartHeader sample_header() {
  PartHeader h;
  h.kind = PartKind::summary;
  h.shard = 2;
  h.shards = 5;
  h.info.version = "1.2.3";
  h.info.reads = "dir with space/r\t1.fq";
  h.info.mates = "back\\slash\nnewline.fq";
  h.info.paired = true;
  h.info.pair_mode = "either";
  h.info.score = "facs";
  h.info.threshold = 0.1;
  h.info.has_error_rate = true;
  h.info.error_rate = 1.0 / 3.0;
  h.info.threads = 4;
  h.info.batch_bases = 2000000;
  h.info.kmer_size = 21;
  h.info.seed = 0xfedcba9876543210ull;
  h.info.all_scores = true;
  h.info.filters.push_back({"ecoli", "ecoli.fa", 123456, 7, 9999999, 4.9406564584124654e-324});
  h.info.filters.push_back({"f\t2", "x.fa:rec", 1, 1, 64, 0.000512345678901234});
  h.records = 5000000;
  h.sizes = "1234,5678";
  return h;
}

PartHeader parse_text(const std::string& text, std::string& rest) {
  std::istringstream in(text);
  std::string first;
  std::getline(in, first);
  return parse_part_header("p", first, [&](std::string& l) { return bool(std::getline(in, l)); }, rest);
}
}  // namespace

TEST_CASE("part header: round trip, exact doubles, escapes") {
  const PartHeader h = sample_header();
  PartCounters c;
  c.summary = ClassifySummary(2);
  c.summary.total = 10;
  c.summary.hits = {3, 4};
  c.summary.shared = {1, 1};
  c.summary.best = {2, 3};
  c.summary.lookups = 987654321012ull;
  c.bases = 1000;
  c.seconds = 0.125;
  std::string rest;
  const PartHeader g = parse_text(part_header_text(h) + part_counters_text(c) + kPartEnd, rest);
  CHECK(g.kind == h.kind);
  CHECK(g.shard == 2);
  CHECK(g.shards == 5);
  CHECK(g.fingerprint == part_fingerprint(h));
  CHECK(g.info.reads == h.info.reads);
  CHECK(g.info.mates == h.info.mates);
  CHECK(g.info.threshold == h.info.threshold);
  CHECK(g.info.error_rate == h.info.error_rate);
  CHECK(g.info.seed == h.info.seed);
  CHECK(g.info.threads == 4);
  REQUIRE(g.info.filters.size() == 2);
  CHECK(g.info.filters[1].name == "f\t2");
  CHECK(g.info.filters[0].predicted_fpr == h.info.filters[0].predicted_fpr);
  CHECK(g.info.filters[1].predicted_fpr == h.info.filters[1].predicted_fpr);
  CHECK(g.records == h.records);
  CHECK(g.sizes == h.sizes);
  CHECK(g.scheme == ShardScheme::records);
  REQUIRE(is_counters_line(rest));
  const PartCounters d = parse_part_counters("p", rest, 2);
  CHECK(d.summary.total == 10);
  CHECK(d.summary.hits == c.summary.hits);
  CHECK(d.summary.best == c.summary.best);
  CHECK(d.summary.lookups == c.summary.lookups);
  CHECK(d.seconds == 0.125);
  CHECK_THROWS_AS(parse_part_counters("p", rest, 3), DataError);  // counters for another number of filters
}

TEST_CASE("part fingerprint: parameters, filters, input and N count; threads and shard index do not") {
  const PartHeader h = sample_header();
  const uint64_t f = part_fingerprint(h);
  PartHeader t = h;
  t.info.threads = 1;
  t.shard = 5;
  t.kind = PartKind::calls;
  CHECK(part_fingerprint(t) == f);
  auto differs = [&](auto change) {
    PartHeader x = h;
    change(x);
    return part_fingerprint(x) != f;
  };
  CHECK(differs([](PartHeader& x) { x.info.threshold = 0.2; }));
  CHECK(differs([](PartHeader& x) { x.info.pair_mode = "both"; }));
  CHECK(differs([](PartHeader& x) { x.info.filters[0].kmers += 1; }));
  CHECK(differs([](PartHeader& x) { x.info.filters.pop_back(); }));
  CHECK(differs([](PartHeader& x) { x.records += 1; }));
  CHECK(differs([](PartHeader& x) { x.sizes = "1234,5679"; }));
  CHECK(differs([](PartHeader& x) { x.shards = 6; }));
  CHECK(differs([](PartHeader& x) { x.info.all_scores = false; }));
  CHECK(differs([](PartHeader& x) { x.scheme = ShardScheme::bytes; }));
}

TEST_CASE("part block line: round trip, unknown fields") {
  PartBlock b;
  b.first_record = 7;
  b.begin = 0;
  b.end = 123456789012ull;
  std::string line = part_block_text(b);
  REQUIRE(line.back() == '\n');
  line.pop_back();
  REQUIRE(is_block_line(line));
  const PartBlock c = parse_part_block("p", line);
  CHECK(c.first_record == 7);
  CHECK(c.begin == 0);
  CHECK(c.end == b.end);
  CHECK(c.mate_begin == PartBlock::kUnknown);
  CHECK(c.mate_end == PartBlock::kUnknown);
  CHECK_THROWS_AS(parse_part_block("p", "#bloomseq-facs-block\t1\t2"), DataError);
  CHECK_FALSE(is_block_line("#bloomseq-facs-counters\t1"));
}

TEST_CASE("part header: refused when it is no part, tampered with or truncated") {
  std::string rest;
  const std::string text = part_header_text(sample_header());
  CHECK_THROWS_AS(parse_text("#read_id\tcall\tscore\tmatched\n", rest), DataError);
  CHECK_THROWS_AS(parse_text(text, rest), DataError);  // no counters line: the header never ends
  std::string tampered = text;
  tampered.replace(tampered.find("threshold\t0.1"), 13, "threshold\t0.2");
  CHECK_THROWS_AS(parse_text(tampered + "#bloomseq-facs-counters\t\n", rest), DataError);
  std::string bad_shard = text;
  bad_shard.replace(bad_shard.find("shard=2/5"), 9, "shard=6/5");
  CHECK_THROWS_AS(parse_text(bad_shard + "x\n", rest), DataError);
}

TEST_CASE("counting records of a file in blocks agrees with counting its mapped text") {
  // Files of a few MB: the block reader's 1-MB blocks end inside lines and records.
  std::string fq, fa;
  for (int i = 0; fq.size() < (size_t(5) << 19); ++i) {
    const std::string seq(1 + (i * 37) % 151, "ACGT"[i % 4]);
    fq += "@r" + std::to_string(i) + "\n" + seq + "\n+\n" + std::string(seq.size(), i % 2 ? '@' : 'I') + "\n";
    fa += ">r" + std::to_string(i) + " x>y\n" + seq + "\n" + (i % 3 ? seq + "\n" : "");
  }
  for (const auto& [text, format] : {std::pair<std::string, char>{fq, '@'}, {fa, '>'}}) {
    const std::string path = temp_file(format == '@' ? "blocks.fq" : "blocks.fa", text);
    for (uint64_t at = 0; at <= text.size(); at += 1 + text.size() / 97) {
      const RecordCount a = count_records_before(text, size_t(at), format);
      const RecordCount b = count_file_records_before(path, at, format);
      REQUIRE(a.lines == b.lines);
      REQUIRE(a.records == b.records);
    }
    const uint64_t all = count_records_before(text, text.size(), format).records;
    for (uint64_t k = 0; k <= all + 2; k += 1 + all / 89) {
      RecordCount a, b;
      REQUIRE(find_record(text, k, format, a) == find_file_record(path, k, format, b));
      REQUIRE(a.lines == b.lines);
      REQUIRE(a.records == b.records);
    }
    std::remove(path.c_str());
  }
}
