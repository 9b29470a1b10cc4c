#include "bloomseq/cuda/launch_config.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "bloomseq/cuda/kernels/classify_kernel.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/model_bridge.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq::cuda {

GpuProfile gtx480_profile() {
  GpuProfile g;
  g.name = "GeForce GTX 480";
  g.sm_count = 15;
  g.max_threads_per_sm = 1536;
  g.max_blocks_per_sm = 8;
  g.regs_per_sm = 32768;
  g.shared_per_sm = 48 * 1024;
  g.shared_per_block = 48 * 1024;
  g.shared_per_block_optin = 48 * 1024;
  g.shared_reserved_per_block = 0;
  g.clock_ghz = 1.401;
  g.mem_bandwidth_gbs = 177.4;
  g.global_mem = uint64_t(1536) << 20;
  g.cc_major = 2;
  g.cc_minor = 0;
  return g;
}

GpuProfile h100_profile() {
  GpuProfile g;
  g.name = "H100 SXM5";
  g.sm_count = 132;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  g.regs_per_sm = 65536;
  g.shared_per_sm = 228 * 1024;
  g.shared_per_block = 48 * 1024;
  g.shared_per_block_optin = 227 * 1024;
  g.clock_ghz = 1.98;
  g.mem_bandwidth_gbs = 3350;
  g.global_mem = uint64_t(80) << 30;
  return g;
}

uint32_t blocks_per_sm(const GpuProfile& gpu, const KernelAttributes& attr, uint32_t threads, uint64_t shared_bytes) {
  if (threads == 0 || int(threads) > std::min(gpu.max_threads_per_block, attr.max_threads_per_block)) return 0;
  // B_a of the performance model (Ma & Chamberlain 2012, eq. 1): the tightest of the shared-memory, register,
  // block and thread limits.
  const model::ActiveBlocks ab = model::active_blocks(to_model_profile(gpu), shared_bytes + attr.static_shared,
                                                      std::max(attr.regs_per_thread, 1), int(threads));
  return uint32_t(std::max(ab.blocks, 0));
}

Stage1aPlan plan_stage1a(const GpuProfile& gpu, const KernelAttributes& attr, const Stage1aShape& shape,
                         uint32_t threads, uint32_t vectors_per_group, uint32_t known_blocks_per_sm) {
  if (threads == 0 || threads % 32 != 0) throw UsageError("threads per block must be a positive multiple of 32");
  if (shape.vectors == 0) throw UsageError("stage 1a needs at least one sub-query vector");
  Stage1aPlan plan;
  const uint64_t budget = gpu.shared_per_block_optin - std::min(gpu.shared_per_block_optin, attr.static_shared);
  const uint64_t table_bytes = stage1a_shared_words(shape.key_nibbles, shape.k, 0, 0, false) * 4;
  const uint64_t vector_bytes = uint64_t(shape.words_per_vector) * 4;
  if (table_bytes > budget) throw UsageError("hash tables do not fit in GPU shared memory");
  const uint64_t fit = (budget - table_bytes) / std::max<uint64_t>(vector_bytes, 1);
  plan.vectors_in_shared = fit >= 1;
  plan.vectors_per_group =
      plan.vectors_in_shared ? uint32_t(std::clamp<uint64_t>(vectors_per_group, 1, std::min<uint64_t>(fit, shape.vectors))) : 1;
  plan.launch.threads = threads;
  plan.launch.shared_bytes = 4 * stage1a_shared_words(shape.key_nibbles, shape.k, plan.vectors_per_group,
                                                      shape.words_per_vector, plan.vectors_in_shared);
  plan.launch.blocks_per_sm =
      known_blocks_per_sm ? known_blocks_per_sm : blocks_per_sm(gpu, attr, threads, plan.launch.shared_bytes);
  if (plan.launch.blocks_per_sm == 0) throw UsageError("stage-1a kernel: one block does not fit on a multiprocessor");
  const uint64_t resident = uint64_t(plan.launch.blocks_per_sm) * uint64_t(gpu.sm_count);
  const uint64_t groups = (shape.vectors + plan.vectors_per_group - 1) / plan.vectors_per_group;
  // Slices only when the vectors alone leave the device idle; each slice keeps >= 4 tiles of work.
  const uint64_t max_slices = std::max<uint64_t>(1, shape.n_starts / (4 * uint64_t(threads)));
  const uint64_t want = (2 * resident + groups - 1) / groups;
  plan.slices = uint32_t(std::clamp<uint64_t>(want, 1, std::min<uint64_t>(max_slices, 65535)));
  const uint64_t items = groups * plan.slices;
  plan.launch.blocks = uint32_t(std::min(items, resident));
  plan.launch.passes = uint32_t((items + resident - 1) / resident);
  return plan;
}

LaunchConfig plan_classify(const GpuProfile& gpu, const KernelAttributes& attr, uint32_t n_reads, uint32_t n_filters,
                           int k_max, int key_nibbles, uint32_t threads, uint32_t known_blocks_per_sm) {
  if (threads == 0 || threads % 32 != 0) throw UsageError("threads per block must be a positive multiple of 32");
  LaunchConfig c;
  c.threads = threads;
  c.shared_bytes = 4 * classify_shared_words(key_nibbles, k_max, n_filters);
  // Bounded here, before any opt-in: the device would refuse it as an internal error otherwise.
  const uint64_t budget = gpu.shared_per_block_optin - std::min(gpu.shared_per_block_optin, attr.static_shared);
  if (c.shared_bytes > budget)
    throw UsageError("classify: " + std::to_string(n_filters) + " filters need " + std::to_string(c.shared_bytes) +
                     " bytes of GPU shared memory per block (hash tables and one counter per filter), the device "
                     "allows " + std::to_string(budget) + ": classify against fewer filters per run");
  c.blocks_per_sm = known_blocks_per_sm ? known_blocks_per_sm : blocks_per_sm(gpu, attr, threads, c.shared_bytes);
  if (c.blocks_per_sm == 0) throw UsageError("classify kernel: one block does not fit on a multiprocessor");
  const uint64_t resident = uint64_t(c.blocks_per_sm) * uint64_t(gpu.sm_count);
  c.blocks = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(n_reads, resident)));
  c.passes = uint32_t((std::max<uint64_t>(n_reads, 1) + resident - 1) / resident);
  return c;
}

uint32_t classify_threads_for(double mean_frames) {
  const double t = std::clamp(mean_frames, 32.0, 256.0);
  return uint32_t((uint64_t(t) + 31) / 32 * 32);
}

int hash_registers_for(int k) {
  if (k < 1 || k > kMaxHashes) throw UsageError("number of hash functions must be 1..32, got " + std::to_string(k));
  return k <= 8 ? 8 : k <= 16 ? 16 : 32;
}

std::string describe(const GpuProfile& gpu) {
  std::ostringstream os;
  os << gpu.name << " (sm_" << gpu.cc_major << gpu.cc_minor << ", " << gpu.sm_count << " SMs, "
     << (gpu.global_mem >> 20) << " MiB, " << gpu.shared_per_block_optin / 1024 << " KiB shared/block)";
  return os.str();
}

}  // namespace bloomseq::cuda
