// .2bit: exact round trip (case and N runs), the documented byte layout, byte-swapped files, and rejections.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/twobit.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::read_bytes;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

SequenceRecord rec(const std::string& name, const std::string& seq) {
  SequenceRecord r;
  r.name = name;
  r.seq = seq;
  return r;
}

// Random sequence with N runs (upper and lower case), soft-masked stretches and runs at both ends.
std::string awkward_sequence(std::mt19937_64& rng, size_t n) {
  std::string s = bloomseq_test::random_dna(rng, n);
  for (size_t i = 0; i < n;) {
    size_t run = 1 + rng() % 40;
    int kind = int(rng() % 6);
    for (size_t j = i; j < std::min(n, i + run); ++j) {
      if (kind == 0) s[j] = 'N';
      if (kind == 1) s[j] = char(s[j] | 0x20);
      if (kind == 2) s[j] = 'n';
    }
    i += run;
  }
  return s;
}

uint32_t u32_at(const std::string& b, size_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}

void expect_reject(const std::string& path, const std::string& fragment, bool open_only = true) {
  try {
    TwoBitReader r(path);
    if (!open_only)
      for (size_t i = 0; i < r.size(); ++i) r.sequence(i);
    FAIL("accepted a bad .2bit file, expected: " << fragment);
  } catch (const Error& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find(fragment) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("2bit: FASTA -> .2bit -> FASTA is exact, case and N runs included", "[io][2bit]") {
  TempDir dir;
  std::mt19937_64 rng(31);
  std::vector<SequenceRecord> recs;
  recs.push_back(rec("empty", ""));
  recs.push_back(rec("allN", std::string(37, 'N')));
  recs.push_back(rec("alln", std::string(5, 'n')));
  recs.push_back(rec("one", "g"));
  for (int i = 0; i < 40; ++i) recs.push_back(rec("seq" + std::to_string(i), awkward_sequence(rng, rng() % 5000)));
  recs.push_back(rec("x", "NNacgtNNNNACGTnnnnAC"));
  write_twobit(dir.file("a.2bit"), recs);
  CHECK(is_twobit_file(dir.file("a.2bit")));
  CHECK(dir.entries() == std::vector<std::string>{"a.2bit"});
  TwoBitReader r(dir.file("a.2bit"));
  REQUIRE(r.size() == recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    INFO(recs[i].name);
    CHECK(r.name(i) == recs[i].name);
    CHECK(r.length(i) == recs[i].seq.size());
    CHECK(r.sequence(i) == recs[i].seq);
  }
  // The codes read straight from the mapping are those of the text (N runs invalid, case ignored), in any
  // order, and nothing is written past a record's length.
  for (size_t i = recs.size(); i-- > 0;) {
    INFO(recs[i].name);
    const std::string& t = recs[i].seq;
    std::vector<uint8_t> got(t.size() + 8, 0xEE), want(t.size() + 8, 0xEE);
    for (size_t j = 0; j < t.size(); ++j) want[j] = base_code(t[j]);
    r.codes(i, got.data());
    CHECK(got == want);
  }
  // Random access in any order.
  CHECK(r.record(recs.size() - 1).seq == "NNacgtNNNNACGTnnnnAC");
  CHECK(r.record(3).name == "one");
}

TEST_CASE("2bit: bytes follow the UCSC layout", "[io][2bit]") {
  TempDir dir;
  write_twobit(dir.file("l.2bit"), {rec("s", "ACGTnA")});
  std::string b = read_bytes(dir.file("l.2bit"));
  CHECK(u32_at(b, 0) == 0x1A412743u);
  CHECK(u32_at(b, 4) == 0);  // version
  CHECK(u32_at(b, 8) == 1);  // count
  CHECK(u32_at(b, 12) == 0);
  CHECK(b[16] == 1);
  CHECK(b[17] == 's');
  uint32_t off = u32_at(b, 18);
  REQUIRE(off == 22);
  CHECK(u32_at(b, off) == 6);       // dnaSize
  CHECK(u32_at(b, off + 4) == 1);   // one N block
  CHECK(u32_at(b, off + 8) == 4);   // at 4
  CHECK(u32_at(b, off + 12) == 1);  // of 1
  CHECK(u32_at(b, off + 16) == 1);  // one mask block, the same position
  CHECK(u32_at(b, off + 20) == 4);
  CHECK(u32_at(b, off + 24) == 1);
  CHECK(u32_at(b, off + 28) == 0);  // reserved
  // A=2 C=1 G=3 T=0, first base in the high bits: ACGT -> 10 01 11 00; N(as T) A -> 00 10 00 00.
  CHECK(uint8_t(b[off + 32]) == 0x9C);
  CHECK(uint8_t(b[off + 33]) == 0x20);
  CHECK(b.size() == size_t(off) + 34);
}

TEST_CASE("2bit: big-endian files are read too", "[io][2bit]") {
  TempDir dir;
  // Built by hand: the same one-record file with every 32-bit field byte-swapped.
  auto be = [](uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = char(v >> (24 - 8 * i));
    return s;
  };
  std::string b = be(0x1A412743) + be(0) + be(1) + be(0) + "\x02" "ab" + be(23);
  b += be(5) + be(0) + be(1) + be(0) + be(2) + be(0);
  b += std::string("\x9C\x80", 2);  // ACGT, A
  write_bytes(dir.file("be.2bit"), b);
  CHECK(is_twobit_file(dir.file("be.2bit")));
  TwoBitReader r(dir.file("be.2bit"));
  REQUIRE(r.size() == 1);
  CHECK(r.name(0) == "ab");
  CHECK(r.sequence(0) == "acGTA");
  uint8_t codes[5];
  r.codes(0, codes);
  CHECK(std::vector<uint8_t>(codes, codes + 5) == std::vector<uint8_t>{0, 1, 2, 3, 0});
}

TEST_CASE("2bit: IUPAC codes are refused unless lossy storage is allowed", "[io][2bit]") {
  TempDir dir;
  try {
    write_twobit(dir.file("r.2bit"), {rec("ok", "ACGT"), rec("iupac", "ACGRT")});
    FAIL("no error");
  } catch (const DataError& e) {
    std::string msg = e.what();
    CHECK(msg.find("record 2 'iupac'") != std::string::npos);
    CHECK(msg.find("position 4") != std::string::npos);
  }
  CHECK(dir.entries().empty());
  write_twobit(dir.file("r.2bit"), {rec("iupac", "ACGRTy")}, true);
  CHECK(TwoBitReader(dir.file("r.2bit")).sequence(0) == "ACGNTn");
  CHECK_THROWS_AS(write_twobit(dir.file("d.2bit"), {rec("a", "A"), rec("a", "C")}), DataError);
  CHECK_THROWS_AS(write_twobit(dir.file("d.2bit"), {rec("", "A")}), DataError);
  CHECK_THROWS_AS(write_twobit(dir.file("d.2bit"), {rec(std::string(256, 'x'), "A")}), DataError);
}

TEST_CASE("2bit: real lambda genome round trip", "[io][2bit]") {
  TempDir dir;
  auto recs = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/lambda_virus.fa");
  write_twobit(dir.file("lambda.2bit"), recs);
  TwoBitReader r(dir.file("lambda.2bit"));
  REQUIRE(r.size() == 1);
  CHECK(r.length(0) == 48502);
  CHECK(r.sequence(0) == recs[0].seq);
  // 2 bits per base plus a small header.
  CHECK(read_bytes(dir.file("lambda.2bit")).size() < 48502 / 4 + 100);
}

TEST_CASE("2bit: rejections name the file and record", "[io][2bit]") {
  TempDir dir;
  std::mt19937_64 rng(32);
  write_twobit(dir.file("g.2bit"), {rec("chrA", awkward_sequence(rng, 1000)), rec("chrB", "ACGTNNNN")});
  const std::string good = read_bytes(dir.file("g.2bit"));
  auto bad = dir.file("bad.2bit");
  auto with = [&](auto patch) {
    std::string b = good;
    patch(b);
    write_bytes(bad, b);
  };
  auto put = [](std::string& b, size_t off, uint32_t v) { std::memcpy(&b[off], &v, 4); };
  const size_t entry2 = 16 + 1 + 4 + 4;  // second index entry (name length byte)
  const uint32_t off2 = u32_at(good, entry2 + 1 + 4);

  expect_reject(dir.file("missing.2bit"), "No such file");
  expect_reject(dir.path(), "directory");
  write_bytes(bad, "");
  expect_reject(bad, "not a .2bit file");
  with([](std::string& b) { b[0] = 'X'; });
  expect_reject(bad, "bad signature");
  with([&](std::string& b) { put(b, 4, 7); });
  expect_reject(bad, "version 7");
  with([&](std::string& b) { put(b, 8, 0x7fffffff); });
  expect_reject(bad, "cannot fit");
  with([&](std::string& b) { put(b, entry2 + 1 + 4, uint32_t(b.size() + 100)); });
  expect_reject(bad, "record 2 'chrB': offset");
  with([&](std::string& b) { b.resize(b.size() - 1); });  // last packed byte missing
  expect_reject(bad, "record 2 'chrB'", false);
  with([&](std::string& b) { put(b, off2 + 4, 0x10000000); });  // absurd N block count
  expect_reject(bad, "record 2 'chrB': 268435456 N blocks cannot fit", false);
  with([&](std::string& b) { put(b, off2 + 12, 50); });  // N block size past the end
  expect_reject(bad, "runs past the sequence length", false);
  with([&](std::string& b) { put(b, off2, 0xfffffff0u); });  // dnaSize absurd
  expect_reject(bad, "runs past", false);
  with([&](std::string& b) { b[entry2 + 4] = 'A'; });  // both names "chrA"
  expect_reject(bad, "duplicate");
}

TEST_CASE("2bit: SequenceReader reads .2bit files like FASTA", "[io][2bit]") {
  TempDir dir;
  std::mt19937_64 rng(33);
  std::vector<SequenceRecord> recs = {rec("a", awkward_sequence(rng, 777)), rec("b", "nnACGT"), rec("c", "")};
  write_twobit(dir.file("r.2bit"), recs);
  SequenceReader r(dir.file("r.2bit"));
  std::vector<SequenceRecord> batch;
  CHECK(r.next_batch(batch, 780) == 2);
  CHECK(batch[0].seq == recs[0].seq);
  CHECK(batch[1].name == "b");
  CHECK(batch[1].seq == "nnACGT");
  CHECK(r.next_batch(batch, 800) == 1);
  CHECK(batch[0].seq.empty());
  CHECK(r.next_batch(batch, 800) == 0);
  CHECK_FALSE(r.is_fastq());
  CHECK(read_all_sequences(dir.file("r.2bit")).size() == 3);
}

TEST_CASE("2bit: a range of codes is the same part of the whole record's codes", "[io][2bit]") {
  // Oracle: the codes of the whole record (checked against the text above), cut.
  TempDir dir;
  std::mt19937_64 rng(9);
  std::string seq;
  for (int i = 0; i < 5003; ++i) seq += "ACGTacgt"[rng() % 8];
  for (size_t at : {size_t(0), size_t(997), size_t(2048), size_t(4990)}) seq.replace(at, 13, "NNNNNNNNNNNNN");
  write_twobit(dir.file("r.2bit"), {rec("short", "ACG"), rec("long", seq)});
  for (bool populate : {true, false}) {
    TwoBitReader r(dir.file("r.2bit"), populate);
    std::vector<uint8_t> whole(r.length(1));
    r.codes(1, whole.data());
    for (int rep = 0; rep < 200; ++rep) {
      const uint64_t from = (rng() % (whole.size() / 4 + 1)) * 4;
      const uint64_t n = rng() % (whole.size() - from + 1);
      std::vector<uint8_t> part(n + 1, 99);
      r.codes(1, from, n, part.data());
      INFO("from " << from << " n " << n << " populate " << populate);
      CHECK(std::equal(part.begin(), part.begin() + long(n), whole.begin() + long(from)));
      CHECK(part[n] == 99);  // nothing written past the range
    }
    CHECK_THROWS_AS(r.codes(1, 2, 4, whole.data()), std::logic_error);
  }
}
