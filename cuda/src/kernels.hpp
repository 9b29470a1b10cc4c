// Host entry points of the kernels (kernels.cu): launches on a stream, attributes for the launch configuration.
#pragma once
#include <cuda_runtime.h>

#include "bloomseq/cuda/device.hpp"

namespace bloomseq::cuda {

// Registers and static shared memory of the instance for `hash_registers` (8, 16 or 32): cudaFuncGetAttributes.
KernelAttributes kernel_attributes(KernelKind kind, int hash_registers);
// Allows `bytes` of dynamic shared memory (above the 48 KiB default needs this opt-in).
void allow_shared_bytes(KernelKind kind, int hash_registers, size_t bytes);

// Resident blocks per multiprocessor reported by the runtime for this block shape (0 if it cannot run).
uint32_t runtime_blocks_per_sm(KernelKind kind, int hash_registers, uint32_t threads, size_t shared_bytes);

void launch_stage1a(int hash_registers, const LaunchConfig& c, const Stage1aKernelParams& p, cudaStream_t s);
void launch_classify(int hash_registers, const LaunchConfig& c, const ClassifyKernelParams& p, cudaStream_t s);

}  // namespace bloomseq::cuda
