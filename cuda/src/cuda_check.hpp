// Every CUDA runtime call and every launch is checked; a failure becomes a bloomseq::Error naming the call and
// the source position.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq::cuda {

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw Error(ExitCode::internal, std::string("CUDA error: ") + call + " failed: " + cudaGetErrorName(e) + " (" +
                                      cudaGetErrorString(e) + ") at " + file + ":" + std::to_string(line));
}

}  // namespace bloomseq::cuda

#define BLOOMSEQ_CUDA_CHECK(call) ::bloomseq::cuda::check_cuda((call), #call, __FILE__, __LINE__)
// After a <<<>>> launch: configuration errors are reported by cudaGetLastError.
#define BLOOMSEQ_CUDA_CHECK_LAUNCH(name) ::bloomseq::cuda::check_cuda(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
