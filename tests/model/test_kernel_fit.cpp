// The kernel-probe fit (model/kernel_fit.hpp): coefficients recovered from times the model itself computes with
// known constants (through the plain micro-benchmark fields, not through the fit's own features), noisy times
// predicted within the noise, degenerate inputs refused, and fitted coefficients replacing the constants of their
// layout only.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/fit.hpp"
#include "bloomseq/model/kernel_fit.hpp"
#include "bloomseq/model/planner.hpp"

using namespace bloomseq::model;

namespace {
DeviceProfile test_cpu() {
  DeviceProfile d;
  d.name = "test cpu";
  d.kind = DeviceKind::Cpu;
  d.cores = 1;
  d.simd_bits = 256;
  d.shared_per_mp = 512 * 1024;
  auto level = [](int l, uint64_t size, double lat, double rnd) {
    CacheLevel c;
    c.level = l;
    c.size_bytes = size;
    c.latency_ns = lat;
    c.random_ns = rnd;
    return c;
  };
  d.caches = {level(1, 32 * 1024, 1.5, 0.5), level(2, 512 * 1024, 5, 1.2), level(3, 4u << 20, 20, 3),
              level(0, 0, 150, 15)};
  return d;
}

std::vector<KernelSample> grid(Layout l) {
  std::vector<KernelSample> out;
  const bool vec = l == Layout::Vector;
  for (uint64_t db : {65536ull, 200000ull})
    for (uint64_t m : {65536ull, 262144ull})
      for (int k : {4, 6, 10})
        for (uint64_t n : vec ? std::vector<uint64_t>{5000, 12000, 40000} : std::vector<uint64_t>{400, 1500, 4000, 12000}) {
          KernelSample s;
          s.layout = l;
          s.k = k;
          s.m_bits = m;
          s.n_sub = n;
          s.query_bases = vec ? 160000 : 600000;
          s.db_bases = db;
          s.work_units = int((db + 65535) / 65536);
          out.push_back(s);
        }
  return out;
}

double model_seconds(const KernelSample& s, const DeviceProfile& d, const Calibration& c) {
  return predict_stage1a(stage1a_config(s), d, c).stage1a_s;
}

// Bit-sliced coefficients that differ from what the plain fields imply (generic hash, narrow rows).
KernelCoefficients known_bitsliced() {
  KernelCoefficients k = kernel_coefficients(Layout::BitSliced,
                                             {0.8, 6.5, 12.0, 25.0, 2.25, 0.1, 3.0, 1.75, 15.0, 4.5, 2e-4});
  k.fitted = true;
  return k;
}

Calibration known() {
  Calibration c;
  c.hash_ns = 3.5;
  c.probe_ns = 1.1;
  c.mispredict_ns = 7.5;
  c.row_fixed_ns = 12.0;
  c.row_byte_ns = 0.1;
  c.row_miss_ns = 3.0;
  c.hit_ns = 4.5;
  c.a0 = 2e-4;
  return c;
}
}  // namespace

TEST_CASE("kernel_fit recovers known coefficients from the model's own times", "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  const Calibration c = known();
  for (Layout l : {Layout::Vector, Layout::BitSliced}) {
    INFO(to_string(l));
    std::vector<KernelSample> s = grid(l);
    for (KernelSample& x : s) {
      x.measured_s = model_seconds(x, d, c);
      // The features are the model's seconds per unit of each term: their combination is the model's time.
      const std::vector<double> f = kernel_features(x, d);
      const std::vector<double> v =
          l == Layout::Vector
              ? std::vector<double>{c.hash_ns, c.probe_ns, c.mispredict_ns, c.hit_ns, c.a0}
              : std::vector<double>{c.hash_ns,       c.hash_ns,     c.row_fixed_ns,  c.row_fixed_ns,
                                    64 * c.row_byte_ns, c.row_byte_ns, c.row_miss_ns,   c.row_miss_ns,
                                    c.mispredict_ns,    c.hit_ns,      c.a0};
      REQUIRE(f.size() == v.size());
      double t = 0;
      for (size_t j = 0; j < f.size(); ++j) t += f[j] * v[j];
      CHECK(t == Approx(x.measured_s).epsilon(1e-12));
    }
    const KernelFit r = fit_kernel(s, l, d);
    REQUIRE(r.error.empty());
    const KernelCoefficients& k = r.coefficients;
    CHECK(k.fitted);
    CHECK(k.points == int(s.size()));
    CHECK(k.r2 == Approx(1.0).epsilon(1e-9));
    CHECK(k.hash_ns == Approx(c.hash_ns).epsilon(1e-6));
    CHECK(k.hit_ns == Approx(c.hit_ns).epsilon(1e-6));
    CHECK(k.a0 == Approx(c.a0).epsilon(1e-6));
    if (l == Layout::Vector) {
      CHECK(k.probe_ns == Approx(c.probe_ns).epsilon(1e-6));
      CHECK(k.mispredict_ns == Approx(c.mispredict_ns).epsilon(1e-6));
    } else {
      // Without kernel coefficients a generic-k hash costs hash_ns, narrow rows row_fixed_ns per w-mer and a
      // line's 64 bytes per row read.
      CHECK(k.hash_generic_ns == Approx(c.hash_ns).epsilon(1e-6));
      CHECK(k.row_fixed_ns == Approx(c.row_fixed_ns).epsilon(1e-6));
      CHECK(k.narrow_fixed_ns == Approx(c.row_fixed_ns).epsilon(1e-6));
      CHECK(k.narrow_row_ns == Approx(64 * c.row_byte_ns).epsilon(1e-6));
      CHECK(k.row_byte_ns == Approx(c.row_byte_ns).epsilon(1e-6));
      CHECK(k.row_miss_ns == Approx(c.row_miss_ns).epsilon(1e-6));
      CHECK(k.row_miss_single_ns == Approx(c.row_miss_ns).epsilon(1e-6));
      CHECK(k.mispredict_ns == Approx(c.mispredict_ns).epsilon(1e-6));
    }
  }
  // Every bit-sliced term distinct, and the last cache level effectively half its size: each recovered.
  Calibration b = known();
  b.kernel_bitsliced = known_bitsliced();
  b.kernel_bitsliced.llc_bytes = d.caches[2].size_bytes / 2;
  std::vector<KernelSample> s = grid(Layout::BitSliced);
  for (KernelSample& x : s) x.measured_s = model_seconds(x, d, b);
  const KernelFit r = fit_kernel(s, Layout::BitSliced, d);
  REQUIRE(r.coefficients.fitted);
  const std::vector<double> want = kernel_values(Layout::BitSliced, known_bitsliced()),
                            got = kernel_values(Layout::BitSliced, r.coefficients);
  for (size_t j = 0; j < want.size(); ++j) {
    INFO(kernel_terms(Layout::BitSliced)[j]);
    CHECK(got[j] == Approx(want[j]).epsilon(1e-6));
  }
  CHECK(r.coefficients.llc_bytes == d.caches[2].size_bytes / 2);
}

TEST_CASE("kernel_fit keeps a fixed hit cost and fits the other terms to the rest", "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  Calibration b = known();
  b.kernel_bitsliced = known_bitsliced();
  std::vector<KernelSample> s = grid(Layout::BitSliced);
  for (KernelSample& x : s) x.measured_s = model_seconds(x, d, b);
  const std::vector<double> want = kernel_values(Layout::BitSliced, known_bitsliced());
  // The true hit cost given: every term recovered, the hit cost exactly as given.
  const KernelFit r = fit_kernel(s, Layout::BitSliced, d, known_bitsliced().hit_ns);
  REQUIRE(r.coefficients.fitted);
  const std::vector<double> got = kernel_values(Layout::BitSliced, r.coefficients);
  for (size_t j = 0; j < want.size(); ++j) {
    INFO(kernel_terms(Layout::BitSliced)[j]);
    CHECK(got[j] == Approx(want[j]).epsilon(1e-6));
  }
  CHECK(r.coefficients.r2 == Approx(1.0).epsilon(1e-9));
  // A wrong one is kept, not refitted: the other terms cannot absorb it all, so the fit is no longer exact.
  const KernelFit w = fit_kernel(s, Layout::BitSliced, d, 3 * known_bitsliced().hit_ns);
  REQUIRE(w.coefficients.fitted);
  CHECK(w.coefficients.hit_ns == 3 * known_bitsliced().hit_ns);
  CHECK(w.coefficients.r2 < 0.9999);
}

TEST_CASE("kernel_fit takes a one-block matrix's DRAM cost from the others' when no point can tell",
          "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  Calibration b = known();
  b.kernel_bitsliced = known_bitsliced();
  b.kernel_bitsliced.row_miss_single_ns = b.kernel_bitsliced.row_miss_ns;
  b.kernel_bitsliced.llc_bytes = d.caches[2].size_bytes;
  // Without n_sub 1500 (400 sub-queries: the grid's only one-block matrix) no point prices a one-block DRAM miss.
  std::vector<KernelSample> s;
  for (KernelSample x : grid(Layout::BitSliced))
    if (x.n_sub != 1500) {
      x.measured_s = model_seconds(x, d, b);
      s.push_back(x);
    }
  const KernelFit r = fit_kernel(s, Layout::BitSliced, d);
  REQUIRE(r.error.empty());
  REQUIRE(r.coefficients.fitted);
  CHECK(r.coefficients.row_miss_ns == Approx(b.kernel_bitsliced.row_miss_ns).epsilon(1e-6));
  CHECK(r.coefficients.row_miss_single_ns == r.coefficients.row_miss_ns);
  CHECK(r.coefficients.narrow_row_ns == Approx(b.kernel_bitsliced.narrow_row_ns).epsilon(1e-6));
  CHECK(r.coefficients.r2 == Approx(1.0).epsilon(1e-9));
  // With it, a different one-block cost is recovered (the first test case), and the two differ.
  std::vector<KernelSample> all = grid(Layout::BitSliced);
  Calibration c = b;
  c.kernel_bitsliced.row_miss_single_ns = 0.5 * b.kernel_bitsliced.row_miss_ns;
  for (KernelSample& x : all) x.measured_s = model_seconds(x, d, c);
  const KernelFit q = fit_kernel(all, Layout::BitSliced, d);
  REQUIRE(q.coefficients.fitted);
  CHECK(q.coefficients.row_miss_single_ns == Approx(0.5 * b.kernel_bitsliced.row_miss_ns).epsilon(1e-6));
}

TEST_CASE("kernel_fit predicts noisy times within the noise", "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  for (Layout l : {Layout::Vector, Layout::BitSliced}) {
    std::vector<KernelSample> s = grid(l);
    for (size_t i = 0; i < s.size(); ++i)  // +-2%, alternating
      s[i].measured_s = model_seconds(s[i], d, known()) * (i % 2 ? 1.02 : 0.98);
    const KernelFit r = fit_kernel(s, l, d);
    REQUIRE(r.coefficients.fitted);
    // Within a few times the noise everywhere (the bit-sliced fit also searches the cache capacity, one more
    // degree of freedom for the noise to use), and the noise-free times explained.
    std::vector<double> truth, pred;
    for (const KernelSample& x : s) {
      truth.push_back(model_seconds(x, d, known()));
      pred.push_back(predict_kernel_sample(x, r.coefficients, d));
      CHECK(std::fabs(pred.back() / truth.back() - 1) < 0.08);
    }
    CHECK(r_squared(truth, pred) > 0.99);
  }
}

TEST_CASE("kernel_fit refuses degenerate input", "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  std::vector<KernelSample> s = grid(Layout::Vector);
  for (KernelSample& x : s) x.measured_s = model_seconds(x, d, known());
  // No points of the layout asked for, too few points.
  CHECK_FALSE(fit_kernel(s, Layout::BitSliced, d).coefficients.fitted);
  CHECK_FALSE(fit_kernel({s.begin(), s.begin() + 5}, Layout::Vector, d).coefficients.fitted);
  // One configuration repeated: the terms are not determined.
  std::vector<KernelSample> same(12, s[3]);
  const KernelFit r = fit_kernel(same, Layout::Vector, d);
  CHECK_FALSE(r.coefficients.fitted);
  CHECK(r.error.find("determine") != std::string::npos);
  // Times that are not positive and finite.
  for (double bad : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    std::vector<KernelSample> t = s;
    t[7].measured_s = bad;
    CHECK_FALSE(fit_kernel(t, Layout::Vector, d).coefficients.fitted);
  }
  CHECK_THROWS_AS(kernel_terms(Layout::PaperVector), bloomseq::UsageError);
}

TEST_CASE("fitted kernel coefficients price their own layout's stage 1a only", "[model][kernel_fit]") {
  const DeviceProfile d = test_cpu();
  Calibration base = known();
  base.verify_ns = 50;
  Calibration with = base;
  with.kernel_vector = kernel_coefficients(Layout::Vector, {2.0, 0.5, 9.0, 6.0, 1e-3});
  with.kernel_vector.fitted = true;
  // The same constants written into the plain fields give the same stage-1a time.
  Calibration plain = base;
  plain.hash_ns = 2.0;
  plain.probe_ns = 0.5;
  plain.mispredict_ns = 9.0;
  plain.hit_ns = 6.0;
  plain.a0 = 1e-3;
  for (const KernelSample& s : grid(Layout::Vector)) {
    Stage1aConfig x;
    x.query_bases = s.query_bases;
    x.db_bases = s.db_bases;
    x.n_sub = s.n_sub;
    x.k = s.k;
    x.m_bits = s.m_bits;
    x.layout = Layout::Vector;
    const Prediction a = predict_stage1a(x, d, with), b = predict_stage1a(x, d, plain), c = predict_stage1a(x, d, base);
    CHECK(a.stage1a_s == Approx(b.stage1a_s).epsilon(1e-12));
    CHECK(a.stage1b_s == Approx(c.stage1b_s).epsilon(1e-12));  // stage 1b keeps verify_ns
    // The bit-sliced layout has no fitted coefficients here: priced as before.
    x.layout = Layout::BitSliced;
    x.n_sub = 1000;
    CHECK(predict_stage1a(x, d, with).stage1a_s == Approx(predict_stage1a(x, d, base).stage1a_s).epsilon(1e-12));
  }
}

TEST_CASE("the planner prices layouts with the kernel coefficients", "[model][kernel_fit][planner]") {
  const DeviceProfile d = test_cpu();
  PlanRequest req;
  req.query_bases = 1000000;
  req.db_bases = 10000000;
  req.objective = Objective::MinTime;
  req.target_fpr = 1e-3;
  req.layouts = {Layout::Vector, Layout::BitSliced};
  Calibration cal = known();
  // Bit-sliced kernel coefficients 100x the micro-benchmark constants: the vector layout must win ...
  KernelCoefficients slow = kernel_coefficients(Layout::BitSliced,
                                                  {350, 350, 1200, 1200, 640, 10, 300, 300, 750, 450, 0});
  slow.fitted = true;
  cal.kernel_bitsliced = slow;
  const Plan a = plan_stage1a(req, d, cal);
  REQUIRE(a.feasible);
  CHECK(a.config.layout == Layout::Vector);
  // ... and with the vector layout's 100x instead, the bit-sliced one; the predicted time is the chosen layout's
  // own prediction under the same calibration.
  Calibration cal2 = known();
  KernelCoefficients vslow = kernel_coefficients(Layout::Vector, {350, 110, 750, 450, 0});
  vslow.fitted = true;
  cal2.kernel_vector = vslow;
  const Plan b = plan_stage1a(req, d, cal2);
  REQUIRE(b.feasible);
  CHECK(b.config.layout == Layout::BitSliced);
  CHECK(b.prediction.stage1a_s == Approx(predict_stage1a(b.config, d, cal2).stage1a_s));
}
