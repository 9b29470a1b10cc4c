// The real kernels: each is the shared kernel body run with the device execution context.
#include "bloomseq/cuda/kernels/stage1a_bitsliced_kernel.hpp"
#include "device_ctx.cuh"
#include "kernels.hpp"
#include "cuda_check.hpp"

namespace bloomseq::cuda {

template <int KMax>
__global__ void stage1a_kernel(const Stage1aKernelParams p) {
  DeviceCtx ctx;
  stage1a_kernel_body<KMax>(ctx, p);
}

template <int KMax, bool Interleaved>
__global__ void classify_kernel(const ClassifyKernelParams p) {
  DeviceCtx ctx;
  classify_body<KMax, Interleaved>(ctx, p);
}

namespace {

template <int KMax>
const void* kernel_symbol_for(KernelKind kind) {
  switch (kind) {
    case KernelKind::stage1a: return reinterpret_cast<const void*>(&stage1a_kernel<KMax>);
    case KernelKind::classify: return reinterpret_cast<const void*>(&classify_kernel<KMax, false>);
    default: return reinterpret_cast<const void*>(&classify_kernel<KMax, true>);
  }
}

const void* kernel_symbol(KernelKind kind, int hash_registers) {
  switch (hash_registers) {
    case 8: return kernel_symbol_for<8>(kind);
    case 16: return kernel_symbol_for<16>(kind);
    default: return kernel_symbol_for<32>(kind);
  }
}

}  // namespace

KernelAttributes kernel_attributes(KernelKind kind, int hash_registers) {
  cudaFuncAttributes a{};
  BLOOMSEQ_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel_symbol(kind, hash_registers)));
  KernelAttributes k;
  k.regs_per_thread = a.numRegs;
  k.static_shared = a.sharedSizeBytes;
  k.max_threads_per_block = a.maxThreadsPerBlock;
  return k;
}

void allow_shared_bytes(KernelKind kind, int hash_registers, size_t bytes) {
  BLOOMSEQ_CUDA_CHECK(cudaFuncSetAttribute(kernel_symbol(kind, hash_registers),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

uint32_t runtime_blocks_per_sm(KernelKind kind, int hash_registers, uint32_t threads, size_t shared_bytes) {
  int n = 0;
  BLOOMSEQ_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel_symbol(kind, hash_registers), int(threads), shared_bytes));
  return uint32_t(n > 0 ? n : 0);
}

void launch_stage1a(int hash_registers, const LaunchConfig& c, const Stage1aKernelParams& p, cudaStream_t s) {
  switch (hash_registers) {
    case 8: stage1a_kernel<8><<<c.blocks, c.threads, c.shared_bytes, s>>>(p); break;
    case 16: stage1a_kernel<16><<<c.blocks, c.threads, c.shared_bytes, s>>>(p); break;
    default: stage1a_kernel<32><<<c.blocks, c.threads, c.shared_bytes, s>>>(p); break;
  }
  BLOOMSEQ_CUDA_CHECK_LAUNCH("stage1a_kernel");
}

void launch_classify(int hash_registers, const LaunchConfig& c, const ClassifyKernelParams& p, cudaStream_t s) {
  const bool groups = classify_kernel_kind(p) == KernelKind::classify_interleaved;  // the instance planned for
  switch (hash_registers) {
    case 8:
      if (groups) classify_kernel<8, true><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      else classify_kernel<8, false><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      break;
    case 16:
      if (groups) classify_kernel<16, true><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      else classify_kernel<16, false><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      break;
    default:
      if (groups) classify_kernel<32, true><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      else classify_kernel<32, false><<<c.blocks, c.threads, c.shared_bytes, s>>>(p);
      break;
  }
  BLOOMSEQ_CUDA_CHECK_LAUNCH("classify_kernel");
}

}  // namespace bloomseq::cuda
