#include "bloomseq/cuda/launch_config.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "bloomseq/cuda/kernels/classify_kernel.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq::cuda {

uint32_t blocks_per_sm(const model::DeviceProfile& gpu, const KernelAttributes& attr, uint32_t threads, uint64_t shared_bytes) {
  if (threads == 0 || int(threads) > std::min(gpu.max_threads_per_block, attr.max_threads_per_block)) return 0;
  // B_a of the performance model (Ma & Chamberlain 2012, eq. 1): the tightest of the shared-memory, register,
  // block and thread limits.
  const model::ActiveBlocks ab = model::active_blocks(gpu, shared_bytes + attr.static_shared,
                                                      std::max(attr.regs_per_thread, 1), int(threads));
  return uint32_t(std::max(ab.blocks, 0));
}

Stage1aPlan plan_stage1a_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr, const Stage1aShape& shape,
                         uint32_t threads, uint32_t vectors_per_group, uint32_t known_blocks_per_sm) {
  if (threads == 0 || threads % 32 != 0) throw UsageError("threads per block must be a positive multiple of 32");
  if (shape.vectors == 0) throw UsageError("stage 1a needs at least one sub-query vector");
  Stage1aPlan plan;
  const uint64_t budget = gpu.shared_per_block_max - std::min(gpu.shared_per_block_max, attr.static_shared);
  const uint64_t table_bytes = stage1a_shared_words(shape.key_nibbles, shape.k, 0, 0, false) * 4;
  const uint64_t vector_bytes = uint64_t(shape.words_per_vector) * 4;
  if (table_bytes > budget) throw UsageError("hash tables do not fit in GPU shared memory");
  const uint64_t fit = (budget - table_bytes) / std::max<uint64_t>(vector_bytes, 1);
  // A block copies its vectors into shared memory once per work item; probed where they lie (global memory, L2)
  // they cost about k reads per tested w-mer instead. Few vectors spread over many slices (a short query's exact
  // filter of 4^p bits) would copy more words than they test: those are probed in global memory. The estimate
  // takes the fewest slices the device could be given (one block per multiprocessor, two waves).
  const uint64_t min_slices =
      std::clamp<uint64_t>((2 * uint64_t(gpu.mp) + shape.vectors - 1) / shape.vectors, 1,
                           std::max<uint64_t>(1, shape.n_starts / (4 * uint64_t(threads))));
  const uint64_t probes_per_item = shape.n_starts / min_slices * uint64_t(std::max(shape.k, 1));
  plan.vectors_in_shared = fit >= 1 && shape.words_per_vector <= probes_per_item;
  plan.vectors_per_group =
      plan.vectors_in_shared ? uint32_t(std::clamp<uint64_t>(vectors_per_group, 1, std::min<uint64_t>(fit, shape.vectors))) : 1;
  plan.launch.threads = threads;
  plan.launch.shared_bytes = 4 * stage1a_shared_words(shape.key_nibbles, shape.k, plan.vectors_per_group,
                                                      shape.words_per_vector, plan.vectors_in_shared);
  plan.launch.blocks_per_sm =
      known_blocks_per_sm ? known_blocks_per_sm : blocks_per_sm(gpu, attr, threads, plan.launch.shared_bytes);
  if (plan.launch.blocks_per_sm == 0) throw UsageError("stage-1a kernel: one block does not fit on a multiprocessor");
  const uint64_t resident = uint64_t(plan.launch.blocks_per_sm) * uint64_t(gpu.mp);
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

LaunchConfig plan_bitsliced_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr,
                                   const BitslicedShape& shape, uint32_t threads, uint32_t known_blocks_per_sm) {
  if (threads == 0 || threads % 32 != 0) throw UsageError("threads per block must be a positive multiple of 32");
  LaunchConfig c;
  c.threads = threads;
  c.shared_bytes = stage1a_shared_words(shape.key_nibbles, shape.k, 0, 0, false) * 4;
  const uint64_t budget = gpu.shared_per_block_max - std::min(gpu.shared_per_block_max, attr.static_shared);
  if (c.shared_bytes > budget) throw UsageError("hash tables do not fit in GPU shared memory");
  c.blocks_per_sm = known_blocks_per_sm ? known_blocks_per_sm : blocks_per_sm(gpu, attr, threads, c.shared_bytes);
  if (c.blocks_per_sm == 0) throw UsageError("stage-1a kernel: one block does not fit on a multiprocessor");
  const uint64_t resident = uint64_t(c.blocks_per_sm) * uint64_t(gpu.mp);
  const uint64_t tiles = std::max<uint64_t>(1, (shape.items + threads - 1) / threads);
  c.blocks = uint32_t(std::min(tiles, resident));
  c.passes = uint32_t((tiles + c.blocks - 1) / c.blocks);
  return c;
}

LaunchConfig plan_classify_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr, uint32_t n_reads, uint32_t n_filters,
                           int k_max, int key_nibbles, uint32_t threads, uint32_t known_blocks_per_sm,
                           bool interleaved) {
  if (threads == 0 || threads % 32 != 0) throw UsageError("threads per block must be a positive multiple of 32");
  LaunchConfig c;
  c.threads = threads;
  c.shared_bytes = 4 * classify_shared_words(key_nibbles, k_max, n_filters, threads, interleaved);
  // Bounded here, before any opt-in: the device would refuse it as an internal error otherwise.
  const uint64_t budget = gpu.shared_per_block_max - std::min(gpu.shared_per_block_max, attr.static_shared);
  if (c.shared_bytes > budget)
    throw UsageError("classify: " + std::to_string(n_filters) + " filters need " + std::to_string(c.shared_bytes) +
                     " bytes of GPU shared memory per block (hash tables, one counter per filter and, for interleaved "
                     "groups, the frames' hashes and row words), the device "
                     "allows " + std::to_string(budget) + ": classify against fewer filters per run");
  c.blocks_per_sm = known_blocks_per_sm ? known_blocks_per_sm : blocks_per_sm(gpu, attr, threads, c.shared_bytes);
  if (c.blocks_per_sm == 0) throw UsageError("classify kernel: one block does not fit on a multiprocessor");
  const uint64_t resident = uint64_t(c.blocks_per_sm) * uint64_t(gpu.mp);
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

std::string describe_gpu(const model::DeviceProfile& gpu) {
  std::ostringstream os;
  os << gpu.name << " (sm_" << gpu.cc_major << gpu.cc_minor << ", " << gpu.mp << " SMs, "
     << (gpu.global_mem_bytes >> 20) << " MiB, " << gpu.shared_per_block_max / 1024 << " KiB shared/block)";
  return os.str();
}

}  // namespace bloomseq::cuda
