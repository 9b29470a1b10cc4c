// Backend selection. The CUDA backend is an optional, separately built library (bloomseq_cuda); this file must
// link without it, so it refers to the CUDA factory through weak symbols: they resolve to null when the library
// is absent. bloomseq_cuda forces its factory object into every binary that links it (see cuda/CMakeLists.txt).
#include <cstdlib>
#include <ostream>
#include <string>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

// Defined in bloomseq_cuda (cuda/src/runtime_device.cpp; declared for users in bloomseq/cuda/cuda_backend.hpp).
std::unique_ptr<Backend> make_cuda_backend(int device) __attribute__((weak));
int cuda_device_count() __attribute__((weak));

// Defined in bloomseq_cuda_emu (cuda/host/emu_backend.cpp): the CUDA backend's host side on a fake device.
std::unique_ptr<Backend> make_fake_cuda_backend() __attribute__((weak));

namespace {

// BLOOMSEQ_FAKE_CUDA_DEVICE=1 puts one fake device in place of the GPUs (scripts/gpu-check.sh --fake): the
// CUDA backend's real host side with the kernels run by the host emulator, so the tools run --backend cuda
// end to end where there is no GPU.
bool fake_cuda() {
  static const bool on = [] {
    const char* e = std::getenv("BLOOMSEQ_FAKE_CUDA_DEVICE");
    return e && *e && std::string(e) != "0" && &make_fake_cuda_backend != nullptr;
  }();
  return on;
}

std::unique_ptr<Backend> cuda_backend(int device) {
  return fake_cuda() ? make_fake_cuda_backend() : make_cuda_backend(device);
}

}  // namespace

bool cuda_compiled_in() {
  return fake_cuda() || (&make_cuda_backend != nullptr && &cuda_device_count != nullptr);
}

int cuda_devices() { return fake_cuda() ? 1 : cuda_compiled_in() ? cuda_device_count() : 0; }

std::string backends_available() {
  if (!cuda_compiled_in()) return "cpu (CUDA not built)";
  const int devices = cuda_devices();
  if (devices == 0) return "cpu (CUDA built, no usable device)";
  return "cpu, cuda (" + std::to_string(devices) + (devices == 1 ? " device)" : " devices)");
}

std::unique_ptr<Backend> make_backend(const std::string& name, int device, std::ostream* log) {
  if (name != "auto" && name != "cpu" && name != "cuda")
    throw UsageError("unknown backend '" + name + "' (expected auto, cpu or cuda)");
  if (device < 0) throw UsageError("--device must be >= 0, got " + std::to_string(device));
  if (name == "cpu") return nullptr;

  const int devices = cuda_devices();
  if (name == "cuda") {
    if (!cuda_compiled_in())
      throw UsageError("--backend cuda: this build has no CUDA support (rebuild with -DBLOOMSEQ_CUDA=ON)");
    if (devices == 0) throw UsageError("--backend cuda: no usable CUDA device (no driver or no GPU found)");
    if (device >= devices)
      throw UsageError("--device " + std::to_string(device) + ": only " + std::to_string(devices) +
                       " CUDA device(s) found");
    return cuda_backend(device);
  }
  // auto
  if (devices > device) return cuda_backend(device);
  if (log) {
    if (!cuda_compiled_in())
      *log << "backend: cpu (this build has no CUDA support)\n";
    else if (devices == 0)
      *log << "backend: cpu (CUDA compiled in, but no usable CUDA device found)\n";
    else
      *log << "backend: cpu (CUDA device " << device << " not present; " << devices << " device(s) found)\n";
  }
  return nullptr;
}

}  // namespace bloomseq
