// The depth sensor against closed-form truth, through the public C API (libwr.so) only.
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
//
// Scenes are built here: subdivided quads, closed subdivided boxes, triangle fans, a bumpy
// heightfield and families of zero-area triangles, all with shared vertices.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "float_bits.h"
#include "mesh_builders.h"

namespace {

using Eigen::AngleAxisd;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kSentinel = -12345.0f;  // never a depth or miss value of these tests

double deg(double d) { return d * kPi / 180.0; }

// Orientation from yaw (about world +Z), then pitch (about the new +Y; positive looks DOWN, since
// a positive rotation about +Y turns +X towards -Z), then roll (about the new +X).
Quaterniond ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  return Quaterniond(AngleAxisd(deg(yaw_deg), Vector3d::UnitZ()) * AngleAxisd(deg(pitch_deg), Vector3d::UnitY()) *
                     AngleAxisd(deg(roll_deg), Vector3d::UnitX()));
}

// ---- meshes -------------------------------------------------------------------------------------

using wr_test::add_split_quad;
using wr_test::Mesh;

// A planar parallelogram corner + s * eu + t * ev (s, t in [0, 1]) split into (nu x nv) quads of two
// triangles each; (nu + 1) x (nv + 1) shared vertices. The diagonals alternate in a checkerboard so
// that rays meet vertices of both valence 4 and valence 8.
void add_quad(Mesh& m, const Vector3d& corner, const Vector3d& eu, const Vector3d& ev, int nu, int nv) {
  std::vector<uint32_t> id;
  for (int j = 0; j <= nv; ++j)
    for (int i = 0; i <= nu; ++i) id.push_back(m.vertex(corner + eu * (double(i) / nu) + ev * (double(j) / nv)));
  auto at = [&](int i, int j) { return id[size_t(j) * (nu + 1) + i]; };
  for (int j = 0; j < nv; ++j)
    for (int i = 0; i < nu; ++i)
      add_split_quad(m, at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1), (i + j) % 2 == 0);
}

// The closed surface of the box [lo, hi], each face split into (n x n) quads of two triangles.
// Vertices are shared across faces too (one per surface point of the (n + 1)^3 lattice), so the
// box is watertight at the float level: a face's boundary coordinates are exactly lo / hi.
void add_box(Mesh& m, const Vector3d& lo, const Vector3d& hi, int n) {
  const int k = n + 1;
  std::vector<int64_t> id(size_t(k) * k * k, -1);
  auto coord = [&](int axis, int i) {
    return i == 0 ? lo[axis] : i == n ? hi[axis] : lo[axis] + (hi[axis] - lo[axis]) * double(i) / n;
  };
  auto vid = [&](const std::array<int, 3>& c) {
    int64_t& slot = id[(size_t(c[0]) * k + c[1]) * k + c[2]];
    if (slot < 0) slot = m.vertex(Vector3d(coord(0, c[0]), coord(1, c[1]), coord(2, c[2])));
    return uint32_t(slot);
  };
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int side : {0, n}) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          std::array<int, 3> p00{}, p10{}, p11{}, p01{};
          p00[a] = p10[a] = p11[a] = p01[a] = side;
          p00[b] = i, p00[c] = j;
          p10[b] = i + 1, p10[c] = j;
          p11[b] = i + 1, p11[c] = j + 1;
          p01[b] = i, p01[c] = j + 1;
          m.triangle(vid(p00), vid(p10), vid(p11));
          m.triangle(vid(p00), vid(p11), vid(p01));
        }
      }
    }
  }
}

// A fan of `spokes` triangles around `centre` in the plane spanned by unit vectors e1, e2: every
// triangle shares the centre vertex, neighbours share a spoke edge. Outer radius `radius`.
void add_fan(Mesh& m, const Vector3d& centre, const Vector3d& e1, const Vector3d& e2, int spokes, double radius) {
  const uint32_t c = m.vertex(centre);
  std::vector<uint32_t> rim;
  for (int i = 0; i < spokes; ++i) {
    const double a = 2.0 * kPi * i / spokes;
    rim.push_back(m.vertex(centre + radius * (std::cos(a) * e1 + std::sin(a) * e2)));
  }
  for (int i = 0; i < spokes; ++i) m.triangle(c, rim[i], rim[(i + 1) % spokes]);
}

// ---- handles ------------------------------------------------------------------------------------

using wr_test::Context;
using wr_test::make_context;
using wr_test::make_sensor;
using wr_test::Scene;
using wr_test::Sensor;

// The machine the tests run on may be small; two threads exercise the pool without hogging it.
wr_context shared_context() {
  static Context context = make_context(2);
  return context.get();
}

Scene make_scene(const Mesh& m, wr_context context = shared_context()) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(context, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return Scene(s);
}

// ---- poses --------------------------------------------------------------------------------------

struct Pose {
  Vector3d p;
  Quaterniond q;
};

// The 7 floats of a pose in `order`; the quaternion's floats are multiplied by `scale` (in float).
void append_pose(std::vector<float>& out, const Pose& pose, wr_quat_order order, float scale = 1.0f) {
  const float w = float(pose.q.w()) * scale, x = float(pose.q.x()) * scale, y = float(pose.q.y()) * scale,
              z = float(pose.q.z()) * scale;
  out.insert(out.end(), {float(pose.p.x()), float(pose.p.y()), float(pose.p.z())});
  if (order == WR_QUAT_WXYZ)
    out.insert(out.end(), {w, x, y, z});
  else
    out.insert(out.end(), {x, y, z, w});
}

std::vector<float> pose_floats(const std::vector<Pose>& poses, wr_quat_order order, float scale = 1.0f) {
  std::vector<float> out;
  for (const Pose& p : poses) append_pose(out, p, order, scale);
  return out;
}

// Sets desc's mount from a pose, in desc's quat_order.
void set_mount(wr_camera_desc& desc, const Pose& mount) {
  std::vector<float> f;
  append_pose(f, mount, desc.quat_order);
  std::copy(f.begin(), f.begin() + 3, desc.mount_position);
  std::copy(f.begin() + 3, f.end(), desc.mount_rotation);
}

struct Rigid {
  Matrix3d R;
  Vector3d t;
};

// Position + quaternion (4 floats in `order`), as the library is documented to read them: the
// float values exactly, the quaternion normalised (in double here).
Rigid rigid_from(const float* pos, const float* quat, wr_quat_order order) {
  const double w = order == WR_QUAT_WXYZ ? quat[0] : quat[3];
  const double x = order == WR_QUAT_WXYZ ? quat[1] : quat[0];
  const double y = order == WR_QUAT_WXYZ ? quat[2] : quat[1];
  const double z = order == WR_QUAT_WXYZ ? quat[3] : quat[2];
  return Rigid{Quaterniond(w, x, y, z).normalized().toRotationMatrix(), Vector3d(pos[0], pos[1], pos[2])};
}

// camera_in_world = body_in_world * mount, for one env's 7 pose floats.
Rigid camera_in_world(const float* body_pose, const wr_camera_desc& desc) {
  const Rigid body = rigid_from(body_pose, body_pose + 3, desc.quat_order);
  const Rigid mount = rigid_from(desc.mount_position, desc.mount_rotation, desc.quat_order);
  return Rigid{body.R * mount.R, body.t + body.R * mount.t};
}

// Unit ray of pixel (u, v) in the camera frame, from the desc's (float) intrinsics.
Vector3d ray_cam(const wr_camera_desc& d, uint32_t u, uint32_t v) {
  return Vector3d(1.0, -((u + 0.5) - double(d.cx)) / double(d.fx), -((v + 0.5) - double(d.cy)) / double(d.fy))
      .normalized();
}

wr_camera_desc pinhole(uint32_t w, uint32_t h, float hfov_deg, wr_depth_kind kind, float miss = -1.0f) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, w, h, hfov_deg);
  d.depth_kind = kind;
  d.miss_value = miss;
  return d;
}

// Renders (num_envs x 7) pose floats; every env's image, (num_envs x height x width).
std::vector<float> render(wr_scene scene, const wr_camera_desc& desc, const std::vector<float>& poses) {
  const uint32_t n = uint32_t(poses.size() / 7);
  Sensor sensor = make_sensor(scene, desc, n);
  std::vector<float> out(size_t(n) * desc.width * desc.height, kSentinel);
  REQUIRE_OK(wr_sensor_render(sensor.get(), poses.data(), out.data(), nullptr));
  return out;
}

using wr_test::same_bits;

bool is_miss(float got, float miss_value) {
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

Truth hit(double t, double rel_tol = 1e-5) { return Truth{Truth::kHit, t, rel_tol}; }
Truth miss() { return Truth{Truth::kMiss, 0.0, 0.0}; }
Truth unsure() { return Truth{Truth::kUnsure, 0.0, 0.0}; }

// Relative tolerance for a hit at incidence cos_inc = |normal . ray|. The library works in float:
// its world ray direction is off by a few 1e-7 (template rounding, float rotation), which moves the
// hit distance by about that much divided by cos_inc. 1e-5 holds wherever cos_inc > 0.1; grazing
// hits get the proportionally larger allowance 1e-6 / cos_inc.
double grazing_tol(double cos_inc, double base = 1e-5) { return std::max(base, 1e-6 / std::fabs(cos_inc)); }

// Ray o + t d (d unit) against the axis-aligned square {x[axis] = value, |x[a1] - c1| <= half,
// |x[a2] - c2| <= half} with a1, a2 the other two axes in cyclic order.
Truth square_truth(const Vector3d& o, const Vector3d& d, int axis, double value, double c1, double c2, double half) {
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
double box_exit(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi, int* axis = nullptr) {
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
double box_entry(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi) {
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
Truth box_outside_truth(const Vector3d& o, const Vector3d& d, const Vector3d& lo, const Vector3d& hi,
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
Report check_image(const std::vector<float>& img, const wr_camera_desc& desc, const std::vector<float>& poses,
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

#define CHECK_REPORT(report)        \
  do {                              \
    INFO((report).summary());       \
    CHECK((report).failures == 0);  \
  } while (0)

// Per pixel, a and b agree within `rel` (relative), or are both misses of `miss_value`.
Report compare_images(const std::vector<float>& a, const std::vector<float>& b, double rel, float miss_value) {
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

// Uniformly random rotation (normalised 4D Gaussian, Shoemake / Muller).
Quaterniond random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized();
}

Vector3d random_in(std::mt19937& rng, const Vector3d& lo, const Vector3d& hi) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return Vector3d(lo.x() + (hi.x() - lo.x()) * u(rng), lo.y() + (hi.y() - lo.y()) * u(rng),
                  lo.z() + (hi.z() - lo.z()) * u(rng));
}

// The box room of the batching, order and mount tests: a closed 8 x 8 x 8 m cube (all dyadic
// bounds, so the float walls are exactly these). Cameras stay within 0.5 m of its centre, so every
// ray meets a wall at incidence cos > 0.45 and direction rounding moves depths by < 1e-6.
const Vector3d kCubeLo(-3.5, -4.25, -3.75), kCubeHi(4.5, 3.75, 4.25);
const Vector3d kCubeCentre = (kCubeLo + kCubeHi) / 2;

Truth cube_truth(const Rigid& cam, const Vector3d& dw) {
  int axis = 0;
  const double t = box_exit(cam.t, dw, kCubeLo, kCubeHi, &axis);
  return hit(t, grazing_tol(dw[axis]));
}

std::vector<Pose> cube_poses(uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Pose> poses;
  for (uint32_t i = 0; i < n; ++i)
    poses.push_back({random_in(rng, kCubeCentre - Vector3d::Constant(0.5), kCubeCentre + Vector3d::Constant(0.5)),
                     random_rotation(rng)});
  return poses;
}

Scene cube_scene() {
  Mesh m;
  add_box(m, kCubeLo, kCubeHi, 16);
  return make_scene(m);
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// 1. A horizontal plane, every pixel against the closed form t = h / -d_world.z.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: horizontal plane matches the closed form at every pixel", "[sensor][plane]") {
  Mesh plane;  // z = 0, x and y in [-100, 100], 20 x 20 quads
  add_quad(plane, Vector3d(-100, -100, 0), Vector3d(200, 0, 0), Vector3d(0, 200, 0), 20, 20);
  const Scene scene = make_scene(plane);
  const double h = 1.3;

  struct Case {
    const char* name;
    Pose pose;
    bool expect_sky;  // some pixel rays point upwards
  };
  const Case cases[] = {
      {"pitched down 35 deg", {Vector3d(0.4, -0.7, h), ypr(0, 35, 0)}, false},
      {"pitched down 35 deg, roll 20 deg, yaw 60 deg", {Vector3d(-3.1, 2.2, h), ypr(60, 35, 20)}, true},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::vector<float> poses = pose_floats({c.pose}, WR_QUAT_WXYZ);
      std::vector<float> images[2];
      for (wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
        INFO((kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE"));
        // Defaults of wr_camera_desc_pinhole: near 0, far +inf, miss +inf.
        wr_camera_desc desc;
        wr_camera_desc_pinhole(&desc, 106, 60, 87.0f);
        desc.depth_kind = kind;
        REQUIRE(std::isinf(desc.miss_value));
        images[kind] = render(scene.get(), desc, poses);
        long sky = 0;
        const Report r = check_image(images[kind], desc, poses, [&](uint32_t, const Rigid& cam, const Vector3d&,
                                                                    const Vector3d& dw) {
          if (dw.z() >= 0) ++sky;
          return square_truth(cam.t, dw, 2, 0.0, 0.0, 0.0, 100.0);
        });
        CHECK_REPORT(r);
        CHECK(r.hits > 106 * 60 / 2);
        CHECK(r.unsure < 106 * 60 / 50);
        if (c.expect_sky) {
          CHECK(sky > 0);
        } else {
          CHECK(sky == 0);
        }
      }
      // PLANE = RANGE * d_cam.x at every pixel, misses in the same places.
      wr_camera_desc desc;
      wr_camera_desc_pinhole(&desc, 106, 60, 87.0f);
      Report r;
      for (uint32_t v = 0; v < 60; ++v) {
        for (uint32_t u = 0; u < 106; ++u) {
          const float plane_depth = images[0][v * 106 + u], range_depth = images[1][v * 106 + u];
          if (std::isinf(plane_depth) || std::isinf(range_depth)) {
            ++r.misses;
            if (plane_depth != range_depth)
              r.fail("pixel " + std::to_string(u) + "," + std::to_string(v) + ": only one kind misses");
            continue;
          }
          ++r.hits;
          const double want = double(range_depth) * ray_cam(desc, u, v).x();
          if (!(std::fabs(plane_depth - want) <= 1e-6 * want))
            r.fail("pixel " + std::to_string(u) + "," + std::to_string(v) + ": plane " + std::to_string(plane_depth) +
                   " vs range * d_cam.x " + std::to_string(want));
        }
      }
      CHECK_REPORT(r);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 2. Inside a closed box: no pixel misses, every depth is the slab exit distance.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: inside a closed box every pixel hits the wall at the slab exit distance", "[sensor][box]") {
  const Vector3d lo(-3.75, -2.25, -0.5), hi(6.25, 3.75, 3.5);  // 10 x 6 x 4 m, dyadic bounds
  Mesh box;
  add_box(box, lo, hi, 50);
  REQUIRE(box.num_triangles() == 6u * 50 * 50 * 2);
  const Scene scene = make_scene(box);

  std::mt19937 rng(20240611);
  std::vector<Pose> poses;
  const Vector3d margin = Vector3d::Constant(0.5);
  auto place = [&] { return random_in(rng, lo + margin, hi - margin); };
  poses.push_back({place(), ypr(0, 90, 0)});     // straight down
  poses.push_back({place(), ypr(0, -90, 0)});    // straight up
  poses.push_back({place(), ypr(37, 90, 0)});    // down, yawed
  poses.push_back({place(), ypr(-120, -90, 25)});  // up, yawed and rolled
  poses.push_back({place(), ypr(0, 0, 0)});      // level, identity
  poses.push_back({place(), ypr(180, 0, 90)});   // facing -X on its side
  while (poses.size() < 30) poses.push_back({place(), random_rotation(rng)});
  const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);

  for (wr_depth_kind kind : {WR_DEPTH_RANGE, WR_DEPTH_PLANE}) {
    INFO((kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE"));
    wr_camera_desc desc = pinhole(64, 48, 90.0f, kind, -1.0f);  // far = +inf: nothing can be clipped
    REQUIRE(std::isinf(desc.far_clip));
    const std::vector<float> img = render(scene.get(), desc, pf);
    // The camera is >= 0.5 m from every wall and no wall is longer than 10 m, so a ray meets the
    // wall it leaves through at incidence cos >= 0.5 / 11.5 and 1e-4 covers float rounding.
    const Report r = check_image(img, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return hit(box_exit(cam.t, dw, lo, hi), 1e-4);
    });
    CHECK_REPORT(r);
    CHECK(r.hits == 30L * 64 * 48);
    CHECK(std::count(img.begin(), img.end(), -1.0f) == 0);
  }
}

// -------------------------------------------------------------------------------------------------
// 3. Image orientation: left is left, up is up, and the principal point moves the image.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: image orientation and principal point", "[sensor][orientation]") {
  const uint32_t W = 64, H = 48;
  struct Case {
    const char* name;
    Pose body;
    Vector3d box_centre;  // world
    float dcx, dcy;       // principal point offset from the image centre, pixels
    int region;           // 0 left (u < W/2), 1 right, 2 top (v < H/2), 3 bottom, 4 none
    double centroid_u, centroid_v;  // expected centroid of the hit pixels (u, v), or NaN
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"box left (+Y)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 2, 0), 0, 0, 0, nan, nan},
      {"box right (-Y)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, -2, 0), 0, 0, 1, nan, nan},
      {"box above (+Z)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, 1.5), 0, 0, 2, nan, nan},
      {"box below (-Z)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, -1.5), 0, 0, 3, nan, nan},
      // Body yawed +90 deg: forward is world +Y, left is world -X.
      {"yawed body, box to its left", {Vector3d(1, 1, 0), ypr(90, 0, 0)}, Vector3d(-1, 6, 0), 0, 0, 0, nan, nan},
      // Body rolled +90 deg about +X: the camera's up is world -Y.
      {"rolled body, box above it", {Vector3d(0, 0, 2), ypr(0, 0, 90)}, Vector3d(5, -2, 2), 0, 0, 2, nan, nan},
      // Body pitched down 30 deg: the box 30 deg below the horizon is at the image centre.
      {"pitched body, box on its axis",
       {Vector3d(0, 0, 3), ypr(0, 30, 0)},
       Vector3d(6 * std::cos(deg(30)), 0, 3 - 6 * std::sin(deg(30))),
       0, 0, 4, 31.5, 23.5},
      // A box on the optical axis is imaged at the principal point (u + 0.5 = cx, v + 0.5 = cy).
      {"centred principal point", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, 0), 0, 0, 4, 31.5, 23.5},
      {"principal point right and up",
       {Vector3d::Zero(), Quaterniond::Identity()},
       Vector3d(5, 0, 0),
       12, -8, 4, 43.5, 15.5},
      {"principal point left and down",
       {Vector3d::Zero(), Quaterniond::Identity()},
       Vector3d(5, 0, 0),
       -10.5f, 6.25f, 4, 21.0, 29.75},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Mesh m;
      const Vector3d half = Vector3d::Constant(0.5);
      add_box(m, c.box_centre - half, c.box_centre + half, 2);
      const Scene scene = make_scene(m);
      wr_camera_desc desc = pinhole(W, H, 90.0f, WR_DEPTH_PLANE, -1.0f);
      desc.cx += c.dcx;
      desc.cy += c.dcy;
      const std::vector<float> pf = pose_floats({c.body}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);

      const Report r = check_image(img, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return box_outside_truth(cam.t, dw, c.box_centre - half, c.box_centre + half);
      });
      CHECK_REPORT(r);
      CHECK(r.hits > 10);

      long hits = 0, outside = 0;
      double su = 0, sv = 0;
      for (uint32_t v = 0; v < H; ++v) {
        for (uint32_t u = 0; u < W; ++u) {
          if (img[v * W + u] == -1.0f) continue;
          ++hits;
          su += u;
          sv += v;
          const bool in = c.region == 0 ? u < W / 2 : c.region == 1 ? u >= W / 2 : c.region == 2 ? v < H / 2
                                                                                   : c.region == 3 ? v >= H / 2
                                                                                                   : true;
          outside += !in;
        }
      }
      CHECK(hits > 10);
      CHECK(outside == 0);
      if (!std::isnan(c.centroid_u) && hits > 0) {
        // The box's image is symmetric about the principal point (up to pixel quantisation).
        CHECK(su / hits == Approx(c.centroid_u).margin(0.5));
        CHECK(sv / hits == Approx(c.centroid_v).margin(0.5));
      }
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 4. Quaternion orders and non-unit quaternions.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: WXYZ and XYZW give identical images; non-unit quaternions are normalised",
          "[sensor][quaternion]") {
  const Scene scene = cube_scene();
  const std::vector<Pose> poses = cube_poses(8, 7);
  const Pose mount{Vector3d(0.12, -0.05, 0.2), ypr(15, 20, -10)};

  wr_camera_desc wxyz = pinhole(48, 36, 80.0f, WR_DEPTH_RANGE);
  wxyz.quat_order = WR_QUAT_WXYZ;
  set_mount(wxyz, mount);
  wr_camera_desc xyzw = wxyz;
  xyzw.quat_order = WR_QUAT_XYZW;
  set_mount(xyzw, mount);
  REQUIRE(xyzw.mount_rotation[3] == wxyz.mount_rotation[0]);  // really reordered
  REQUIRE(xyzw.mount_rotation[0] == wxyz.mount_rotation[1]);

  const std::vector<float> pw = pose_floats(poses, WR_QUAT_WXYZ), px = pose_floats(poses, WR_QUAT_XYZW);
  const std::vector<float> a = render(scene.get(), wxyz, pw);
  const std::vector<float> b = render(scene.get(), xyzw, px);
  CHECK(same_bits(a, b));

  // The image is the right one: body * mount against the closed form.
  CHECK_REPORT(check_image(a, wxyz, pw, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
    return cube_truth(cam, dw);
  }));

  // Reading the poses in the wrong order must change the image (the order field is honoured).
  CHECK_FALSE(same_bits(a, render(scene.get(), xyzw, pw)));

  for (float scale : {0.3f, 5.0f, -1.0f}) {
    INFO("quaternions (body and mount) scaled by " << scale);
    for (const wr_camera_desc& base : {wxyz, xyzw}) {
      wr_camera_desc d = base;
      for (float& q : d.mount_rotation) q *= scale;
      const std::vector<float> scaled = pose_floats(poses, d.quat_order, scale);
      // Normalising a rounded non-unit quaternion moves the direction by ~1e-7; at incidence cos > 0.45
      // (the cube room) that is < 1e-6 of the depth.
      CHECK_REPORT(compare_images(render(scene.get(), d, scaled), a, 1e-6, d.miss_value));
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 5. The mount: camera_in_world = body_in_world * mount.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: the mount composes as body * mount", "[sensor][mount]") {
  const Scene scene = cube_scene();
  const std::vector<Pose> bodies = cube_poses(6, 11);
  const wr_camera_desc plain = pinhole(48, 36, 80.0f, WR_DEPTH_PLANE);

  SECTION("mount offset (0.27, 0, 0) equals moving the body along its own +X") {
    wr_camera_desc mounted = plain;
    set_mount(mounted, {Vector3d(0.27, 0, 0), Quaterniond::Identity()});
    std::vector<Pose> moved;
    for (const Pose& b : bodies) moved.push_back({b.p + b.q.toRotationMatrix() * Vector3d(0.27, 0, 0), b.q});
    const std::vector<float> a = render(scene.get(), mounted, pose_floats(bodies, WR_QUAT_WXYZ));
    const std::vector<float> b = render(scene.get(), plain, pose_floats(moved, WR_QUAT_WXYZ));
    CHECK_REPORT(compare_images(a, b, 1e-6, plain.miss_value));
    CHECK_FALSE(same_bits(a, render(scene.get(), plain, pose_floats(bodies, WR_QUAT_WXYZ))));  // the mount matters
  }
  SECTION("mount pitched down 30 deg equals the body pitched down 30 deg") {
    std::vector<Pose> level, pitched;
    for (const Pose& b : bodies) {
      level.push_back({b.p, ypr(0, 0, 0)});
      pitched.push_back({b.p, ypr(0, 30, 0)});
    }
    wr_camera_desc mounted = plain;
    set_mount(mounted, {Vector3d::Zero(), ypr(0, 30, 0)});
    const std::vector<float> a = render(scene.get(), mounted, pose_floats(level, WR_QUAT_WXYZ));
    const std::vector<float> b = render(scene.get(), plain, pose_floats(pitched, WR_QUAT_WXYZ));
    CHECK_REPORT(compare_images(a, b, 1e-6, plain.miss_value));
  }
  SECTION("general body and mount: body * mount, not mount * body") {
    const Pose mount{Vector3d(0.3, 0.1, -0.2), ypr(40, 25, 10)};
    wr_camera_desc mounted = plain;
    set_mount(mounted, mount);
    const std::vector<float> pf = pose_floats(bodies, WR_QUAT_WXYZ);
    const std::vector<float> a = render(scene.get(), mounted, pf);
    // Closed form from body * mount (camera_in_world composes inside check_image).
    CHECK_REPORT(check_image(a, mounted, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return cube_truth(cam, dw);
    }));
    // The same camera poses given as bodies with no mount.
    std::vector<Pose> composed;
    for (const Pose& b : bodies)
      composed.push_back({b.p + b.q.toRotationMatrix() * mount.p, (b.q * mount.q).normalized()});
    const std::vector<float> b = render(scene.get(), plain, pose_floats(composed, WR_QUAT_WXYZ));
    // Two float rotations composed vs one: ~3e-7 in direction, < 2e-6 in depth in the cube room.
    CHECK_REPORT(compare_images(a, b, 2e-6, plain.miss_value));
    // mount * body would be a different camera for these poses.
    std::vector<Pose> wrong;
    for (const Pose& b : bodies) wrong.push_back({mount.p + mount.q.toRotationMatrix() * b.p, mount.q * b.q});
    const Report r = compare_images(a, render(scene.get(), plain, pose_floats(wrong, WR_QUAT_WXYZ)), 1e-3,
                                    plain.miss_value);
    CHECK(r.failures > 0);
  }
}

// -------------------------------------------------------------------------------------------------
// 6. near_clip, far_clip and miss_value bound the REPORTED value.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: near and far clip the reported value; misses hold miss_value", "[sensor][clip]") {
  // Wall A at x = 5 (|y|, |z| <= 20), wall B behind it at x = 8 (|y|, |z| <= 40). Camera at the
  // origin looking along +X with a 90 deg field of view: wall A fills the image; the plane depth is
  // 5 at every pixel, the range 5 / d_cam.x grows to ~7.9 in the corners.
  Mesh m;
  add_quad(m, Vector3d(5, -20, -20), Vector3d(0, 40, 0), Vector3d(0, 0, 40), 4, 4);
  add_quad(m, Vector3d(8, -40, -40), Vector3d(0, 80, 0), Vector3d(0, 0, 80), 4, 4);
  const Scene scene = make_scene(m);
  const uint32_t W = 64, H = 48;

  // Truth of a ray from the camera: the nearest wall whose reported value is >= near (nearer ones
  // do not occlude), reported if <= far, else a miss. Values within 1e-4 of a clip plane are unsure.
  auto truth_with_clip = [](const wr_camera_desc& desc) {
    return [desc](uint32_t, const Rigid& cam, const Vector3d& dc, const Vector3d& dw) {
      const Truth walls[2] = {square_truth(cam.t, dw, 0, 5.0, 0, 0, 20.0), square_truth(cam.t, dw, 0, 8.0, 0, 0, 40.0)};
      for (const Truth& w : walls) {
        if (w.kind == Truth::kUnsure) return unsure();
        if (w.kind == Truth::kMiss) continue;
        const double reported = desc.depth_kind == WR_DEPTH_PLANE ? w.t * dc.x() : w.t;
        const double near = desc.near_clip, far = desc.far_clip;
        if (std::fabs(reported - near) < 1e-4 * reported || std::fabs(reported - far) < 1e-4 * reported)
          return unsure();
        if (reported < near) continue;  // clipped away: look behind it
        if (reported > far) return miss();
        return w;
      }
      return miss();
    };
  };
  auto range_at = [&](const wr_camera_desc& d, uint32_t u, uint32_t v) { return 5.0 / ray_cam(d, u, v).x(); };

  struct Case {
    const char* name;
    wr_depth_kind kind;
    float near_clip, far_clip, miss_value;
    double all_pixels;  // every pixel's expected value, or NaN when it varies per pixel
  };
  const double varies = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"PLANE, no clipping: wall A at 5", WR_DEPTH_PLANE, 0.0f, kInf, -1.0f, 5.0},
      {"PLANE, near 6 hides wall A: wall B at 8", WR_DEPTH_PLANE, 6.0f, kInf, -1.0f, 8.0},
      {"PLANE, far 4: nothing", WR_DEPTH_PLANE, 0.0f, 4.0f, -1.0f, -1.0},
      {"PLANE, near 6, far 7: wall A clipped, wall B too far", WR_DEPTH_PLANE, 6.0f, 7.0f, -2.5f, -2.5},
      // Plane depth 5 is inside [0, 5.5] at every pixel although the corner ranges are ~7.9.
      {"PLANE, far 5.5: corners still report 5", WR_DEPTH_PLANE, 0.0f, 5.5f, -1.0f, 5.0},
      {"PLANE, near 4.5 far 5.5", WR_DEPTH_PLANE, 4.5f, 5.5f, -1.0f, 5.0},
      {"RANGE, far 5.5: the corners are misses", WR_DEPTH_RANGE, 0.0f, 5.5f, -1.0f, varies},
      {"RANGE, near 6: the centre sees wall B, the corners wall A", WR_DEPTH_RANGE, 6.0f, kInf, -1.0f, varies},
      {"RANGE, no clipping", WR_DEPTH_RANGE, 0.0f, kInf, kNaN, varies},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      wr_camera_desc desc = pinhole(W, H, 90.0f, c.kind, c.miss_value);
      desc.near_clip = c.near_clip;
      desc.far_clip = c.far_clip;
      const std::vector<float> pf = pose_floats({{Vector3d::Zero(), Quaterniond::Identity()}}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      const Report r = check_image(img, desc, pf, truth_with_clip(desc));
      CHECK_REPORT(r);
      CHECK(r.unsure < long(W * H) / 20);
      if (!std::isnan(c.all_pixels)) {
        for (float x : img) REQUIRE(x == Approx(c.all_pixels).epsilon(1e-5));
      }
      // The scenario is as constructed: the corner's range lies beyond 5.5 and 6, the centre's below.
      CHECK(range_at(desc, 0, 0) > 6.5);
      CHECK(range_at(desc, W / 2, H / 2) < 5.5);
      if (c.kind == WR_DEPTH_RANGE && c.far_clip == 5.5f) {
        CHECK(img[0] == -1.0f);
        CHECK(img[(H / 2) * W + W / 2] == Approx(range_at(desc, W / 2, H / 2)).epsilon(1e-5));
      }
      if (c.kind == WR_DEPTH_RANGE && c.near_clip == 6.0f) {
        CHECK(img[0] == Approx(range_at(desc, 0, 0)).epsilon(1e-5));
        CHECK(img[(H / 2) * W + W / 2] == Approx(8.0 / 5.0 * range_at(desc, W / 2, H / 2)).epsilon(1e-5));
      }
    }
  }

  SECTION("custom miss_value where nothing is hit (-7, NaN, default +inf)") {
    // Yawed 60 deg left: the right part of the image sees the walls, the left part nothing.
    const std::vector<float> pf = pose_floats({{Vector3d(0, 0, 0.5), ypr(60, 0, 0)}}, WR_QUAT_WXYZ);
    std::vector<float> hits_of_first;
    for (float miss_value : {-7.0f, kNaN, kInf}) {
      INFO("miss_value " << miss_value);
      wr_camera_desc desc = pinhole(W, H, 90.0f, WR_DEPTH_RANGE, miss_value);
      const std::vector<float> img = render(scene.get(), desc, pf);
      const Report r = check_image(img, desc, pf, truth_with_clip(desc));
      CHECK_REPORT(r);
      CHECK(r.misses > long(W * H) / 4);
      CHECK(r.hits > long(W * H) / 10);
      // Hits are the same whatever the miss value.
      std::vector<float> hits_only;
      for (float x : img)
        if (!is_miss(x, miss_value)) hits_only.push_back(x);
      if (hits_of_first.empty())
        hits_of_first = hits_only;
      else
        CHECK(same_bits(hits_only, hits_of_first));
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 7. Batching: N envs render what N one-env sensors render, and stay inside their buffer.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: a batch of envs renders exactly what one-env sensors render", "[sensor][batch]") {
  const Vector3d lo(-3.75, -2.25, -0.5), hi(6.25, 3.75, 3.5);
  Mesh box;
  add_box(box, lo, hi, 20);
  const Scene scene = make_scene(box);
  std::mt19937 rng(99);
  std::vector<Pose> poses;
  for (int i = 0; i < 9; ++i) poses.push_back({random_in(rng, lo + Vector3d::Constant(0.5), hi - Vector3d::Constant(0.5)),
                                               random_rotation(rng)});
  const wr_camera_desc desc = pinhole(40, 30, 75.0f, WR_DEPTH_RANGE, -1.0f);
  const size_t image = size_t(desc.width) * desc.height;

  const std::vector<float> batch = render(scene.get(), desc, pose_floats(poses, WR_QUAT_WXYZ));
  for (size_t e = 0; e < poses.size(); ++e) {
    INFO("env " << e);
    const std::vector<float> single = render(scene.get(), desc, pose_floats({poses[e]}, WR_QUAT_WXYZ));
    CHECK(std::memcmp(single.data(), batch.data() + e * image, image * sizeof(float)) == 0);
  }
  // The envs really differ, and the images are the right ones.
  CHECK(std::memcmp(batch.data(), batch.data() + image, image * sizeof(float)) != 0);
  CHECK_REPORT(check_image(batch, desc, pose_floats(poses, WR_QUAT_WXYZ),
                           [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
                             return hit(box_exit(cam.t, dw, lo, hi), 1e-4);
                           }));

  // A 3-env render writes its [3][H][W] buffer whole and nothing around it.
  const size_t guard = 257;
  const float guard_value = 4242.5f;
  std::vector<float> buffer(guard + 3 * image + guard, guard_value);
  std::fill(buffer.begin() + guard, buffer.begin() + guard + 3 * image, kSentinel);
  const Sensor sensor = make_sensor(scene.get(), desc, 3);
  const std::vector<float> three = pose_floats({poses[3], poses[4], poses[5]}, WR_QUAT_WXYZ);
  REQUIRE_OK(wr_sensor_render(sensor.get(), three.data(), buffer.data() + guard, nullptr));
  long guards_touched = 0, unwritten = 0;
  for (size_t i = 0; i < guard; ++i) guards_touched += buffer[i] != guard_value;
  for (size_t i = guard + 3 * image; i < buffer.size(); ++i) guards_touched += buffer[i] != guard_value;
  for (size_t i = guard; i < guard + 3 * image; ++i) unwritten += buffer[i] == kSentinel;
  CHECK(guards_touched == 0);
  CHECK(unwritten == 0);
  CHECK(std::memcmp(buffer.data() + guard, batch.data() + 3 * image, 3 * image * sizeof(float)) == 0);
}

// -------------------------------------------------------------------------------------------------
// 8. Thread counts: bit-identical images from 1, 2, 3 and 8 threads.
// -------------------------------------------------------------------------------------------------
namespace {

double terrain(double x, double y) {
  return 0.8 * std::sin(0.35 * x) * std::cos(0.27 * y) + 0.25 * std::sin(1.3 * x + 0.7 * y) + 0.1 * std::cos(2.9 * y);
}

// A bumpy heightfield over [-24, 24]^2, (96 x 96) cells of 0.5 m, two triangles each.
Mesh terrain_mesh() {
  Mesh m;
  const int n = 96;
  const double step = 0.5, x0 = -24.0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) m.vertex(Vector3d(x0 + i * step, x0 + j * step, terrain(x0 + i * step, x0 + j * step)));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + (n + 1) + 1, d = a + (n + 1);
      add_split_quad(m, a, b, c, d, (i + j) % 2 == 0);
    }
  }
  return m;
}

// Brute-force nearest hit over every triangle of a mesh, in double (Moller & Trumbore, "Fast,
// Minimum Storage Ray/Triangle Intersection", JGT 1997). Rays whose nearest surface is decided by
// less than `eps` in barycentric coordinates (a silhouette) are unsure.
struct BruteForce {
  struct Tri {
    Vector3d v0, e1, e2, n;
  };
  std::vector<Tri> tris;
  explicit BruteForce(const Mesh& m) {
    for (uint64_t t = 0; t < m.num_triangles(); ++t) {
      const Vector3d a = m.position(m.indices[3 * t]), b = m.position(m.indices[3 * t + 1]),
                     c = m.position(m.indices[3 * t + 2]);
      tris.push_back({a, b - a, c - a, (b - a).cross(c - a).normalized()});
    }
  }
  Truth trace(const Vector3d& o, const Vector3d& d) const {
    const double inf = std::numeric_limits<double>::infinity(), eps = 2e-4;
    double t_exact = inf, t_strict = inf, t_loose = inf, cos_inc = 1.0;
    for (const Tri& tri : tris) {
      const Vector3d p = d.cross(tri.e2);
      const double det = tri.e1.dot(p);
      if (det == 0.0) continue;
      const Vector3d s = o - tri.v0;
      const double b1 = s.dot(p) / det;
      const Vector3d q = s.cross(tri.e1);
      const double b2 = d.dot(q) / det, t = tri.e2.dot(q) / det;
      if (!(t > 0.0)) continue;
      const double b0 = 1.0 - b1 - b2, lo = std::min(b0, std::min(b1, b2));
      if (lo >= -eps && t < t_loose) t_loose = t;
      if (lo >= eps && t < t_strict) t_strict = t;
      if (lo >= 0.0 && t < t_exact) {
        t_exact = t;
        cos_inc = tri.n.dot(d);
      }
    }
    if (std::isinf(t_loose)) return miss();
    // No robust hit, or a nearer surface within eps of being hit: a silhouette.
    if (std::isinf(t_strict) || t_loose < t_strict * (1.0 - 1e-3)) return unsure();
    return hit(t_exact, grazing_tol(cos_inc));
  }
};

}  // namespace

TEST_CASE("sensor: images are bit-identical for 1, 2, 3 and 8 threads", "[sensor][threads]") {
  const Mesh mesh = terrain_mesh();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> xy(-8, 8), up(1.0, 2.0), yaw(-180, 180), pitch(5, 45), roll(-10, 10);
  std::vector<Pose> poses;
  for (int i = 0; i < 16; ++i) {
    const double x = xy(rng), y = xy(rng);
    // 1 m above the analytic surface is above the mesh too (it deviates from it by < 0.1 m).
    poses.push_back({Vector3d(x, y, terrain(x, y) + up(rng)), ypr(yaw(rng), pitch(rng), roll(rng))});
  }
  const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
  const wr_camera_desc desc = pinhole(64, 48, 90.0f, WR_DEPTH_PLANE, -1.0f);

  std::vector<float> reference;
  for (uint32_t threads : {1u, 2u, 3u, 8u}) {
    INFO(threads << " threads");
    const Context context = make_context(threads);
    uint32_t got_threads = 0;
    REQUIRE_OK(wr_context_num_threads(context.get(), &got_threads));
    CHECK(got_threads == threads);
    const Scene scene = make_scene(mesh, context.get());
    const std::vector<float> img = render(scene.get(), desc, pf);
    if (reference.empty())
      reference = img;
    else
      CHECK(same_bits(img, reference));
  }

  // The images are real: a sample of the pixels of four envs against brute force in double.
  const BruteForce brute(mesh);
  const std::vector<float> four(pf.begin(), pf.begin() + 4 * 7);
  const std::vector<float> first4(reference.begin(), reference.begin() + 4 * 64 * 48);
  long sampled = 0;
  const Report r = check_image(first4, desc, four, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
    if (sampled++ % 3 != 0) return unsure();
    return brute.trace(cam.t, dw);
  });
  CHECK_REPORT(r);
  CHECK(r.hits > 4 * 64 * 48 / 3 / 3);
  CHECK(r.misses > 0);  // rays above the horizon
}

// -------------------------------------------------------------------------------------------------
// 9. Zero-area triangles are never hit.
// -------------------------------------------------------------------------------------------------
namespace {

// `count` zero-area triangles with x in [x_lo, x_hi], y in [-4, 4], z in [z_lo, z_hi]: collinear
// corners, repeated indices, coincident vertices. Every coordinate is a multiple of 1/64 with few
// significant bits, so the float corners are exactly collinear (really zero area, not merely thin).
void add_degenerates(Mesh& m, std::mt19937& rng, int count, double x_lo, double x_hi, double z_lo, double z_hi,
                     bool flat = false) {
  auto grid = [&](double lo, double hi) {
    std::uniform_int_distribution<int> k(int(std::ceil(lo * 64)), int(std::floor(hi * 64)));
    return k(rng) / 64.0;
  };
  std::uniform_int_distribution<int> step(-32, 32), kind(0, 4);
  for (int i = 0; i < count; ++i) {
    const Vector3d p(grid(x_lo, x_hi), grid(-4, 4), flat ? z_lo : grid(z_lo, z_hi));
    Vector3d d(step(rng) / 64.0, step(rng) / 64.0, flat ? 0.0 : step(rng) / 64.0);
    if (d.isZero()) d = Vector3d(0, 0.5, 0);
    const uint32_t a = m.vertex(p), b = m.vertex(p + d);
    switch (kind(rng)) {
      case 0: m.triangle(a, b, m.vertex(p + 3 * d)); break;  // collinear, b in between
      case 1: m.triangle(a, m.vertex(p + 2 * d), b); break;  // collinear, other order
      case 2: m.triangle(a, a, b); break;                     // repeated index
      case 3: m.triangle(a, m.vertex(p), b); break;          // coincident distinct vertices
      default: m.triangle(b, b, b); break;                    // a point
    }
  }
}

}  // namespace

TEST_CASE("sensor: zero-area triangles are never hit", "[sensor][degenerate]") {
  // W, H odd and the principal point at the centre: the centre pixel's ray is exactly +X.
  const wr_camera_desc desc = pinhole(65, 49, 90.0f, WR_DEPTH_RANGE, -1.0f);
  REQUIRE(ray_cam(desc, 32, 24) == Vector3d(1, 0, 0));

  SECTION("a scene of zero-area triangles only renders all misses") {
    Mesh m;
    std::mt19937 rng(3);
    // On and across the optical axis: the centre ray runs along, and passes through, these.
    auto tri = [&](Vector3d a, Vector3d b, Vector3d c) { m.triangle(m.vertex(a), m.vertex(b), m.vertex(c)); };
    tri(Vector3d(1, 0, 0), Vector3d(2, 0, 0), Vector3d(3, 0, 0));
    tri(Vector3d(5, -1, 0), Vector3d(5, 0, 0), Vector3d(5, 1, 0));
    tri(Vector3d(5, 0, -1), Vector3d(5, 0, 1), Vector3d(5, 0, 0));
    tri(Vector3d(6, -1, -1), Vector3d(6, 0, 0), Vector3d(6, 2, 2));
    tri(Vector3d(4, -4, 0.5), Vector3d(4, 4, 0.5), Vector3d(4, 0, 0.5));  // a row of pixel rays crosses it
    add_degenerates(m, rng, 3000, 1.0, 9.0, -4.0, 4.0);
    const Scene scene = make_scene(m);
    std::vector<Pose> poses = {{Vector3d::Zero(), Quaterniond::Identity()},
                               {Vector3d(-1, 0.25, 0), ypr(10, 5, 0)},
                               {Vector3d(0, 0, 0), ypr(-20, -10, 30)},
                               {Vector3d(5, 0, 6), ypr(0, 90, 0)}};
    const std::vector<float> img = render(scene.get(), desc, pose_floats(poses, WR_QUAT_WXYZ));
    CHECK(std::count(img.begin(), img.end(), -1.0f) == long(img.size()));
  }

  SECTION("zero-area triangles mixed into a plane change nothing") {
    Mesh plane;  // z = -1.5, |x|, |y| <= 50
    add_quad(plane, Vector3d(-50, -50, -1.5), Vector3d(100, 0, 0), Vector3d(0, 100, 0), 10, 10);
    Mesh mixed;
    std::mt19937 rng(8);
    add_degenerates(mixed, rng, 500, 0.5, 9.0, -1.4, 1.0);          // between camera and plane
    add_degenerates(mixed, rng, 500, 0.5, 9.0, -1.5, -1.5, true);   // lying in the plane
    const uint32_t base = uint32_t(mixed.num_vertices());
    mixed.vertices.insert(mixed.vertices.end(), plane.vertices.begin(), plane.vertices.end());
    for (uint64_t t = 0; t < plane.num_triangles(); ++t) {
      mixed.triangle(base + plane.indices[3 * t], base + plane.indices[3 * t + 1], base + plane.indices[3 * t + 2]);
      if (t % 20 == 0) add_degenerates(mixed, rng, 10, 0.5, 9.0, -1.5, 0.5);  // interleaved in index order
    }
    const Scene alone = make_scene(plane), with_degenerates = make_scene(mixed);
    std::vector<Pose> poses = {{Vector3d::Zero(), ypr(0, 20, 0)},
                               {Vector3d(0.5, 0.25, 0), ypr(15, 35, -5)},
                               {Vector3d(2, -1, 0.5), ypr(-30, 60, 10)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> a = render(alone.get(), desc, pf);
    const std::vector<float> b = render(with_degenerates.get(), desc, pf);
    CHECK(same_bits(a, b));
    const Report r = check_image(a, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, -1.5, 0, 0, 50.0);
    });
    CHECK_REPORT(r);
    CHECK(r.hits > long(a.size()) / 2);
  }
}

// -------------------------------------------------------------------------------------------------
// 10. Watertightness: rays through shared vertices and edges never slip through.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: rays through shared vertices and edges never miss", "[sensor][watertight]") {
  // W = H = 65 and c = 32.5: pixel offsets u + 0.5 - cx are the integers -32..32, so with focal
  // length f a plane at distance D is sampled at multiples of D / f, chosen to land on the
  // vertices and edges of the meshes below (up to the float rounding of the ray, which is exactly
  // where a non-watertight triangle test lets rays through).
  auto desc_with_focal = [](float f, wr_depth_kind kind) {
    wr_camera_desc d = pinhole(65, 65, 90.0f, kind, -1.0f);
    d.fx = d.fy = f;
    d.cx = d.cy = 32.5f;
    return d;
  };
  const std::vector<Pose> facing_x = {{Vector3d(0, 0, 0), Quaterniond::Identity()},
                                      {Vector3d(0, 0.25, -0.5), Quaterniond::Identity()},
                                      {Vector3d(-2, 0.75, 0.25), Quaterniond::Identity()}};

  auto expect_no_miss = [](const std::vector<float>& img, const wr_camera_desc& desc, const std::vector<float>& pf,
                           const TruthFn& truth) {
    const Report r = check_image(img, desc, pf, truth);
    CHECK_REPORT(r);
    CHECK(r.misses == 0);
    CHECK(r.unsure == 0);
    CHECK(std::count(img.begin(), img.end(), -1.0f) == 0);
  };

  SECTION("a fan of triangles around a vertex on the optical axis") {
    Mesh m;
    add_fan(m, Vector3d(6, 0, 0), Vector3d::UnitY(), Vector3d::UnitZ(), 24, 40.0);
    const Scene scene = make_scene(m);
    for (wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
      // f = 24: the centre pixel's ray is the fan's axis; rows, columns and diagonals of pixels
      // run along the spokes at 0, 45, 90 ... deg.
      const wr_camera_desc desc = desc_with_focal(24.0f, kind);
      const std::vector<float> pf = pose_floats({facing_x[0]}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return square_truth(cam.t, dw, 0, 6.0, 0, 0, 25.0);  // the fan covers this square
      });
    }
  }

  SECTION("a horizontal fan seen from straight above its centre") {
    Mesh m;
    add_fan(m, Vector3d(1.25, -0.75, 0), Vector3d::UnitX(), Vector3d::UnitY(), 16, 60.0);
    const Scene scene = make_scene(m);
    const wr_camera_desc desc = desc_with_focal(16.0f, WR_DEPTH_RANGE);
    const std::vector<Pose> poses = {{Vector3d(1.25, -0.75, 2), ypr(0, 90, 0)},
                                     {Vector3d(1.25, -0.75, 3.5), ypr(30, 90, 0)},
                                     {Vector3d(1.25, -0.75, 1), ypr(-45, 90, 0)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> img = render(scene.get(), desc, pf);
    expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, 0.0, 1.25, -0.75, 40.0);
    });
  }

  SECTION("a fine grid with every pixel ray through a vertex or along an edge") {
    Mesh m;  // x = 6, |y|, |z| <= 12, 96 x 96 quads of 0.25 m
    add_quad(m, Vector3d(6, -12, -12), Vector3d(0, 24, 0), Vector3d(0, 0, 24), 96, 96);
    const Scene scene = make_scene(m);
    // From x = 0 at distance 6: f = 24 samples every 0.25 m (every ray through a vertex), f = 48
    // every 0.125 m (vertices and edge midpoints, on both diagonals of the checkerboard).
    // From x = -2 the samples are 8 / f apart: f = 32 hits every vertex as well.
    for (float f : {24.0f, 48.0f, 32.0f}) {
      INFO("focal length " << f);
      const wr_camera_desc desc = desc_with_focal(f, WR_DEPTH_PLANE);
      const std::vector<float> pf = pose_floats(facing_x, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return square_truth(cam.t, dw, 0, 6.0, 0, 0, 12.0);
      });
    }
  }

  SECTION("a fine horizontal grid seen from straight above a vertex") {
    Mesh m;  // z = 0, |x|, |y| <= 10, 80 x 80 quads of 0.25 m
    add_quad(m, Vector3d(-10, -10, 0), Vector3d(20, 0, 0), Vector3d(0, 20, 0), 80, 80);
    const Scene scene = make_scene(m);
    // From 3 m up with f = 12 the samples are 0.25 m apart: every ray through a grid vertex.
    const wr_camera_desc desc = desc_with_focal(12.0f, WR_DEPTH_RANGE);
    const std::vector<Pose> poses = {{Vector3d(0.5, -1.25, 3), ypr(0, 90, 0)},
                                     {Vector3d(0.5, -1.25, 3), ypr(90, 90, 0)},
                                     {Vector3d(-0.25, 0.75, 1.5), ypr(180, 90, 0)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> img = render(scene.get(), desc, pf);
    expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, 0.0, 0, 0, 10.0);
    });
  }
}
