// The CUDA backend on the device, what scripts/gpu-check.sh runs on a GPU: hidden from the default test run
// ("[.device]"). In a build with the CUDA backend it runs on device 0 (and fails when there is none) unless
// BLOOMSEQ_FAKE_CUDA_DEVICE=1; without CUDA it runs on the fake device. Slot reuse (at least 3 x more chunks
// than streams), overflow reruns, vectors too large for shared memory and the largest filter set the classify
// kernel admits, all against the CPU backend.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bloomseq/model/profiles.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/fake_device.hpp"
#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/error.hpp"
#include "pipeline_fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

namespace {

std::unique_ptr<Backend> device_backend(const CudaOptions& o) {
#if defined(BLOOMSEQ_WITH_CUDA_BACKEND)
  const char* fake = std::getenv("BLOOMSEQ_FAKE_CUDA_DEVICE");
  if (!(fake && *fake && std::string(fake) != "0")) return make_cuda_backend(0, o);
#endif
  // An H100 with 16 KiB of shared memory per block: the emulator compares shared memory after every phase, so
  // the largest filter set stays small enough to emulate.
  FakeDeviceOptions d;
  d.profile = model::h100();
  d.profile.shared_per_block_default = d.profile.shared_per_block_max = 16 * 1024;
  d.max_delay_us = 0;
  return make_backend_on(std::make_shared<FakeDevice>(d), o);
}

}  // namespace

TEST_CASE("cuda device: streams reused, overflow reruns, results equal the CPU backend", "[.device]") {
  std::mt19937_64 rng(2020);
  auto cpu = make_reference_backend();
  for (int round = 0; round < 24; ++round) {
    CudaOptions o;
    o.streams = 1 + rng() % 4;
    o.stage1a_threads = 64u << (rng() % 3);
    o.initial_hit_capacity = 1 + rng() % 512;
    auto gpu = device_backend(o);
    if (round == 0) WARN("on " << gpu->description());
    const int w = int(8 + rng() % 9);
    auto s = fixtures::make_vectors(rng, uint32_t(1 + rng() % 40), 1024 + rng() % 8192, int(1 + rng() % 8), w, 100);
    const auto db = fixtures::make_db(rng, s.query, 6000 + rng() % 6000);
    const size_t n_chunks = 3 * o.streams + rng() % 5;
    const auto chunks = fixtures::chunks_of(db, w, {db.size() / n_chunks + 1});
    REQUIRE(chunks.size() >= 3 * o.streams);
    REQUIRE(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
    fixtures::classify_pipeline(rng, *gpu);
  }
}

TEST_CASE("cuda device: vectors too large for shared memory are probed in global memory", "[.device]") {
  std::mt19937_64 rng(2021);
  CudaOptions o;
  o.streams = 2;
  auto gpu = device_backend(o);
  auto cpu = make_reference_backend();
  auto s = fixtures::make_vectors(rng, 3, uint64_t(1) << 21, 4, 11, 300);  // 256 KiB per vector
  const auto db = fixtures::make_db(rng, s.query, 8000);
  const auto chunks = fixtures::chunks_of(db, 11, {1000});
  REQUIRE(fixtures::run_stage1a_stream(*gpu, s.view, chunks) == fixtures::run_stage1a_stream(*cpu, s.view, chunks));
}

TEST_CASE("cuda device: the largest filter set the classify kernel admits; one more is a usage error", "[.device]") {
  std::mt19937_64 rng(2022);
  CudaOptions o;
  o.streams = 1;
  auto gpu = device_backend(o);
  model::DeviceProfile profile;
  REQUIRE(gpu->model_profile(profile));
  const int w = 9, k = 2;
  fixtures::Bank b = fixtures::make_bank(rng, w, {{2048, k}}, k);
  // Shared memory per block: the nibble tables plus one counter per filter (classify_kernel.hpp).
  const uint64_t words = profile.shared_per_block_max / 4;
  const uint32_t largest = uint32_t(words - classify_shared_words(key_nibbles_for(w), k, 0));
  std::vector<ClassifyFilter> many(largest + 1, b.filters[0]);
  const fixtures::Reads reads = fixtures::make_reads(rng, b, w, 2);
  ClassifyHits got, want;
  const FilterBank all{many.data(), largest, &b.family};
  gpu->classify(all, reads.view(), got);
  classify_reference(all, reads.view(), want);
  CHECK(got.hit_frames == want.hit_frames);
  CHECK(got.bitmaps == want.bitmaps);
  const FilterBank too_many{many.data(), largest + 1, &b.family};
  try {
    gpu->classify(too_many, reads.view(), got);
    FAIL("no error for " << largest + 1 << " filters");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
  }
}
