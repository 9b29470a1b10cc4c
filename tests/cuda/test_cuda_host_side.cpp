// The CUDA backend's host side (cuda/host/cuda_backend.cpp) on the fake asynchronous device: each case is a way
// the orchestration can go wrong on a real GPU without any wrong answer in a plain emulation — an upload not
// ordered before other streams' kernels, a slot claiming buffers a failed allocation never gave it, kernel
// attributes undone by another backend, stale device copies, frees that stall the pipeline, a shared-memory
// overflow reported as an internal error, memory freed under running streams. Results are checked against the
// CPU backend, ordering against the fake device's violations.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/fake_device.hpp"
#include "bloomseq/error.hpp"
#include "classify_fixtures.hpp"
#include "fixtures.hpp"
#include "stream_fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;
using fixtures::chunks_of;

namespace {

CudaOptions small_options(size_t streams) {
  CudaOptions o;
  o.stage1a_threads = 64;
  o.classify_threads = 64;
  o.streams = streams;
  o.initial_hit_capacity = 64;
  return o;
}

}  // namespace

TEST_CASE("cuda host side: shared uploads are ordered before the kernels of every stream", "[cuda][host]") {
  std::mt19937_64 rng(1);
  auto s = fixtures::make_vectors(rng, 5, 2053, 4, 11, 90);
  const auto db = fixtures::make_db(rng, s.query, 4000);
  const auto chunks = chunks_of(db, 11, {300});
  FakeDeviceOptions fo;
  fo.max_delay_us = 100;  // the upload lands late
  auto fake = std::make_shared<FakeDevice>(fo);
  auto gpu = make_backend_on(fake, small_options(3));
  auto cpu = make_reference_backend();
  CHECK(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
  // New vectors (a re-upload) with every stream already used once.
  auto s2 = fixtures::make_vectors(rng, 5, 2053, 4, 11, 90);
  CHECK(fixtures::run_stage1a_stream(*gpu, s2.view, chunks) == fixtures::run_stage1a_stream(*cpu, s2.view, chunks));
  CHECK(fake->violations().empty());
}

TEST_CASE("cuda host side: a failed hit-buffer allocation leaves no slot claiming capacity", "[cuda][host]") {
  std::mt19937_64 rng(2);
  auto s = fixtures::make_vectors(rng, 3, 1021, 2, 9, 80);
  const auto db = fixtures::make_db(rng, s.query, 3000);
  const auto chunks = chunks_of(db, 9, {1000});
  CudaOptions o = small_options(1);
  o.initial_hit_capacity = 1000;
  // The second buffer of the hit capacity (d_sub) fails once.
  int seen = 0;
  FakeDeviceOptions fo;
  fo.fail_allocation = [&](uint64_t, size_t bytes) { return bytes == 4000 && ++seen == 2; };
  auto fake = std::make_shared<FakeDevice>(fo);
  auto gpu = make_backend_on(fake, o);
  auto cpu = make_reference_backend();
  CHECK_THROWS_AS(fixtures::run_stage1a_stream(*gpu, s.view, chunks), Error);
  CHECK(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
  CHECK(fake->violations().empty());
}

TEST_CASE("cuda host side: two backends on one device never undo each other's shared-memory opt-in", "[cuda][host]") {
  std::mt19937_64 rng(3);
  auto big = fixtures::make_vectors(rng, 1, uint64_t(1) << 20, 3, 11, 200);     // 128 KiB per vector
  auto medium = fixtures::make_vectors(rng, 1, uint64_t(1) << 19, 3, 11, 200);  // 64 KiB
  const auto db = fixtures::make_db(rng, big.query, 1200);
  const auto chunks = chunks_of(db, 11, {1200});
  auto fake = std::make_shared<FakeDevice>();
  auto a = make_backend_on(fake, small_options(1));
  auto b = make_backend_on(fake, small_options(1));
  auto cpu = make_reference_backend();
  const auto expect_big = fixtures::run_stage1a_stream(*cpu, big.view, chunks);
  CHECK(fixtures::run_stage1a_stream(*a, big.view, chunks) == expect_big);
  CHECK(fixtures::run_stage1a_stream(*b, medium.view, chunks) == fixtures::run_stage1a_stream(*cpu, medium.view, chunks));
  CHECK(fixtures::run_stage1a_stream(*a, big.view, chunks) == expect_big);
  CHECK(fake->violations().empty());
}

TEST_CASE("cuda host side: vectors and filters changed in place are uploaded again", "[cuda][host]") {
  auto cpu = make_reference_backend();
  CudaOptions o = small_options(2);
  SECTION("sub-query vectors") {
    std::mt19937_64 rng(4);
    auto s = fixtures::make_vectors(rng, 7, 2053, 4, 11, 90);
    const auto db = fixtures::make_db(rng, s.query, 3000);
    const auto chunks = chunks_of(db, 11, {700});
    auto fake = std::make_shared<FakeDevice>();
    auto gpu = make_backend_on(fake, o);
    CHECK(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
    // Same address, size and shape, first and last word kept: only the contents tell.
    std::fill(s.words.begin() + 1, s.words.end() - 1, 0u);
    const auto expected = fixtures::run_stage1a_stream(*cpu, s.view, chunks);
    CHECK(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == expected);
    CHECK(fake->violations().empty());
  }
  SECTION("filters, and a bank unchanged between batches is uploaded once") {
    std::mt19937_64 rng(5);
    fixtures::Bank b = fixtures::make_bank(rng, 15, {{20011, 3}, {9001, 2}}, 4);
    const fixtures::Reads reads = fixtures::make_reads(rng, b, 15, 40);
    auto fake = std::make_shared<FakeDevice>();
    PipelineCounters counters;
    auto gpu = make_backend_on(fake, o, "cuda", &counters);
    ClassifyHits got, want;
    for (int batch = 0; batch < 3; ++batch) gpu->classify(b.view, reads.view(), got);
    classify_reference(b.view, reads.view(), want);
    CHECK(got.hit_frames == want.hit_frames);
    CHECK(counters.uploads == 3);  // words, descriptors, hash tables: once
    auto& words = b.bits[0].words();
    std::fill(words.begin() + 1, words.end() - 1, ~0u);
    gpu->classify(b.view, reads.view(), got);
    classify_reference(b.view, reads.view(), want);
    CHECK(got.hit_frames == want.hit_frames);
    CHECK(got.bitmaps == want.bitmaps);
    CHECK(fake->violations().empty());
  }
}

TEST_CASE("cuda host side: buffers growing during a stream are never freed under running streams", "[cuda][host]") {
  std::mt19937_64 rng(6);
  auto s = fixtures::make_vectors(rng, 3, 2053, 4, 11, 90);
  const auto db = fixtures::make_db(rng, s.query, 6000);
  const auto chunks = chunks_of(db, 11, {50, 200, 400, 800, 1600});  // every slot grows more than once
  auto fake = std::make_shared<FakeDevice>();
  auto gpu = make_backend_on(fake, small_options(3));
  auto cpu = make_reference_backend();
  CHECK(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
  CHECK(fake->stats().frees_while_busy == 0);
  CHECK(fake->violations().empty());
}

TEST_CASE("cuda host side: more filters than shared memory holds is a usage error", "[cuda][host]") {
  std::mt19937_64 rng(7);
  // A device whose multiprocessor has more shared memory than one block may opt into: occupancy alone does not
  // bound the filter count.
  FakeDeviceOptions fo;
  fo.profile.shared_per_mp = 256 * 1024;
  fo.profile.shared_per_block_max = 96 * 1024;
  fixtures::Bank b = fixtures::make_bank(rng, 7, {{64, 1}}, 2);
  std::vector<ClassifyFilter> many(30000, b.filters[0]);
  const FilterBank bank{many.data(), uint32_t(many.size()), &b.family};
  const fixtures::Reads reads = fixtures::make_reads(rng, b, 7, 3);
  auto fake = std::make_shared<FakeDevice>(fo);
  auto gpu = make_backend_on(fake, small_options(1));
  ClassifyHits out;
  try {
    gpu->classify(bank, reads.view(), out);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("30000 filters") != std::string::npos);
  }
  CHECK(fake->violations().empty());
}

TEST_CASE("cuda host side: a backend destroyed with work in flight frees nothing a stream still uses", "[cuda][host]") {
  std::mt19937_64 rng(8);
  auto s = fixtures::make_vectors(rng, 3, 2053, 4, 11, 90);
  const auto db = fixtures::make_db(rng, s.query, 4000);
  const auto chunks = chunks_of(db, 11, {400});
  FakeDeviceOptions fo;
  fo.max_delay_us = 200;
  auto fake = std::make_shared<FakeDevice>(fo);
  {
    auto gpu = make_backend_on(fake, small_options(4));
    size_t next = 0;
    CHECK_THROWS_AS(gpu->stage1a_stream(
                        s.view,
                        [&](DbChunk& c) {
                          if (next == chunks.size()) return false;
                          c = chunks[next++];
                          return true;
                        },
                        [&](uint64_t, std::vector<Stage1aHit>&) { throw std::runtime_error("sink failed"); }),
                    std::runtime_error);
  }
  CHECK(fake->violations().empty());
}
