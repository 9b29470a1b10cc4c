// Measurement kernels for calibration and validation (host code, no CUDA):
//  * the papers' stage-1a kernel ported vector by vector: for every sub-query vector, every database w-mer is hashed
//    by each of the k H3 functions in turn (recomputed per test, as each GPU block does for its own vector) and all
//    k bits are probed and ANDed (no early exit: a SIMT warp pays all k probes) — the code that the model's
//    f_app = k (Q/n_sub) D describes;
//  * the synthetic hashing micro-benchmark of [2012] §III: random "pointers" read into a table of m bytes;
//  * a P-chase (Mei et al. 2014): j = A[j] over a random cyclic permutation of cache lines (dependent loads).
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"

namespace bloomseq::model {

// Vectors [v_begin, v_end) of `sv` against `n` canonical keys; returns the number of (key, vector) hits and, if
// `hits` is given, appends them as (key index, vector) pairs in vector-major order.
uint64_t paper_vector_stage1a(const SubqueryVectors& sv, const uint64_t* keys, uint64_t n, uint32_t v_begin,
                              uint32_t v_end, std::vector<Stage1aHit>* hits = nullptr);

// Timing of work units spread over threads. Units are assigned round robin (unit u to thread u mod threads), as the
// model's ceil(U / P) assumes. `critical_cpu_s` is the largest per-thread CPU time (CLOCK_THREAD_CPUTIME_ID): on an
// idle machine it equals the wall time; on a shared one it excludes time the threads spent descheduled.
struct UnitTiming {
  double wall_s = 0;
  double critical_cpu_s = 0;
};

// Runs `units` work units (equal slices of the vectors) on `threads` threads. Total hits in *hit_count.
UnitTiming time_paper_vector_stage1a(const SubqueryVectors& sv, const uint64_t* keys, uint64_t n, int units, int threads,
                                 uint64_t* hit_count = nullptr);

// [2012] micro-benchmark: `reads` random indices into a table of `table_bytes` bytes, read independently, spread
// over `units` work units on `threads` threads. Returns ns per read (wall time x threads / reads).
double random_read_ns(uint64_t table_bytes, uint64_t reads, int units = 1, int threads = 1, uint64_t seed = 1);
// Same, timed per work unit (for f_sched sweeps over work units).
UnitTiming random_read_seconds(uint64_t table_bytes, uint64_t reads, int units, int threads, uint64_t seed = 1);

// P-chase: average ns per dependent load over an array of `bytes` bytes (64-byte stride, random cycle).
double pchase_ns(uint64_t bytes, uint64_t loads, uint64_t seed = 1);

// Sequential read bandwidth of one core over `bytes` bytes (ns per byte).
double stream_ns_per_byte(uint64_t bytes, int repeats = 3);

}  // namespace bloomseq::model
