// A plan's record index of a FASTA database (DbLayout): the offsets point at each record's '>' (found here by a
// plain scan of the file), a reader built from the layout and started at a record reads what the counting reader
// reads for those records, and the plan file gives the layout back exactly or refuses a damaged one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/search_plan.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/twobit.hpp"
#include "io/io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::read_bytes;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

// Every record of the reader from record `begin` on: (global index, name, codes).
struct Read {
  uint64_t index;
  std::string name;
  std::vector<uint8_t> codes;
};
std::vector<Read> read_from(DatabaseReader& db, uint64_t begin, uint64_t end) {
  db.restrict_records(begin, end);
  std::vector<Read> out;
  DbBatch batch;
  while (db.next_batch(batch, 7)) {
    for (size_t i = 0; i < batch.size(); ++i) {
      const uint64_t from = batch.local_starts[i], to = from + batch.lengths[i];
      out.push_back({batch.first_record + i, batch.names[i],
                     std::vector<uint8_t>(batch.codes.begin() + long(from), batch.codes.begin() + long(to))});
    }
  }
  return out;
}

bool same(const std::vector<Read>& a, const std::vector<Read>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].index != b[i].index || a[i].name != b[i].name || a[i].codes != b[i].codes) return false;
  return true;
}

}  // namespace

TEST_CASE("db layout: record starts of a FASTA file, and a reader started there", "[blast][shard]") {
  TempDir dir;
  const std::string path = dir.file("db.fa");
  // Multi-line records, a blank line, CRLF line ends, an empty record.
  write_bytes(path, ">a one\nACGTACGT\nAC\n\n>b\r\nGGGG\r\nTT\r\n>c\n>d x\nNACGTTTTTTTTTTAC\nA\n>e\nC\n");
  DatabaseReader counted(path);
  const DbLayout layout = counted.layout();
  const std::string text = read_bytes(path);
  std::vector<uint64_t> starts;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '>' && (i == 0 || text[i - 1] == '\n')) starts.push_back(i);
  CHECK(layout.offsets == starts);
  CHECK(layout.lengths == std::vector<uint64_t>{10, 6, 0, 17, 1});
  CHECK(layout.file_bytes == text.size());
  CHECK(layout.totals.records == 5);
  for (uint64_t begin = 0; begin <= 5; ++begin)
    for (uint64_t end = begin; end <= 5; ++end) {
      DatabaseReader plain(path), planned(path, layout);
      CHECK(planned.layout_hash() == plain.layout_hash());
      CHECK(same(read_from(planned, begin, end), read_from(plain, begin, end)));
    }
}

TEST_CASE("db layout: a planned reader refuses a file changed under the plan", "[blast][shard]") {
  TempDir dir;
  const std::string path = dir.file("db.fa");
  write_bytes(path, ">a\nACGTACGT\n>b\nGGGG\n");
  const DbLayout layout = DatabaseReader(path).layout();
  write_bytes(path, ">a\nACGTACG\n>b\nGGGGT\n");  // same size, other lengths
  DatabaseReader planned(path, layout);
  CHECK_THROWS_AS(read_from(planned, 0, 2), DataError);
  write_bytes(path, ">a\nACGTACGTA\n>b\nGGGG\n");  // another size: counted again, the caller compares totals
  DatabaseReader recounted(path, layout);
  CHECK(recounted.totals().bases == 13);
}

TEST_CASE("plan file: the database layout read back exactly, a damaged index refused", "[blast][shard]") {
  TempDir dir;
  const std::string db = dir.file("db.fa");
  write_bytes(db, ">a\nACGTACGT\n\n>b\nGGGG\n>c\nTTTTTTTTTTTTTTTTTTTT\n");
  SearchPlan plan;
  plan.db_layout = DatabaseReader(db).layout();
  plan.db_records = plan.db_layout.totals.records;
  plan.db_bases = plan.db_layout.totals.bases;
  plan.db_hash = plan.db_layout.hash;
  const std::string path = dir.file("plan.json");
  write_search_plan(path, plan);
  const SearchPlan back = read_search_plan(path);
  CHECK(back.db_layout.offsets == plan.db_layout.offsets);
  CHECK(back.db_layout.lines == plan.db_layout.lines);
  CHECK(back.db_layout.lengths == plan.db_layout.lengths);
  CHECK(back.db_layout.file_bytes == plan.db_layout.file_bytes);
  CHECK(back.db_layout.totals.largest == 20);
  // Offsets out of order, a length that does not add up, a missing field: refused.
  const std::string text = read_bytes(path);
  const size_t at = text.find("\"db_index\": \"");
  REQUIRE(at != std::string::npos);
  const size_t from = at + 13, to = text.find('"', from);
  const std::string index = text.substr(from, to - from);
  for (const std::string& damaged : {std::string("13:4:4,0:0:8,19:6:20"), std::string("0:0:8,13:4:5,19:6:20"),
                                     std::string("0:0:8,13:4:4"), std::string("0:0:8,13:4,19:6:20")}) {
    REQUIRE(damaged != index);
    write_bytes(path, text.substr(0, from) + damaged + text.substr(to));
    CHECK_THROWS_AS(read_search_plan(path), DataError);
  }
}

TEST_CASE("a .2bit database's spread sample: pieces from across the records, each the codes found there",
          "[blast][twobit]") {
  TempDir dir;
  // Records of unequal lengths with N runs; the whole database's codes, concatenated, give each piece's truth.
  const std::vector<std::string> seqs = {"ACGTNNACGTTTGCA", std::string(5001, 'G') + "ACGTACGT", "TTTTAAAACCCCGGGG",
                                         "A", std::string(333, 'C') + "NNNN" + std::string(2000, 'T')};
  std::vector<SequenceRecord> recs;
  std::vector<uint8_t> all;            // codes of every record, one after the other (no separators)
  std::vector<uint64_t> record_start;  // of each record in `all`
  for (size_t r = 0; r < seqs.size(); ++r) {
    recs.push_back({"r" + std::to_string(r), "", seqs[r], ""});
    record_start.push_back(all.size());
    for (char c : seqs[r]) all.push_back(base_code(c));
  }
  const std::string path = dir.file("db.2bit");
  write_twobit(path, recs);
  DatabaseReader db(path);
  DbBatch sample;
  REQUIRE(db.sample_spread(1600, 16, sample));
  CHECK(sample.size() >= 12);  // a piece may end at its record's end, never span two
  uint64_t total = 0;
  for (size_t i = 0; i < sample.size(); ++i) {
    INFO("piece " << i);
    const uint8_t* piece = sample.codes.data() + sample.local_starts[i];
    const uint64_t n = sample.lengths[i];
    total += n;
    REQUIRE(n >= 1);
    REQUIRE(n <= 100);
    // Where it lies: the position i / 16 of the way through the database, rounded down to a whole .2bit byte.
    const uint64_t at = uint64_t(i) * (all.size() / 16);
    size_t r = 0;
    while (r + 1 < seqs.size() && record_start[r + 1] <= at) ++r;
    const uint64_t from = record_start[r] + ((at - record_start[r]) & ~uint64_t(3));
    CHECK(std::equal(piece, piece + n, all.begin() + long(from)));
    CHECK(from + n <= record_start[r] + seqs[r].size());
  }
  CHECK(total >= 1200);
  // A FASTA database cannot be read at any place: no sample, nothing read.
  const std::string fasta = dir.file("db.fa");
  write_bytes(fasta, ">a\nACGTACGTACGT\n>b\nGGGGCCCC\n");
  DatabaseReader plain(fasta);
  DbBatch none;
  CHECK_FALSE(plain.sample_spread(8, 4, none));
  CHECK(none.size() == 0);
}
