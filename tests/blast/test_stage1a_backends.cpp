// The stage-1a seam of BlastSearch: the CPU backend (every layout) against the single-threaded reference oracle
// plugged in through the same interface, and capabilities that the search respects.
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <vector>
#include <string>

#include "blast/helpers.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/cost_model.hpp"

using namespace bloomseq;
using namespace blast_test;

TEST_CASE("stage 1a: the CPU backend's layouts give the reference oracle's hits, seeds and HSPs") {
  std::mt19937_64 rng(1906);
  Records q, db;
  q.names = {"q0"};
  q.seqs = {random_dna(rng, 3001, 0.002)};
  db.names = {"d0", "d1"};
  db.seqs = {mutate(rng, q.seqs[0], 0.08) + random_dna(rng, 2000), revcomp(mutate(rng, q.seqs[0], 0.05))};
  BlastParams p;
  p.n_sub = 401;
  p.m_bits = 2053;  // small: many false positives for stage 1b to reject
  p.k = 3;
  p.chunk_bases = 1031;
  p.threads = 2;
  auto run = [&](std::unique_ptr<Stage1aBackend> backend) {
    BlastSearch s(make_queries(q), p, totals_of(db), std::move(backend));
    Observed o;
    s.on_stage1a = [&](const DbBatch&, const std::vector<Stage1aHit>& h) { o.hits.insert(o.hits.end(), h.begin(), h.end()); };
    s.on_seeds = [&](const DbBatch&, const std::vector<Seed>& x) { o.seeds.insert(o.seeds.end(), x.begin(), x.end()); };
    s.search(make_batch(db));
    o.hsps = s.finish();
    o.stats = s.stats();
    return o;
  };
  const Observed oracle = run(adapt_stage1a_backend(make_reference_backend()));
  REQUIRE(oracle.stats.false_positives > 100);
  REQUIRE(oracle.hsps.size() >= 2);
  for (Stage1aLayout layout : {Stage1aLayout::vector, Stage1aLayout::bitsliced, Stage1aLayout::paper_vector}) {
    INFO(layout_name(layout));
    p.layout = layout;
    const Observed cpu = run(nullptr);  // the CPU backend
    CHECK(cpu.hits == oracle.hits);
    CHECK(cpu.seeds.size() == oracle.seeds.size());
    CHECK(cpu.stats.db_wmers == oracle.stats.db_wmers);
    REQUIRE(cpu.hsps.size() == oracle.hsps.size());
    for (size_t i = 0; i < cpu.hsps.size(); ++i) {
      CHECK(cpu.hsps[i].q_start == oracle.hsps[i].q_start);
      CHECK(cpu.hsps[i].s_start == oracle.hsps[i].s_start);
      CHECK(cpu.hsps[i].score == oracle.hsps[i].score);
    }
  }
}

TEST_CASE("stage 1a: capabilities decide what the search asks of a backend") {
  CHECK(make_cpu_stage1a()->capabilities().host_threads);
  CHECK(make_cpu_stage1a()->capabilities().probe_words);
  CHECK(make_cpu_stage1a()->name() == "cpu");
  CHECK(make_stage1a_backend("cpu", 0, nullptr)->name() == "cpu");
  CHECK(make_cpu_stage1a()->capabilities().scan_by_default);
  const auto device = adapt_stage1a_backend(make_reference_backend());
  CHECK(device->capabilities().probe_words);  // the chunk's stride
  CHECK_FALSE(device->capabilities().scan_by_default);
  CHECK(device->capabilities().needs_vectors);

  // Probe words need a backend that tests them: a backend that cannot is refused, not silently given w-mers.
  struct EveryWmer final : Stage1aBackend {
    std::unique_ptr<Stage1aBackend> inner = adapt_stage1a_backend(make_reference_backend());
    std::string name() const override { return "every-wmer"; }
    Stage1aCapabilities capabilities() const override { return {false, false, true, false}; }
    void prepare(const SubqueryFilters& f, const Stage1aSetup& setup) override { inner->prepare(f, setup); }
    uint64_t run_chunk(const DbChunk& c, std::vector<Stage1aHit>& hits) override { return inner->run_chunk(c, hits); }
  };
  std::mt19937_64 rng(1907);
  Records q{{"q"}, {random_dna(rng, 500)}}, db{{"d"}, {random_dna(rng, 3000)}};
  BlastParams p;
  p.w = 16;
  p.probe_word = 12;
  BlastSearch s(make_queries(q), p, totals_of(db), std::make_unique<EveryWmer>());
  CHECK_THROWS_AS(s.search(make_batch(db)), std::logic_error);
}

TEST_CASE("the pipeline's layouts and the model's have one name each", "[blast][layout]") {
  for (const char* name : {"paper-vector", "vector", "bitsliced"}) {
    INFO(name);
    CHECK(std::string(layout_name(parse_layout(name))) == name);
    CHECK(std::string(model::to_string(model::parse_layout(name))) == name);
  }
  CHECK(parse_layout("paper") == Stage1aLayout::paper_vector);
  CHECK(parse_layout("bit-sliced") == Stage1aLayout::bitsliced);
  CHECK_THROWS_AS(parse_layout("naive"), UsageError);
}

TEST_CASE("count_chunk_wmers counts the complete valid w-mers at the chunk's stride", "[blast][stage1a]") {
  // Brute force: every start below n_starts on the stride (in stream coordinates), whose w bases lie in the chunk
  // and are all valid. Chunks without an invalid base take the closed form, the others the walk; both are here.
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 400; ++trial) {
    const uint64_t n = 1 + rng() % 300;
    std::vector<uint8_t> codes(n);
    const bool with_n = trial % 2 == 0;
    for (auto& c : codes) c = uint8_t(with_n && rng() % 40 == 0 ? 4 + rng() % 12 : rng() % 4);
    DbChunk c;
    c.codes = codes.data();
    c.n = n;
    c.w = int(1 + rng() % 32);
    c.n_starts = rng() % (n + 5);
    c.first_pos = rng() % 1000;
    c.stride = rng() % 4 == 0 ? 0 : 1 + rng() % 20;
    const uint64_t stride = c.stride ? c.stride : 1;
    uint64_t want = 0;
    for (uint64_t s = 0; s < c.n_starts; ++s) {
      if ((c.first_pos + s) % stride != 0 || s + uint64_t(c.w) > n) continue;
      bool valid = true;
      for (uint64_t j = s; j < s + uint64_t(c.w); ++j) valid = valid && codes[j] < 4;
      want += valid;
    }
    INFO("n " << n << " w " << c.w << " n_starts " << c.n_starts << " first_pos " << c.first_pos << " stride "
              << c.stride << " invalid bases " << with_n);
    REQUIRE(count_chunk_wmers(c) == want);
  }
}
