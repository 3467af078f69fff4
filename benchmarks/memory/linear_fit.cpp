#include "linear_fit.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

namespace wrbench {

LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit fit;
  const Eigen::Index n = Eigen::Index(std::min(x.size(), y.size()));
  if (n < 2 || std::all_of(x.begin(), x.begin() + n, [&](double v) { return v == x[0]; })) return fit;
  // Every y the same (the library's own bytes of the shared strategy): a flat line, exactly.
  if (std::all_of(y.begin(), y.begin() + n, [&](double v) { return v == y[0]; })) {
    fit.init = y[0], fit.slope = 0, fit.r_squared = 1, fit.max_residual = 0, fit.valid = true;
    return fit;
  }
  Eigen::MatrixXd a(n, 2);  // (n x 2): [1, x]
  Eigen::VectorXd b(n);     // (n)
  for (Eigen::Index i = 0; i < n; ++i) a(i, 0) = 1.0, a(i, 1) = x[size_t(i)], b(i) = y[size_t(i)];
  const Eigen::Vector2d coef = a.colPivHouseholderQr().solve(b);
  const Eigen::VectorXd residual = b - a * coef;
  const double ss_res = residual.squaredNorm();
  const double ss_tot = (b.array() - b.mean()).matrix().squaredNorm();
  fit.init = coef(0);
  fit.slope = coef(1);
  fit.r_squared = 1.0 - ss_res / ss_tot;  // ss_tot > 0: the y differ
  fit.max_residual = residual.cwiseAbs().maxCoeff();
  fit.valid = true;
  return fit;
}

}  // namespace wrbench
