// The CUDA backend's plain C++ face: no CUDA types, so apps and the library never include CUDA headers.
// make_cuda_backend and the device queries are defined in bloomseq_cuda (built only when CUDA is enabled); the
// backend registry (backend/backend.hpp) finds them at link time, so most code should call
// make_backend("auto"|"cuda") instead. make_backend_on, the host side on any Device, is in bloomseq_cuda_emu.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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
  uint64_t initial_hit_capacity = uint64_t(1) << 20;  // stage-1a hits per slot before the first overflow
  uint32_t max_blocks = 0;         // cap the grid (0: as planned): forces grid-stride passes
  uint32_t slices = 0;             // force stage-1a chunk slices (0: as planned)
};

namespace cuda {

class Device;

// What the backend did, for tests and benchmarks.
struct PipelineCounters {
  uint64_t launches = 0;
  uint64_t overflow_reruns = 0;
  uint64_t uploads = 0;  // host-to-device uploads of vectors, filters or tables (the upload cache's misses)
  uint64_t max_blocks = 0;
  uint64_t max_passes = 0;
  bool vectors_in_shared = true;  // of the last stage-1a launch
};

// The CUDA backend's host side on any Device (the CUDA runtime, or the fake device of the tests). `name` is what
// Backend::name() reports. Throws UsageError for invalid options.
std::unique_ptr<Backend> make_backend_on(std::shared_ptr<Device> device, const CudaOptions& options,
                                         const std::string& name = "cuda", PipelineCounters* counters = nullptr);

}  // namespace cuda

// A backend on CUDA device `device`. Throws bloomseq::Error naming the failing CUDA call when the device cannot
// be used.
std::unique_ptr<Backend> make_cuda_backend(int device);
std::unique_ptr<Backend> make_cuda_backend(int device, const CudaOptions& options);

// Devices that answer; 0 when there is no driver or no device. Never throws.
int cuda_device_count();

// The device's properties as the performance model's profile (what the launch arithmetic, the planner and the
// predictions take); false when the device does not answer.
bool cuda_device_profile(int device, model::DeviceProfile& out);

}  // namespace bloomseq
