// run_search, the whole blast-bloom search as the tool runs it (files in, files out), against brute force and
// against the pipeline driven directly with the same parameters.
#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "blast/helpers.hpp"
#include "bloomseq/blast/search_run.hpp"
#include "bloomseq/blast/tune_trial.hpp"
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

TEST_CASE("run_search --auto-tune: the on-line check keeps a search whose output and counts equal a fresh run's") {
  std::mt19937_64 rng(1903);
  TempDir dir;
  Records q, db;
  make_inputs(rng, q, db);
  // A database of several batches' worth of records, so the first batch read for the check is followed by more.
  for (int i = 0; i < 40; ++i) {
    db.names.push_back("r" + std::to_string(i));
    db.seqs.push_back(i % 7 == 0 ? mutate(rng, q.seqs[0], 0.05) : random_dna(rng, 3000, 0.001));
  }
  write_fasta(dir.file("q.fa"), q);
  write_fasta(dir.file("db.fa"), db);
  for (bool ungapped : {false, true}) {
    INFO("ungapped=" << ungapped);
    SearchRequest plain = quiet_request(dir);
    plain.params.gapped = !ungapped;
    plain.params.batch_bases = 20000;
    plain.output = dir.file("plain.tsv");
    const SearchReport expected = run_search(plain);

    SearchRequest tuned = plain;
    tuned.output = dir.file("tuned.tsv");
    tuned.auto_tune = true;
    tuned.tune_trial = true;
    tuned.profile = "";  // the default profile, or the built-in figures without one
    tuned.stats = true;
    tuned.stats_path = dir.file("tuned.json");
    const SearchReport got = run_search(tuned);
    CHECK(read_bytes(tuned.output) == read_bytes(plain.output));
    // The kept search forgot the sample: its counts are those of the database alone. Seeds do not depend on the
    // parameters (stage 1b is exact); the w-mers tested do not either without a probe word.
    CHECK(got.stats.seeds == expected.stats.seeds);
    CHECK(got.stats.hsps == expected.stats.hsps);
    CHECK(got.stats.db_bases == expected.stats.db_bases);
    if (got.params.probe_word == 0 && expected.params.probe_word == 0)
      CHECK(got.stats.db_wmers == expected.stats.db_wmers);
    const std::string json = read_bytes(tuned.stats_path);
    const bool checked = json.find("\"check\"") != std::string::npos;
    // The check runs unless the plan is the defaults themselves.
    const bool differ = got.params.n_sub != expected.params.n_sub || got.params.k != expected.params.k ||
                        got.params.m_bits != expected.params.m_bits || got.params.threads != expected.params.threads;
    if (differ) CHECK(checked);
    if (checked)
      CHECK((json.find("\"kept\": \"plan\"") != std::string::npos ||
             json.find("\"kept\": \"defaults\"") != std::string::npos));

    tuned.tune_trial = false;
    const SearchReport unchecked = run_search(tuned);
    CHECK(read_bytes(tuned.stats_path).find("\"check\"") == std::string::npos);
    CHECK(read_bytes(tuned.output) == read_bytes(plain.output));
    CHECK(unchecked.stats.seeds == expected.stats.seeds);
  }
}

TEST_CASE("run_tune_trial keeps the defaults against a plan hundreds of times slower, and the reverse") {
  std::mt19937_64 rng(1904);
  Records q, db;
  q.names = {"q"};
  q.seqs = {random_dna(rng, 20000)};
  db.names = {"d"};
  db.seqs = {random_dna(rng, 400000)};
  const QuerySet queries = make_queries(q);
  const DbBatch batch = make_batch(db);
  BlastParams fast;
  fast.w = 11;
  fast.n_sub = 4096;
  fast.layout = Stage1aLayout::bitsliced;
  BlastParams slow = fast;  // the papers' kernel: every hash recomputed for each of ~1,250 vectors
  slow.n_sub = 32;
  slow.layout = Stage1aLayout::paper_vector;
  auto cpu = [] { return std::unique_ptr<Stage1aBackend>(); };
  const DbBatch sample = tune_trial_sample(batch, 100000);
  // 100,000 bases in 16 pieces spread over the batch, each a record (with its separator).
  REQUIRE(sample.size() == 16);
  REQUIRE(sample.codes.size() == 100000 + 16);
  CHECK(std::equal(sample.codes.begin() + long(sample.local_starts[1]),
                   sample.codes.begin() + long(sample.local_starts[1] + sample.lengths[1]),
                   batch.codes.begin() + long(batch.codes.size() / 16)));
  // The trial compares wall times: on a machine shared with other jobs one measurement can be stalled for longer
  // than the gap between the two, so each comparison gets up to three tries (a wrong choice fails all three).
  auto trial = [&](const BlastParams& plan, const BlastParams& defaults, bool want_plan) {
    TuneTrial t;
    for (int attempt = 0; attempt < 3; ++attempt) {
      t = run_tune_trial(queries, plan, 0.0, defaults, totals_of(db), sample, cpu);
      if (t.ran && t.kept && t.kept_plan == want_plan) break;
    }
    return t;
  };
  TuneTrial t = trial(slow, fast, false);
  CHECK(t.ran);
  CHECK_FALSE(t.kept_plan);
  REQUIRE(t.kept);
  CHECK(t.kept->params().n_sub == fast.n_sub);
  // A timed plan is kept only when it timed faster; a plan skipped on its partial build estimate (within 20% of the
  // defaults, or above) was never timed, so its figure is only that estimate.
  if (!t.plan_skipped) CHECK(t.plan.predicted_s > t.defaults.predicted_s);
  t = trial(fast, slow, true);
  CHECK(t.kept_plan);
  CHECK(t.kept->params().n_sub == fast.n_sub);
  // A plan the model itself prices above the defaults' measured cost is not built.
  t = run_tune_trial(queries, slow, 1e9, fast, totals_of(db), sample, cpu);
  CHECK(t.plan_skipped);
  CHECK_FALSE(t.kept_plan);
  CHECK(t.kept->params().layout == fast.layout);
  // The sample size: 1/32 of the database within [64 kbases, 8 Mbases], never more than the first batch.
  CHECK(tune_trial_sample_bases(uint64_t(1) << 30, uint64_t(1) << 30) == uint64_t(8) << 20);
  CHECK(tune_trial_sample_bases(uint64_t(32) << 20, uint64_t(1) << 30) == uint64_t(1) << 20);
  CHECK(tune_trial_sample_bases(1000, 1001) == 1001);
  CHECK(tune_trial_sample_bases(uint64_t(1) << 30, 5000) == 5000);
}

TEST_CASE("run_search: a query file without sequences fails and leaves no output") {
  TempDir dir;
  write_bytes(dir.file("q.fa"), "");
  write_bytes(dir.file("db.fa"), ">d\nACGTACGTACGTACGTACGT\n");
  const SearchRequest r = quiet_request(dir);
  CHECK_THROWS_AS(run_search(r, SearchSinks{nullptr, nullptr}), DataError);
  CHECK_FALSE(std::filesystem::exists(r.output));
}
