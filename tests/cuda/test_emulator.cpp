// The host execution context itself: grid and block shape, per-thread locals, the warp collectives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "bloomseq/cuda/emu_ctx.hpp"

using namespace bloomseq::cuda;

TEST_CASE("emulator: every (block, thread) runs once per phase and shared memory is per block", "[cuda][emulator]") {
  std::vector<int> seen(5 * 64, 0);
  std::vector<uint32_t> block_sums;
  emulate_launch(5, 64, 64 * 4, [&](HostCtx& ctx) {
    CHECK(ctx.blocks() == 5);
    CHECK(ctx.threads() == 64);
    uint32_t* sh = ctx.shared_words();
    CHECK(sh[0] == 0xA5A5A5A5u);  // poisoned, not left over from the previous block
    ctx.each_thread([&](uint32_t t) {
      ++seen[ctx.block() * 64 + t];
      sh[t] = ctx.block() + t;
    });
    ctx.barrier();
    uint32_t sum = 0;
    ctx.each_thread([&](uint32_t t) { sum += sh[63 - t]; });
    block_sums.push_back(sum);
  });
  CHECK(std::all_of(seen.begin(), seen.end(), [](int x) { return x == 1; }));
  REQUIRE(block_sums.size() == 5);
  for (uint32_t b = 0; b < 5; ++b) CHECK(block_sums[b] == 64 * b + 63 * 64 / 2);
  CHECK_THROWS(emulate_launch(1, 48, 0, [](HostCtx&) {}));
}

TEST_CASE("emulator: warp-aggregated append gives each flagged thread a distinct slot, in lane order per warp",
          "[cuda][emulator]") {
  HitCounter counter = 7;
  std::vector<uint32_t> slot_of(96, ~0u);
  emulate_launch(1, 96, 0, [&](HostCtx& ctx) {
    auto flag = ctx.local<uint8_t>();
    ctx.each_thread([&](uint32_t t) { flag(t) = t % 3 == 0 || t == 95; });
    ctx.warp_append(&counter, flag, [&](uint32_t t, HitCounter slot) { slot_of[t] = uint32_t(slot); });
    auto none = ctx.local<uint8_t>();
    ctx.each_thread([&](uint32_t t) { none(t) = 0; });
    ctx.warp_append(&counter, none, [&](uint32_t, HitCounter) { FAIL("no thread is flagged"); });
  });
  uint32_t flagged = 0;
  std::vector<uint32_t> slots;
  for (uint32_t t = 0; t < 96; ++t) {
    if (t % 3 == 0 || t == 95) {
      ++flagged;
      slots.push_back(slot_of[t]);
    } else {
      CHECK(slot_of[t] == ~0u);
    }
  }
  CHECK(counter == 7 + flagged);
  CHECK(std::is_sorted(slots.begin(), slots.end()));  // one warp after another, lanes in order
  CHECK(slots.front() == 7);
  CHECK(slots.back() == 7 + flagged - 1);
  CHECK(warp_rank(0b101101u, 5) == 3);
  CHECK(warp_leader(0b101000u) == 3);
}

TEST_CASE("emulator: ballot hands each warp's mask to its first thread", "[cuda][emulator]") {
  std::vector<std::pair<uint32_t, uint32_t>> got;
  emulate_launch(1, 64, 0, [&](HostCtx& ctx) {
    auto flag = ctx.local<uint8_t>();
    ctx.each_thread([&](uint32_t t) { flag(t) = t == 1 || t == 33 || t == 63; });
    ctx.warp_ballot(flag, [&](uint32_t first, uint32_t mask) { got.emplace_back(first, mask); });
  });
  REQUIRE(got.size() == 2);
  CHECK(got[0] == std::make_pair(0u, 0b10u));
  CHECK(got[1] == std::make_pair(32u, (1u << 1) | (1u << 31)));
}

TEST_CASE("emulator: a missing barrier around a shared-memory write is reported", "[cuda][emulator]") {
  auto staged_then_read = [](bool barrier_after) {
    emulate_launch(2, 32, 32 * 4, [&](HostCtx& ctx) {
      uint32_t* sh = ctx.shared_words();
      ctx.each_thread([&](uint32_t t) { sh[t] = t; });
      if (barrier_after) ctx.barrier();
      uint32_t sum = 0;
      ctx.each_thread([&](uint32_t t) { sum += sh[31 - t]; });
    });
  };
  CHECK_NOTHROW(staged_then_read(true));
  CHECK_THROWS_AS(staged_then_read(false), std::logic_error);
  // Restaging while others may still read the previous contents.
  CHECK_THROWS_AS(emulate_launch(1, 32, 32 * 4,
                                 [&](HostCtx& ctx) {
                                   uint32_t* sh = ctx.shared_words();
                                   ctx.each_thread([&](uint32_t t) { sh[t] = t; });
                                   ctx.barrier();
                                   uint32_t sum = 0;
                                   ctx.each_thread([&](uint32_t t) { sum += sh[t]; });
                                   ctx.each_thread([&](uint32_t t) { sh[t] = 2 * t; });  // no barrier before
                                 }),
                  std::logic_error);
}

TEST_CASE("emulator: shared-memory atomics are visible to plain reads only after a barrier", "[cuda][emulator]") {
  uint32_t before = 1, after = 1, old_seen = 0;
  emulate_launch(1, 64, 4, [&](HostCtx& ctx) {
    uint32_t* count = ctx.shared_words();
    ctx.each_thread([&](uint32_t t) {
      if (t == 0) *count = 0;
    });
    ctx.barrier();
    auto flag = ctx.local<uint8_t>();
    ctx.each_thread([&](uint32_t t) { flag(t) = t < 40; });
    ctx.warp_ballot(flag, [&](uint32_t, uint32_t mask) { old_seen = ctx.atomic_add(count, popcount32(mask)); });
    ctx.each_thread([&](uint32_t t) {
      if (t == 0) before = *count;  // a race on a GPU: the emulator shows the stale value
    });
    ctx.barrier();
    ctx.each_thread([&](uint32_t t) {
      if (t == 0) after = *count;
    });
  });
  CHECK(old_seen == 32);  // atomics themselves see each other: the second warp's add returns the first's total
  CHECK(before == 0);
  CHECK(after == 40);
}
