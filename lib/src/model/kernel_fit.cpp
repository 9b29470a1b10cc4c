#include "bloomseq/model/kernel_fit.hpp"

#include <algorithm>
#include <cmath>

#include "bloomseq/error.hpp"
#include "bloomseq/model/fit.hpp"

namespace bloomseq::model {

namespace {
// Calibration with every stage-1a constant 0 (no kernel coefficients), to be given one unit constant.
Calibration zero_constants() {
  Calibration c;
  c.a0 = 0;
  c.hash_ns = c.probe_ns = c.mispredict_ns = c.row_fixed_ns = c.row_byte_ns = c.row_miss_ns = 0;
  c.hit_ns = c.verify_ns = 0;
  return c;
}

double stage1a_seconds(const KernelSample& s, const DeviceProfile& dev, const Calibration& cal) {
  return predict_stage1a(stage1a_config(s), dev, cal).stage1a_s;
}

// Rank check of the column-scaled design: Gaussian elimination of its Gram matrix; a pivot below `tol` times the
// largest diagonal entry means a term is (numerically) a combination of the others.
bool full_rank(const std::vector<std::vector<double>>& A, double tol) {
  const size_t n = A.empty() ? 0 : A[0].size();
  std::vector<std::vector<double>> M(n, std::vector<double>(n, 0.0));
  for (const auto& row : A)
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) M[a][b] += row[a] * row[b];
  double diag = 0;
  for (size_t a = 0; a < n; ++a) diag = std::max(diag, M[a][a]);
  if (!(diag > 0)) return false;
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(M[r][c]) > std::fabs(M[piv][c])) piv = r;
    if (std::fabs(M[piv][c]) <= tol * diag) return false;
    std::swap(M[c], M[piv]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = M[r][c] / M[c][c];
      for (size_t j = c; j < n; ++j) M[r][j] -= f * M[c][j];
    }
  }
  return true;
}
}  // namespace

Stage1aConfig stage1a_config(const KernelSample& s) {
  Stage1aConfig c;
  c.query_bases = s.query_bases;
  c.db_bases = s.db_bases;
  c.w = s.w;
  c.n_sub = s.n_sub;
  c.k = s.k;
  c.m_bits = s.m_bits;
  c.layout = s.layout;
  c.threads = s.threads;
  c.work_units = s.work_units;
  return c;
}

std::vector<std::string> kernel_terms(Layout l) {
  if (l == Layout::Vector) return {"hash_ns", "probe_ns", "mispredict_ns", "hit_ns", "a0"};
  if (l == Layout::BitSliced)
    return {"hash_ns",     "hash_generic_ns",    "row_fixed_ns",  "narrow_fixed_ns", "narrow_row_ns", "row_byte_ns",
            "row_miss_ns", "row_miss_single_ns", "mispredict_ns", "hit_ns",          "a0"};
  throw UsageError("the kernel probe prices the CPU layouts only (vector, bitsliced)");
}

KernelCoefficients kernel_coefficients(Layout l, const std::vector<double>& v) {
  const size_t n = kernel_terms(l).size();
  if (v.size() != n) throw UsageError("kernel coefficients: expected " + std::to_string(n) + " values");
  KernelCoefficients c;
  c.hash_ns = v[0];
  if (l == Layout::Vector) {
    c.probe_ns = v[1];
    c.mispredict_ns = v[2];
  } else {
    c.hash_generic_ns = v[1];
    c.row_fixed_ns = v[2];
    c.narrow_fixed_ns = v[3];
    c.narrow_row_ns = v[4];
    c.row_byte_ns = v[5];
    c.row_miss_ns = v[6];
    c.row_miss_single_ns = v[7];
    c.mispredict_ns = v[8];
  }
  c.hit_ns = v[n - 2];
  c.a0 = v[n - 1];
  return c;
}

std::vector<double> kernel_values(Layout l, const KernelCoefficients& c) {
  if (l == Layout::Vector) return {c.hash_ns, c.probe_ns, c.mispredict_ns, c.hit_ns, c.a0};
  kernel_terms(l);  // throws for PaperVector
  return {c.hash_ns,     c.hash_generic_ns,    c.row_fixed_ns,  c.narrow_fixed_ns, c.narrow_row_ns, c.row_byte_ns,
          c.row_miss_ns, c.row_miss_single_ns, c.mispredict_ns, c.hit_ns,          c.a0};
}

bool bitsliced_fixed_k_hash(int k) { return k >= 1 && k <= 8; }

KernelCoefficients layout_coefficients(const Calibration& cal, Layout l) {
  if (l == Layout::Vector && cal.kernel_vector.fitted) return cal.kernel_vector;
  if (l == Layout::BitSliced && cal.kernel_bitsliced.fitted) return cal.kernel_bitsliced;
  KernelCoefficients k;
  k.hash_ns = k.hash_generic_ns = cal.hash_ns;
  k.probe_ns = cal.probe_ns;
  k.mispredict_ns = cal.mispredict_ns;
  k.row_fixed_ns = k.narrow_fixed_ns = cal.row_fixed_ns;
  k.row_byte_ns = cal.row_byte_ns;
  k.narrow_row_ns = 64.0 * cal.row_byte_ns;  // one line's bytes
  k.row_miss_ns = k.row_miss_single_ns = cal.row_miss_ns;
  k.hit_ns = cal.hit_ns;
  k.a0 = cal.a0;
  return k;
}

std::vector<CacheLevel> caches_with_llc(const std::vector<CacheLevel>& caches, uint64_t llc_bytes) {
  std::vector<CacheLevel> c = caches;
  if (llc_bytes == 0 || c.size() < 2) return c;
  const size_t last = c.size() - 2;  // the entry before DRAM
  const uint64_t below = last > 0 ? c[last - 1].size_bytes : 0;
  c[last].size_bytes = std::max(llc_bytes, below);
  return c;
}

std::vector<double> kernel_features(const KernelSample& s, const DeviceProfile& dev, uint64_t llc_bytes) {
  const size_t n = kernel_terms(s.layout).size();
  std::vector<double> f;
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> unit(n, 0.0);
    unit[j] = 1.0;
    Calibration c = zero_constants();
    KernelCoefficients k = kernel_coefficients(s.layout, unit);
    k.fitted = true;
    k.llc_bytes = llc_bytes;
    (s.layout == Layout::Vector ? c.kernel_vector : c.kernel_bitsliced) = k;
    f.push_back(stage1a_seconds(s, dev, c));
  }
  return f;
}

double predict_kernel_sample(const KernelSample& s, const KernelCoefficients& k, const DeviceProfile& dev) {
  const std::vector<double> f = kernel_features(s, dev, k.llc_bytes), v = kernel_values(s.layout, k);
  double t = 0;
  for (size_t j = 0; j < f.size(); ++j) t += f[j] * v[j];
  return t;
}

namespace {
size_t index_of(const std::vector<std::string>& terms, const std::string& name) {
  return size_t(std::find(terms.begin(), terms.end(), name) - terms.begin());
}

KernelFit fit_kernel_at(const std::vector<KernelSample>& samples, Layout l, const DeviceProfile& dev, uint64_t llc,
                        double fixed_hit_ns) {
  KernelFit r;
  const std::vector<std::string> terms = kernel_terms(l);
  const size_t n = terms.size();
  const size_t hit = n - 2;  // kernel_terms ends with hit_ns, a0
  const bool fix = fixed_hit_ns >= 0;
  std::vector<std::vector<double>> F;  // every term's feature, per sample
  std::vector<double> y, fixed_part;
  for (const KernelSample& s : samples) {
    if (s.layout != l) continue;
    if (!std::isfinite(s.measured_s) || s.measured_s <= 0) {
      r.error = "a measured time is not finite and positive";
      return r;
    }
    F.push_back(kernel_features(s, dev, llc));
    y.push_back(s.measured_s);
    fixed_part.push_back(fix ? F.back()[hit] * fixed_hit_ns : 0.0);
  }
  // A one-block matrix's DRAM cost is fitted only where some one-block point reaches DRAM; otherwise it is taken
  // to be the other blocks' (a probe without such points says nothing about it, and must not refuse the rest).
  const size_t single = l == Layout::BitSliced ? index_of(terms, "row_miss_single_ns") : n;
  const size_t miss = l == Layout::BitSliced ? index_of(terms, "row_miss_ns") : n;
  bool tie_single = single < n;
  for (const auto& f : F) tie_single = tie_single && f[single] == 0.0;
  std::vector<size_t> cols;  // the fitted terms
  for (size_t j = 0; j < n; ++j)
    if (!(fix && j == hit) && !(tie_single && j == single)) cols.push_back(j);
  const size_t nf = cols.size();
  std::vector<std::vector<double>> A;
  for (const auto& f : F) {
    std::vector<double> row;
    for (size_t j : cols) row.push_back(f[j]);
    A.push_back(row);
  }
  if (A.size() < nf + 1) {
    r.error = std::to_string(A.size()) + " points for " + std::to_string(nf) + " terms";
    return r;
  }
  // Scale each column to unit maximum: the terms differ by orders of magnitude (a0 per second, others per ns).
  std::vector<double> scale(nf, 0.0);
  for (const auto& row : A)
    for (size_t j = 0; j < nf; ++j) {
      if (!std::isfinite(row[j])) {
        r.error = "a feature is not finite";
        return r;
      }
      scale[j] = std::max(scale[j], std::fabs(row[j]));
    }
  for (size_t j = 0; j < nf; ++j)
    if (!(scale[j] > 0)) {
      r.error = "term " + terms[cols[j]] + " is zero at every point";
      return r;
    }
  for (auto& row : A)
    for (size_t j = 0; j < nf; ++j) row[j] /= scale[j];
  if (!full_rank(A, 1e-12)) {
    r.error = "the points do not determine every term (vary k, m and the number of sub-queries)";
    return r;
  }
  std::vector<double> rest(y.size());
  for (size_t i = 0; i < y.size(); ++i) rest[i] = y[i] - fixed_part[i];
  std::vector<double> c = least_squares(A, rest, true);
  if (c.size() != nf) {
    r.error = "singular least-squares system";
    return r;
  }
  std::vector<double> pred = fixed_part;
  for (size_t i = 0; i < A.size(); ++i)
    for (size_t j = 0; j < nf; ++j) pred[i] += A[i][j] * c[j];
  std::vector<double> all(n, fix ? fixed_hit_ns : 0.0);
  for (size_t j = 0; j < nf; ++j) all[cols[j]] = c[j] / scale[j];
  if (tie_single) all[single] = all[miss];
  r.coefficients = kernel_coefficients(l, all);
  r.coefficients.fitted = true;
  r.coefficients.r2 = r_squared(y, pred);
  r.coefficients.points = int(y.size());
  r.coefficients.llc_bytes = llc;
  return r;
}
}  // namespace

KernelFit fit_kernel(const std::vector<KernelSample>& samples, Layout l, const DeviceProfile& dev,
                     double fixed_hit_ns) {
  KernelFit best = fit_kernel_at(samples, l, dev, 0, fixed_hit_ns);
  if (l != Layout::BitSliced || !best.coefficients.fitted || dev.caches.size() < 2) return best;
  const double llc = double(dev.caches[dev.caches.size() - 2].size_bytes);
  for (int j = -12; j <= 4; ++j) {
    if (j == 0 || llc <= 0) continue;
    const KernelFit f = fit_kernel_at(samples, l, dev, uint64_t(llc * std::pow(2.0, j / 4.0)), fixed_hit_ns);
    if (f.coefficients.fitted && f.coefficients.r2 > best.coefficients.r2 + 1e-12) best = f;
  }
  return best;
}

}  // namespace bloomseq::model
