// The host emulator of the execution model in exec.hpp: blocks run one after another, the threads of a block
// run phase by phase (each_thread is a loop), barriers are therefore implicit, and the warp collectives are
// computed from the per-thread flags exactly as the hardware does (ballot mask, leader, rank).
// Shared memory is filled with a poison pattern before every block so that a body reading what it never staged
// gives wrong answers in the tests instead of passing by luck.
//
// Barrier check: running a phase to completion before the next one hides a missing barrier, so the emulator
// enforces the rule the bodies follow instead: a phase that WRITES shared memory (detected by comparing the
// buffer before and after it) must be preceded by a barrier (or be the block's first phase) and followed by one
// before any other phase or collective. A violation throws std::logic_error naming the block.
// Atomic adds to shared memory become visible to plain reads only at the next barrier (one legal outcome on a
// GPU), so a body that reads counts reduced with atomics before a barrier reads stale values and fails.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
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
  HostCtx(uint32_t block, uint32_t blocks, uint32_t threads, uint32_t* shared, size_t shared_words = 0)
      : block_(block), blocks_(blocks), threads_(threads), shared_(shared), shared_size_(shared_words) {}

  uint32_t block() const { return block_; }
  uint32_t blocks() const { return blocks_; }
  uint32_t threads() const { return threads_; }
  uint32_t* shared_words() const { return shared_; }

  template <class T>
  HostLocal<T> local() const { return HostLocal<T>(threads_); }

  template <class F>
  void each_thread(F&& f) const {
    enter_phase();
    if (shared_size_) snapshot_.assign(shared_, shared_ + shared_size_);
    for (uint32_t t = 0; t < threads_; ++t) f(t);
    if (shared_size_ && std::memcmp(snapshot_.data(), shared_, shared_size_ * sizeof(uint32_t)) != 0) {
      if (!barrier_since_phase_ && phases_ > 0) violation("a phase writes shared memory without a barrier before it");
      write_needs_barrier_ = true;
    }
    barrier_since_phase_ = false;
    ++phases_;
  }
  void barrier() const {
    for (size_t i : touched_) {
      shared_[i] += pending_[i];
      pending_[i] = 0;
    }
    touched_.clear();
    ++barriers_;
    barrier_since_phase_ = true;
    write_needs_barrier_ = false;
  }

  template <class T>
  T atomic_add(T* p, T v) const {
    if constexpr (sizeof(T) == sizeof(uint32_t)) {
      const auto* q = reinterpret_cast<const uint32_t*>(p);
      if (shared_size_ && q >= shared_ && q < shared_ + shared_size_) {
        const size_t i = size_t(q - shared_);
        if (pending_.empty()) pending_.assign(shared_size_, 0);
        if (pending_[i] == 0) touched_.push_back(i);
        const T old = T(*p + T(pending_[i]));
        pending_[i] = uint32_t(pending_[i] + uint32_t(v));
        return old;
      }
    }
    const T old = *p;
    *p = old + v;
    return old;
  }

  template <class F>
  void warp_ballot(const HostLocal<uint8_t>& flag, F&& f) const {
    enter_phase();
    for (uint32_t w0 = 0; w0 < threads_; w0 += kWarpSize) f(w0, mask_of(flag, w0));
  }

  template <class F>
  void warp_append(HitCounter* counter, const HostLocal<uint8_t>& flag, F&& write) const {
    enter_phase();
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

  void enter_phase() const {
    if (write_needs_barrier_) violation("shared memory written in a phase is used without a barrier after it");
  }
  [[noreturn]] void violation(const char* what) const {
    throw std::logic_error(std::string("emulator, block ") + std::to_string(block_) + ": " + what);
  }

  uint32_t block_, blocks_, threads_;
  uint32_t* shared_;
  size_t shared_size_;
  mutable uint64_t barriers_ = 0;
  mutable uint64_t phases_ = 0;
  mutable bool barrier_since_phase_ = false;
  mutable bool write_needs_barrier_ = false;
  mutable std::vector<uint32_t> snapshot_;
  mutable std::vector<uint32_t> pending_;  // atomic adds to shared memory not yet visible to plain reads
  mutable std::vector<size_t> touched_;
};

// Runs body(ctx) for every block of a grid with `shared_bytes` of dynamic shared memory per block.
template <class Body>
void emulate_launch(uint32_t grid, uint32_t threads, uint64_t shared_bytes, Body&& body) {
  if (grid == 0 || threads == 0 || threads % kWarpSize != 0)
    throw std::invalid_argument("emulate_launch: grid must be > 0 and threads a positive multiple of 32");
  std::vector<uint32_t> shared((shared_bytes + 3) / 4 + 1);
  for (uint32_t b = 0; b < grid; ++b) {
    for (auto& x : shared) x = 0xA5A5A5A5u;
    HostCtx ctx(b, grid, threads, shared.data(), shared.size());
    body(ctx);
  }
}

}  // namespace bloomseq::cuda
