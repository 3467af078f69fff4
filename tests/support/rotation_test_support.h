// Rotations for the pose tests (wr_gather_poses): the textbook matrix of a quaternion, and random
// unit quaternions, in double, independent of the library's conversion.
#pragma once

#include <array>
#include <cmath>
#include <random>

namespace wr_test {

// The row-major rotation matrix of the quaternion (w, x, y, z), unit or not (a scaled quaternion
// gives a scaled-up rotation: |q|^2 times it, the formula's own).
inline std::array<double, 9> rotation_matrix_of(const double q[4]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

// A unit quaternion uniform over rotations (four normal variates, normalised).
template <class Rng>
std::array<double, 4> random_unit_quaternion(Rng& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::array<double, 4> q = {g(rng), g(rng), g(rng), g(rng)};
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& c : q) c /= n;
  return q;
}

}  // namespace wr_test
