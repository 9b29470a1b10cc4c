#include "bloomseq/model/fit.hpp"

#include <cmath>

namespace bloomseq::model {

LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  size_t n = x.size();
  if (n < 2 || y.size() != n) return f;
  double sx = 0, sy = 0;
  for (size_t i = 0; i < n; ++i) { sx += x[i]; sy += y[i]; }
  double mx = sx / n, my = sy / n, sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.a1 = sxy / sxx;
  f.a0 = my - f.a1 * mx;
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = f.a1 * x[i] + f.a0;
  f.r2 = r_squared(y, p);
  f.ok = true;
  return f;
}

double r_squared(const std::vector<double>& y, const std::vector<double>& p) {
  size_t n = y.size();
  if (n == 0 || p.size() != n) return 0;
  double my = 0;
  for (double v : y) my += v;
  my /= n;
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < n; ++i) {
    ss_res += (y[i] - p[i]) * (y[i] - p[i]);
    ss_tot += (y[i] - my) * (y[i] - my);
  }
  return ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
}

namespace {
// Solve the normal equations over the columns in `use` by Gaussian elimination with partial pivoting.
std::vector<double> solve_subset(const std::vector<std::vector<double>>& A, const std::vector<double>& y,
                                 const std::vector<bool>& use) {
  size_t cols = use.size();
  std::vector<size_t> idx;
  for (size_t j = 0; j < cols; ++j)
    if (use[j]) idx.push_back(j);
  size_t k = idx.size();
  std::vector<double> out(cols, 0.0);
  if (k == 0) return out;
  std::vector<std::vector<double>> M(k, std::vector<double>(k + 1, 0.0));
  for (size_t r = 0; r < A.size(); ++r)
    for (size_t a = 0; a < k; ++a) {
      for (size_t b = 0; b < k; ++b) M[a][b] += A[r][idx[a]] * A[r][idx[b]];
      M[a][k] += A[r][idx[a]] * y[r];
    }
  for (size_t c = 0; c < k; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < k; ++r)
      if (std::fabs(M[r][c]) > std::fabs(M[piv][c])) piv = r;
    if (std::fabs(M[piv][c]) < 1e-300) return {};
    std::swap(M[c], M[piv]);
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      double f = M[r][c] / M[c][c];
      for (size_t j = c; j <= k; ++j) M[r][j] -= f * M[c][j];
    }
  }
  for (size_t a = 0; a < k; ++a) out[idx[a]] = M[a][k] / M[a][a];
  return out;
}
}  // namespace

std::vector<double> least_squares(const std::vector<std::vector<double>>& A, const std::vector<double>& y, bool nonneg) {
  if (A.empty() || A.size() != y.size()) return {};
  size_t cols = A[0].size();
  std::vector<bool> use(cols, true);
  for (size_t iter = 0; iter <= cols; ++iter) {
    std::vector<double> c = solve_subset(A, y, use);
    if (c.empty()) return {};
    if (!nonneg) return c;
    // Drop the most negative coefficient and refit until all are >= 0.
    size_t worst = cols;
    for (size_t j = 0; j < cols; ++j)
      if (use[j] && c[j] < 0 && (worst == cols || c[j] < c[worst])) worst = j;
    if (worst == cols) return c;
    use[worst] = false;
  }
  return {};
}

}  // namespace bloomseq::model
