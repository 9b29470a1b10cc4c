// The CUDA backend's plain C++ face: no CUDA types, so apps and the library never include CUDA headers.
// Defined in bloomseq_cuda (built only when CUDA is enabled); the backend registry (backend/backend.hpp) finds
// these at link time, so most code should call make_backend("auto"|"cuda") instead.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/cuda/launch_config.hpp"
#include "bloomseq/model/device_profile.hpp"

namespace bloomseq {

// Tuning knobs (benchmarks, experiments); the defaults are the paper's design.
struct CudaOptions {
  uint32_t stage1a_threads = 256;  // T_r of the stage-1a kernel (multiple of 32)
  uint32_t vectors_per_block = 1;  // sub-query vectors staged per block (clamped to what fits)
  uint32_t classify_threads = 0;   // 0: from the batch's mean read length
  size_t streams = 3;              // >= 1
};

// A backend on CUDA device `device`. Throws bloomseq::Error naming the failing CUDA call when the device cannot
// be used.
std::unique_ptr<Backend> make_cuda_backend(int device);
std::unique_ptr<Backend> make_cuda_backend(int device, const CudaOptions& options);

// Devices that answer; 0 when there is no driver or no device. Never throws.
int cuda_device_count();

// The device's properties as a launch-configuration profile; false when the device does not answer.
bool cuda_device_profile(int device, cuda::GpuProfile& out);
// The same as the performance model's DeviceProfile (what the planner and the predictions take).
bool cuda_device_profile(int device, model::DeviceProfile& out);

}  // namespace bloomseq
