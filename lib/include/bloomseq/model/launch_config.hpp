// Kernel launch configuration from the model (plain C++, no CUDA types): the CUDA backend asks here for B_r, T_r and
// the shared memory per block, then launches. It fills KernelResources from cudaFuncGetAttributes (numRegs,
// sharedSizeBytes) and the DeviceProfile from cudaDeviceProp (see profile_from_device_properties()).
//
// BLAST stage 1a (shared memory): each block stages `vectors_per_block` sub-query vectors of m bits into shared
// memory; S_B = vectors x ceil(m/32) x 4 bytes + the kernel's static shared memory. B_r is chosen in B_opt
// (a multiple of B_a x MP, eq. 2) so f_sched = 1, and no larger than needed to cover the vectors in one wave.
// FACS (global memory): the filter stays in global memory; S_B is only the kernel's static shared memory.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/model/device_profile.hpp"
#include "bloomseq/model/equations.hpp"

namespace bloomseq::model {

// What the compiled kernel uses (cudaFuncAttributes::numRegs / sharedSizeBytes on a GPU).
struct KernelResources {
  int registers_per_thread = 32;       // R_T
  uint64_t static_shared_bytes = 256;  // shared memory besides the Bloom vectors (counters, parameters)
};

// The resources the papers' BLAST kernel must have used: R_T = 32 and a little static shared memory. Inferred from
// their observations on the GTX 480 (B_a = 2 at m = 128 Kbit and 5 at 64 Kbit need S_B > m/8; B_a = 2 at T_r = 512
// with m = 64 Kbit needs 21 < R_T <= 32). Used by the tests that reproduce the papers.
KernelResources paper_blast_kernel();

struct LaunchConfig {
  int blocks = 0;                   // B_r (grid size)
  int threads = 0;                  // T_r (block size)
  uint64_t shared_bytes = 0;        // dynamic shared memory per block to request (the vectors)
  int vectors_per_block = 1;        // sub-query vectors staged per block
  int active_blocks = 0;            // B_a, eq. 1
  OccupancyLimit limit = OccupancyLimit::Invalid;
  int passes = 0;                   // waves of blocks needed to cover all sub-queries (blocks loop over them)
  double f_sched = 0;               // eq. 12 for this B_r
  double occupancy = 0;             // active warps / max warps per MP (eq. 5.1 in warps)
  bool a_b = false, a_t = false, a_c = false;  // eqs. 4, 5, 6
  bool valid = false;
  std::string reason;               // why invalid, or notes
};

// Shared memory (bytes) for `vectors` vectors of m bits: vectors x ceil(m/32) x 4.
uint64_t vector_shared_bytes(uint64_t m_bits, int vectors = 1);

// BLAST stage 1a with vectors in shared memory. threads = 0 picks T_r (largest in T_opt keeping the best B_a x T_r,
// i.e. the most resident warps); vectors_per_block = 0 picks 1. Invalid when one vector does not fit a block.
LaunchConfig blast_launch_config(const DeviceProfile& gpu, uint64_t m_bits, uint64_t subqueries,
                                 const KernelResources& kr = {}, int threads = 0, int vectors_per_block = 1);
// FACS with filters in global memory: one block per read, `reads` reads in the batch; B_r = min(reads, a multiple of
// B_a x MP). A_C compares the filter with the cache C.
LaunchConfig facs_launch_config(const DeviceProfile& gpu, uint64_t reads, uint64_t filter_bits,
                                const KernelResources& kr = {}, int threads = 0);
// Evaluate a given (B_r, T_r) (for sweeps: throughput vs B_r, Figs. 9-12).
LaunchConfig evaluate_launch(const DeviceProfile& gpu, int blocks, int threads, uint64_t shared_per_block,
                             const KernelResources& kr, double working_set_bytes, bool working_set_in_shared);

// Plain mirror of the cudaDeviceProp fields the model reads, so cuda/ can build a profile without this header
// seeing CUDA types: fill it from cudaGetDeviceProperties and call profile_from_device_properties().
struct GpuProperties {
  std::string name;
  int multiprocessors = 0;                  // multiProcessorCount
  uint64_t shared_per_multiprocessor = 0;   // sharedMemPerMultiprocessor
  uint64_t shared_per_block_optin = 0;      // sharedMemPerBlockOptin (or sharedMemPerBlock)
  uint64_t shared_per_block = 0;            // sharedMemPerBlock (without the opt-in)
  uint64_t reserved_shared_per_block = 0;   // reservedSharedMemPerBlock
  int registers_per_multiprocessor = 0;     // regsPerMultiprocessor
  int warp_size = 32;                       // warpSize
  int max_blocks_per_multiprocessor = 0;    // maxBlocksPerMultiProcessor
  int max_threads_per_block = 0;            // maxThreadsPerBlock
  int max_threads_per_multiprocessor = 0;   // maxThreadsPerMultiProcessor
  uint64_t l2_bytes = 0;                    // l2CacheSize
  double clock_ghz = 0;                     // clockRate (kHz) / 1e6
  double mem_bandwidth_gbs = 0;             // 2 x memoryClockRate (kHz) x memoryBusWidth (bits) / 8 / 1e6
  int async_engines = 1;                    // asyncEngineCount
  uint64_t global_mem = 0;                  // totalGlobalMem
  int cc_major = 0, cc_minor = 0;           // major, minor
};
DeviceProfile profile_from_device_properties(const GpuProperties& gp);

}  // namespace bloomseq::model
