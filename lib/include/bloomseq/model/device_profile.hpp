// The architecture parameters the performance model needs (Ma & Chamberlain 2012, Table II; Ma 2014, Table 5.2),
// for a GPU or for a CPU, plus the calibrated coefficients that turn the model's proportionalities into seconds.
//
// GPU symbols: MP multiprocessors, S (Z) shared memory per multiprocessor, R registers per multiprocessor, W warp
// size, N_W minimum warps per block, B_max maximum resident blocks in total (the papers' "max number of blocks",
// i.e. per-multiprocessor limit x MP), T_maxB threads per block, T_maxMP threads per multiprocessor, C cache size.
// CPU mapping (docs/performance-model.md): MP = cores, B_a = hardware threads per core, the cache levels replace the
// single C, and the private caches play the role of shared memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bloomseq::model {

enum class DeviceKind { Gpu, Cpu };

// One level of a cache hierarchy as the random-access model sees it: capacity and the cost of a hit there.
struct CacheLevel {
  int level = 0;              // 1, 2, 3; 0 = main memory (DRAM, capacity unbounded)
  uint64_t size_bytes = 0;    // per core for private levels, whole cache for shared ones
  double latency_ns = 0;      // load-to-use latency of a dependent access (P-chase)
  double random_ns = 0;       // cost of one independent random read at full memory-level parallelism (0 = unknown)
  bool shared = false;        // shared by all cores (L3) rather than private
};

struct DeviceProfile {
  std::string name;
  DeviceKind kind = DeviceKind::Gpu;
  std::string source;  // where the numbers come from (datasheet, paper, sysfs, calibration)

  // ---- GPU architecture parameters (Table II / 5.2) ----
  int mp = 0;                          // MP (= P/Q)
  int cores_per_mp = 0;                // Q
  uint64_t shared_per_mp = 0;          // S (Z), bytes usable for blocks on one multiprocessor
  uint64_t shared_per_block_max = 0;   // largest S_B one block may request (after the opt-in attribute)
  uint64_t shared_per_block_default = 0;  // S_B a kernel gets without opting in (48 KiB since compute 2.0)
  uint64_t reserved_shared_per_block = 0;  // bytes the runtime reserves per block (1 KiB since compute 8.0)
  uint64_t registers_per_mp = 0;       // R (32-bit registers)
  int warp_size = 32;                  // W
  int min_warps = 6;                   // N_W
  int max_blocks_total = 0;            // B_max (papers: total resident blocks = per-MP limit x MP)
  int max_threads_per_block = 0;       // T_maxB
  int max_threads_per_mp = 0;          // T_maxMP
  uint64_t cache_bytes = 0;            // C: on-chip cache in front of global memory (L1 per MP); 0 = uncached
  uint64_t l2_bytes = 0;               // device-wide L2 (used by the global-memory layouts)
  double clock_ghz = 0;                // SM clock (boost), used to scale built-in estimates
  double mem_bandwidth_gbs = 0;        // DRAM/HBM bandwidth
  int copy_engines = 1;                // concurrent host<->device copies (streams that can overlap)
  uint64_t global_mem_bytes = 0;       // device memory
  int cc_major = 0, cc_minor = 0;      // compute capability

  // ---- CPU parameters ----
  int cores = 0;                       // P: cores (or hardware threads) the work units are spread over
  int threads_per_core = 1;            // CPU analogue of B_a
  int simd_bits = 0;                   // widest usable vector width (128/256/512)
  bool has_avx2 = false, has_avx512 = false, has_gfni = false;
  std::vector<CacheLevel> caches;      // ascending level; the last entry is DRAM (level 0)

  // Total cores' worth of parallel units: MP for a GPU, cores x threads_per_core for a CPU.
  int parallel_units() const { return kind == DeviceKind::Gpu ? mp : cores * threads_per_core; }
  // Capacity of cache level `level` (0 if absent).
  uint64_t cache_size(int level) const;
  const CacheLevel* find_cache(int level) const;
};

// Stage-1a constants of one CPU layout fitted on blast-bloom's own kernel timed during calibration (the kernel
// probe, blast/kernel_probe.hpp; the fit, model/kernel_fit.hpp). The terms are those of predict_stage1a for that
// layout; when `fitted`, they replace the micro-benchmark constants for that layout's stage-1a time.
struct KernelCoefficients {
  bool fitted = false;
  double hash_ns = 0, probe_ns = 0, mispredict_ns = 0;        // vector layout (hash_ns: both)
  double row_fixed_ns = 0, row_byte_ns = 0, row_miss_ns = 0;  // bit-sliced layout
  double hash_generic_ns = 0;  // bit-sliced: one H3 function where the kernel has no fixed-k path for this k
  double narrow_fixed_ns = 0;  // bit-sliced, V <= 256 (rows of 1-4 words): per db w-mer
  double narrow_row_ns = 0;    // bit-sliced, V <= 256: per row read (one prefetched line, wherever it is cached)
  // Bit-sliced: a DRAM miss when the matrix is a single 512-column block. The same lines are then hot for every
  // database chunk and stay partly in the shared cache, where several blocks, read one pass each, evict each other.
  double row_miss_single_ns = 0;
  // Bit-sliced: the last cache level's capacity as the kernel sees it (found by the fit, as the papers find G;
  // a shared L3 holds less than its size for one process on a busy machine). 0 = the profile's.
  uint64_t llc_bytes = 0;
  double hit_ns = 0;                                          // both
  double a0 = 0;                                              // seconds per stage-1a call
  double r2 = 0;                                              // of the fit on the probe's points
  int points = 0;                                             // probe points fitted
};

// The calibrated constants (Ma et al. 2011 eq. 7: Time = a1 * f_app * f_cache * f_sched + a0) and the extensions'
// per-operation costs. Defaults are estimates; `calibrated` says whether a measurement produced them.
struct Calibration {
  bool calibrated = false;
  std::string source = "built-in defaults (not calibrated)";
  double a1 = 1e-9;        // seconds per unit of f_app (per hash-and-probe for BLAST stage 1a)
  double a0 = 0;           // fixed seconds (launch, set-up)
  double G = 4;            // miss slowdown of eq. 11 (global memory vs cache; on a CPU: DRAM vs L1 random reads)
  double G_l1 = 1.3;       // eq. 11's G for the CPU paper-vector kernel when vector + tables exceed L1 (fitted)
  // Extensions (CPU layouts and the pipeline view):
  double hash_ns = 0.4;        // one H3 function evaluated with the byte tables (per function, per w-mer)
  double probe_ns = 1.0;       // one Bloom probe that hits L1 (the model scales it with the cache factor)
  double mispredict_ns = 5.0;  // vector layout: one mispredicted branch (bit set / clear; expected_mispredicts)
  double row_byte_ns = 0.12;   // bit-sliced: one byte of a row line read (64 per line), cache-resident
  double row_miss_ns = 8.0;    // bit-sliced: extra cost of a row line served from DRAM (random, prefetched)
  double row_fixed_ns = 15.0;  // bit-sliced: one db w-mer x 512-column block (its first two rows' wait)
  double hit_ns = 4;           // stage 1a (CPU layouts): emitting and ordering one hit (dominates at high FPR)
  double verify_ns = 60;       // stage 1b: one exact verification of a stage-1a hit (hash-table lookup)
  double pcie_gbs = 12;        // host<->device copies (GPU only)
  KernelCoefficients kernel_vector, kernel_bitsliced;  // from the kernel probe (not fitted: use the constants above)
};

// Human-readable one-paragraph summary (for --help/--stats and the calibrate tool).
std::string describe(const DeviceProfile& p);

}  // namespace bloomseq::model
