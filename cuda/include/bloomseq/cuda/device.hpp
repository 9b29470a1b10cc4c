// The device operations the CUDA backend's host orchestration is written against (cuda_backend.cpp). Two
// implementations: the CUDA runtime (cuda/src/runtime_device.cpp, built by nvcc) and a fake asynchronous device
// (fake_device.hpp) that runs the kernel bodies on the host and checks that every use of memory is ordered the
// way CUDA orders it. Streams are non-blocking; handles are opaque.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomseq/cuda/kernels/classify_kernel.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/launch_config.hpp"

namespace bloomseq::cuda {

// classify_interleaved: the classify kernel's instance with the interleaved-group code (kept out of the plain
// instance, whose registers and occupancy it would otherwise cost: 40 instead of 32 registers for k <= 8).
enum class KernelKind { stage1a, classify, classify_interleaved };
// The classify instance a launch runs: the interleaved one exactly when the bank has groups.
inline KernelKind classify_kernel_kind(const ClassifyKernelParams& p) {
  return p.n_groups ? KernelKind::classify_interleaved : KernelKind::classify;
}
enum class CopyKind { host_to_device, device_to_host };

using StreamHandle = uintptr_t;
using EventHandle = uintptr_t;

class Device {
 public:
  virtual ~Device() = default;

  virtual model::DeviceProfile profile() const = 0;
  virtual std::string label() const = 0;
  // Kernel attributes belong to the kernel for the whole process (per device): devices that return the same
  // domain share them.
  virtual uint64_t attribute_domain() const = 0;
  // Makes this device the calling thread's current one (the CUDA runtime's state is per thread).
  virtual void make_current() {}

  // Memory. Allocation failures throw bloomseq::Error; releases never throw.
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  virtual void* allocate_pinned(size_t bytes) = 0;
  virtual void release_pinned(void* p) noexcept = 0;

  virtual StreamHandle create_stream() = 0;
  virtual void destroy_stream(StreamHandle s) noexcept = 0;
  virtual EventHandle create_event() = 0;
  virtual void destroy_event(EventHandle e) noexcept = 0;

  // Stream-ordered work. A host source may be pageable; it must stay valid until the stream is synchronised.
  // A host destination must be pinned.
  virtual void copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, StreamHandle s) = 0;
  virtual void memset_async(void* dst, int value, size_t bytes, StreamHandle s) = 0;
  virtual void launch_stage1a(int hash_registers, const LaunchConfig& c, const Stage1aKernelParams& p,
                              StreamHandle s) = 0;
  virtual void launch_classify(int hash_registers, const LaunchConfig& c, const ClassifyKernelParams& p,
                               StreamHandle s) = 0;
  virtual void record(EventHandle e, StreamHandle s) = 0;
  virtual void wait(StreamHandle s, EventHandle e) = 0;  // later work on s waits for e
  virtual void synchronize(StreamHandle s) = 0;           // the host waits for everything enqueued on s

  // Kernel properties for the launch configuration.
  virtual KernelAttributes kernel_attributes(KernelKind kind, int hash_registers) = 0;
  virtual void set_max_dynamic_shared(KernelKind kind, int hash_registers, size_t bytes) = 0;
  virtual uint32_t blocks_per_sm(KernelKind kind, int hash_registers, uint32_t threads, size_t shared_bytes) = 0;

  // The host is about to read or write pinned memory: a checking device verifies the device is done with it.
  virtual void host_access(const void* p, size_t bytes, bool write) {
    (void)p, (void)bytes, (void)write;
  }
};

}  // namespace bloomseq::cuda
