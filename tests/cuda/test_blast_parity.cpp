// The CUDA kernels (emulated) inside the blast-bloom pipeline: through the Stage1aBackend adapter the pipeline
// must produce the same stage-1a hits, w-mer counts and HSPs as its CPU layouts.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"
#include "bloomseq/cuda/emu_backend.hpp"

using namespace bloomseq;

namespace {

std::string random_dna(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  for (size_t i = 0; i + 20 < n; i += 500 + rng() % 1000)
    for (size_t j = 0; j < 1 + rng() % 12; ++j) s[i + j] = 'N';
  return s;
}

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (auto& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
  return r;
}

// Database records: random sequence with pieces of the query on both strands, plus records shorter than w.
DbBatch make_db(std::mt19937_64& rng, const std::string& query, int w) {
  DbBatch batch;
  for (int r = 0; r < 4; ++r) {
    std::string s = random_dna(rng, 3000 + rng() % 3000);
    for (size_t at = 100; at + 300 < s.size(); at += 700 + rng() % 900) {
      const size_t from = rng() % (query.size() - 200);
      std::string piece = query.substr(from, 100 + rng() % 100);
      if (rng() & 1) piece = revcomp(piece);
      for (auto& c : piece)
        if (rng() % 40 == 0) c = "ACGT"[rng() % 4];
      s.replace(at, piece.size(), piece);
    }
    batch.add_record("subject" + std::to_string(r), s);
  }
  batch.add_record("tiny", std::string(size_t(w) - 1, 'A'));
  return batch;
}

// One pipeline run of `query` against `batch`: its stage-1a hits, tested w-mers and HSPs.
struct PipelineRun {
  std::vector<Stage1aHit> hits;
  uint64_t wmers = 0;
  std::vector<Hsp> hsps;
};
PipelineRun run_pipeline(const std::string& query, const BlastParams& params, const DbBatch& batch,
                         std::unique_ptr<Stage1aBackend> stage1a) {
  QuerySet q;
  q.add("query", query);
  BlastSearch search(std::move(q), params, DbTotals{batch.codes.size(), batch.size()}, std::move(stage1a));
  PipelineRun r;
  search.on_stage1a = [&](const DbBatch&, const std::vector<Stage1aHit>& h) { r.hits = h; };
  search.search(batch);
  r.hsps = search.finish();
  r.wmers = search.stats().db_wmers;
  return r;
}

// The device run found what the CPU run found: hits, tested w-mers and HSPs.
void check_same_run(const PipelineRun& gpu, const PipelineRun& cpu) {
  CHECK(gpu.hits == cpu.hits);
  CHECK(gpu.wmers == cpu.wmers);
  REQUIRE(gpu.hsps.size() == cpu.hsps.size());
  for (size_t i = 0; i < cpu.hsps.size(); ++i) {
    CHECK(gpu.hsps[i].q_start == cpu.hsps[i].q_start);
    CHECK(gpu.hsps[i].s_start == cpu.hsps[i].s_start);
    CHECK(gpu.hsps[i].score == cpu.hsps[i].score);
    CHECK(gpu.hsps[i].evalue == cpu.hsps[i].evalue);
  }
}

}  // namespace

TEST_CASE("blast pipeline: the emulated CUDA stage 1a gives the CPU layouts' hits and HSPs", "[cuda][blast]") {
  const int w = GENERATE(11, 16);
  std::mt19937_64 rng{uint64_t(w)};
  const std::string query = random_dna(rng, 4001);
  BlastParams params;
  params.w = w;
  params.n_sub = 307;
  params.m_bits = 4099;  // small prime m: many false positives, partial words
  params.k = 4;
  params.chunk_bases = 1031;  // several chunks per batch (prime), boundaries inside w-mers
  params.layout = Stage1aLayout::vector;
  const DbBatch batch = make_db(rng, query, w);
  const PipelineRun cpu = run_pipeline(query, params, batch, nullptr);
  cuda::EmuOptions o;
  o.initial_capacity = 64;  // overflow reruns on the larger chunks
  o.max_blocks = 5;         // 14 sub-queries: several passes
  const PipelineRun gpu = run_pipeline(query, params, batch, adapt_stage1a_backend(cuda::make_emulated_backend(o)));
  REQUIRE(cpu.hits.size() > 100);
  REQUIRE(cpu.hsps.size() > 3);
  check_same_run(gpu, cpu);
}

TEST_CASE("blast pipeline: emulated kernel, vector and bit-sliced layouts agree chunk by chunk", "[cuda][blast]") {
  std::mt19937_64 rng(99);
  const int w = 12;
  const std::string query = random_dna(rng, 2500);
  BlastParams params;
  params.w = w;
  params.n_sub = 211;
  params.m_bits = 2053;
  params.k = 3;
  std::vector<std::vector<uint8_t>> codes(1);
  for (char c : query) codes[0].push_back(base_code(c));
  const SubqueryFilters filters(codes, params, true, true);
  const DbBatch batch = make_db(rng, query, w);
  const auto chunks = chunk_batch(batch, 1009, w);
  REQUIRE(chunks.size() > 3);

  auto emulated = adapt_stage1a_backend(cuda::make_emulated_backend());
  emulated->prepare(filters, Stage1aSetup{});
  std::vector<std::vector<Stage1aHit>> gpu(chunks.size());
  std::vector<uint64_t> gpu_wmers(chunks.size());
  emulated->run_chunks(chunks, gpu, gpu_wmers);
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::vector<Stage1aHit> vec, bits;
    const uint64_t n_vec = stage1a_vector_layout(filters.vectors(), chunks[i], vec);
    const uint64_t n_bits = stage1a_bitsliced(filters.bitsliced(), chunks[i], bits);
    CHECK(gpu[i] == vec);
    CHECK(gpu[i] == bits);
    CHECK(gpu_wmers[i] == n_vec);
    CHECK(n_bits == n_vec);
    CHECK(count_chunk_wmers(chunks[i]) == n_vec);
  }
}

// The short-word scan (exact filters of a probe word tested at a stride) and Bloom probe words at a stride: the
// device backend tests the same starts as the CPU layouts, so hits, tested-word counts and HSPs agree.
TEST_CASE("blast pipeline: probe words at a stride on the emulated kernel equal the CPU scan", "[cuda][blast]") {
  const int w = GENERATE(11, 12, 28);
  const int probe = w == 28 ? 16 : GENERATE(6, 8);
  const bool exact = w != 28;  // w = 28: Bloom vectors of 16-mers (by position in stage 1b)
  std::mt19937_64 rng{uint64_t(w * 31 + probe)};
  const std::string query = random_dna(rng, 3001);
  BlastParams params;
  params.w = w;
  params.probe_word = probe;
  params.chunk_bases = 1031;  // chunk starts at every residue of the stride
  if (exact) {
    params.exact_filter = true;
    params.k = 1;
    params.m_bits = uint64_t(1) << (2 * probe);
    params.n_sub = 3001;
  } else {
    params.n_sub = 1000;
    params.m_bits = 8191;
    params.k = 3;
  }
  params.validate();
  DbBatch batch = make_db(rng, query, w);
  batch.add_record("long-match", query.substr(500, 1200));  // a long exact match: many strided probes hit
  const PipelineRun cpu = run_pipeline(query, params, batch, make_cpu_stage1a());
  cuda::EmuOptions o;
  o.initial_capacity = 32;
  const PipelineRun gpu = run_pipeline(query, params, batch, adapt_stage1a_backend(cuda::make_emulated_backend(o)));
  const uint64_t stride = uint64_t(w - probe + 1);
  REQUIRE(cpu.hits.size() > 20);
  for (const auto& h : cpu.hits) REQUIRE(h.db_pos % stride == 0);
  REQUIRE(cpu.hsps.size() > 3);
  check_same_run(gpu, cpu);
}

// The bit-sliced kernel against the CPU's bit-sliced and vector layouts, chunk by chunk: every shape of the matrix
// (one narrow block of 1, 2 or 4 words; full 512-column blocks with and without a narrow one), k up to 8, strides,
// hit buffers too small (overflow reruns) and fewer blocks than tiles (grid-stride passes).
TEST_CASE("blast: the emulated bit-sliced kernel gives the CPU layouts' hits", "[cuda][blast][bitsliced]") {
  // About 1, 50, 100, 300, 620 and 1,100 sub-queries: narrow blocks of 1, 2 and 4 words, then 1-2 full blocks.
  const uint64_t n_sub = GENERATE(13000, 260, 130, 43, 21, 12);
  const int k = GENERATE(1, 3, 8);
  const uint64_t stride = GENERATE(1, 3);
  std::mt19937_64 rng(n_sub * 131 + uint64_t(k) * 7 + stride);
  const int w = 11;
  const std::string query = random_dna(rng, 13000);
  BlastParams params;
  params.w = w;
  params.n_sub = n_sub;
  params.m_bits = 1021;  // small: many false positives, so wide rows carry many hits
  params.k = k;
  std::vector<std::vector<uint8_t>> codes(1);
  for (char c : query) codes[0].push_back(base_code(c));
  const SubqueryFilters filters(codes, params, true, true);
  const BitslicedMatrix M = filters.bitsliced();
  INFO("V = " << M.count << ", full blocks " << M.full_blocks << ", tail words " << M.tail_words);
  const DbBatch batch = make_db(rng, query, w);
  const auto chunks = chunk_batch(batch, 2039, w);
  REQUIRE(chunks.size() > 3);

  cuda::EmuOptions o;
  o.initial_capacity = 16;  // overflow reruns
  o.max_blocks = 3;         // several tiles per block
  auto emulated = adapt_stage1a_backend(cuda::make_emulated_backend(o));
  Stage1aSetup setup;
  setup.layout = setup.requested = Stage1aLayout::bitsliced;
  setup.stride = stride;
  emulated->prepare(filters, setup);
  std::vector<std::vector<Stage1aHit>> gpu(chunks.size());
  std::vector<uint64_t> gpu_wmers(chunks.size());
  emulated->run_chunks(chunks, gpu, gpu_wmers);
  size_t total = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::vector<Stage1aHit> bits, vec;
    const uint64_t n_bits = stage1a_bitsliced(M, chunks[i], bits, stride);
    stage1a_vector_layout(filters.vectors(), chunks[i], vec, stride);
    CHECK(gpu[i] == bits);
    CHECK(gpu[i] == vec);
    CHECK(gpu_wmers[i] == n_bits);
    total += gpu[i].size();
  }
  CHECK(total > 100);
}

TEST_CASE("blast pipeline: --layout bitsliced on the emulated device gives the CPU's hits and HSPs",
          "[cuda][blast][bitsliced]") {
  std::mt19937_64 rng(4242);
  const std::string query = random_dna(rng, 7001);
  BlastParams params;
  params.w = 11;
  params.n_sub = 12;  // ~580 sub-queries: a full block and a narrow one
  params.m_bits = 8191;
  params.k = 4;
  params.chunk_bases = 1031;
  params.layout = Stage1aLayout::bitsliced;
  const DbBatch batch = make_db(rng, query, params.w);
  cuda::EmuStats stats;
  const PipelineRun cpu = run_pipeline(query, params, batch, make_cpu_stage1a());
  const PipelineRun gpu =
      run_pipeline(query, params, batch, adapt_stage1a_backend(cuda::make_emulated_backend({}, &stats)));
  REQUIRE(cpu.hits.size() > 100);
  CHECK_FALSE(stats.vectors_in_shared);  // the bit-sliced body ran (the paper's would stage these vectors)
  check_same_run(gpu, cpu);
}
