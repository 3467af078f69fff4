// Rendering through the public C API (libwr.so) and checking every pixel of the depth image
// against closed-form truth, for the sensor tests.
//
// Every expected value is computed here, independently of the library, in double precision with
// Eigen, from the conventions of include/wr/wr.h:
//   - the ray of pixel (u, v) is d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy),
//     camera frame +X forward, +Y left, +Z up;
//   - camera_in_world = body_in_world * mount;
//   - WR_DEPTH_PLANE reports the distance along the camera's +X axis (t * d_cam.x for a hit at ray
//     distance t), WR_DEPTH_RANGE the Euclidean distance t;
//   - near_clip / far_clip bound the reported value; a miss holds miss_value.
// The truth is computed from the very float values handed to the library (pose floats, camera
// fields, vertex floats), so it differs from the library's float result only by the library's own
// rounding. Tolerances are relative and say why they are what they are where they exceed 1e-5.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "backend_under_test.h"
#include "float_bits.h"
#include "mesh_builders.h"
#include "sensor_poses.h"

namespace wr_test::sensor_tests {

using Eigen::Vector3d;
using wr_test::Mesh;

constexpr float kSentinel = -12345.0f;  // never a depth or miss value of these tests

// ---- handles ------------------------------------------------------------------------------------

using wr_test::Context;
using wr_test::make_context;
using wr_test::make_sensor;
using wr_test::Scene;
using wr_test::Sensor;

// A context of the backend under test (backend_under_test.h). On the CPU: the machine the tests
// run on may be small; two threads exercise the pool without hogging it.
inline wr_context shared_context() {
  static Context context = [] {
    wr_context c = nullptr;
    REQUIRE_OK(wr_test::create_backend_context(2, &c));
    return Context(c);
  }();
  return context.get();
}

inline Scene make_scene(const Mesh& m, wr_context context = shared_context()) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(context, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return Scene(s);
}

inline wr_camera_desc pinhole(uint32_t w, uint32_t h, float hfov_deg, wr_depth_kind kind, float miss = -1.0f) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, w, h, hfov_deg);
  d.depth_kind = kind;
  d.miss_value = miss;
  return d;
}

// Renders (num_envs x 7) pose floats on the backend under test; every env's image,
// (num_envs x height x width).
inline std::vector<float> render(wr_scene scene, const wr_camera_desc& desc, const std::vector<float>& poses) {
  const uint32_t n = uint32_t(poses.size() / 7);
  Sensor sensor = make_sensor(scene, desc, n);
  std::vector<float> out(size_t(n) * desc.width * desc.height, kSentinel);
  REQUIRE_OK(wr_test::render_on_backend(sensor.get(), poses.data(), poses.size(), out.data(), out.size()));
  return out;
}

using wr_test::same_bits;

inline bool is_miss(float got, float miss_value) {
  if (std::isnan(miss_value)) return std::isnan(got);
  return got == miss_value;
}

// ---- per-pixel truth and its check ----------------------------------------------------------------

// What one pixel must hold: a hit at ray distance t (unit ray, metres), a miss, or "unsure": the
// ray passes so close to a silhouette edge that float rounding may legitimately go either way.
struct Truth {
  enum Kind { kHit, kMiss, kUnsure } kind = kMiss;
  double t = 0.0;
  double rel_tol = 1e-5;
};

inline Truth hit(double t, double rel_tol = 1e-5) { return Truth{Truth::kHit, t, rel_tol}; }
inline Truth miss() { return Truth{Truth::kMiss, 0.0, 0.0}; }
inline Truth unsure() { return Truth{Truth::kUnsure, 0.0, 0.0}; }

// Relative tolerance for a hit at incidence cos_inc = |normal . ray|. The library works in float:
// its world ray direction is off by a few 1e-7 (template rounding, float rotation), which moves the
// hit distance by about that much divided by cos_inc. 1e-5 holds wherever cos_inc > 0.1; grazing
// hits get the proportionally larger allowance 1e-6 / cos_inc.
inline double grazing_tol(double cos_inc, double base = 1e-5) { return std::max(base, 1e-6 / std::fabs(cos_inc)); }

// Ray o + t d (d unit) against the axis-aligned square {x[axis] = value, |x[a1] - c1| <= half,
// |x[a2] - c2| <= half} with a1, a2 the other two axes in cyclic order.
inline Truth square_truth(const Vector3d& o, const Vector3d& d, int axis, double value, double c1, double c2,
                          double half) {
  const double gap = value - o[axis];
  if (!(gap * d[axis] > 0.0)) return miss();  // parallel, or pointing away
  const double t = gap / d[axis];
  const Vector3d p = o + t * d;
  const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
  const double ext = std::max(std::fabs(p[a1] - c1), std::fabs(p[a2] - c2));
  // Float rays land within ~1e-6 t of the double hit point (more at grazing incidence).
  const double margin = 1e-5 * t / std::fabs(d[axis]) + 1e-6;
  if (ext > half + margin) return miss();
  if (ext > half - margin) return unsure();
  return hit(t, grazing_tol(d[axis]));
}

// Distance at which a ray starting inside [lo, hi] leaves it (slabs, Kay & Kajiya 1986), and the
// axis of the wall it leaves through.
inline double box_exit(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi,
                       int* axis = nullptr) {
  double t = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    double ti = std::numeric_limits<double>::infinity();
    if (d[i] > 0) ti = (hi[i] - o[i]) / d[i];
    if (d[i] < 0) ti = (lo[i] - o[i]) / d[i];
    if (ti < t) {
      t = ti;
      if (axis) *axis = i;
    }
  }
  return t;
}

// Distance at which a ray from outside enters [lo, hi]; +inf when it misses.
inline double box_entry(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi) {
  double tn = -std::numeric_limits<double>::infinity(), tf = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (o[i] < lo[i] || o[i] > hi[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    const double t1 = (lo[i] - o[i]) / d[i], t2 = (hi[i] - o[i]) / d[i];
    tn = std::max(tn, std::min(t1, t2));
    tf = std::min(tf, std::max(t1, t2));
  }
  if (tn > tf || tf < 0.0) return std::numeric_limits<double>::infinity();
  return tn;
}

// A solid box seen from outside: a hit when the ray also hits the box shrunk by `margin`, a miss
// when it also misses the box grown by `margin`, unsure in between (silhouette).
inline Truth box_outside_truth(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi,
                               double margin = 1e-4) {
  const Vector3d m = Vector3d::Constant(margin);
  const double inner = box_entry(o, d, lo + m, hi - m), outer = box_entry(o, d, lo - m, hi + m);
  if (std::isinf(outer)) return miss();
  if (std::isinf(inner)) return unsure();
  return hit(box_entry(o, d, lo, hi));
}

struct Report {
  long hits = 0, misses = 0, unsure = 0, failures = 0;
  std::string first;  // the first failures, one a line
  void fail(const std::string& what) {
    if (failures++ < 10) first += what + "\n";
  }
  std::string summary() const {
    std::ostringstream s;
    s << "checked hits " << hits << ", misses " << misses << ", skipped (silhouette) " << unsure << ", failures "
      << failures << "\n"
      << first;
    return s.str();
  }
};

using TruthFn = std::function<Truth(uint32_t env, const Rigid& cam, const Vector3d& d_cam, const Vector3d& d_world)>;

// Checks every pixel of a rendered (num_envs x H x W) image against `truth`. Hits compare the
// reported value (t * d_cam.x for PLANE, t for RANGE) within the truth's relative tolerance;
// misses must hold desc.miss_value exactly (NaN: any NaN). Near/far are the truth's business.
inline Report check_image(const std::vector<float>& img, const wr_camera_desc& desc, const std::vector<float>& poses,
                          const TruthFn& truth) {
  Report r;
  const uint32_t n = uint32_t(poses.size() / 7);
  REQUIRE(img.size() == size_t(n) * desc.width * desc.height);
  for (uint32_t e = 0; e < n; ++e) {
    const Rigid cam = camera_in_world(&poses[7 * e], desc);
    for (uint32_t v = 0; v < desc.height; ++v) {
      for (uint32_t u = 0; u < desc.width; ++u) {
        const Vector3d dc = ray_cam(desc, u, v);
        const Truth tr = truth(e, cam, dc, cam.R * dc);
        const float got = img[(size_t(e) * desc.height + v) * desc.width + u];
        std::ostringstream where;
        where << "env " << e << " pixel (u=" << u << ", v=" << v << "): ";
        if (tr.kind == Truth::kUnsure) {
          ++r.unsure;
        } else if (tr.kind == Truth::kMiss) {
          ++r.misses;
          if (!is_miss(got, desc.miss_value)) {
            where << "expected a miss (" << desc.miss_value << "), got " << got;
            r.fail(where.str());
          }
        } else {
          ++r.hits;
          const double want = desc.depth_kind == WR_DEPTH_PLANE ? tr.t * dc.x() : tr.t;
          const double err = std::fabs(double(got) - want);
          if (!(err <= tr.rel_tol * std::fabs(want))) {
            where.precision(9);
            where << "expected " << want << ", got " << got << " (relative error " << err / std::fabs(want)
                  << ", tolerance " << tr.rel_tol << ")";
            r.fail(where.str());
          }
        }
      }
    }
  }
  return r;
}

#define CHECK_REPORT(report)       \
  do {                             \
    INFO((report).summary());      \
    CHECK((report).failures == 0); \
  } while (0)

// Per pixel, a and b agree within `rel` (relative), or are both misses of `miss_value`.
inline Report compare_images(const std::vector<float>& a, const std::vector<float>& b, double rel, float miss_value) {
  Report r;
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const bool ma = is_miss(a[i], miss_value), mb = is_miss(b[i], miss_value);
    if (ma || mb) {
      ++r.misses;
      if (ma != mb) r.fail("index " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " + std::to_string(b[i]));
      continue;
    }
    ++r.hits;
    if (!(std::fabs(double(a[i]) - b[i]) <= rel * std::fabs(double(b[i]))))
      r.fail("index " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " + std::to_string(b[i]));
  }
  return r;
}

}  // namespace wr_test::sensor_tests
