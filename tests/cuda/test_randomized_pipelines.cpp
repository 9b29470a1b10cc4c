// Randomized pipelines of the CUDA backend's host side on the fake device: chunk and batch counts and sizes,
// stream counts, hit capacities (overflow reruns), grid caps, the runtime's occupancy differing from the model,
// and allocation failures injected anywhere. A call that fails must throw bloomseq::Error and leave the backend
// usable; every call that succeeds must equal the CPU backend, and the fake device must see no unordered use.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <random>
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

namespace {

struct Shape {
  CudaOptions options;
  FakeDeviceOptions device;
  double fail_rate = 0;
};

Shape random_shape(std::mt19937_64& rng) {
  Shape s;
  s.options.streams = 1 + rng() % 4;
  s.options.stage1a_threads = 32 * uint32_t(1 + rng() % 2);
  s.options.classify_threads = 32 * uint32_t(1 + rng() % 2);
  s.options.initial_hit_capacity = 1 + rng() % 64;
  s.options.max_blocks = uint32_t(rng() % 4);
  s.options.vectors_per_block = uint32_t(1 + rng() % 2);
  s.device.seed = rng();
  s.device.max_delay_us = uint32_t(rng() % 2);
  s.device.occupancy_deficit = uint32_t(rng() % 2);
  s.device.profile.sm_count = int(1 + rng() % 2);
  s.fail_rate = rng() % 2 ? 0.0 : 0.04;
  return s;
}

// Runs call() until it succeeds: an injected failure must surface as bloomseq::Error, nothing else.
template <class Call>
void until_success(Call&& call) {
  for (int attempt = 0;; ++attempt) {
    REQUIRE(attempt < 200);
    try {
      call();
      return;
    } catch (const Error&) {
    }
  }
}

void stage1a_pipeline(std::mt19937_64& rng, Backend& gpu, Backend& cpu) {
  const int w = int(5 + rng() % 12);
  auto s = fixtures::make_vectors(rng, uint32_t(1 + rng() % 4), 256 + rng() % 2048, int(1 + rng() % 5), w, 80);
  const auto db = fixtures::make_db(rng, s.query, 300 + rng() % 900);
  std::vector<uint64_t> lens(8);
  for (auto& len : lens) len = 1 + rng() % 300;
  const auto chunks = fixtures::chunks_of(db, w, lens, rng() % 9);
  const auto want = fixtures::run_stage1a_stream(cpu, s.view, chunks);
  std::vector<std::vector<Stage1aHit>> got;
  until_success([&] { got = fixtures::run_stage1a_stream(gpu, s.view, chunks); });
  REQUIRE(got == want);
}

void classify_pipeline(std::mt19937_64& rng, Backend& gpu) {
  const int w = int(7 + rng() % 10);
  std::vector<std::pair<uint64_t, int>> shapes;
  for (size_t f = 0, n = 1 + rng() % 3; f < n; ++f) shapes.push_back({512 + rng() % 8192, int(1 + rng() % 4)});
  const fixtures::Bank b = fixtures::make_bank(rng, w, shapes, 5);
  std::vector<fixtures::Reads> batches;
  for (size_t i = 0, n = rng() % 6; i < n; ++i) batches.push_back(fixtures::make_reads(rng, b, w, rng() % 12));
  std::vector<ClassifyHits> got;
  until_success([&] {
    got.clear();
    size_t next = 0;
    gpu.classify_stream(
        b.view,
        [&](ReadBatchView& v) {
          if (next == batches.size()) return false;
          v = batches[next++].view();
          return true;
        },
        [&](uint64_t index, ClassifyHits& hits) {
          REQUIRE(index == got.size());
          got.push_back(hits);
        });
  });
  REQUIRE(got.size() == batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    ClassifyHits want;
    classify_reference(b.view, batches[i].view(), want);
    REQUIRE(got[i].hit_frames == want.hit_frames);
    REQUIRE(got[i].bitmaps == want.bitmaps);
  }
}

}  // namespace

TEST_CASE("cuda host side: 1000 randomized pipelines equal the CPU backend", "[cuda][host][random]") {
  std::mt19937_64 rng(20);
  auto cpu = make_cpu_backend();
  const auto start = std::chrono::steady_clock::now();
  uint64_t failures = 0, reruns = 0, pipelines = 0;
  // Each backend serves a few pipelines, so slots, caches and retired memory carry over between calls.
  while (pipelines < 1000) {
    Shape shape = random_shape(rng);
    std::mt19937_64 fail_rng(rng());
    const double rate = shape.fail_rate;
    shape.device.fail_allocation = [&fail_rng, rate](uint64_t, size_t) {
      return rate > 0 && std::uniform_real_distribution<double>(0, 1)(fail_rng) < rate;
    };
    auto fake = std::make_shared<FakeDevice>(shape.device);
    PipelineCounters counters;
    std::unique_ptr<Backend> gpu;
    until_success([&] { gpu = make_backend_on(fake, shape.options, "cuda", &counters); });
    for (int i = 0; i < 4; ++i, ++pipelines) {
      if (rng() % 3) stage1a_pipeline(rng, *gpu, *cpu);
      else classify_pipeline(rng, *gpu);
    }
    gpu.reset();
    failures += fake->stats().failed_allocations;
    reruns += counters.overflow_reruns;
    const auto v = fake->violations();
    INFO((v.empty() ? std::string() : v.front()));
    REQUIRE(v.empty());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(pipelines << " pipelines in " << seconds << " s, " << failures << " injected allocation failures, " << reruns
                 << " overflow reruns");
  CHECK(failures > 50);
  CHECK(reruns > 50);
}
