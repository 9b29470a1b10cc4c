// Launch configuration (blocks B_r, threads T_r, dynamic shared memory) as plain host arithmetic, so it is
// unit-tested without a GPU. The device is the performance model's DeviceProfile (filled from
// cudaGetDeviceProperties through model::profile_from_device_properties, or a built-in one in tests), so the
// occupancy the kernels are launched with is the model's eq. 1. KernelAttributes come from cudaFuncGetAttributes.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::cuda {

struct KernelAttributes {
  int regs_per_thread = 32;
  uint64_t static_shared = 0;
  int max_threads_per_block = 1024;
};

struct LaunchConfig {
  uint32_t blocks = 0;         // B_r
  uint32_t threads = 0;        // T_r (multiple of 32)
  uint64_t shared_bytes = 0;   // dynamic shared memory per block
  uint32_t blocks_per_sm = 0;  // resident blocks per SM at this configuration (B_a)
  uint32_t passes = 0;         // ceil(work items / (B_a * MP))
};

// Resident blocks per SM (0 if one block does not fit): the minimum over the thread, block, register and
// shared-memory limits.
uint32_t blocks_per_sm(const model::DeviceProfile& gpu, const KernelAttributes& attr, uint32_t threads, uint64_t shared_bytes);

struct Stage1aShape {
  uint32_t vectors = 0;
  uint32_t words_per_vector = 0;
  int k = 0;
  int key_nibbles = 0;
  uint64_t n_starts = 0;  // tested w-mer starts per chunk (every start, or those at the chunk's stride)
};

struct Stage1aPlan {
  LaunchConfig launch;
  uint32_t vectors_per_group = 1;
  uint32_t slices = 1;
  bool vectors_in_shared = true;
};

// The paper's decomposition: one sub-query vector per block in shared memory (vectors_per_group > 1 when asked
// and it fits); the chunk is cut into slices when there are too few vectors to fill the device (2 waves);
// blocks = min(work items, resident blocks), the rest are later passes of the grid-stride loop.
// Throws UsageError if even the hash tables do not fit in shared memory.
// `known_blocks_per_sm` > 0 replaces the computed occupancy (the CUDA backend passes what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor reports for the planned block, which also knows the register
// allocation granularity).
Stage1aPlan plan_stage1a_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr, const Stage1aShape& shape,
                                uint32_t threads = 256, uint32_t vectors_per_group = 1,
                                uint32_t known_blocks_per_sm = 0);

// The bit-sliced stage-1a kernel: no vector in shared memory (the rows stay in global memory / L2), only the
// nibble tables; one thread per (tested start, row word), tiles of `threads` items grid-stride over
// min(tiles, resident blocks) blocks. `known_blocks_per_sm` as above.
struct BitslicedShape {
  int k = 0;
  int key_nibbles = 0;
  uint64_t items = 0;  // tested starts x words per row
};
LaunchConfig plan_bitsliced_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr,
                                   const BitslicedShape& shape, uint32_t threads = 256,
                                   uint32_t known_blocks_per_sm = 0);

// FACS: one block per read, grid-stride over the batch; shared memory holds the nibble tables and the
// per-filter counts, and with interleaved groups each thread's frame hashes and row words.
LaunchConfig plan_classify_launch(const model::DeviceProfile& gpu, const KernelAttributes& attr, uint32_t n_reads,
                                  uint32_t n_filters, int k_max, int key_nibbles, uint32_t threads = 128,
                                  uint32_t known_blocks_per_sm = 0, bool interleaved = false);

// Threads per read block: enough for one tile over a typical read's frames (32..256, multiple of 32).
uint32_t classify_threads_for(double mean_frames);

// The template instance of a kernel for a given k: 8, 16 or 32 hash registers.
int hash_registers_for(int k);

// One line for logs: name, compute capability, multiprocessors, memory, shared memory per block.
std::string describe_gpu(const model::DeviceProfile& gpu);

}  // namespace bloomseq::cuda
