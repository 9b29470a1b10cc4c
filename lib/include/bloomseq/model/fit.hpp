// Least-squares fits used by calibration and validation (small dense problems: a handful of unknowns).
#pragma once
#include <vector>

namespace bloomseq::model {

struct LinearFit {
  double a1 = 0, a0 = 0;  // y = a1 x + a0
  double r2 = 0;          // coefficient of determination of the fit
  bool ok = false;
};
// Ordinary least squares of y on x with intercept.
LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y);
// R^2 of predictions against measurements: 1 - SS_res / SS_tot.
double r_squared(const std::vector<double>& measured, const std::vector<double>& predicted);
// Least squares for y ~ A c (A given row by row, no intercept unless a column of ones is included).
// Returns the coefficients, empty if the system is singular. Nonnegative = clamp by active-set refits (NNLS-lite).
std::vector<double> least_squares(const std::vector<std::vector<double>>& A, const std::vector<double>& y,
                                  bool nonnegative = false);

}  // namespace bloomseq::model
