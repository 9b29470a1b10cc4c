// The CUDA backend's plain C++ face: no CUDA types, so apps and the library never include CUDA headers.
// Defined in bloomseq_cuda (built only when CUDA is enabled); the backend registry (backend/backend.hpp) finds
// these at link time, so most code should call make_backend("auto"|"cuda") instead.
#pragma once
#include <memory>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/cuda/launch_config.hpp"

namespace bloomseq {

// A backend on CUDA device `device`. Throws bloomseq::Error naming the failing CUDA call when the device cannot
// be used.
std::unique_ptr<Backend> make_cuda_backend(int device);

// Devices that answer; 0 when there is no driver or no device. Never throws.
int cuda_device_count();

// The device's properties as a launch-configuration profile; false when the device does not answer.
bool cuda_device_profile(int device, cuda::GpuProfile& out);

}  // namespace bloomseq
