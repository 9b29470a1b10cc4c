// The tiny execution model the kernel bodies are written against, so that one body is both a real __global__
// kernel (nvcc, DeviceCtx in cuda/src/device_ctx.cuh) and a host function the tests run (HostCtx, emu_ctx.hpp).
//
// A kernel body is a sequence of PHASES separated by block barriers. Inside a phase, ctx.each_thread(f) runs
// f(thread) for every thread of the block: on the GPU each thread runs its own f(threadIdx.x); the emulator runs
// them one after another, which is equivalent because threads of a phase only communicate through barriers,
// atomics and the warp collectives below. Values that live across phases are per-thread locals
// (ctx.local<T>() — a register on the GPU, an array indexed by thread in the emulator).
//
// Every control decision outside each_thread (loops over tiles, groups, filters) must be block-uniform.
// Block sizes are multiples of 32, so every warp is full in every collective.
//
// Collectives (called by all threads of the block, from outside each_thread):
//   ctx.warp_ballot(flag, f)        f(first_thread_of_warp, mask) once per warp, mask bit i = flag of lane i
//   ctx.warp_append(counter, flag, write)
//                                   warp-aggregated append: one atomicAdd per warp reserves popc(mask) slots,
//                                   each flagged thread t gets write(t, slot); slots >= capacity are the
//                                   caller's overflow (it counts them, never writes them).
#pragma once
#include <cstdint>

#include "bloomseq/hd.hpp"

#if defined(__CUDACC__)
#define BLOOMSEQ_KERNEL_BODY __device__ __forceinline__
#else
#define BLOOMSEQ_KERNEL_BODY inline
#endif

namespace bloomseq::cuda {

constexpr uint32_t kWarpSize = 32;

// Appends are counted in 64 bits: the count may exceed the buffer (overflow is detected, never wrapped).
using HitCounter = unsigned long long;

BLOOMSEQ_HD uint32_t popcount32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__popc(x));
#else
  return uint32_t(__builtin_popcount(x));
#endif
}

// Rank of `lane` among the set lanes of a warp mask: its offset in a warp-aggregated append.
BLOOMSEQ_HD uint32_t warp_rank(uint32_t mask, uint32_t lane) { return popcount32(mask & ((1u << lane) - 1u)); }

// Lowest set lane (the leader of a warp-aggregated operation); mask != 0.
BLOOMSEQ_HD uint32_t warp_leader(uint32_t mask) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__ffs(int(mask)) - 1);
#else
  return uint32_t(__builtin_ctz(mask));
#endif
}

}  // namespace bloomseq::cuda
