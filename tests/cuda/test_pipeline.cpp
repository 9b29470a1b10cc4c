// The streaming order (pipeline.hpp) with fake streams on a simulated device: three engines (copy-in, compute,
// copy-back) each serve one operation at a time, operations of one stream run in order. Checks input order,
// slot reuse only after completion, and that two or more streams really overlap copies and kernels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bloomseq/cuda/pipeline.hpp"

using bloomseq::cuda::run_in_order;

namespace {

struct Device {
  double engine_free[3] = {0, 0, 0};  // copy-in, compute, copy-back
  double host_time = 0;
};

struct FakeStream {
  Device* device = nullptr;
  double ready = 0;  // when the last enqueued operation ends
  int id = 0;
  // Enqueue on an engine: starts when the stream, the engine and the host (who enqueues) are all ready.
  void enqueue(int engine, double duration) {
    const double start = std::max({ready, device->engine_free[engine], device->host_time});
    ready = start + duration;
    device->engine_free[engine] = ready;
  }
  void synchronize() { device->host_time = std::max(device->host_time, ready); }
};

struct Run {
  std::vector<uint64_t> completed;
  double makespan = 0;
  bool slot_reused_early = false;
};

Run simulate(size_t n_streams, uint64_t items, double copy_in, double kernel, double copy_back, uint64_t seed = 0) {
  Device dev;
  std::vector<FakeStream> streams(n_streams);
  for (size_t i = 0; i < n_streams; ++i) streams[i] = {&dev, 0, int(i)};
  std::mt19937_64 rng(seed);
  std::map<size_t, int64_t> slot_item;  // what each slot holds (-1 free)
  for (size_t i = 0; i < n_streams; ++i) slot_item[i] = -1;
  Run run;
  const uint64_t submitted = run_in_order(
      streams,
      [&](FakeStream& s, size_t slot, uint64_t index) {
        if (index == items) return false;
        if (slot_item[slot] != -1) run.slot_reused_early = true;
        slot_item[slot] = int64_t(index);
        // Random jitter on the kernel so completions on the device happen out of input order.
        const double jitter = seed ? double(rng() % 100) / 50.0 : 0.0;
        s.enqueue(0, copy_in);
        s.enqueue(1, kernel * (1 + jitter));
        s.enqueue(2, copy_back);
        return true;
      },
      [&](FakeStream& s, size_t slot, uint64_t index) {
        REQUIRE(slot_item[slot] == int64_t(index));
        REQUIRE(dev.host_time >= s.ready);  // completed only after its stream finished
        slot_item[slot] = -1;
        run.completed.push_back(index);
      });
  REQUIRE(submitted == items);
  run.makespan = dev.host_time;
  return run;
}

std::vector<uint64_t> iota(uint64_t n) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

TEST_CASE("pipeline: items complete in input order whatever the device timing", "[cuda][pipeline]") {
  const size_t streams = GENERATE(size_t(1), size_t(2), size_t(3), size_t(8));
  const uint64_t items = GENERATE(uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(7), uint64_t(50));
  const Run r = simulate(streams, items, 1, 2, 1, /*seed=*/streams * 100 + items + 1);
  CHECK(r.completed == iota(items));
  CHECK_FALSE(r.slot_reused_early);
}

TEST_CASE("pipeline: two streams overlap copy-in, kernel and copy-back", "[cuda][pipeline]") {
  const uint64_t n = 100;
  // Equal stages of 1: one stream serialises (3 per item); with streams the engines overlap and the
  // compute engine becomes the only bottleneck (about 1 per item).
  const double serial = simulate(1, n, 1, 1, 1).makespan;
  const double two = simulate(2, n, 1, 1, 1).makespan;
  const double three = simulate(3, n, 1, 1, 1).makespan;
  CHECK(serial == Approx(3.0 * n));
  CHECK(two <= 1.6 * n);
  CHECK(three <= n + 3);
  // Kernel-bound: the kernel engine is busy back to back.
  CHECK(simulate(3, n, 0.5, 4, 0.5).makespan <= 4.0 * n + 2);
}
