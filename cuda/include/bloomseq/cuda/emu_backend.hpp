// The CUDA backend (make_backend_on, cuda_backend.hpp) on the fake asynchronous device (fake_device.hpp): the
// real host orchestration with the kernel bodies run by the host emulator. Tests compare it with the CPU
// reference bit for bit; the knobs below force the awkward paths (tiny grids = many passes, tiny output buffers
// = overflow reruns, several vectors per block, chunk slices, vectors too large for shared memory).
#pragma once
#include <cstdint>
#include <memory>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/model/profiles.hpp"
#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/launch_config.hpp"

namespace bloomseq::cuda {

struct EmuOptions {
  // The device the plan is made for: an H100 with one multiprocessor unless a test says otherwise.
  model::DeviceProfile profile = model::with_multiprocessors(model::h100(), 1);
  uint32_t stage1a_threads = 64;
  uint32_t classify_threads = 64;
  uint32_t vectors_per_group = 1;
  uint32_t max_blocks = 0;          // cap the grid (0: as planned)
  uint32_t slices = 0;              // force chunk slices (0: as planned)
  uint32_t initial_capacity = 1u << 16;  // stage-1a hit buffer, grown on overflow
  size_t streams = 2;
  uint64_t shared_limit = 0;        // pretend shared memory per block is this small (0: profile's)
  uint64_t seed = 1;                // the fake device's timing
};

using EmuStats = PipelineCounters;

std::unique_ptr<Backend> make_emulated_backend(const EmuOptions& options = {}, EmuStats* stats = nullptr);

// Calls f(std::integral_constant<int, R>{}) with R = hash_registers_for(k).
template <class F>
decltype(auto) with_hash_registers(int k, F&& f);

}  // namespace bloomseq::cuda

#include <type_traits>

template <class F>
decltype(auto) bloomseq::cuda::with_hash_registers(int k, F&& f) {
  switch (hash_registers_for(k)) {
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    default: return f(std::integral_constant<int, 32>{});
  }
}
