// Least-squares straight line through (x, y) points: memory = init + slope * N.
#pragma once

#include <vector>

namespace wrbench {

struct LinearFit {
  double init = 0;          // intercept: what N = 0 would cost
  double slope = 0;         // per unit of x (per env)
  double r_squared = 0;     // 1 - SS_res / SS_tot; 1 when every y is the same (a flat line, exact)
  double max_residual = 0;  // largest |y - fit|, in y's units
  bool valid = false;       // false with fewer than two distinct x
};

/// Fits y = init + slope * x over x.size() == y.size() points (Eigen, column-pivoting QR of
/// the [1, x] design matrix, better conditioned than the normal equations).
LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace wrbench
