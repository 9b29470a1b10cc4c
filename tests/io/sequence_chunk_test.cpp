// SequenceReader::next_chunk: chunks cut from mapped input, parsed later and in any order, give exactly the
// records and the first error (message included) of the serial reader, SequenceReader::next, as the oracle.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

struct Outcome {
  std::vector<SequenceRecord> records;  // before the error
  std::string error;                    // "" if none
  size_t chunks = 0;
};

std::string describe(const std::exception& e) {
  const char* kind = dynamic_cast<const DataError*>(&e) ? "DataError: " : dynamic_cast<const IoError*>(&e) ? "IoError: " : "other: ";
  return kind + std::string(e.what());
}

Outcome serial(const std::string& path) {
  Outcome o;
  SequenceReader r(path);
  SequenceRecord rec;
  try {
    while (r.next(rec)) o.records.push_back(rec);
  } catch (const std::exception& e) {
    o.error = describe(e);
  }
  return o;
}

// Cuts every chunk first, then parses them last to first (as independent workers might), then takes the
// results in input order: records up to the first failing chunk, and its error.
Outcome chunked(const std::string& path, uint64_t max_bases) {
  Outcome o;
  SequenceReader r(path);
  std::vector<SequenceChunk> chunks;
  std::string cut_error;
  try {
    for (;;) {
      SequenceChunk c;
      if (!r.next_chunk(c, max_bases)) break;
      REQUIRE(c.records() > 0);
      chunks.push_back(std::move(c));
    }
  } catch (const std::exception& e) {
    cut_error = describe(e);
  }
  o.chunks = chunks.size();
  std::vector<std::vector<SequenceRecord>> parsed(chunks.size());
  std::vector<std::string> errors(chunks.size());
  for (size_t i = chunks.size(); i-- > 0;) {
    const size_t n = chunks[i].records();
    try {
      const size_t got = chunks[i].parse(parsed[i]);  // outside CHECK, which would catch the error itself
      CHECK(got == n);
      CHECK(parsed[i].size() == n);
    } catch (const std::exception& e) {
      errors[i] = describe(e);
    }
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!errors[i].empty()) {
      o.error = errors[i];
      return o;  // records of a failing chunk are not compared: the serial reader stops inside it
    }
    o.records.insert(o.records.end(), parsed[i].begin(), parsed[i].end());
  }
  o.error = cut_error;
  return o;
}

void check_same(const std::string& path) {
  const Outcome want = serial(path);
  for (uint64_t max_bases : {uint64_t(0), uint64_t(1), uint64_t(97), uint64_t(1000), uint64_t(1) << 40}) {
    INFO("max_bases " << max_bases);
    const Outcome got = chunked(path, max_bases);
    CHECK(got.error == want.error);
    if (want.error.empty()) {
      REQUIRE(got.records.size() == want.records.size());
    } else {
      REQUIRE(got.records.size() <= want.records.size());  // chunks before the failing one
    }
    for (size_t i = 0; i < got.records.size(); ++i) {
      INFO("record " << i + 1);
      CHECK(got.records[i].name == want.records[i].name);
      CHECK(got.records[i].comment == want.records[i].comment);
      CHECK(got.records[i].blanks == want.records[i].blanks);
      CHECK(got.records[i].seq == want.records[i].seq);
      CHECK(got.records[i].qual == want.records[i].qual);
    }
  }
}

// FASTQ text of n random records (mixed case, N, IUPAC; some with comments; some with empty sequences).
std::string random_fastq(std::mt19937_64& rng, int n, const std::string& eol = "\n") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    const std::string seq = bloomseq_test::random_dna(rng, rng() % 7 == 0 ? 0 : rng() % 220, "ACGTacgtNNnRY");
    std::string qual(seq.size(), 'I');
    for (char& c : qual) c = char('!' + rng() % 94);
    out += "@read_" + std::to_string(i) + (rng() % 2 ? " len=" + std::to_string(seq.size()) + "\tx" : "") + eol;
    out += seq + eol + (rng() % 3 ? "+" : "+read_" + std::to_string(i)) + eol + qual + eol;
  }
  return out;
}

}  // namespace

TEST_CASE("chunks: plain FASTQ, LF and CRLF, any chunk size", "[io][chunk]") {
  TempDir dir;
  std::mt19937_64 rng(11);
  const std::string lf = random_fastq(rng, 600);
  write_bytes(dir.file("lf.fq"), lf);
  check_same(dir.file("lf.fq"));
  std::mt19937_64 rng2(11);
  write_bytes(dir.file("crlf.fq"), random_fastq(rng2, 600, "\r\n"));
  check_same(dir.file("crlf.fq"));
  // The chunks really split the file: many records, several chunks.
  CHECK(chunked(dir.file("lf.fq"), 1000).chunks > 10);
  CHECK(serial(dir.file("lf.fq")).records.size() == 600);
}

TEST_CASE("chunks: records the reader parses itself mixed with cut ones", "[io][chunk]") {
  TempDir dir;
  std::mt19937_64 rng(12);
  std::string text = random_fastq(rng, 200);
  text += "\n\r\n@multi line\nACGT\nAC\n+\nIIII\nII\n";   // blank lines, then a two-line record
  text += "@plus_at\nACGT\n+\n@III\n";                       // a quality line starting with '@'
  text += random_fastq(rng, 200);
  text += "@last\nACGTA\n+\nIIIII";                            // no final newline
  write_bytes(dir.file("mixed.fq"), text);
  check_same(dir.file("mixed.fq"));
  CHECK(serial(dir.file("mixed.fq")).records.size() == 403);
  write_bytes(dir.file("cr_end.fq"), random_fastq(rng, 50, "\r\n") + "@end\r\nAC\r\n+\r\nII\r");
  check_same(dir.file("cr_end.fq"));
}

TEST_CASE("chunks: a malformed record in a later chunk fails as the serial reader does", "[io][chunk]") {
  TempDir dir;
  std::mt19937_64 rng(13);
  const std::string head = random_fastq(rng, 300);
  const std::string tail = random_fastq(rng, 100);
  const std::vector<std::string> bad = {
      "@bad_char\nACGT1ACGT\n+\nIIIIIIIII\n",  // found by the chunk's parser
      "@bad_qual\nACGT\n+\nII I\n",
      "@\nACGT\n+\nIIII\n",                   // empty name
      "@short\nACGT\n+\nIII\n",               // lengths differ: the reader parses it
      "@noplus\nACGT\n-\nIIII\n",
      "@truncated\nACGT\n+\n",
      ">fasta\nACGT\n",
      "@merged\nACGT@r\n+\nIIIIII\n",
      "@bad_header\x01\nACGT\n+\nIIII\n",
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    INFO("case " << i);
    write_bytes(dir.file("bad.fq"), head + bad[i] + tail);
    const Outcome want = serial(dir.file("bad.fq"));
    REQUIRE_FALSE(want.error.empty());
    CHECK(want.error.find("record 301") != std::string::npos);
    check_same(dir.file("bad.fq"));
  }
  // Two malformed records: the first in input order is reported, whichever chunk is parsed first.
  write_bytes(dir.file("two.fq"), head + bad[0] + tail + bad[1]);
  check_same(dir.file("two.fq"));
  CHECK(chunked(dir.file("two.fq"), 50).error.find("record 301") != std::string::npos);
}

TEST_CASE("chunks: empty file, FASTA and gzip input", "[io][chunk]") {
  TempDir dir;
  write_bytes(dir.file("empty.fq"), "");
  check_same(dir.file("empty.fq"));
  CHECK(chunked(dir.file("empty.fq"), 100).chunks == 0);
  write_bytes(dir.file("blank.fq"), "\n\n");
  check_same(dir.file("blank.fq"));
  write_bytes(dir.file("x.fa"), ">a one\nACGT\nAC\n>b\n\n>c\nGGGG");
  check_same(dir.file("x.fa"));
  std::mt19937_64 rng(14);
  const std::string fq = random_fastq(rng, 300);
  write_bytes(dir.file("x.fq.gz"), bloomseq_test::gzip_bytes(fq));
  check_same(dir.file("x.fq.gz"));
  CHECK(chunked(dir.file("x.fq.gz"), 1000).records.size() == 300);
}

TEST_CASE("chunks: gzip streams are cut like mapped files, across buffer refills", "[io][chunk]") {
  // Several MB: records straddle the stream buffer's refills and the inflater's input reads. The plain file,
  // read through its mapping without any inflating, is the oracle for the gzip one, chunked or not.
  TempDir dir;
  std::mt19937_64 rng(23);
  for (const char* eol : {"\n", "\r\n"}) {
    INFO("eol " << (eol[1] ? "CRLF" : "LF"));
    std::string fq = random_fastq(rng, 40000, eol);
    write_bytes(dir.file("big.fq"), fq);
    write_bytes(dir.file("big.fq.gz"), bloomseq_test::gzip_bytes(fq));
    const Outcome want = serial(dir.file("big.fq"));
    REQUIRE(want.error.empty());
    for (uint64_t max_bases : {uint64_t(1000), uint64_t(1) << 20, uint64_t(1) << 40}) {
      INFO("max_bases " << max_bases);
      const Outcome got = chunked(dir.file("big.fq.gz"), max_bases);
      CHECK(got.error.empty());
      REQUIRE(got.records.size() == want.records.size());
      bool same = true;
      for (size_t i = 0; i < got.records.size(); ++i)
        same &= got.records[i].name == want.records[i].name && got.records[i].comment == want.records[i].comment &&
                got.records[i].seq == want.records[i].seq && got.records[i].qual == want.records[i].qual;
      CHECK(same);
    }
    // A malformed record deep in the stream: the same message (file aside) as from the plain file.
    const size_t at = fq.find("\n@", fq.size() * 3 / 4) + 1;
    fq.insert(fq.find('\n', fq.find('\n', at) + 1) + 1, "ACGT\n");  // a second sequence line: quality too short
    write_bytes(dir.file("bad.fq"), fq);
    write_bytes(dir.file("bad.fq.gz"), bloomseq_test::gzip_bytes(fq));
    const Outcome bad_plain = serial(dir.file("bad.fq"));
    REQUIRE(!bad_plain.error.empty());
    check_same(dir.file("bad.fq.gz"));
    const Outcome bad_gz = chunked(dir.file("bad.fq.gz"), 1000);
    std::string expected = bad_plain.error;
    expected.replace(expected.find(dir.file("bad.fq")), dir.file("bad.fq").size(), dir.file("bad.fq.gz"));
    CHECK(bad_gz.error == expected);
  }
}
