// Randomized pipelines of the CUDA backend's host side on the fake device: chunk and batch counts and sizes,
// stream counts, hit capacities (overflow reruns), grid caps, the runtime's occupancy differing from the model,
// and allocation failures injected anywhere. A call that fails must throw bloomseq::Error and leave the backend
// usable; every call that succeeds must equal the CPU backend, and the fake device must see no unordered use.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include "bloomseq/model/profiles.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/fake_device.hpp"
#include "bloomseq/error.hpp"
#include "pipeline_fixtures.hpp"

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
  s.device.profile = model::with_multiprocessors(s.device.profile, int(1 + rng() % 2));
  s.fail_rate = rng() % 2 ? 0.0 : 0.04;
  return s;
}

}  // namespace

TEST_CASE("cuda host side: 1000 randomized pipelines equal the CPU backend", "[cuda][host][random]") {
  std::mt19937_64 rng(20);
  auto cpu = make_reference_backend();
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
    fixtures::until_success([&] { gpu = make_backend_on(fake, shape.options, "cuda", &counters); });
    for (int i = 0; i < 4; ++i, ++pipelines) {
      if (rng() % 3) fixtures::stage1a_pipeline(rng, *gpu, *cpu);
      else fixtures::classify_pipeline(rng, *gpu);
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
