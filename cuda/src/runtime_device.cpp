// The Device of the CUDA runtime: every call is checked and a failure becomes a bloomseq::Error naming it.
// The host orchestration (cuda/host/cuda_backend.cpp) is shared with the fake device of the tests.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>

#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/device.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/launch_config.hpp"
#include "cuda_check.hpp"
#include "kernels.hpp"

namespace bloomseq {
namespace cuda {
namespace {

model::DeviceProfile profile_of(const cudaDeviceProp& d, int device) {
  model::GpuProperties g;
  g.name = d.name;
  g.multiprocessors = d.multiProcessorCount;
  g.max_threads_per_multiprocessor = d.maxThreadsPerMultiProcessor;
  g.max_blocks_per_multiprocessor = d.maxBlocksPerMultiProcessor;
  g.max_threads_per_block = d.maxThreadsPerBlock;
  g.registers_per_multiprocessor = d.regsPerMultiprocessor;
  g.warp_size = d.warpSize;
  g.shared_per_multiprocessor = d.sharedMemPerMultiprocessor;
  g.shared_per_block = d.sharedMemPerBlock;
  g.shared_per_block_optin = std::max<uint64_t>(d.sharedMemPerBlockOptin, d.sharedMemPerBlock);
  g.reserved_shared_per_block = d.reservedSharedMemPerBlock;
  g.global_mem = d.totalGlobalMem;
  g.l2_bytes = uint64_t(d.l2CacheSize);
  g.async_engines = d.asyncEngineCount;
  g.cc_major = d.major;
  g.cc_minor = d.minor;
  int clock_khz = 0, mem_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) == cudaSuccess) g.clock_ghz = clock_khz / 1e6;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
    g.mem_bandwidth_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return model::profile_from_device_properties(g);
}

cudaStream_t stream_of(StreamHandle s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t event_of(EventHandle e) { return reinterpret_cast<cudaEvent_t>(e); }

class RuntimeDevice final : public Device {
 public:
  explicit RuntimeDevice(int device) : device_(device) {
    make_current();
    cudaDeviceProp prop{};
    BLOOMSEQ_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    profile_ = profile_of(prop, device);
  }
  model::DeviceProfile profile() const override { return profile_; }
  std::string label() const override { return "cuda:" + std::to_string(device_); }
  uint64_t attribute_domain() const override { return uint64_t(device_); }
  void make_current() override { BLOOMSEQ_CUDA_CHECK(cudaSetDevice(device_)); }

  void* allocate(size_t bytes) override {
    void* p = nullptr;
    BLOOMSEQ_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void release(void* p) noexcept override {
    if (p) (void)cudaFree(p);
  }
  void* allocate_pinned(size_t bytes) override {
    void* p = nullptr;
    BLOOMSEQ_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  void release_pinned(void* p) noexcept override {
    if (p) (void)cudaFreeHost(p);
  }

  StreamHandle create_stream() override {
    cudaStream_t s = nullptr;
    BLOOMSEQ_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return reinterpret_cast<StreamHandle>(s);
  }
  void destroy_stream(StreamHandle s) noexcept override { (void)cudaStreamDestroy(stream_of(s)); }
  EventHandle create_event() override {
    cudaEvent_t e = nullptr;
    BLOOMSEQ_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return reinterpret_cast<EventHandle>(e);
  }
  void destroy_event(EventHandle e) noexcept override { (void)cudaEventDestroy(event_of(e)); }

  void copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, StreamHandle s) override {
    BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes,
                                        kind == CopyKind::host_to_device ? cudaMemcpyHostToDevice
                                                                         : cudaMemcpyDeviceToHost,
                                        stream_of(s)));
  }
  void memset_async(void* dst, int value, size_t bytes, StreamHandle s) override {
    BLOOMSEQ_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_of(s)));
  }
  void launch_stage1a(int regs, const LaunchConfig& c, const Stage1aKernelParams& p, StreamHandle s) override {
    cuda::launch_stage1a(regs, c, p, stream_of(s));
  }
  void launch_classify(int regs, const LaunchConfig& c, const ClassifyKernelParams& p, StreamHandle s) override {
    cuda::launch_classify(regs, c, p, stream_of(s));
  }
  void record(EventHandle e, StreamHandle s) override { BLOOMSEQ_CUDA_CHECK(cudaEventRecord(event_of(e), stream_of(s))); }
  void wait(StreamHandle s, EventHandle e) override {
    BLOOMSEQ_CUDA_CHECK(cudaStreamWaitEvent(stream_of(s), event_of(e), 0));
  }
  void synchronize(StreamHandle s) override { BLOOMSEQ_CUDA_CHECK(cudaStreamSynchronize(stream_of(s))); }

  KernelAttributes kernel_attributes(KernelKind kind, int regs) override { return cuda::kernel_attributes(kind, regs); }
  void set_max_dynamic_shared(KernelKind kind, int regs, size_t bytes) override {
    allow_shared_bytes(kind, regs, bytes);
  }
  uint32_t blocks_per_sm(KernelKind kind, int regs, uint32_t threads, size_t shared_bytes) override {
    return runtime_blocks_per_sm(kind, regs, threads, shared_bytes);
  }

 private:
  int device_;
  model::DeviceProfile profile_;
};

}  // namespace
}  // namespace cuda

int cuda_device_count() {
  int n = 0;
  // No driver, an old driver or no device: all mean "no usable device", never an exception.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

bool cuda_device_profile(int device, model::DeviceProfile& out) {
  if (device < 0 || device >= cuda_device_count()) return false;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  if (cudaSetDevice(device) != cudaSuccess) return false;
  out = cuda::profile_of(prop, device);
  return true;
}

std::unique_ptr<Backend> make_cuda_backend(int device) { return make_cuda_backend(device, CudaOptions{}); }

std::unique_ptr<Backend> make_cuda_backend(int device, const CudaOptions& options) {
  const int n = cuda_device_count();
  if (device < 0 || device >= n)
    throw UsageError("CUDA device " + std::to_string(device) + " not available (" + std::to_string(n) +
                     " device(s) found)");
  return cuda::make_backend_on(std::make_shared<cuda::RuntimeDevice>(device), options);
}

}  // namespace bloomseq
