// run_search, the whole blast-bloom search as the tool runs it (files in, files out), against brute force and
// against the pipeline driven directly with the same parameters.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "blast/helpers.hpp"
#include "bloomseq/blast/search_run.hpp"
#include "bloomseq/error.hpp"
#include "io/io_test_util.hpp"

using namespace bloomseq;
using namespace blast_test;
using bloomseq_test::read_bytes;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

void write_fasta(const std::string& path, const Records& r) {
  std::string text;
  for (size_t i = 0; i < r.seqs.size(); ++i) text += ">" + r.names[i] + " a comment\n" + r.seqs[i] + "\n";
  write_bytes(path, text);
}

// Queries and a database sharing mutated and reverse-complemented copies, with N runs.
void make_inputs(std::mt19937_64& rng, Records& q, Records& db) {
  q.names = {"q0", "q1"};
  q.seqs = {random_dna(rng, 700, 0.002), random_dna(rng, 450)};
  db.names = {"d0", "d1", "d2"};
  db.seqs = {random_dna(rng, 300) + mutate(rng, q.seqs[0], 0.06) + random_dna(rng, 200),
             revcomp(mutate(rng, q.seqs[1], 0.04)), random_dna(rng, 2000, 0.005)};
}

SearchRequest quiet_request(const TempDir& dir) {
  SearchRequest r;
  r.query = dir.file("q.fa");
  r.db = dir.file("db.fa");
  r.output = dir.file("out.tsv");
  r.backend = "cpu";
  r.no_progress = true;
  return r;
}

}  // namespace

TEST_CASE("run_search --stage 1b: the seeds are every exact w-mer match, by brute force") {
  std::mt19937_64 rng(1901);
  TempDir dir;
  Records q, db;
  make_inputs(rng, q, db);
  write_fasta(dir.file("q.fa"), q);
  write_fasta(dir.file("db.fa"), db);
  for (int w : {11, 14}) {
    INFO("w=" << w);
    SearchRequest r = quiet_request(dir);
    r.stage = "1b";
    r.header = false;
    r.params.w = w;
    r.params.chunk_bases = 1024;  // several chunks per batch
    r.params.threads = 2;
    const SearchReport report = run_search(r, SearchSinks{nullptr, nullptr});
    std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> got;
    std::istringstream lines(read_bytes(r.output));
    size_t n = 0;
    for (std::string qn, qs, sn, ss, strand; lines >> qn >> qs >> sn >> ss >> strand; ++n)
      got.insert({uint32_t(qn[1] - '0'), uint32_t(sn[1] - '0'), std::stoull(qs) - 1, std::stoull(ss) - 1,
                  strand == "-" ? 1 : 0});
    const auto expected = oracle_seeds(q, db, w);
    CHECK(got.size() == n);
    CHECK(got == expected);
    CHECK(report.stats.seeds == expected.size());
    CHECK(report.stats.db_records == 3);
    CHECK(report.backend == "cpu");
  }
}

TEST_CASE("run_search: the tabular HSPs are those of the pipeline run with the same parameters") {
  std::mt19937_64 rng(1902);
  TempDir dir;
  Records q, db;
  make_inputs(rng, q, db);
  write_fasta(dir.file("q.fa"), q);
  write_fasta(dir.file("db.fa"), db);
  for (bool every_wmer : {false, true}) {
    INFO("every_wmer=" << every_wmer);
    SearchRequest r = quiet_request(dir);
    r.every_wmer = every_wmer;
    std::vector<Hsp> handed;
    SearchSinks sinks{nullptr, [&](const BlastSearch&, const std::vector<Hsp>& h) { handed = h; }};
    const SearchReport report = run_search(r, sinks);
    // The planted homologies: the mutated copy of q0 in d0 and the reverse complement of q1 in d1.
    bool q0_d0 = false, q1_d1_minus = false;
    for (const Hsp& h : handed) {
      q0_d0 = q0_d0 || (h.query == 0 && h.subject == 0 && h.q_end - h.q_start > 300);
      q1_d1_minus = q1_d1_minus || (h.query == 1 && h.subject == 1 && h.strand == 1 && h.q_end - h.q_start > 200);
    }
    CHECK(q0_d0);
    CHECK(q1_d1_minus);
    CHECK(report.stats.hsps == handed.size());

    // The pipeline itself with the parameters the run chose (probe word, sub-query size) on one batch.
    const std::vector<Hsp> direct = hsps_only(q, db, report.params, 1u << 20);
    REQUIRE(direct.size() == handed.size());
    BlastSearch names(make_queries(q), report.params, totals_of(db));
    names.search(make_batch(db));
    std::string expected = tabular_header() + "\n";
    for (size_t i = 0; i < direct.size(); ++i) {
      CHECK(std::tie(direct[i].query, direct[i].subject, direct[i].q_start, direct[i].s_start, direct[i].score) ==
            std::tie(handed[i].query, handed[i].subject, handed[i].q_start, handed[i].s_start, handed[i].score));
      expected += format_tabular(names.tabular(direct[i])) + "\n";
    }
    CHECK(read_bytes(r.output) == expected);
  }
}

TEST_CASE("run_search: a query file without sequences fails and leaves no output") {
  TempDir dir;
  write_bytes(dir.file("q.fa"), "");
  write_bytes(dir.file("db.fa"), ">d\nACGTACGTACGTACGTACGT\n");
  const SearchRequest r = quiet_request(dir);
  CHECK_THROWS_AS(run_search(r, SearchSinks{nullptr, nullptr}), DataError);
  CHECK_FALSE(std::filesystem::exists(r.output));
}
