// Calibration on the CPU: the measurements behind a profile (docs/performance-model.md, "Calibration").
//   1. P-chase latency sweep (Mei et al. 2014) over array sizes 4 KiB .. 128 MiB; the cache sizes C_i and latencies
//      are fitted with the multi-level hit-rate model (eq. 9 per level) — C_i from sysfs when known, else searched.
//   2. The papers' synthetic hashing micro-benchmark: independent random reads into a table of m bytes, sweeping m
//      (per-level cost of a random probe, G = DRAM / L1) and the number of work units over the cores (f_sched).
//   3. The stage-1a kernel (paper vector-by-vector form) over a small grid, least-squares fit of a1, a0 (eq. 7).
//   4. Per-operation costs for the extensions: H3 hashing, sequential row bytes, stage-1b verification lookups.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

struct CalibrationOptions {
  int threads = 0;            // 0 = all cores
  bool quick = false;         // smaller sweeps (tests, CI): a few seconds
  std::ostream* log = nullptr;  // progress lines
};

struct SweepPoint {
  double x = 0;          // size in bytes, or work units
  double measured = 0;   // ns per access, or seconds
  double predicted = 0;  // the fitted model's value
};

struct Stage1aPoint {
  int k = 0;
  uint32_t vectors = 0;
  uint64_t m_bits = 0;
  uint64_t keys = 0;
  int units = 0;
  double f_app = 0, f_cache = 1, f_sched = 1;
  double measured_s = 0, predicted_s = 0;
};

struct CalibrationReport {
  DeviceProfile device;
  Calibration calibration;
  std::vector<SweepPoint> pchase;       // latency (ns) vs bytes
  std::vector<SweepPoint> random_read;  // ns per independent random read vs bytes (1 thread)
  std::vector<SweepPoint> work_units;   // seconds vs work units (all threads), predicted by f_sched
  std::vector<Stage1aPoint> stage1a;
  std::vector<uint64_t> sysfs_sizes;    // L1..L3 from sysfs (0 = unknown)
  std::vector<uint64_t> fitted_sizes;   // L1..L3 fitted from the P-chase
  double pchase_r2 = 0, random_r2 = 0, units_r2 = 0, stage1a_r2 = 0;
  double seconds = 0;                   // wall time of the calibration
};

// Least-squares fit of Time = a1 (f_app / P) f_cache f_sched + a0 over measured points of the paper-vector kernel,
// with eq. 11's G_l1 determined empirically (1-D search, the papers' practice for G). Fills each point's f_cache,
// f_sched (f_sched_split over the vectors) and predicted_s.
struct Stage1aFit {
  double a1 = 0, a0 = 0, G_l1 = 1, r2 = 0;
  bool ok = false;
};
Stage1aFit fit_paper_vector(std::vector<Stage1aPoint>& pts, const DeviceProfile& cpu, int w, int threads);
// R^2 of the points' measured times against the model with given constants (out-of-sample check); fills predicted_s.
double score_paper_vector(std::vector<Stage1aPoint>& pts, const DeviceProfile& cpu, int w, int threads,
                          const Calibration& cal);

CalibrationReport calibrate_cpu(const CalibrationOptions& opt = {});

// Fits latencies per level for given capacities (ascending, last level = memory): least squares of
// y(size) = sum_i fraction_i(size) cost_i. Returns the costs (empty on failure) and the R^2 in *r2.
std::vector<double> fit_level_costs(const std::vector<SweepPoint>& pts, const std::vector<uint64_t>& capacities,
                                    double* r2 = nullptr);
// P-chase model: a fixed cyclic chase defeats LRU, so every access misses a level as soon as the array exceeds it
// (Mei et al.): latency is a step function of the array size. fit_step_latencies gives each level's latency (median
// of the points in (C_{i-1}, C_i], the last level beyond C_n) and R^2; fit_cache_sizes searches the capacities
// (among the sizes measured) that best explain the sweep with `levels` cache levels (least squares on log latency).
std::vector<double> fit_step_latencies(const std::vector<SweepPoint>& pts, const std::vector<uint64_t>& capacities,
                                       double* r2 = nullptr);
std::vector<uint64_t> fit_cache_sizes(const std::vector<SweepPoint>& pts, int levels, double* r2 = nullptr);

// CSV writers for the sweeps (header line starts with '#').
void write_sweep_csv(const std::string& path, const std::string& header, const std::vector<SweepPoint>& pts);
void write_stage1a_csv(const std::string& path, const std::vector<Stage1aPoint>& pts);

}  // namespace bloomseq::model
