// Stage 1b: the seeds equal the brute-force set of exact w-mer matches (both strands) exactly, with a Bloom
// filter small enough to produce many false positives; TP + FP = stage-1a hits.
#include <catch2/catch.hpp>

#include <random>

#include "helpers.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

void check_same_hsps(const std::vector<Hsp>& got, const std::vector<Hsp>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i].query == want[i].query);
    CHECK(got[i].subject == want[i].subject);
    CHECK(got[i].strand == want[i].strand);
    CHECK(got[i].q_start == want[i].q_start);
    CHECK(got[i].q_end == want[i].q_end);
    CHECK(got[i].s_start == want[i].s_start);
    CHECK(got[i].score == want[i].score);
    CHECK(got[i].evalue == want[i].evalue);
  }
}

Records related_data(std::mt19937_64& rng, int w) {
  Records q, db;
  const std::string base = random_dna(rng, 6000, 0.001);
  q.names = {"q1", "q2", "tiny"};
  q.seqs = {base.substr(0, 3500), mutate(rng, base.substr(2500), 0.05), std::string(size_t(w > 1 ? w - 1 : 1), 'A')};
  db.names = {"d1", "d2", "d3", "short"};
  db.seqs = {mutate(rng, base.substr(1000, 2000), 0.08) + random_dna(rng, 500),
             revcomp(mutate(rng, base.substr(0, 4000), 0.03)), random_dna(rng, 2500, 0.01), "ACG"};
  Records both;
  both.names = q.names;
  both.seqs = q.seqs;
  both.names.insert(both.names.end(), db.names.begin(), db.names.end());
  both.seqs.insert(both.seqs.end(), db.seqs.begin(), db.seqs.end());
  return both;
}

std::pair<Records, Records> split(const Records& both) {
  Records q, db;
  for (size_t i = 0; i < both.seqs.size(); ++i) {
    Records& r = i < 3 ? q : db;
    r.names.push_back(both.names[i]);
    r.seqs.push_back(both.seqs[i]);
  }
  return {q, db};
}

}  // namespace

TEST_CASE("stage-1b seeds equal the brute-force exact matches", "[blast][stage1b]") {
  std::mt19937_64 rng(7);
  for (int w : {8, 11, 17, 28}) {
    for (const char* layout : {"vector", "bitsliced"}) {
      INFO("w=" << w << " layout=" << layout);
      const auto qd = split(related_data(rng, w));
      BlastParams p;
      p.w = w;
      p.n_sub = 257;
      p.k = 2;
      p.m_bits = 512;  // tiny: plenty of false positives to reject
      p.layout = parse_layout(layout);
      p.chunk_bases = 1024;
      const Observed o = run(qd.first, qd.second, p, 1);
      std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> got;
      for (const Seed& s : o.seeds) got.insert({s.query, s.subject, s.q_pos, s.s_pos, s.strand});
      CHECK(got.size() == o.seeds.size());  // no duplicates
      CHECK(got == oracle_seeds(qd.first, qd.second, w));
      CHECK(o.stats.true_positives + o.stats.false_positives == o.hits.size());
      CHECK(o.stats.false_positives > 0);
    }
  }
}

TEST_CASE("results do not depend on threads, chunk size or batch size", "[blast][threads]") {
  std::mt19937_64 rng(99);
  const auto qd = split(related_data(rng, 11));
  BlastParams p;
  p.w = 11;
  p.n_sub = 211;
  p.k = 3;
  p.m_bits = 2048;
  p.layout = Stage1aLayout::bitsliced;
  p.chunk_bases = 1024;
  p.threads = 1;
  const Observed ref = run(qd.first, qd.second, p, uint64_t(1) << 30);
  REQUIRE(!ref.hsps.empty());
  struct Variant {
    int threads;
    uint64_t chunk;
    uint64_t batch;
    Stage1aLayout layout;
  };
  for (const Variant& v : {Variant{2, 1024, uint64_t(1) << 30, Stage1aLayout::bitsliced},
                           Variant{3, 1031, 1, Stage1aLayout::bitsliced},
                           Variant{4, 4096, 3000, Stage1aLayout::vector}, Variant{1, 1 << 20, 1, Stage1aLayout::vector}}) {
    INFO("threads=" << v.threads << " chunk=" << v.chunk << " batch=" << v.batch);
    BlastParams q = p;
    q.threads = v.threads;
    q.chunk_bases = v.chunk;
    q.layout = v.layout;
    const Observed o = run(qd.first, qd.second, q, v.batch);
    CHECK(o.hits == ref.hits);
    CHECK(o.seeds == ref.seeds);
    check_same_hsps(hsps_only(qd.first, qd.second, q, v.batch), ref.hsps);
    REQUIRE(o.hsps.size() == ref.hsps.size());
    for (size_t i = 0; i < o.hsps.size(); ++i) {
      CHECK(o.hsps[i].q_start == ref.hsps[i].q_start);
      CHECK(o.hsps[i].s_start == ref.hsps[i].s_start);
      CHECK(o.hsps[i].score == ref.hsps[i].score);
      CHECK(o.hsps[i].evalue == ref.hsps[i].evalue);
    }
  }
}

TEST_CASE("probe words at a stride give the same seeds, in the same order, and the same HSPs", "[blast][stage1b]") {
  std::mt19937_64 rng(2024);
  struct Variant {
    int w, probe, threads;
    uint64_t chunk, batch;
    Stage1aLayout layout;
  };
  for (const Variant& v : {Variant{28, 16, 1, 1024, uint64_t(1) << 30, Stage1aLayout::bitsliced},
                           Variant{28, 16, 3, 1031, 1, Stage1aLayout::vector},
                           Variant{20, 16, 2, 4096, 3000, Stage1aLayout::bitsliced},
                           Variant{32, 9, 2, 1024, 1, Stage1aLayout::bitsliced},
                           Variant{12, 5, 1, 1024, 2500, Stage1aLayout::vector},
                           Variant{17, 16, 1, 2048, uint64_t(1) << 30, Stage1aLayout::paper_vector}}) {
    INFO("w=" << v.w << " probe=" << v.probe << " threads=" << v.threads << " chunk=" << v.chunk
              << " batch=" << v.batch);
    // Long exact repeats (the db copies query stretches on both strands) next to mutated ones and N runs.
    auto qd = split(related_data(rng, v.w));
    qd.second.names.push_back("copies");
    qd.second.seqs.push_back(qd.first.seqs[0].substr(100, 900) + "NN" + revcomp(qd.first.seqs[1].substr(7, 333)) +
                             qd.first.seqs[0].substr(0, 64));
    BlastParams p;
    p.w = v.w;
    p.n_sub = 307;
    p.k = 3;
    p.m_bits = 1024;  // many false positives among the probes
    p.layout = v.layout;
    p.chunk_bases = v.chunk;
    p.threads = v.threads;
    const Observed every = run(qd.first, qd.second, p, v.batch);
    p.probe_word = v.probe;
    const Observed probed = run(qd.first, qd.second, p, v.batch);
    check_same_hsps(hsps_only(qd.first, qd.second, p, v.batch), every.hsps);
    REQUIRE(!every.seeds.empty());
    CHECK(probed.seeds == every.seeds);
    std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> got;
    for (const Seed& s : probed.seeds) got.insert({s.query, s.subject, s.q_pos, s.s_pos, s.strand});
    CHECK(got == oracle_seeds(qd.first, qd.second, v.w));
    // Only the probes were tested: at most one per stride of the database stream (records + separators).
    uint64_t stream = 0;
    for (const auto& x : qd.second.seqs) stream += x.size() + 1;
    CHECK(probed.stats.db_wmers <= stream / uint64_t(v.w - v.probe + 1) + 1);
    CHECK(probed.stats.true_positives + probed.stats.false_positives == probed.hits.size());
    REQUIRE(probed.hsps.size() == every.hsps.size());
    for (size_t i = 0; i < every.hsps.size(); ++i) {
      CHECK(probed.hsps[i].q_start == every.hsps[i].q_start);
      CHECK(probed.hsps[i].s_start == every.hsps[i].s_start);
      CHECK(probed.hsps[i].q_end == every.hsps[i].q_end);
      CHECK(probed.hsps[i].strand == every.hsps[i].strand);
      CHECK(probed.hsps[i].score == every.hsps[i].score);
      CHECK(probed.hsps[i].evalue == every.hsps[i].evalue);
    }
  }
}
