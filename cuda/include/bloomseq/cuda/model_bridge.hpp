// The link between the CUDA backend's launch planning and the performance model (bloomseq/model):
// GpuProfile (filled from cudaDeviceProp) -> model::DeviceProfile, so the occupancy the backend plans with is the
// model's (eq. 1) and predictions are made for the device the kernels run on.
#pragma once
#include "bloomseq/cuda/launch_config.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/device_profile.hpp"
#include "bloomseq/model/launch_config.hpp"

namespace bloomseq::cuda {

inline model::DeviceProfile to_model_profile(const GpuProfile& g) {
  model::GpuProperties p;
  p.name = g.name;
  p.multiprocessors = g.sm_count;
  p.shared_per_multiprocessor = g.shared_per_sm;
  p.shared_per_block_optin = g.shared_per_block_optin;
  p.reserved_shared_per_block = g.shared_reserved_per_block;
  p.registers_per_multiprocessor = g.regs_per_sm;
  p.warp_size = 32;
  p.max_blocks_per_multiprocessor = g.max_blocks_per_sm;
  p.max_threads_per_block = g.max_threads_per_block;
  p.max_threads_per_multiprocessor = g.max_threads_per_sm;
  p.l2_bytes = g.l2_bytes;
  p.clock_ghz = g.clock_ghz;
  p.mem_bandwidth_gbs = g.mem_bandwidth_gbs;
  p.async_engines = g.async_engines;
  return model::profile_from_device_properties(p);
}

inline model::KernelResources to_model_resources(const KernelAttributes& a) {
  return model::KernelResources{a.regs_per_thread, a.static_shared};
}

}  // namespace bloomseq::cuda
