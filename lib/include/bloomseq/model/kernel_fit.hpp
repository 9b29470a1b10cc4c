// Per-layout stage-1a constants fitted on blast-bloom's own kernels, timed during calibration (the kernel probe,
// blast/kernel_probe.hpp). The micro-benchmarks price each operation in isolation; the kernels overlap and
// prefetch, so a layout is priced best by its own kernel (docs/performance-model.md, "Kernel probe").
//
// predict_stage1a's CPU time is linear in its per-operation constants, so the model's time with one constant at 1
// and the others at 0 is that constant's feature; a non-negative least-squares fit of measured times on the
// features gives the layout's KernelCoefficients.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

// One timed run of a stage-1a kernel: the problem in the model's terms and the measured CPU seconds.
struct KernelSample {
  Layout layout = Layout::Vector;
  int w = 11;
  int k = 6;
  uint64_t m_bits = 0;
  uint64_t n_sub = 0;
  uint64_t query_bases = 0;
  uint64_t db_bases = 0;
  int work_units = 1;  // database chunks
  int threads = 1;
  double measured_s = 0;
};

// The constants a layout's stage-1a time depends on, in the order of kernel_features: vector: hash_ns, probe_ns,
// mispredict_ns, hit_ns, a0; bit-sliced: hash_ns, row_fixed_ns, row_byte_ns, row_miss_ns, hit_ns, a0. Throws
// UsageError for Layout::PaperVector (priced by eq. 7's a1, a0).
std::vector<std::string> kernel_terms(Layout layout);
// The model's stage-1a seconds per unit of each term (ns terms per ns, a0 per second) for one sample.
std::vector<double> kernel_features(const KernelSample& s, const DeviceProfile& dev);
// Between KernelCoefficients and a vector in kernel_terms order.
KernelCoefficients kernel_coefficients(Layout layout, const std::vector<double>& values);
std::vector<double> kernel_values(Layout layout, const KernelCoefficients& c);
// The model's stage-1a seconds of a sample priced with `c` (fitted or not).
double predict_kernel_sample(const KernelSample& s, const KernelCoefficients& c, const DeviceProfile& dev);

struct KernelFit {
  KernelCoefficients coefficients;  // fitted = true on success
  std::string error;                // why not, otherwise
};
// Non-negative least squares over the samples of `layout` (others ignored). Refuses degenerate input: fewer points
// than terms + 1, a time that is not finite and positive, or features that do not determine the terms
// (numerically rank-deficient after scaling each column to unit maximum).
KernelFit fit_kernel(const std::vector<KernelSample>& samples, Layout layout, const DeviceProfile& dev);

// The constants predict_stage1a uses for `layout`'s stage 1a: `cal` with the layout's kernel coefficients in place
// of the micro-benchmark constants when they were fitted, else `cal` unchanged.
Calibration stage1a_constants(const Calibration& cal, Layout layout);

}  // namespace bloomseq::model
