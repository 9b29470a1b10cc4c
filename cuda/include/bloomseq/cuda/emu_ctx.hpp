// The host emulator of the execution model in exec.hpp: blocks run one after another, the threads of a block
// run phase by phase (each_thread is a loop), barriers are therefore implicit, and the warp collectives are
// computed from the per-thread flags exactly as the hardware does (ballot mask, leader, rank).
// Shared memory is filled with a poison pattern before every block so that a body reading what it never staged
// gives wrong answers in the tests instead of passing by luck.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "bloomseq/cuda/exec.hpp"

namespace bloomseq::cuda {

template <class T>
class HostLocal {
 public:
  explicit HostLocal(uint32_t threads) : v_(threads) {}
  T& operator()(uint32_t t) { return v_[t]; }
  const T& operator()(uint32_t t) const { return v_[t]; }

 private:
  std::vector<T> v_;
};

class HostCtx {
 public:
  HostCtx(uint32_t block, uint32_t blocks, uint32_t threads, uint32_t* shared)
      : block_(block), blocks_(blocks), threads_(threads), shared_(shared) {}

  uint32_t block() const { return block_; }
  uint32_t blocks() const { return blocks_; }
  uint32_t threads() const { return threads_; }
  uint32_t* shared_words() const { return shared_; }

  template <class T>
  HostLocal<T> local() const { return HostLocal<T>(threads_); }

  template <class F>
  void each_thread(F&& f) const {
    for (uint32_t t = 0; t < threads_; ++t) f(t);
  }
  void barrier() const { ++barriers_; }

  template <class T>
  static T atomic_add(T* p, T v) {
    const T old = *p;
    *p = old + v;
    return old;
  }

  template <class F>
  void warp_ballot(const HostLocal<uint8_t>& flag, F&& f) const {
    for (uint32_t w0 = 0; w0 < threads_; w0 += kWarpSize) f(w0, mask_of(flag, w0));
  }

  template <class F>
  void warp_append(HitCounter* counter, const HostLocal<uint8_t>& flag, F&& write) const {
    for (uint32_t w0 = 0; w0 < threads_; w0 += kWarpSize) {
      const uint32_t mask = mask_of(flag, w0);
      if (!mask) continue;
      // The leader's single atomic reserves the warp's slots; every flagged lane writes at base + rank.
      const HitCounter base = atomic_add(counter, HitCounter(popcount32(mask)));
      (void)warp_leader(mask);
      for (uint32_t lane = 0; lane < kWarpSize; ++lane)
        if (mask >> lane & 1u) write(w0 + lane, base + warp_rank(mask, lane));
    }
  }

  uint64_t barriers() const { return barriers_; }

 private:
  static uint32_t mask_of(const HostLocal<uint8_t>& flag, uint32_t w0) {
    uint32_t mask = 0;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (flag(w0 + lane)) mask |= 1u << lane;
    return mask;
  }

  uint32_t block_, blocks_, threads_;
  uint32_t* shared_;
  mutable uint64_t barriers_ = 0;
};

// Runs body(ctx) for every block of a grid with `shared_bytes` of dynamic shared memory per block.
template <class Body>
void emulate_launch(uint32_t grid, uint32_t threads, uint64_t shared_bytes, Body&& body) {
  if (grid == 0 || threads == 0 || threads % kWarpSize != 0)
    throw std::invalid_argument("emulate_launch: grid must be > 0 and threads a positive multiple of 32");
  std::vector<uint32_t> shared((shared_bytes + 3) / 4 + 1);
  for (uint32_t b = 0; b < grid; ++b) {
    for (auto& x : shared) x = 0xA5A5A5A5u;
    HostCtx ctx(b, grid, threads, shared.data());
    body(ctx);
  }
}

}  // namespace bloomseq::cuda
