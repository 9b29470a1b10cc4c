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

// The sample's problem as the model's configuration.
Stage1aConfig stage1a_config(const KernelSample& s);

// The constants a layout's stage-1a time depends on, in the order of kernel_features: vector: hash_ns, probe_ns,
// mispredict_ns, hit_ns, a0; bit-sliced: hash_ns, hash_generic_ns, row_fixed_ns, narrow_fixed_ns, narrow_row_ns,
// row_byte_ns, row_miss_ns, row_miss_single_ns, mispredict_ns, hit_ns, a0. Throws UsageError for
// Layout::PaperVector (priced by eq. 7's a1, a0).
std::vector<std::string> kernel_terms(Layout layout);
// The model's stage-1a seconds per unit of each term (ns terms per ns, a0 per second) for one sample; `llc_bytes`
// as KernelCoefficients::llc_bytes.
std::vector<double> kernel_features(const KernelSample& s, const DeviceProfile& dev, uint64_t llc_bytes = 0);
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
// (numerically rank-deficient after scaling each column to unit maximum). For the bit-sliced layout the last cache
// level's effective capacity (llc_bytes) is searched too: the profile's times 2^(j/4), j = -12..4, the best R^2.
// fixed_hit_ns >= 0: hit_ns is not fitted but set to it (and the rest fitted to the times less the hits' cost).
KernelFit fit_kernel(const std::vector<KernelSample>& samples, Layout layout, const DeviceProfile& dev,
                     double fixed_hit_ns = -1);
// The cache levels the bit-sliced model uses: the profile's with the last cache level's capacity set to `llc_bytes`
// (not below the level before it; 0 = unchanged).
std::vector<CacheLevel> caches_with_llc(const std::vector<CacheLevel>& caches, uint64_t llc_bytes);

// The constants predict_stage1a prices `layout`'s stage 1a with (Vector or BitSliced): the layout's kernel
// coefficients when they were fitted, else the micro-benchmark constants of `cal` (a generic-k hash costs hash_ns,
// the narrow rows' per-w-mer cost row_fixed_ns).
KernelCoefficients layout_coefficients(const Calibration& cal, Layout layout);
// Whether blast-bloom's bit-sliced kernels hash this k with a fixed-k path (lib/src/blast/stage1a_cpu.cpp:
// row_pointers_k and bitsliced_narrow for 1 <= k <= 8); otherwise they call the generic H3Family::hash_all.
bool bitsliced_fixed_k_hash(int k);

}  // namespace bloomseq::model
