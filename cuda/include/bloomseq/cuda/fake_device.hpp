// A fake asynchronous CUDA device for the tests of the backend's host orchestration. Every stream is a worker
// thread that runs its operations late (a random delay before each), so streams finish out of order; kernels run
// the shared kernel bodies through the host emulator (emu_ctx.hpp) on the device's "memory" (host memory the
// device hands out). Host sources of asynchronous copies are read when the copy runs, not when it is enqueued.
//
// Every operation declares what it reads and writes. At enqueue time the device checks, with vector clocks, that
// each conflicting earlier use of the same bytes is ordered before it the way CUDA orders work: earlier on the same
// stream, before an event the stream waits for, or finished before the host enqueued it (stream synchronised).
// Host accesses to pinned memory and frees are checked the same way against the host's knowledge. Freed memory is
// poisoned and never handed out again, so later uses are reported, and accesses outside live allocations are
// reported. A violation is recorded (violations()) and, where the call may throw, thrown as std::logic_error.
//
// Kernel attributes (the dynamic shared memory opt-in) are per kernel per device, like a process's kernels; a
// launch above the opt-in fails as on a GPU.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bloomseq/model/profiles.hpp"
#include "bloomseq/cuda/device.hpp"

namespace bloomseq::cuda {

struct FakeDeviceOptions {
  model::DeviceProfile profile = model::with_multiprocessors(model::h100(), 1);
  uint64_t seed = 1;
  uint32_t max_delay_us = 20;  // each operation waits up to this long before it runs
  // The runtime's occupancy: this many resident blocks fewer than the plain model (at least 1), so the
  // backend's replan from the runtime's answer is exercised.
  uint32_t occupancy_deficit = 0;
  // Called with the running number and size of each allocation (device and pinned); true makes it fail.
  std::function<bool(uint64_t allocation, size_t bytes)> fail_allocation;
};

struct FakeDeviceStats {
  uint64_t allocations = 0;
  uint64_t failed_allocations = 0;
  uint64_t launches = 0;
  uint64_t host_to_device_bytes = 0;
  uint64_t frees_while_busy = 0;  // frees while a stream has work the host has not waited for: each stalls a real device
};

class FakeDevice final : public Device {
 public:
  explicit FakeDevice(FakeDeviceOptions options = {});
  ~FakeDevice() override;
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  model::DeviceProfile profile() const override;
  std::string label() const override;
  uint64_t attribute_domain() const override;

  void* allocate(size_t bytes) override;
  void release(void* p) noexcept override;
  void* allocate_pinned(size_t bytes) override;
  void release_pinned(void* p) noexcept override;

  StreamHandle create_stream() override;
  void destroy_stream(StreamHandle s) noexcept override;
  EventHandle create_event() override;
  void destroy_event(EventHandle e) noexcept override;

  void copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, StreamHandle s) override;
  void memset_async(void* dst, int value, size_t bytes, StreamHandle s) override;
  void launch_stage1a(int hash_registers, const LaunchConfig& c, const Stage1aKernelParams& p,
                      StreamHandle s) override;
  void launch_classify(int hash_registers, const LaunchConfig& c, const ClassifyKernelParams& p,
                       StreamHandle s) override;
  void record(EventHandle e, StreamHandle s) override;
  void wait(StreamHandle s, EventHandle e) override;
  void synchronize(StreamHandle s) override;

  KernelAttributes kernel_attributes(KernelKind kind, int hash_registers) override;
  void set_max_dynamic_shared(KernelKind kind, int hash_registers, size_t bytes) override;
  uint32_t blocks_per_sm(KernelKind kind, int hash_registers, uint32_t threads, size_t shared_bytes) override;

  void host_access(const void* p, size_t bytes, bool write) override;

  std::vector<std::string> violations() const;
  FakeDeviceStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace bloomseq::cuda
