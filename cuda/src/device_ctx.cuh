// The execution model of exec.hpp on a real GPU: each thread runs its own f(threadIdx.x), barriers are
// __syncthreads, per-thread locals are registers, warp collectives use ballot/shuffle.
#pragma once
#include <cstdint>

#include "bloomseq/cuda/exec.hpp"

namespace bloomseq::cuda {

template <class T>
struct DeviceLocal {
  T v;
  __device__ __forceinline__ T& operator()(uint32_t) { return v; }
  __device__ __forceinline__ const T& operator()(uint32_t) const { return v; }
};

struct DeviceCtx {
  __device__ __forceinline__ uint32_t block() const { return blockIdx.x; }
  __device__ __forceinline__ uint32_t blocks() const { return gridDim.x; }
  __device__ __forceinline__ uint32_t threads() const { return blockDim.x; }
  __device__ __forceinline__ uint32_t* shared_words() const {
    extern __shared__ uint32_t bloomseq_dynamic_shared[];
    return bloomseq_dynamic_shared;
  }
  template <class T>
  __device__ __forceinline__ DeviceLocal<T> local() const {
    return DeviceLocal<T>();
  }
  template <class F>
  __device__ __forceinline__ void each_thread(F&& f) const {
    f(uint32_t(threadIdx.x));
  }
  __device__ __forceinline__ void barrier() const { __syncthreads(); }
  __device__ __forceinline__ static uint32_t atomic_add(uint32_t* p, uint32_t v) { return atomicAdd(p, v); }
  __device__ __forceinline__ static HitCounter atomic_add(HitCounter* p, HitCounter v) { return atomicAdd(p, v); }

  // Block sizes are multiples of 32 and collectives are reached by whole blocks: every lane is active.
  template <class F>
  __device__ __forceinline__ void warp_ballot(const DeviceLocal<uint8_t>& flag, F&& f) const {
    const uint32_t mask = __ballot_sync(0xFFFFFFFFu, flag.v != 0);
    if ((threadIdx.x & (kWarpSize - 1)) == 0) f(uint32_t(threadIdx.x), mask);
  }

  template <class F>
  __device__ __forceinline__ void warp_append(HitCounter* counter, const DeviceLocal<uint8_t>& flag, F&& write) const {
    const bool mine = flag.v != 0;
    const uint32_t mask = __ballot_sync(0xFFFFFFFFu, mine);
    if (mask == 0) return;  // the same for every lane of the warp
    const uint32_t lane = threadIdx.x & (kWarpSize - 1);
    const uint32_t leader = warp_leader(mask);
    HitCounter base = 0;
    if (lane == leader) base = atomicAdd(counter, HitCounter(popcount32(mask)));
    base = __shfl_sync(0xFFFFFFFFu, base, int(leader));
    if (mine) write(uint32_t(threadIdx.x), base + warp_rank(mask, lane));
  }
};

}  // namespace bloomseq::cuda
