// The calibration's kernel probe: blast-bloom's own stage-1a kernels (stage1a_vector_layout, stage1a_bitsliced,
// as the pipeline calls them on its database chunks) timed on random DNA over a few (k, m, sub-queries) points,
// one thread. model::fit_kernel turns the samples into per-layout coefficients for the profile
// (docs/performance-model.md, "Kernel probe").
#pragma once
#include <cstdint>
#include <ostream>
#include <vector>

#include "bloomseq/model/kernel_fit.hpp"

namespace bloomseq {

struct KernelProbeOptions {
  int w = 11;
  std::vector<int> ks = {4, 6, 8, 10};  // fixed-k and generic hashing in both bit-sliced kernels
  std::vector<uint64_t> ms = {65536, 131072, 262144};  // 4, 8 and 16 MB per 512-column block: pins the LLC
  // Vector layout: few long sub-queries; bit-sliced: hundreds to thousands of short ones (1 to 4 512-column blocks,
  // and V <= 256, where the kernel switches to rows of 1-4 words).
  uint64_t vector_query_bases = 160000;
  std::vector<uint64_t> vector_nsubs = {5000, 12000, 40000};
  uint64_t bitsliced_query_bases = 600000;
  std::vector<uint64_t> bitsliced_nsubs = {300, 800, 1500, 4000};
  uint64_t db_bases = 131072;        // two of the pipeline's 64-Kbase chunks
  uint64_t chunk_bases = uint64_t(1) << 16;
  int passes = 3;                    // every point once per pass, in a new random order; the fastest run is kept
  double min_ms = 20;                // a timed run repeats the kernel over all chunks until this much CPU time
  uint64_t seed = 20240611;
  std::ostream* log = nullptr;
};

// Smaller sizes and one pass (calibrate --quick, tests): about a second.
KernelProbeOptions quick_kernel_probe();

// Times every point of the grid (vector and bit-sliced) and returns one sample per point, measured_s = the
// fastest run's thread CPU time.
std::vector<model::KernelSample> run_kernel_probe(const KernelProbeOptions& options);

// What calibration runs (CalibrateOptions::run_kernel_probe): the default grid, or quick_kernel_probe(), with
// progress lines on `log`.
std::vector<model::KernelSample> kernel_probe_for_calibration(bool quick, std::ostream* log);

}  // namespace bloomseq
