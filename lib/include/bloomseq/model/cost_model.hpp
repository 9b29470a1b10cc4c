// Predicted time of BLAST stage 1a (+ 1b) and FACS classification for one configuration: the papers' model with the
// calibrated constants, plus the extensions (pipeline view, bit-sliced layout, multi-level CPU caches, CPU work
// units). The planner evaluates this over its search space; `bloomseq-model` prints it as CSV.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/model/device_profile.hpp"
#include "bloomseq/model/launch_config.hpp"

namespace bloomseq::model {

// Stage-1a layouts.
//  PaperVector: the papers' kernel, vector by vector, all k hashes computed and k probes per test (a GPU block per
//               sub-query; on the CPU the faithful port). Cost ∝ k x tests (eq. 18).
//  Vector:      vector by vector, w-mer hashed once per chunk, probes stop at the first zero bit (CPU layout).
//  BitSliced:   rows = bit positions, columns = sub-queries: k row reads of ceil(V/8) bytes per db w-mer.
enum class Layout { PaperVector, Vector, BitSliced };
const char* to_string(Layout l);
// Accepts paper|paper-vector, vector, bitsliced|bit-sliced; throws UsageError otherwise.
Layout parse_layout(const std::string& s);

// One stage-1a problem instance and its tunables.
struct Stage1aConfig {
  uint64_t query_bases = 0;  // Q (all query records together)
  uint64_t db_bases = 0;     // D
  int w = 11;
  uint64_t n_sub = 0;        // sub-query length in bases
  int k = 6;
  uint64_t m_bits = 0;
  Layout layout = Layout::Vector;
  // CPU: work units (tiles of sub-queries x db chunks) and threads; GPU: launch configuration.
  int work_units = 0;        // 0 = one per thread
  int threads = 0;           // 0 = all cores
  LaunchConfig launch;       // GPU only (blast_launch_config)
  uint64_t batch_bases = 0;  // db chunk size (0 = whole db in one chunk)
  int streams = 1;           // GPU copy/compute overlap
};

struct Prediction {
  double fpr = 0;            // eq. 2 per vector and test
  double fill = 0;           // expected fill fraction of a vector
  double subqueries = 0;     // V
  double db_wmers = 0;       // D_w
  double tests = 0;          // D_w x V membership tests
  double false_hits = 0;     // tests x FPR (stage-1b input from false positives)
  double true_hits = 0;      // expected exact w-mer matches (random sequence estimate)
  double f_app = 0, f_cache = 1, f_sched = 1;
  double stage1a_s = 0, stage1b_s = 0, transfer_s = 0, total_s = 0;
  double wmers_per_s = 0;    // db w-mers per second end to end (eq. 13 with D = D_w)
  double tests_per_s = 0;    // membership tests per second in stage 1a
  bool valid = false;
  std::string note;
};

// Working set of one CPU vector-layout test: the vector (m/8 bytes) plus the H3 byte tables (k x ceil(2w/8) x 1 KiB).
double cpu_vector_working_set(uint64_t m_bits, int k, int w);

// f_cache of the paper-vector kernel on a CPU: eq. 11 with C = L1 and the empirically determined G_l1 (the kernel
// is part hashing, part probing, so a probe served by L2 slows a test by much less than the L2/L1 latency ratio);
// working sets beyond the private L2 use the multi-level factor (c), scaled the same way.
double cpu_paper_vector_fcache(uint64_t m_bits, int k, int w, const DeviceProfile& cpu, double G_l1);

Prediction predict_stage1a(const Stage1aConfig& c, const DeviceProfile& dev, const Calibration& cal);

// FACS classification: `reads` reads of `read_len` bases, k-mers of length w, one filter of m bits with k hashes.
struct FacsConfig {
  uint64_t reads = 0;
  uint64_t read_len = 100;
  int w = 25;
  int k = 7;
  uint64_t m_bits = 0;
  int threads = 0;
  LaunchConfig launch;  // GPU
};
struct FacsPrediction {
  double f_app = 0, f_cache = 1, f_sched = 1;
  double time_s = 0;
  double reads_per_s = 0;
  double fpr_per_kmer = 0;
  bool valid = false;
};
// Eq. 23 on a GPU; on a CPU the same with the multi-level cache factor. `n_keys` = k-mers inserted in the filter.
FacsPrediction predict_facs(const FacsConfig& c, uint64_t n_keys, const DeviceProfile& dev, const Calibration& cal);

}  // namespace bloomseq::model
