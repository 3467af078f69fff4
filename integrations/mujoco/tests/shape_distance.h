// Distances to MuJoCo's true primitive surfaces (geom_size conventions), and from a point to a
// triangle: what the tessellation tests measure the library's triangles against.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

#include <mujoco/mujoco.h>

namespace wr_mujoco_test {

// Distance from p (geom frame) to the surface of an ellipsoid of radii e (Eberly, "Distance from a
// point to an ellipse, an ellipsoid, or a hyperellipsoid": the root of
// F(t) = sum (e_i y_i / (t + e_i^2))^2 - 1 by bisection, inside and outside alike).
inline double ellipsoid_distance(const double e_in[3], const double p[3]) {
  std::pair<double, double> a[3];  // (radius, |coordinate|), sorted by radius, largest first
  for (int i = 0; i < 3; ++i) a[i] = {e_in[i], std::max(std::fabs(p[i]), 1e-300)};
  std::sort(a, a + 3, [](const auto& x, const auto& y) { return x.first > y.first; });
  const double e2min = a[2].first * a[2].first;
  const auto F = [&](double t) {
    double s = -1.0;
    for (const auto& k : a) {
      const double r = k.first * k.second / (t + k.first * k.first);
      s += r * r;
    }
    return s;
  };
  double lo = -e2min + a[2].first * a[2].second;
  double norm = 0;
  for (const auto& k : a) norm += (k.first * k.second) * (k.first * k.second);
  double hi = -e2min + std::sqrt(norm);
  for (int it = 0; it < 400 && lo < hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (F(mid) > 0 ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  double d2 = 0;
  for (const auto& k : a) {
    const double x = k.first * k.first * k.second / (t + k.first * k.first);
    d2 += (x - k.second) * (x - k.second);
  }
  return std::sqrt(d2);
}

// Distance from p (geom frame) to the surface of a primitive geom of type and size (mjModel.geom_size).
inline double surface_distance(int type, const double* size, const double p[3]) {
  switch (type) {
    case mjGEOM_SPHERE: return std::fabs(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - size[0]);
    case mjGEOM_ELLIPSOID: return ellipsoid_distance(size, p);
    case mjGEOM_CAPSULE: {
      const double z = std::clamp(p[2], -size[1], size[1]);
      return std::fabs(std::sqrt(p[0] * p[0] + p[1] * p[1] + (p[2] - z) * (p[2] - z)) - size[0]);
    }
    case mjGEOM_CYLINDER: {
      // The exact signed distance of a capped cylinder; its magnitude is the distance to the surface.
      const double qx = std::sqrt(p[0] * p[0] + p[1] * p[1]) - size[0], qz = std::fabs(p[2]) - size[1];
      const double outside = std::sqrt(std::max(qx, 0.0) * std::max(qx, 0.0) + std::max(qz, 0.0) * std::max(qz, 0.0));
      return std::fabs(outside + std::min(std::max(qx, qz), 0.0));
    }
    case mjGEOM_BOX: {
      double q[3], outside = 0, inside = -1e300;
      for (int i = 0; i < 3; ++i) {
        q[i] = std::fabs(p[i]) - size[i];
        outside += std::max(q[i], 0.0) * std::max(q[i], 0.0);
        inside = std::max(inside, q[i]);
      }
      return std::fabs(std::sqrt(outside) + std::min(inside, 0.0));
    }
    default: return 1e300;
  }
}

// The world point p in the frame of a geom at (pos, row-major mat).
inline void to_local(const mjtNum* pos, const mjtNum* mat, const double p[3], double out[3]) {
  const double d[3] = {p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]};
  for (int j = 0; j < 3; ++j) out[j] = mat[j] * d[0] + mat[3 + j] * d[1] + mat[6 + j] * d[2];
}

// Distance from p to triangle (a, b, c) (Ericson, Real-Time Collision Detection, 5.1.5).
inline double point_triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3]) {
  const auto sub = [](const double* x, const double* y, double* o) {
    for (int i = 0; i < 3; ++i) o[i] = x[i] - y[i];
  };
  const auto dot = [](const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; };
  double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
  sub(b, a, ab);
  sub(c, a, ac);
  sub(p, a, ap);
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  const auto dist_to = [&](const double* x) {
    double d[3];
    sub(p, x, d);
    return std::sqrt(dot(d, d));
  };
  if (d1 <= 0 && d2 <= 0) return dist_to(a);
  sub(p, b, bp);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return dist_to(b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    for (int i = 0; i < 3; ++i) q[i] = a[i] + v * ab[i];
    return dist_to(q);
  }
  sub(p, c, cp);
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return dist_to(c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    for (int i = 0; i < 3; ++i) q[i] = a[i] + w * ac[i];
    return dist_to(q);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; ++i) q[i] = b[i] + w * (c[i] - b[i]);
    return dist_to(q);
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  for (int i = 0; i < 3; ++i) q[i] = a[i] + ab[i] * v + ac[i] * w;
  return dist_to(q);
}

}  // namespace wr_mujoco_test
