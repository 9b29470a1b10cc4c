// The performance model's equations, one small function each, named after the papers:
//   [2011] Ma, Chamberlain, Buhler, Franklin, "Bloom filter performance on graphics engines", ICPP 2011, §III
//   [2012] Ma, Chamberlain, "A performance model for memory bandwidth constrained applications on graphics
//          engines", ASAP 2012, §II (eqs. 1-13) and §IV-V (eqs. 18-23)
//   [2014] Ma, dissertation, ch. 5 (eqs. 5.1-5.28) and ch. 6 (eq. 6.3)
// Sizes: m is in bits where the papers mean a Bloom vector and in bytes where they compare with S or C; the
// functions say which. Nothing here allocates or throws; invalid inputs give the neutral value documented.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

// ---------------------------------------------------------------- sensitivity ([2011] eq. 2 / [2014] eq. 5.18)
// FPR = (1 - (1 - 1/m)^(k n_e))^k for n_e keys hashed by k functions into m bits. Computed with log1p/expm1 so that
// it stays accurate for m in the billions. Returns 0 for n_e = 0 and 1 for m = 0.
double bloom_fpr(double m_bits, int k, double n_e);
// Expected fill fraction of the vector: 1 - (1 - 1/m)^(k n_e).
double bloom_fill(double m_bits, int k, double n_e);
// Extension of eq. 2 for a FINITE key universe of U = 2^key_bits keys (w-mers: key_bits = 2w), hashed by affine H3
// functions reduced to the top log2(m) bits of the slot (m a power of two, m <= U). Such a slot map is affine onto
// log2(m) bits, so (when it has full rank) every slot has exactly U/m pre-images: the rho m set slots hold exactly
// rho U keys under each function, and all n_e members are among them. A non-member therefore passes one function
// with probability (rho U - n_e) / (U - n_e) = rho - (1 - rho) n_e / (U - n_e), not rho, and
//     FPR_U = (rho - (1 - rho) n_e / (U - n_e))^k,   rho = bloom_fill(m, k, n_e)
// (the k functions treated as independent, as eq. 2 does). Relative to eq. 2 it is lower by about
// k n_e (1 - rho) / (rho U): ~5% for 20,000 11-mers (22-bit keys) in 256 Kbit at k = 6, nothing measurable at
// w >= 16. key_bits >= 64 (or U <= n_e) gives eq. 2 / 0. docs/performance-model.md §2 has the derivation.
double bloom_fpr_finite_universe(double m_bits, int k, double n_e, int key_bits);
// The sub-queries split_subqueries cuts from one record of Q bases: all but the last hold n_sub - w + 1 w-mer starts,
// the last one the remainder (often a few w-mers: its vector is nearly empty, which matters when V is small).
struct SubqueryShape {
  uint64_t count = 0;     // V
  uint64_t keys = 0;      // n_e of the first V - 1
  uint64_t last_keys = 0; // n_e of the last one
};
SubqueryShape subquery_shape(uint64_t query_bases, uint64_t n_sub, int w);
// Keys in one sub-query vector. bloomseq inserts CANONICAL w-mers, one key per w-mer position (the reverse strand is
// covered by canonicalising the database w-mer too, so there is no x2 for strands): n_e = n_sub - w + 1.
// Repeated or palindromic w-mers make the distinct count slightly smaller; n_e is the upper bound the papers use.
uint64_t keys_per_subquery(uint64_t n_sub, int w);
// Sub-queries of n_sub bases overlapping by w-1 that cover Q bases: ceil((Q - w + 1) / (n_sub - w + 1)).
uint64_t subquery_count(uint64_t query_bases, uint64_t n_sub, int w);
// W-mers in a sequence of `bases` bases (one record): bases - w + 1, or 0.
uint64_t wmer_count(uint64_t bases, int w);

// ---------------------------------------------------------------- occupancy ([2012] eqs. 1-5, [2014] 5.2-5.6)
enum class OccupancyLimit { SharedMemory, Registers, Blocks, Threads, Invalid };
const char* to_string(OccupancyLimit l);

struct ActiveBlocks {
  int blocks = 0;  // B_a
  OccupancyLimit limit = OccupancyLimit::Invalid;
};

// Eq. 1: B_a = min(floor(S / S_B), floor(R / (R_T T_r)), floor(B_max / MP), floor(T_maxMP / T_r)).
// S_B includes the runtime's per-block reservation (profile.reserved_shared_per_block). The first limit reached, in
// the order of the equation's terms, is reported. 0 blocks (Invalid) if the block cannot run at all.
ActiveBlocks active_blocks(const DeviceProfile& gpu, uint64_t shared_per_block, int registers_per_thread,
                           int threads_per_block);
// Blocks between throughput peaks: B_a x MP (the step of B_opt).
int block_period(int active_blocks, int mp);
// Eq. 2: B_r in B_opt = { i B_a MP }.
bool in_b_opt(int requested_blocks, int active_blocks, int mp);
// Eq. 3: T_r in T_opt = { j W }.
bool in_t_opt(int threads_per_block, int warp_size);
// Eq. 4: A_B = B_r in B_opt and B_r <= B_max.
bool indicator_ab(const DeviceProfile& gpu, int requested_blocks, int active_blocks);
// Eq. 5: A_T = T_r in T_opt, T_r >= N_W W, T_r <= min(T_maxB, T_maxMP / B_a), T_r >= (R / R_T) / (B_r / MP + 1).
bool indicator_at(const DeviceProfile& gpu, int threads_per_block, int requested_blocks, int active_blocks,
                  int registers_per_thread);
// Eq. 6: A_C = working set < capacity (S when the working set lives in shared memory, C when in global memory).
bool indicator_ac(double working_set_bytes, double capacity_bytes);

// ---------------------------------------------------------------- the extended model ([2012] eqs. 8-13)
// Eq. 9: r_H = min(1, C / m) (random accesses); eq. 10: r_M = 1 - r_H.
double hit_rate(double cache_bytes, double working_set_bytes);
// Eq. 11: f_cache = 1 if A_C, else r_H + r_M G.
double f_cache(double working_set_bytes, double cache_bytes, double G);
// Eq. 12: f_sched = ceil(B_r / (B_a MP)) B_a MP / B_r, the zigzag (1 at every multiple of B_a MP, largest just after).
double f_sched(int requested_blocks, int active_blocks, int mp);
// Eq. 18 / 5.20: f_app(BLAST stage 1a) = k (Q / n_sub) D: hash-and-probe operations (Q/n_sub = sub-queries).
double f_app_blast(int k, double query_size, double n_sub, double db_size);
// Eq. 22 / 5.27: f_app(FACS) = k (D / B_r)(B_r / (B_a MP)) = k D / (B_a MP).
double f_app_facs(int k, double reads, int active_blocks, int mp);
// Eq. 14: f_app(micro-benchmark) = D.
inline double f_app_microbenchmark(double data_size) { return data_size; }
// Eq. 7/8 with the calibrated constants: Time = a1 f_app f_cache f_sched + a0.
double model_time(double a1, double a0, double fapp, double fcache, double fsched);
// Eq. 13: T_put = D / Time.
double throughput(double data_size, double time_s);
// Eq. 6.3 (dissertation ch. 6): the work term max(T_1, M L / T) that replaces f_app when there are too few threads to
// hide the memory latency L (M memory references, T threads per core). Returns T_1 when latency is hidden.
double latency_bound_work(double work, double memory_refs, double latency, double threads_per_core);

// ---------------------------------------------------------------- extensions beyond the papers
// Expected probes for a key that is not in the set with early exit (stop at the first zero bit): sum_{i<k} rho^i.
double expected_probes(double fill, int k);
// The same for a SIMT warp of W lanes: the warp keeps issuing while any lane is still alive:
// sum_{i<k} (1 - (1 - rho^i)^W). Close to k for W = 32: why the GPU time grows with k as the papers measured.
double expected_probes_warp(double fill, int k, int warp_size);
// Expected branch mispredictions per test of the CPU vector layout: each probe ends in a branch on one bit (set:
// go on, clear: stop), a Bernoulli(rho) outcome for keys not in the set. No predictor beats guessing the more likely
// outcome, so each of the E[probes] branches is mispredicted with probability min(rho, 1 - rho):
// min(rho, 1 - rho) * expected_probes(rho, k). Measured on blast-bloom's vector layout it is the largest cost at
// mid-range fills (docs/model-validation.md, part D).
double expected_mispredicts(double fill, int k);
// Bit-sliced layout: P(a 512-column block is still alive after its first `rows` rows), for `columns` columns of
// fill `fill` plus `last_columns` of fill `last_fill` (the short last sub-query): a column survives j rows with
// probability rho^j (keys not in the set; columns independent), so 1 - (1 - rho^j)^c (1 - last_rho^j)^c_last.
double bitsliced_block_alive(double fill, double columns, double last_fill, double last_columns, int rows);
// 64-byte row lines read per db w-mer and block. Rows 0 and 1 are always read. Then
//   all_rows_after_two (the AVX2 and AVX-512 kernels): rows 2..k-1 all read if the block is alive after two rows:
//       2 + (k - 2) alive(2)
//   otherwise (per-row early exit, the scalar kernel): row j read if the block is alive after j rows:
//       2 + sum_{j=2}^{k-1} alive(j)
// k = 1: one row.
double bitsliced_rows_per_block(double fill, double columns, double last_fill, double last_columns, int k,
                                bool all_rows_after_two);
// Branch mispredictions per db w-mer and block of a predictor that guesses each early-exit test's more likely
// outcome (as expected_mispredicts): the SIMD kernels test alive(2) once, min(alive(2), 1 - alive(2)); the scalar
// kernel tests alive(j) for j = 2..k-1, each reached while alive(j - 1): sum min(alive(j), alive(j - 1) - alive(j))
// with alive(1) taken as 1. Fitted on blast-bloom's AVX-512 kernel this is ~15 ns per misprediction, the cost of
// mid-range fills the row terms alone missed (docs/model-validation.md, part D3).
double bitsliced_block_mispredicts(double fill, double columns, double last_fill, double last_columns, int k,
                                   bool all_rows_after_two);
// (c) Multi-level cache factor for random reads into `working_set_bytes` over the levels (ascending; last = DRAM):
// the fraction served by level i is min(1, C_i/m) - min(1, C_{i-1}/m) (eq. 9 applied per level) and the factor is
// sum_i fraction_i cost_i / cost_1. With one cache and DRAM it is eq. 11 with G = cost_DRAM / cost_cache.
// `use_random_cost` picks CacheLevel::random_ns (throughput-bound probes) instead of latency_ns (dependent chains).
double f_cache_levels(double working_set_bytes, const std::vector<CacheLevel>& levels, bool use_random_cost = true);
// Fractions of random accesses served by each level (same order as `levels`); they sum to 1.
std::vector<double> level_fractions(double working_set_bytes, const std::vector<CacheLevel>& levels);
// (d) CPU analogue of eq. 12: U work units over P cores with B_a units resident per core (hardware threads):
// ceil(U / (B_a P)) B_a P / U.
inline double f_sched_cpu(int work_units, int cores, int threads_per_core = 1) {
  return f_sched(work_units, threads_per_core, cores);
}
// f_sched when `items` indivisible items (sub-query vectors) are cut into `units` slices of floor-split sizes
// (slice u = [items u / U, items (u+1) / U)) assigned round robin to `cores`: P x (largest load) / items. Equals
// f_sched_cpu(units, cores) whenever units divides items; otherwise it accounts for the one-item differences.
double f_sched_split(uint64_t items, int units, int cores);

}  // namespace bloomseq::model
