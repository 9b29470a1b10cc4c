#include "bloomseq/cuda/emu_backend.hpp"

#include <algorithm>

#include "bloomseq/cuda/fake_device.hpp"

namespace bloomseq::cuda {

std::unique_ptr<Backend> make_emulated_backend(const EmuOptions& o, EmuStats* stats) {
  FakeDeviceOptions d;
  d.profile = o.profile;
  if (o.shared_limit) {
    d.profile.shared_per_block_max = std::min(d.profile.shared_per_block_max, o.shared_limit);
    d.profile.shared_per_block_default = std::min(d.profile.shared_per_block_default, o.shared_limit);
  }
  d.seed = o.seed;
  CudaOptions c;
  c.stage1a_threads = o.stage1a_threads;
  c.classify_threads = o.classify_threads;
  c.vectors_per_block = o.vectors_per_group;
  c.max_blocks = o.max_blocks;
  c.slices = o.slices;
  c.initial_hit_capacity = o.initial_capacity;
  c.streams = std::max<size_t>(o.streams, 1);
  return make_backend_on(std::make_shared<FakeDevice>(d), c, "cuda-emulated", stats);
}

}  // namespace bloomseq::cuda

namespace bloomseq {

// The registry's stand-in for a GPU (BLOOMSEQ_FAKE_CUDA_DEVICE): the default options of the real backend on an
// H100-shaped fake device, so plans, slots and streams are the ones a GPU run would use.
std::unique_ptr<Backend> make_fake_cuda_backend() {
  cuda::FakeDeviceOptions d;
  d.profile = model::h100();
  d.max_delay_us = 0;
  return cuda::make_backend_on(std::make_shared<cuda::FakeDevice>(d), CudaOptions{}, "cuda");
}

}  // namespace bloomseq
