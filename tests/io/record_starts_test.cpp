// Record starts found and counted without parsing (record_starts.hpp), and the reader reading one byte block
// (seek + stop_at), against texts whose record starts are known from how they were generated.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/shard.hpp"
#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

struct Generated {
  std::string text;
  std::vector<size_t> starts;  // offset of every record
  std::vector<std::string> names;
};

// Four-line FASTQ made to confuse a record-start search: quality lines that begin with '@' (and '+'), '+' lines
// that repeat the name, names and comments with '@' and '+', empty reads; optionally CRLF line ends.
Generated tricky_fastq(int records, uint32_t seed, bool crlf) {
  std::mt19937 rng(seed);
  const std::string eol = crlf ? "\r\n" : "\n";
  Generated g;
  for (int i = 0; i < records; ++i) {
    const size_t len = rng() % 7 == 0 ? 0 : 1 + rng() % 40;
    std::string seq, qual;
    for (size_t j = 0; j < len; ++j) {
      seq += "ACGTN"[rng() % 5];
      qual += char('!' + rng() % 94);
    }
    if (len && rng() % 2) qual[0] = '@';
    if (len > 1 && rng() % 3 == 0) qual[1] = '+';
    const std::string name = "r" + std::to_string(i) + (rng() % 4 == 0 ? "@x+" : "");
    g.starts.push_back(g.text.size());
    g.names.push_back(name);
    g.text += "@" + name + (rng() % 3 == 0 ? " c@m +x" : "") + eol + seq + eol + "+" +
              (rng() % 2 ? name : "") + eol + qual + eol;
  }
  return g;
}

// Multi-line FASTA with '>' inside comments.
Generated fasta(int records, uint32_t seed) {
  std::mt19937 rng(seed);
  Generated g;
  for (int i = 0; i < records; ++i) {
    const std::string name = "s" + std::to_string(i);
    g.starts.push_back(g.text.size());
    g.names.push_back(name);
    g.text += ">" + name + (rng() % 2 ? " a>b" : "") + "\n";
    const size_t len = rng() % 200;
    for (size_t j = 0; j < len; j += 60) g.text += std::string(std::min<size_t>(60, len - j), "ACGT"[rng() % 4]) + "\n";
  }
  return g;
}

size_t first_start_at_or_after(const Generated& g, size_t b) {
  for (size_t s : g.starts)
    if (s >= b) return s;
  return g.text.size();
}

// The names of the records in bytes [begin, end) of `path`, read as a shard reads them.
std::vector<std::string> read_block(const std::string& path, const ByteBlock& b) {
  SequenceReader r(path);
  REQUIRE(r.seek(b.begin, 0, 0));
  REQUIRE(r.stop_at(b.end));
  std::vector<std::string> names;
  SequenceRecord rec;
  while (r.next(rec)) names.push_back(rec.name);
  return names;
}

}  // namespace

TEST_CASE("record starts: every byte offset finds the next true record start (FASTQ, FASTA, CRLF)",
          "[io][record_starts]") {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const bool crlf = seed % 2 == 0;
    for (const Generated& g : {tricky_fastq(60, seed, crlf), fasta(40, seed)}) {
      const char format = g.text[0];
      size_t first = 99;
      REQUIRE(text_format(g.text, first) == format);
      CHECK(first == 0);
      for (size_t b = 0; b <= g.text.size(); ++b)
        REQUIRE(next_record_start(g.text, b, format) == first_start_at_or_after(g, b));
      for (size_t k = 0; k < g.starts.size(); ++k) {
        const RecordCount c = count_records_before(g.text, g.starts[k], format);
        REQUIRE(c.records == k);
        REQUIRE(c.lines == size_t(std::count(g.text.begin(), g.text.begin() + long(g.starts[k]), '\n')));
        RecordCount f;
        REQUIRE(find_record(g.text, k, format, f) == g.starts[k]);
        REQUIRE(f.records == k);
        REQUIRE(f.lines == c.lines);
      }
      RecordCount f;
      CHECK(find_record(g.text, g.starts.size(), format, f) == g.text.size());
      CHECK(find_record(g.text, g.starts.size() + 5, format, f) == g.text.size());
      CHECK(f.records == g.starts.size());
    }
  }
}

TEST_CASE("record starts: a quality line starting with '@' before a header is not a record start",
          "[io][record_starts]") {
  const std::string t = "@a\nAC\n+\n@I\n@b\nGT\n+a\n@@\n";
  CHECK(single_line_fastq_at(t, 0));
  CHECK_FALSE(single_line_fastq_at(t, 8));  // "@I": followed by a header, not a sequence
  CHECK(next_record_start(t, 1, '@') == 11);
  CHECK_FALSE(single_line_fastq_at(t, 19));  // "@@", the last line
  CHECK(next_record_start(t, 12, '@') == t.size());
  CHECK_FALSE(single_line_fastq_at("@a\nACG\n+\nII\n", 0));  // quality shorter than the sequence
  CHECK_FALSE(single_line_fastq_at("@a\nACG\n+\n", 0));      // no quality line
}

TEST_CASE("byte blocks: the shards' records, read by seeking, are the file's, each once and in order",
          "[io][record_starts][shard]") {
  TempDir dir;
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::vector<Generated> texts = {tricky_fastq(50, seed, seed % 2 == 0), fasta(30, seed)};
    // Blank lines between records and at the start: they belong to no record.
    Generated blanks = tricky_fastq(20, seed, false);
    for (size_t i = blanks.starts.size(); i-- > 1;) blanks.text.insert(blanks.starts[i], i % 3 ? "\n" : "\n\n");
    blanks.text = "\n" + blanks.text;
    texts.push_back(blanks);
    for (const Generated& g : texts) {
      const std::string path = dir.file("in.txt");
      write_bytes(path, g.text);
      const std::vector<SequenceRecord> all = read_all_sequences(path);
      for (uint64_t n : {1, 2, 3, 7, 16, 200}) {
        SequenceReader r(path);
        size_t at = 0;
        const char format = text_format(r.mapped_text(), at);
        std::vector<std::string> names;
        uint64_t previous_end = 0;
        for (uint64_t i = 1; i <= n; ++i) {
          const ByteBlock b = shard_byte_block(r.mapped_text(), format, i, n);
          REQUIRE(b.begin == previous_end);
          previous_end = b.end;
          for (const std::string& name : read_block(path, b)) names.push_back(name);
        }
        REQUIRE(previous_end == g.text.size());
        REQUIRE(names.size() == all.size());
        for (size_t k = 0; k < all.size(); ++k) REQUIRE(names[k] == all[k].name);
      }
    }
  }
}

TEST_CASE("byte blocks: a cut inside a multi-line FASTQ record truncates the shard's last record: refused",
          "[io][record_starts][shard]") {
  // Record 2 wraps its sequence and quality over four lines each; quality line 1 starts with '@' and line 3 with
  // '+', so quality line 1 passes as a single-line record start.
  const std::string r1 = "@r1\nACGT\n+\nIIII\n";
  const std::string r2 = "@r2\nACGT\nACGT\nACGT\nACGT\n+\n@III\nIIII\n+III\nIIII\n";
  const std::string text = r1 + r2 + r1;
  const size_t false_start = r1.size() + r2.find("@III");
  CHECK(next_record_start(text, r1.size() + 1, '@') == false_start);
  TempDir dir;
  const std::string path = dir.file("multi.fq");
  write_bytes(path, text);
  CHECK(read_all_sequences(path).size() == 3);  // the single run reads it
  CHECK_THROWS_AS(read_block(path, ByteBlock{0, false_start}), DataError);
}
