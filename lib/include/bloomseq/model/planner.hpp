// --auto-tune: search (n_sub, k, m, layout, B_r, T_r, batch size, streams) for the best predicted configuration.
//
//   MinTime:          minimum predicted stage 1a + 1b time with the per-test FPR (eq. 2) <= target_fpr.
//   MinFpr:           minimum FPR with predicted throughput (db w-mers/s, end to end) >= target_throughput.
// When no configuration meets the target the closest one is returned with target_met = false.
// Plans always respect the device limits (shared memory, registers, threads, blocks) — see launch_config.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

enum class Objective { MinTime, MinFpr };

struct PlanRequest {
  uint64_t query_bases = 0;  // Q: total query bases
  uint64_t db_bases = 0;     // D: total database bases (estimate is fine, e.g. file size)
  int w = 11;
  Objective objective = Objective::MinTime;
  double target_fpr = 1e-4;          // MinTime: per-test FPR bound
  double target_throughput = 0;      // MinFpr: db w-mers per second
  // Search space; empty = defaults (n_sub: 2^8 .. 2^20 in steps of sqrt 2; k: 1..12; m: 8 Kbit .. 4 Mbit powers
  // of two, capped by shared memory on a GPU; layouts: all that the device supports).
  std::vector<uint64_t> n_sub_candidates;
  std::vector<int> k_candidates;
  std::vector<uint64_t> m_candidates;
  std::vector<Layout> layouts;
  // Fixed by the user (0 = search / default).
  uint64_t n_sub = 0;
  int k = 0;
  uint64_t m_bits = 0;
  int threads = 0;                   // CPU threads (0 = all cores)
  KernelResources kernel;            // GPU kernel resources (from cudaFuncGetAttributes when known)
};

struct Plan {
  bool feasible = false;     // some configuration evaluated
  bool target_met = false;
  Objective objective = Objective::MinTime;
  std::string device;
  Stage1aConfig config;      // chosen n_sub, k, m, layout, work units, threads, launch (B_r, T_r, S_B), batch, streams
  Prediction prediction;     // predicted FPR, times, throughput
  size_t evaluated = 0;      // configurations evaluated
  std::string calibration_source;
  std::string note;
};

Plan plan_stage1a(const PlanRequest& req, const DeviceProfile& dev, const Calibration& cal);

// Multi-line human-readable plan ("# " prefixed lines, for stderr before running).
std::string describe(const Plan& p);
// One-line JSON object with the plan's values (for --stats).
std::string plan_json(const Plan& p);

// FACS --auto-tune for build-filter: m and k for n_keys k-mers at target FPR per k-mer (m = -n ln p / ln^2 2,
// k = m/n ln 2), then the launch configuration and predicted classification rate for `reads` reads.
struct FacsPlan {
  uint64_t m_bits = 0;
  int k = 0;
  FacsConfig config;
  FacsPrediction prediction;
  bool feasible = false;
};
FacsPlan plan_facs(uint64_t n_keys, double target_fpr, uint64_t reads, uint64_t read_len, int w,
                   const DeviceProfile& dev, const Calibration& cal, int threads = 0);

}  // namespace bloomseq::model
