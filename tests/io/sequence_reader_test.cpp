// SequenceReader: formats, compressions, stdin, line ends, and every rejection path with its message.
#include <fcntl.h>
#include <htslib/bgzf.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::open_to_all;
using bloomseq_test::run_unprivileged;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

struct Rec {
  std::string name, comment, seq, qual;
};

// Random records with mixed case, N runs and IUPAC codes; FASTQ if with_qual.
std::vector<Rec> random_records(std::mt19937_64& rng, int n, bool with_qual) {
  std::vector<Rec> out;
  for (int i = 0; i < n; ++i) {
    Rec r;
    r.name = "read_" + std::to_string(i);
    if (rng() % 2) r.comment = "len=" + std::to_string(i) + " some\tcomment";
    r.seq = bloomseq_test::random_dna(rng, rng() % 300, "ACGTacgtNNnRY");
    if (with_qual) {
      r.qual.resize(r.seq.size());
      for (auto& c : r.qual) c = char('!' + rng() % 94);
    }
    out.push_back(r);
  }
  return out;
}

std::string to_text(const std::vector<Rec>& recs, bool fastq, size_t wrap, const char* eol = "\n") {
  std::string s;
  for (auto& r : recs) {
    s += (fastq ? "@" : ">") + r.name + (r.comment.empty() ? "" : " " + r.comment) + eol;
    if (r.seq.empty() && fastq) s += eol;
    for (size_t i = 0; i < r.seq.size(); i += wrap) s += r.seq.substr(i, wrap) + eol;
    if (fastq) {
      s += std::string("+") + eol;
      if (r.qual.empty()) s += eol;
      for (size_t i = 0; i < r.qual.size(); i += wrap) s += r.qual.substr(i, wrap) + eol;
    }
  }
  return s;
}

void check_same(const std::string& path, const std::vector<Rec>& expected) {
  auto got = read_all_sequences(path);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("record " << i);
    CHECK(got[i].name == expected[i].name);
    CHECK(got[i].comment == expected[i].comment);
    CHECK(got[i].seq == expected[i].seq);
    CHECK(got[i].qual == expected[i].qual);
  }
}

// Asserts that reading `path` throws E whose message contains every fragment.
template <class E>
void expect_error(const std::string& path, std::vector<std::string> fragments) {
  try {
    read_all_sequences(path);
    FAIL("no error for " << path);
  } catch (const E& e) {
    std::string msg = e.what();
    INFO(msg);
    for (auto& f : fragments) CHECK(msg.find(f) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("reader: FASTA single-line, multi-line, CRLF, plain and gzip", "[io][reader]") {
  TempDir dir;
  std::mt19937_64 rng(11);
  auto recs = random_records(rng, 200, false);
  for (size_t wrap : {size_t(1), size_t(7), size_t(60), size_t(100000)}) {
    for (const char* eol : {"\n", "\r\n"}) {
      std::string text = to_text(recs, false, wrap, eol);
      write_bytes(dir.file("a.fa"), text);
      check_same(dir.file("a.fa"), recs);
      write_bytes(dir.file("a.fa.gz"), bloomseq_test::gzip_bytes(text));
      check_same(dir.file("a.fa.gz"), recs);
    }
  }
}

TEST_CASE("reader: FASTQ single-line and multi-line, CRLF, plain and gzip", "[io][reader]") {
  TempDir dir;
  std::mt19937_64 rng(12);
  auto recs = random_records(rng, 300, true);
  for (size_t wrap : {size_t(50), size_t(100000)}) {
    for (const char* eol : {"\n", "\r\n"}) {
      std::string text = to_text(recs, true, wrap, eol);
      write_bytes(dir.file("a.fq"), text);
      check_same(dir.file("a.fq"), recs);
      write_bytes(dir.file("a.fq.gz"), bloomseq_test::gzip_bytes(text));
      check_same(dir.file("a.fq.gz"), recs);
      SequenceReader r(dir.file("a.fq"));
      SequenceRecord rec;
      REQUIRE(r.next(rec));
      CHECK(r.is_fastq());
    }
  }
}

TEST_CASE("reader: quality lines starting with '@' or '+' are quality, not headers", "[io][reader]") {
  TempDir dir;
  write_bytes(dir.file("q.fq"), "@r1\nACGT\n+r1\n@@+!\n@r2\nAC\n+\n+@\n");
  auto got = read_all_sequences(dir.file("q.fq"));
  REQUIRE(got.size() == 2);
  CHECK(got[0].qual == "@@+!");
  CHECK(got[1].qual == "+@");
}

TEST_CASE("reader: bgzip and concatenated gzip members", "[io][reader]") {
  TempDir dir;
  std::mt19937_64 rng(13);
  auto recs = random_records(rng, 2000, true);
  std::string text = to_text(recs, true, 100000);
  {  // BGZF: many 64 KiB blocks written by htslib
    BGZF* f = bgzf_open(dir.file("a.fq.bgz").c_str(), "w");
    REQUIRE(f);
    REQUIRE(bgzf_write(f, text.data(), text.size()) == ssize_t(text.size()));
    REQUIRE(bgzf_close(f) == 0);
  }
  check_same(dir.file("a.fq.bgz"), recs);
  // Two gzip members, split in the middle of a record: `cat a.gz b.gz` must read as one stream.
  size_t cut = text.size() / 2;
  write_bytes(dir.file("cat.fq.gz"),
              bloomseq_test::gzip_bytes(text.substr(0, cut)) + bloomseq_test::gzip_bytes(text.substr(cut)));
  check_same(dir.file("cat.fq.gz"), recs);
}

TEST_CASE("reader: lower case kept, blank lines, missing final newline, headers only", "[io][reader]") {
  TempDir dir;
  write_bytes(dir.file("a.fa"), "\n>s1 desc here\nacgtNNac\n\nGT\n>s2\n>s3\nttt");
  auto got = read_all_sequences(dir.file("a.fa"));
  REQUIRE(got.size() == 3);
  CHECK(got[0].name == "s1");
  CHECK(got[0].comment == "desc here");
  CHECK(got[0].blanks == " ");
  CHECK(got[0].seq == "acgtNNacGT");
  CHECK(got[1].blanks.empty());
  CHECK(got[1].seq.empty());
  CHECK(got[2].seq == "ttt");
  write_bytes(dir.file("h.fa"), ">a\n>b\n>c\n");
  got = read_all_sequences(dir.file("h.fa"));
  REQUIRE(got.size() == 3);
  for (auto& r : got) CHECK(r.seq.empty());
}

TEST_CASE("reader: the blanks between name and comment are kept as in the file", "[io][reader]") {
  // blastn's comment lines show a query's definition line with its own blanks (--outfmt 7).
  TempDir dir;
  write_bytes(dir.file("a.fa"), ">s1  two\tand  more \nACGT\n>s2\t \tx\nAC\n>s3 \nA\n");
  write_bytes(dir.file("a.fq"), "@r1  two\tand  more \nACGT\n+\nIIII\n@r2\t \tx\nAC\n+\nII\n@r3 \nA\n+\nI\n");
  for (const char* name : {"a.fa", "a.fq"}) {
    INFO(name);
    const auto got = read_all_sequences(dir.file(name));
    REQUIRE(got.size() == 3);
    CHECK(got[0].blanks == "  ");
    CHECK(got[0].comment == "two\tand  more ");
    CHECK(got[1].blanks == "\t \t");
    CHECK(got[1].comment == "x");
    CHECK(got[2].blanks == " ");
    CHECK(got[2].comment.empty());
  }
}

TEST_CASE("reader: an empty file has zero records", "[io][reader]") {
  TempDir dir;
  write_bytes(dir.file("empty.fa"), "");
  CHECK(read_all_sequences(dir.file("empty.fa")).empty());
  write_bytes(dir.file("empty.fa.gz"), bloomseq_test::gzip_bytes(""));
  CHECK(read_all_sequences(dir.file("empty.fa.gz")).empty());
  write_bytes(dir.file("blank.fa"), "\n\r\n\n");
  CHECK(read_all_sequences(dir.file("blank.fa")).empty());
}

TEST_CASE("reader: next_batch is sized in bases and reuses records", "[io][reader]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += ">r" + std::to_string(i) + "\n" + std::string(10, 'A') + "\n";
  write_bytes(dir.file("b.fa"), text);
  SequenceReader r(dir.file("b.fa"));
  std::vector<SequenceRecord> batch;
  std::vector<size_t> sizes;
  size_t total = 0;
  while (size_t n = r.next_batch(batch, 35)) {
    CHECK(batch.size() == n);
    sizes.push_back(n);
    for (size_t i = 0; i < n; ++i) CHECK(batch[i].name == "r" + std::to_string(total + i));
    total += n;
  }
  CHECK(total == 100);
  CHECK(r.records_read() == 100);
  // 35 bases → 4 records of 10 bases per batch (reaches at least max_bases), the last one shorter.
  REQUIRE(sizes.size() == 25);
  CHECK(sizes.front() == 4);
  CHECK(batch.empty());
  // max_bases 0 still makes progress: one record per batch.
  SequenceReader r2(dir.file("b.fa"));
  CHECK(r2.next_batch(batch, 0) == 1);
}

TEST_CASE("reader: '-' reads standard input", "[io][reader]") {
  TempDir dir;
  std::string text = "@x\nACGT\n+\nIIII\n@y\nGG\n+\nII\n";
  write_bytes(dir.file("in.fq.gz"), bloomseq_test::gzip_bytes(text));
  int saved = dup(STDIN_FILENO);
  REQUIRE(saved >= 0);
  int fd = open(dir.file("in.fq.gz").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
  close(fd);
  std::vector<SequenceRecord> got;
  try {
    got = read_all_sequences("-");
  } catch (...) {
    dup2(saved, STDIN_FILENO);
    close(saved);
    throw;
  }
  dup2(saved, STDIN_FILENO);
  close(saved);
  REQUIRE(got.size() == 2);
  CHECK(got[0].seq == "ACGT");
  CHECK(got[1].name == "y");
}

TEST_CASE("reader: FASTQ rejections name the file, the record and the line", "[io][reader]") {
  TempDir dir;
  auto f = dir.file("bad.fq");
  write_bytes(f, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n@r3\nA\n+\nI\n");
  expect_error<DataError>(f, {f, "record 2", "line 8", "quality length 3", "sequence length 4"});
  write_bytes(f, "@r1\nACGT\n+\nIIIII\n");
  expect_error<DataError>(f, {f, "record 1", "quality length 5"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n@r3\nACGT\n+\nIIII\n");
  expect_error<DataError>(f, {f, "record 2", "line 7", "missing '+'"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\nr2\nACGT\n+\nIIII\n");
  expect_error<DataError>(f, {f, "record 2", "line 5", "expected '>' (FASTA) or '@' (FASTQ)"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nII");  // truncated last record
  expect_error<DataError>(f, {f, "record 2", "truncated"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\n");
  expect_error<DataError>(f, {f, "record 2", "truncated"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n");
  expect_error<DataError>(f, {f, "record 2", "truncated"});
  write_bytes(f, "@r1\nACGT\n+\nII I\n");
  expect_error<DataError>(f, {f, "record 1", "quality"});
  write_bytes(f, "@r1\nACGT\n+\nIIII\n>r2\nACGT\n");
  expect_error<DataError>(f, {f, "record 2", "FASTQ"});
  write_bytes(f, "@ r1\nACGT\n+\nIIII\n");
  expect_error<DataError>(f, {f, "record 1", "empty sequence name"});
}

TEST_CASE("reader: FASTA rejections and merged records", "[io][reader]") {
  TempDir dir;
  auto f = dir.file("bad.fa");
  // `cat a.fa b.fa` where a.fa lacks its final newline glues b's header onto a's last line.
  write_bytes(f, ">a\nACGT\nAC>b\nGGG\n");
  expect_error<DataError>(f, {f, "record 1", "line 3", "'>'"});
  write_bytes(f, ">a\nAC GT\n");
  expect_error<DataError>(f, {f, "record 1", "line 2"});
  write_bytes(f, "ACGT\n>a\nAC\n");
  expect_error<DataError>(f, {f, "record 1", "line 1", "not a FASTA/FASTQ file"});
  write_bytes(f, ">a\nACGT\n>\nAC\n");
  expect_error<DataError>(f, {f, "record 2", "empty sequence name"});
}

// An oracle for check_nucleotide_letters: every character outside the IUPAC nucleotide codes, by position.
size_t foreign_oracle(const std::string& seq) {
  size_t n = 0;
  for (char c : seq) n += std::string("ACGTURYKMSWBDHVNacgturykmswbdhvn").find(c) == std::string::npos;
  return n;
}

TEST_CASE("reader: check_nucleotide_letters refuses protein records and counts other foreign characters",
          "[io][reader]") {
  TempDir dir;
  auto f = dir.file("p.fa");
  // A protein after a DNA record: refused, naming the record and its header line.
  write_bytes(f, ">dna\nACGTTGCAAGCTTGCAGGATCC\n>insulin_b\nFVNQHLCGSHLVEALYLVCGERGFFYTPKT\n");
  {
    ForeignLetters foreign;
    try {
      read_all_nucleotide_sequences(f, foreign);
      FAIL("a protein record was accepted");
    } catch (const DataError& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find(f) != std::string::npos);
      CHECK(msg.find("record 2 (line 3)") != std::string::npos);
      CHECK(msg.find("protein") != std::string::npos);
    }
    CHECK(read_all_sequences(f).size() == 2);  // without the check, read as before
  }
  // FASTQ and lower case too.
  auto q = dir.file("p.fq");
  write_bytes(q, "@r\nmkvlaagivglllaqwerty\n+\nIIIIIIIIIIIIIIIIIIII\n");
  {
    ForeignLetters foreign;
    CHECK_THROWS_AS(read_all_nucleotide_sequences(q, foreign), DataError);
  }
  // DNA with IUPAC codes, U and a few foreign characters at every offset of the 16-byte blocks: counted, located.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::string seq;
    const size_t len = 1 + rng() % 300;
    for (size_t i = 0; i < len; ++i) seq += "ACGTNacgtnRYUu"[rng() % 14];
    const size_t stray = rng() % 4;
    size_t first_at = len;
    for (size_t k = 0; k < stray; ++k) {
      const size_t at = rng() % len;
      seq[at] = "XEJ-*.xo"[rng() % 8];
      first_at = std::min(first_at, at);
    }
    // Two lines of sequence after a clean record, so the line number is checked too.
    const size_t cut = len / 2;
    write_bytes(f, ">clean\nACGT\n>r\n" + seq.substr(0, cut) + "\n" + seq.substr(cut) + "\n");
    ForeignLetters foreign;
    std::vector<SequenceRecord> recs;
    try {
      recs = read_all_nucleotide_sequences(f, foreign);
    } catch (const DataError&) {
      // Refused only as a protein: at least a tenth of 10 or more characters are protein letters (E, J, o).
      size_t protein = 0;
      for (char c : seq) protein += c == 'E' || c == 'J' || c == 'o';
      CHECK((len >= 10 && protein * 10 >= len));
      continue;
    }
    REQUIRE(recs.size() == 2);
    CHECK(recs[1].seq == seq);  // the text is kept as it was: the encoders read the foreign ones as N
    const size_t want = foreign_oracle(seq);
    CHECK(foreign.count == want);
    CHECK(foreign.records == (want ? 1u : 0u));
    if (want) {
      CHECK(foreign.first_record == 2);
      CHECK(foreign.first_line == (first_at < cut ? 4u : 5u));
      CHECK(foreign.first == seq[first_at]);
      CHECK(foreign.describe().find("record 2") != std::string::npos);
    } else {
      CHECK(foreign.describe().empty());
    }
  }
}

TEST_CASE("reader: binary garbage and other compressions are rejected", "[io][reader]") {
  TempDir dir;
  auto f = dir.file("garbage.bin");
  std::mt19937_64 rng(5);
  std::string bytes(100000, '\0');
  for (auto& c : bytes) c = char(rng());
  bytes[0] = '\x01';
  write_bytes(f, bytes);
  expect_error<DataError>(f, {f, "record 1", "not a FASTA/FASTQ file"});
  bytes[0] = '>';  // starts like FASTA, then binary
  write_bytes(f, bytes);
  expect_error<DataError>(f, {f, "record 1"});
  write_bytes(f, std::string("\xfd" "7zXZ\0\0\0\0", 10));
  expect_error<DataError>(f, {f, "xz"});
  write_bytes(f, "BZh91AY&SY");
  expect_error<DataError>(f, {f, "bzip2"});
}

TEST_CASE("reader: truncated gzip and trailing garbage are I/O errors", "[io][reader]") {
  TempDir dir;
  std::mt19937_64 rng(14);
  auto recs = random_records(rng, 3000, true);
  std::string gz = bloomseq_test::gzip_bytes(to_text(recs, true, 100000));
  auto f = dir.file("t.fq.gz");
  write_bytes(f, gz.substr(0, gz.size() / 2));
  expect_error<IoError>(f, {f, "truncated"});
  write_bytes(f, gz.substr(0, gz.size() - 4));  // only the length trailer missing
  expect_error<IoError>(f, {f});
  // Garbage after the last member is rejected: it usually means a damaged or mis-concatenated download.
  write_bytes(f, gz + "this is not gzip\n");
  expect_error<IoError>(f, {f, "garbage after the last gzip member"});
  std::string flipped = gz;
  flipped[gz.size() / 3] = char(flipped[gz.size() / 3] ^ 0x55);
  write_bytes(f, flipped);
  expect_error<IoError>(f, {f});
}

TEST_CASE("reader: missing file, directory, unreadable file", "[io][reader]") {
  TempDir dir;
  expect_error<NoInputError>(dir.file("nope.fa"), {dir.file("nope.fa"), "No such file"});
  expect_error<NoInputError>(dir.path(), {dir.path(), "directory"});
  auto f = dir.file("secret.fa");
  write_bytes(f, ">a\nACGT\n");
  chmod(f.c_str(), 0);
  open_to_all(dir.path());
  // Checked as an unprivileged user (root reads any file).
  const std::string problem = run_unprivileged([&]() -> std::string {
    try {
      read_all_sequences(f);
      return "no error reading an unreadable file";
    } catch (const NoInputError& e) {
      const std::string msg = e.what();
      if (msg.find(f) == std::string::npos || msg.find("Permission denied") == std::string::npos)
        return "the error does not name the file and the reason: " + msg;
      return "";
    }
  });
  CHECK(problem == "");
  chmod(f.c_str(), 0644);
}

TEST_CASE("reader: real data in data/", "[io][reader]") {
  auto lambda = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/lambda_virus.fa");
  REQUIRE(lambda.size() == 1);
  CHECK(lambda[0].seq.size() == 48502);  // NC_001416
  // The bee-virus files mostly lack a final newline: one record each, lengths as in their GenBank records.
  const std::pair<const char*, size_t> viruses[] = {
      {"dwv", 10140}, {"vdv1", 10112}, {"vdv1dwv5", 10149}, {"vdv1dwv9", 10154}};
  for (auto& [name, length] : viruses) {
    auto v = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/bee-viruses/" + name + ".fa");
    REQUIRE(v.size() == 1);
    CHECK(v[0].seq.size() == length);
  }
  auto ecoli = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/ecoli_536_200k.fa");
  REQUIRE(ecoli.size() == 1);
  CHECK(ecoli[0].seq.size() == 200000);
  for (const char* mates : {"/lambda_reads_1.fq", "/lambda_reads_2.fq"})
    CHECK(read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + mates).size() == 2000);
  auto reads = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/SRR059298_5k.fastq.gz");
  REQUIRE(reads.size() == 5000);
  for (auto& r : reads) REQUIRE(r.qual.size() == r.seq.size());
}

TEST_CASE("reader: the same records and errors with and without decompressing ahead", "[io][reader]") {
  TempDir dir;
  std::mt19937_64 rng(15);
  auto recs = random_records(rng, 20000, true);  // several MiB: many prefetch chunks
  std::string gz = bloomseq_test::gzip_bytes(to_text(recs, true, 100000));
  auto f = dir.file("p.fq.gz");
  write_bytes(f, gz);
  for (bool ahead : {true, false}) {
    SequenceReader r(f, ahead);
    std::vector<SequenceRecord> batch;
    size_t i = 0;
    while (r.next_batch(batch, 100000))
      for (auto& rec : batch) {
        REQUIRE(i < recs.size());
        CHECK(rec.seq == recs[i].seq);
        CHECK(rec.qual == recs[i].qual);
        ++i;
      }
    CHECK(i == recs.size());
  }
  write_bytes(f, gz.substr(0, gz.size() * 2 / 3));
  for (bool ahead : {true, false}) {
    SequenceReader r(f, ahead);
    SequenceRecord rec;
    try {
      while (r.next(rec)) {
      }
      FAIL("no error");
    } catch (const IoError& e) {
      CHECK(std::string(e.what()).find("truncated") != std::string::npos);
      CHECK(r.records_read() > 1000);  // the intact records before the damage were delivered
    }
  }
  // Abandoning a reader in the middle must not hang or leak the decompression thread.
  write_bytes(f, gz);
  for (int i = 0; i < 20; ++i) {
    SequenceReader r(f);
    SequenceRecord rec;
    REQUIRE(r.next(rec));
  }
}

// An uncompressed regular file is parsed from a read-only mapping; a gzip file is streamed through buffers.
// Both must give the same records and the same errors, including CRLF, multi-line records, a last line
// without a newline and a lone '\r' at the very end.
TEST_CASE("mapped plain files read like streamed gzip files") {
  TempDir dir;
  std::mt19937_64 rng(41);
  for (bool fastq : {true, false}) {
    const std::vector<Rec> recs = random_records(rng, 400, fastq);
    for (const char* eol : {"\n", "\r\n"}) {
      for (size_t wrap : {size_t(1000), size_t(7)}) {
        if (fastq && wrap == 7 && std::string(eol) == "\r\n") continue;
        std::string text = to_text(recs, fastq, wrap, eol);
        for (int tail = 0; tail < 3; ++tail) {
          std::string t = text;
          if (tail == 1) t.resize(t.size() - std::string(eol).size());  // no final line end
          if (tail == 2 && std::string(eol) == "\r\n") t.resize(t.size() - 1);  // ends in a lone '\r'
          write_bytes(dir.file("r.txt"), t);
          write_bytes(dir.file("r.gz"), bloomseq_test::gzip_bytes(t));
          INFO("fastq " << fastq << " wrap " << wrap << " tail " << tail);
          check_same(dir.file("r.txt"), recs);
          check_same(dir.file("r.gz"), recs);
        }
      }
    }
  }
  // Errors: same message from both paths.
  const std::string bad = "@a\nACGT\n+\nIIII\n@b\nAC!T\n+\nIIII\n";
  write_bytes(dir.file("bad.txt"), bad);
  write_bytes(dir.file("bad.gz"), bloomseq_test::gzip_bytes(bad));
  std::string m1, m2;
  try { read_all_sequences(dir.file("bad.txt")); } catch (const DataError& e) { m1 = e.what(); }
  try { read_all_sequences(dir.file("bad.gz")); } catch (const DataError& e) { m2 = e.what(); }
  CHECK(m1.find("record 2 (line 6)") != std::string::npos);
  CHECK(m2.find("record 2 (line 6)") != std::string::npos);
  CHECK(m1.substr(m1.find(':')) == m2.substr(m2.find(':')));
  // An empty file is not mapped (nothing to map) and still reads as no records.
  write_bytes(dir.file("empty.txt"), "");
  CHECK(read_all_sequences(dir.file("empty.txt")).empty());
}

TEST_CASE("a mapped input truncated while it is read is a one-line I/O error, not a crash", "[io][reader]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "@r" + std::to_string(i) + "\n" + std::string(100, 'A') + "\n+\n" + std::string(100, 'I') + "\n";
  const std::string in = dir.file("shrinks.fq"), out = dir.file("out.tsv"), err = dir.file("stderr.txt");
  write_bytes(in, text);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {  // child: read a record, lose the file's bytes under the mapping, read on
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    OutputFile partial(out);
    partial.write(std::string(5 << 20, 'x'));  // an uncommitted output on disk: must not survive
    SequenceReader reader(in);
    SequenceRecord rec;
    if (!reader.next(rec)) _exit(3);
    if (::truncate(in.c_str(), 0) != 0) _exit(4);
    while (reader.next(rec)) {}
    _exit(5);  // a reader that survived the truncation without noticing would get here
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == int(ExitCode::io));
  const std::string msg = bloomseq_test::read_bytes(err);
  CHECK(msg.find(in + ": the file shrank while it was being read") != std::string::npos);
  CHECK(std::count(msg.begin(), msg.end(), '\n') == 1);
  for (const auto& e : dir.entries()) CHECK((e == "shrinks.fq" || e == "stderr.txt"));
}
