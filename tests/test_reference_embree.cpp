// Acceptance test: warp-raycaster against an independent ray tracer, Embree 3.
//
// Written only against the public C API (include/wr/wr.h). The reference rays are generated
// here, in double precision with Eigen, from the conventions documented in wr.h alone:
//   d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)   (+X forward, +Y left, +Z up)
//   camera_in_world = body_in_world * mount, quaternions normalised, in the sensor's quat_order
//   WR_DEPTH_PLANE = t * d_cam.x for unit d_cam; WR_DEPTH_RANGE = t
//   near/far bound the REPORTED value; nothing in [near, far] -> miss_value.
// Embree (robust mode, high-quality BVH) then traces them with rtcIntersect1, and the two depth
// images are compared pixel by pixel. The scenes (terrain with boxes, a closed subdivided
// room, a triangle soup with slivers and degenerate triangles) are generated here from fixed
// seeds, so the library has never seen them.
#include <catch2/catch.hpp>

#include <embree3/rtcore.h>
#include <wr/wr.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mesh_builders.h"

namespace {

using Eigen::AngleAxisd;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Tolerance of the per-pixel comparison: |got - expected| <= kRelTol * max(1, |expected|).
// warp-raycaster builds its rays in float (template direction, pose quaternion -> matrix,
// body * mount) and intersects in float; the reference builds them in double and Embree
// intersects in float too. Each of those steps is exact to a few ulp (~1e-7 relative), and
// the hit distance inherits the direction error amplified by 1 / cos(incidence), i.e. a few
// 1e-6 even at 1-2 degrees of grazing incidence. 1e-4 leaves two orders of magnitude of
// headroom for that, while every convention error this test is meant to catch (half-pixel
// offset, swapped or mirrored axes, plane vs range, pose order, mount order, clipping of the
// ray distance instead of the reported value) is off by 1e-3 or far more on most pixels.
// The few pixels whose ray grazes a silhouette edge within float rounding may legitimately
// see different triangles; the 99.98 % threshold leaves room for them and nothing else.
constexpr double kRelTol = 1e-4;
constexpr double kTightRelTol = 1e-5;  // reported only: how often the two agree to ~float precision
constexpr double kRequiredAgreement = 0.9998;
constexpr uint32_t kNumEnvs = 8;  // several envs per sensor: exercises the batched path

// Uniform numbers from a fixed seed. mt19937's output sequence is fixed by the standard (the
// mapping of std::uniform_real_distribution is not), so every platform sees the same scenes.
class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  double uniform() { return (static_cast<double>(gen_()) + 0.5) / 4294967296.0; }  // (0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(gen_() % n); }
  double sign() { return (gen_() & 1u) ? 1.0 : -1.0; }
  Vector3d unit_vector() {
    for (;;) {
      const Vector3d v(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      const double n = v.norm();
      if (n > 0.1 && n <= 1.0) return v / n;
    }
  }

 private:
  std::mt19937 gen_;
};

double deg(double degrees) { return degrees * kPi / 180.0; }

// ---- Meshes --------------------------------------------------------------------------------

struct Mesh {
  std::vector<float> vertices;              // (num_vertices x 3), x y z
  std::vector<uint32_t> indices;            // (num_triangles x 3): what warp-raycaster gets
  std::vector<uint32_t> reference_indices;  // (num_reference_triangles x 3): what Embree gets,
                                            // `indices` minus the zero-area triangles, which
                                            // the contract says are never hit
  uint32_t add_vertex(const Vector3d& p) {
    const uint32_t i = static_cast<uint32_t>(vertices.size() / 3);
    vertices.push_back(static_cast<float>(p.x()));
    vertices.push_back(static_cast<float>(p.y()));
    vertices.push_back(static_cast<float>(p.z()));
    return i;
  }
  void triangle(uint32_t a, uint32_t b, uint32_t c) {
    for (uint32_t i : {a, b, c}) {
      indices.push_back(i);
      reference_indices.push_back(i);
    }
  }
  void add_degenerate_triangle(uint32_t a, uint32_t b, uint32_t c) {
    for (uint32_t i : {a, b, c}) indices.push_back(i);
  }
  uint64_t num_vertices() const { return vertices.size() / 3; }
  uint64_t num_triangles() const { return indices.size() / 3; }
};

// A closed box: 8 shared corners, 12 triangles. half: half extents along the box's own axes.
void add_box(Mesh& mesh, const Vector3d& centre, const Vector3d& half, const Matrix3d& rotation) {
  uint32_t v[8];
  for (int i = 0; i < 8; ++i) {
    const Vector3d corner((i & 1) ? half.x() : -half.x(), (i & 2) ? half.y() : -half.y(),
                          (i & 4) ? half.z() : -half.z());
    v[i] = mesh.add_vertex(centre + rotation * corner);
  }
  // Each face as a cycle of 4 corners (bit 0: +x, bit 1: +y, bit 2: +z).
  static const int kFaces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                   {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : kFaces) {
    mesh.triangle(v[f[0]], v[f[1]], v[f[2]]);
    mesh.triangle(v[f[0]], v[f[2]], v[f[3]]);
  }
}

// Terrain height: Gaussian bumps plus a few steps (a step rises `rise` across a straight
// line; on a 0.25 m grid it becomes a one-cell-wide ramp of up to ~70 degrees).
struct Terrain {
  struct Bump { double x, y, sigma, amplitude; };
  struct Step { double px, py, nx, ny, rise; };
  std::vector<Bump> bumps;
  std::vector<Step> steps;

  double height(double x, double y) const {
    double h = 0.0;
    for (const Bump& b : bumps) {
      const double r2 = (x - b.x) * (x - b.x) + (y - b.y) * (y - b.y);
      h += b.amplitude * std::exp(-r2 / (2.0 * b.sigma * b.sigma));
    }
    for (const Step& s : steps)
      if ((x - s.px) * s.nx + (y - s.py) * s.ny > 0.0) h += s.rise;
    return h;
  }
};

struct PlacedBox {
  Vector3d centre, half;
  Matrix3d rotation;
};

constexpr double kTerrainSize = 30.0;  // metres, square [0, 30] x [0, 30]
constexpr int kTerrainCells = 119;     // 120 x 120 vertices

// Scene 1: a heightfield grid (random bumps, a few steps, random cell diagonals) with closed
// boxes on it: axis-aligned, yawed, and yawed + tilted, each sunk a little into the ground.
Mesh make_terrain_scene(uint32_t seed, Terrain* terrain, std::vector<PlacedBox>* boxes) {
  Rng rng(seed);
  for (int i = 0; i < 25; ++i)
    terrain->bumps.push_back({rng.uniform(0, kTerrainSize), rng.uniform(0, kTerrainSize), rng.uniform(1.0, 5.0),
                              rng.sign() * rng.uniform(0.2, 1.5)});
  for (int i = 0; i < 4; ++i) {
    const double a = rng.uniform(-kPi, kPi);
    terrain->steps.push_back({rng.uniform(5, 25), rng.uniform(5, 25), std::cos(a), std::sin(a),
                              rng.sign() * rng.uniform(0.3, 0.8)});
  }
  Mesh mesh;
  const int n = kTerrainCells + 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double x = kTerrainSize * i / kTerrainCells, y = kTerrainSize * j / kTerrainCells;
      mesh.add_vertex(Vector3d(x, y, terrain->height(x, y)));
    }
  for (int j = 0; j < kTerrainCells; ++j)
    for (int i = 0; i < kTerrainCells; ++i) {
      const uint32_t a = static_cast<uint32_t>(j * n + i), b = a + 1, c = a + n, d = c + 1;
      wr_test::add_split_quad(mesh, a, b, d, c, rng.below(2) != 0);
    }
  for (int k = 0; k < 16; ++k) {
    PlacedBox box;
    box.half = Vector3d(rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5));
    box.rotation.setIdentity();
    if (k % 3 >= 1) box.rotation = AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitZ()).toRotationMatrix();
    if (k % 3 == 2)
      box.rotation = box.rotation * AngleAxisd(rng.uniform(-0.45, 0.45), Vector3d::UnitX()) *
                     AngleAxisd(rng.uniform(-0.45, 0.45), Vector3d::UnitY());
    const double x = rng.uniform(4, 26), y = rng.uniform(4, 26);
    box.centre = Vector3d(x, y, terrain->height(x, y) - 0.3 + box.half.z());
    add_box(mesh, box.centre, box.half, box.rotation);
    boxes->push_back(box);
  }
  return mesh;
}

const Vector3d kRoomMin(-5.0, -4.0, 0.0), kRoomMax(5.0, 4.0, 3.0);
constexpr int kRoomDivisions = 40;  // quads per wall side

// Scene 2: a closed box room; every wall is a 40 x 40 grid of quads and the six walls share the
// vertices along their common edges (one vertex per lattice point), so the surface is closed.
Mesh make_room_scene() {
  Mesh mesh;
  std::map<std::array<int, 3>, uint32_t> lattice;
  auto vertex = [&](std::array<int, 3> k) {
    auto it = lattice.find(k);
    if (it != lattice.end()) return it->second;
    Vector3d p;
    for (int a = 0; a < 3; ++a) p[a] = kRoomMin[a] + (kRoomMax[a] - kRoomMin[a]) * k[a] / kRoomDivisions;
    const uint32_t i = mesh.add_vertex(p);
    lattice.emplace(k, i);
    return i;
  };
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int b = (axis + 1) % 3, c = (axis + 2) % 3;
      for (int p = 0; p < kRoomDivisions; ++p)
        for (int q = 0; q < kRoomDivisions; ++q) {
          std::array<int, 3> k00{}, k10{}, k01{}, k11{};
          for (auto* k : {&k00, &k10, &k01, &k11}) (*k)[axis] = side * kRoomDivisions;
          k00[b] = p, k00[c] = q;
          k10[b] = p + 1, k10[c] = q;
          k01[b] = p, k01[c] = q + 1;
          k11[b] = p + 1, k11[c] = q + 1;
          const uint32_t v00 = vertex(k00), v10 = vertex(k10), v01 = vertex(k01), v11 = vertex(k11);
          wr_test::add_split_quad(mesh, v00, v10, v11, v01, (p + q) % 2 != 0);
        }
    }
  return mesh;
}

constexpr double kSoupSize = 20.0;  // the soup fills the cube [0, 20]^3

// Vertex snapped to a 1/256 m grid: then sums, midpoints and 2b - a of such vertices are exact
// in float, so the collinear triangles below are exactly collinear, i.e. truly zero-area.
Vector3d snapped(const Vector3d& p) {
  return Vector3d(std::round(p.x() * 256.0) / 256.0, std::round(p.y() * 256.0) / 256.0,
                  std::round(p.z() * 256.0) / 256.0);
}

// Scene 3: a triangle soup: ordinary triangles, slivers (long and very thin), tiny ones, a few
// big ones, and zero-area ones (repeated index, exactly collinear vertices, coincident
// vertices), which Embree is not given because they must never be hit.
Mesh make_soup_scene(uint32_t seed, uint64_t* num_degenerate) {
  Rng rng(seed);
  Mesh mesh;
  auto random_point = [&](double margin) {
    return Vector3d(rng.uniform(margin, kSoupSize - margin), rng.uniform(margin, kSoupSize - margin),
                    rng.uniform(margin, kSoupSize - margin));
  };
  auto add_tri = [&](const Vector3d& a, const Vector3d& b, const Vector3d& c) {
    mesh.triangle(mesh.add_vertex(a), mesh.add_vertex(b), mesh.add_vertex(c));
  };
  for (int i = 0; i < 2500; ++i) {  // ordinary, 0.2 - 1.5 m
    const Vector3d c = random_point(0);
    const double r = rng.uniform(0.2, 1.5);
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  for (int i = 0; i < 400; ++i) {  // slivers: 2 - 8 m long, 0.1 - 10 mm wide
    const Vector3d p = random_point(0), axis = rng.unit_vector();
    const Vector3d across = axis.cross(rng.unit_vector()).normalized();
    const double length = rng.uniform(2.0, 8.0), width = std::exp(rng.uniform(std::log(1e-4), std::log(1e-2)));
    if (i % 2)  // needle: one tiny edge
      add_tri(p, p + length * axis, p + length * axis + width * across);
    else  // spindle: the apex halfway along the long edge
      add_tri(p, p + length * axis, p + 0.5 * length * axis + width * across);
  }
  for (int i = 0; i < 400; ++i) {  // tiny: 1 - 20 mm
    const Vector3d c = random_point(0);
    const double r = std::exp(rng.uniform(std::log(1e-3), std::log(2e-2)));
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  for (int i = 0; i < 30; ++i) {  // big: 6 - 15 m
    const Vector3d c = random_point(0);
    const double r = rng.uniform(6.0, 15.0);
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  const uint64_t before = mesh.num_triangles();
  for (int i = 0; i < 400; ++i) {  // zero-area
    const Vector3d a = snapped(random_point(1.0));
    const Vector3d b = snapped(a + rng.uniform(0.2, 3.0) * rng.unit_vector());
    const uint32_t ia = mesh.add_vertex(a), ib = mesh.add_vertex(b);
    switch (i % 6) {
      case 0: mesh.add_degenerate_triangle(ia, ia, ib); break;  // repeated index
      case 1: mesh.add_degenerate_triangle(ia, ib, ib); break;
      case 2: mesh.add_degenerate_triangle(ia, ia, ia); break;  // a point
      case 3: mesh.add_degenerate_triangle(ia, ib, mesh.add_vertex(0.5 * (a + b))); break;  // collinear, middle
      case 4: mesh.add_degenerate_triangle(ia, ib, mesh.add_vertex(2.0 * b - a)); break;    // collinear, outside
      default: mesh.add_degenerate_triangle(ia, mesh.add_vertex(a), mesh.add_vertex(a)); break;  // coincident
    }
  }
  *num_degenerate = mesh.num_triangles() - before;
  return mesh;
}

// ---- Poses and sensors ---------------------------------------------------------------------

struct SensorConfig {
  std::string name;
  uint32_t width, height;
  float fx, fy, cx, cy;
  float near_clip, far_clip, miss_value;
  wr_depth_kind depth_kind;
  wr_quat_order quat_order;
  bool mounted;   // non-identity mount: offset + rotation, given as a non-unit quaternion
  bool non_unit;  // body quaternions scaled by a random factor in [0.2, 5]
};

// The mount of `mounted` configs: the camera 25 cm forward, 10 cm right, 15 cm up on the body,
// yawed, pitched down and rolled. Handed to the library as a quaternion of norm 1.7.
Isometry3d mount_transform() {
  Isometry3d m = Isometry3d::Identity();
  m.translation() = Vector3d(0.25, -0.10, 0.15);
  m.linear() = (AngleAxisd(0.3, Vector3d::UnitZ()) * AngleAxisd(0.35, Vector3d::UnitY()) *
                AngleAxisd(-0.2, Vector3d::UnitX())).toRotationMatrix();
  return m;
}
constexpr double kMountQuatNorm = 1.7;

// Pose as the library receives it: position (3) then quaternion w, x, y, z (4), floats.
using PoseWxyz = std::array<float, 7>;

PoseWxyz to_floats(const Isometry3d& pose, double quat_scale) {
  const Quaterniond q(pose.linear());
  return {static_cast<float>(pose.translation().x()), static_cast<float>(pose.translation().y()),
          static_cast<float>(pose.translation().z()), static_cast<float>(q.w() * quat_scale),
          static_cast<float>(q.x() * quat_scale), static_cast<float>(q.y() * quat_scale),
          static_cast<float>(q.z() * quat_scale)};
}

// The same floats in the library's layout for `order`: for XYZW the quaternion is permuted, so
// both orders describe bit-identical physical poses.
void write_pose(const PoseWxyz& p, wr_quat_order order, float* out7) {
  std::copy(p.begin(), p.begin() + 3, out7);
  if (order == WR_QUAT_WXYZ) {
    std::copy(p.begin() + 3, p.end(), out7 + 3);
  } else {
    out7[3] = p[4], out7[4] = p[5], out7[5] = p[6], out7[6] = p[3];
  }
}

// Reads back a pose from the library's layout, normalising the quaternion (in double).
Isometry3d read_pose(const float* p7, wr_quat_order order) {
  const double w = order == WR_QUAT_WXYZ ? p7[3] : p7[6];
  const double x = order == WR_QUAT_WXYZ ? p7[4] : p7[3];
  const double y = order == WR_QUAT_WXYZ ? p7[5] : p7[4];
  const double z = order == WR_QUAT_WXYZ ? p7[6] : p7[5];
  Isometry3d t = Isometry3d::Identity();
  t.linear() = Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  t.translation() = Vector3d(p7[0], p7[1], p7[2]);
  return t;
}

// Camera orientation for env `env`: a random yaw and, by env, an ordinary pitch, a steep one
// (80 - 90 degrees up or down, any roll), exactly straight down / up, or anything.
Matrix3d camera_orientation(Rng& rng, uint32_t env) {
  const double yaw = rng.uniform(-kPi, kPi);
  double pitch = 0.0, roll = 0.0;
  switch (env % 4) {
    case 0: pitch = rng.uniform(-0.6, 0.6), roll = rng.uniform(-0.3, 0.3); break;
    case 1: pitch = rng.sign() * deg(rng.uniform(80.0, 90.0)), roll = rng.uniform(-kPi, kPi); break;
    case 2: pitch = (env % 8 == 2) ? deg(90.0) : -deg(90.0), roll = 0.0; break;
    default: pitch = rng.uniform(-1.3, 1.3), roll = rng.uniform(-kPi, kPi); break;
  }
  return (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(pitch, Vector3d::UnitY()) *
          AngleAxisd(roll, Vector3d::UnitX())).toRotationMatrix();
}

// ---- Reference: Embree -----------------------------------------------------------------------

class EmbreeScene {
 public:
  explicit EmbreeScene(const Mesh& mesh) {
    device_ = rtcNewDevice(nullptr);
    if (!device_) return;
    scene_ = rtcNewScene(device_);
    rtcSetSceneFlags(scene_, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(scene_, RTC_BUILD_QUALITY_HIGH);
    RTCGeometry geometry = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(geometry, RTC_BUILD_QUALITY_HIGH);
    auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                          3 * sizeof(float), mesh.num_vertices()));
    auto* i = static_cast<unsigned*>(rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                             3 * sizeof(unsigned), mesh.reference_indices.size() / 3));
    if (v && i) {
      std::copy(mesh.vertices.begin(), mesh.vertices.end(), v);
      std::copy(mesh.reference_indices.begin(), mesh.reference_indices.end(), i);
    }
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(scene_, geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(scene_);
    ok_ = v && i && rtcGetDeviceError(device_) == RTC_ERROR_NONE;
  }
  ~EmbreeScene() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
  }
  EmbreeScene(const EmbreeScene&) = delete;
  EmbreeScene& operator=(const EmbreeScene&) = delete;
  bool ok() const { return ok_; }

  // Nearest hit of the ray org + s * dir with s in [s_near, s_far]: s, or NaN for none.
  double trace(const Eigen::Vector3f& org, const Eigen::Vector3f& dir, float s_near, float s_far) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh;
    std::memset(&rh, 0, sizeof(rh));
    rh.ray.org_x = org.x(), rh.ray.org_y = org.y(), rh.ray.org_z = org.z();
    rh.ray.dir_x = dir.x(), rh.ray.dir_y = dir.y(), rh.ray.dir_z = dir.z();
    rh.ray.tnear = s_near;
    rh.ray.tfar = s_far;
    rh.ray.time = 0.0f;
    rh.ray.mask = ~0u;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene_, &context, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return std::numeric_limits<double>::quiet_NaN();
    return rh.ray.tfar;
  }

 private:
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
  bool ok_ = false;
};

// Reference depth images, (num_envs x height x width), NaN where nothing is hit. `unclipped`
// is the nearest hit with near = 0, far = +inf (to check that the clipping cases are real).
struct ReferenceImages {
  std::vector<double> depth, unclipped;
};

ReferenceImages render_reference(const EmbreeScene& embree, const SensorConfig& cfg, const std::vector<float>& poses,
                                 const float* mount7) {
  const uint64_t pixels = static_cast<uint64_t>(cfg.width) * cfg.height;
  const bool clipped = cfg.near_clip > 0.0f || std::isfinite(cfg.far_clip);
  ReferenceImages out;
  out.depth.assign(kNumEnvs * pixels, std::numeric_limits<double>::quiet_NaN());
  if (clipped) out.unclipped = out.depth;
  const Isometry3d mount = read_pose(mount7, cfg.quat_order);
  for (uint32_t env = 0; env < kNumEnvs; ++env) {
    const Isometry3d camera = read_pose(&poses[7 * env], cfg.quat_order) * mount;
    const Eigen::Vector3f org = camera.translation().cast<float>();
    for (uint32_t v = 0; v < cfg.height; ++v)
      for (uint32_t u = 0; u < cfg.width; ++u) {
        const Vector3d d_cam = Vector3d(1.0, -(u + 0.5 - static_cast<double>(cfg.cx)) / cfg.fx,
                                        -(v + 0.5 - static_cast<double>(cfg.cy)) / cfg.fy).normalized();
        const double scale = cfg.depth_kind == WR_DEPTH_PLANE ? d_cam.x() : 1.0;
        const Eigen::Vector3f dir = (camera.linear() * d_cam).cast<float>();
        // Embree measures s in units of |dir| (1 up to float rounding): reported = s * len * scale.
        const double len = dir.cast<double>().norm();
        const double to_reported = len * scale;
        const uint64_t k = env * pixels + static_cast<uint64_t>(v) * cfg.width + u;
        const double s = embree.trace(org, dir, static_cast<float>(cfg.near_clip / to_reported),
                                      static_cast<float>(cfg.far_clip / to_reported));
        out.depth[k] = s * to_reported;
        if (clipped) out.unclipped[k] = embree.trace(org, dir, 0.0f, kInf) * to_reported;
      }
  }
  return out;
}

// ---- Library --------------------------------------------------------------------------------

struct LibraryScene {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  ~LibraryScene() {
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

wr_camera_desc make_desc(const SensorConfig& cfg, wr_quat_order order, const float* mount7) {
  wr_camera_desc d;
  std::memset(&d, 0, sizeof(d));
  d.width = cfg.width, d.height = cfg.height;
  d.fx = cfg.fx, d.fy = cfg.fy, d.cx = cfg.cx, d.cy = cfg.cy;
  d.near_clip = cfg.near_clip, d.far_clip = cfg.far_clip, d.miss_value = cfg.miss_value;
  d.depth_kind = cfg.depth_kind;
  d.quat_order = order;
  std::copy(mount7, mount7 + 3, d.mount_position);
  std::copy(mount7 + 3, mount7 + 7, d.mount_rotation);
  return d;
}

// Renders the num_envs poses (library layout for `order`) into (num_envs x height x width).
std::vector<float> render_library(wr_scene scene, const SensorConfig& cfg, wr_quat_order order,
                                  const std::vector<float>& poses, const float* mount7) {
  const wr_camera_desc desc = make_desc(cfg, order, mount7);
  wr_sensor sensor = nullptr;
  const wr_status created = wr_sensor_create(scene, &desc, kNumEnvs, &sensor);
  INFO("wr_sensor_create: " << wr_status_string(created) << " " << wr_last_error());
  REQUIRE(created == WR_SUCCESS);
  // Pre-filled with a value no render writes here, so an unwritten pixel cannot pass as a miss.
  std::vector<float> depth(static_cast<size_t>(kNumEnvs) * cfg.width * cfg.height, -12345.0f);
  const wr_status rendered = wr_sensor_render(sensor, poses.data(), depth.data(), nullptr);
  INFO("wr_sensor_render: " << wr_status_string(rendered) << " " << wr_last_error());
  wr_sensor_release(sensor);
  REQUIRE(rendered == WR_SUCCESS);
  return depth;
}

bool is_miss_value(float got, float miss_value) {
  return std::isnan(miss_value) ? std::isnan(got) : got == miss_value;
}

// ---- Comparison -------------------------------------------------------------------------------

struct Mismatch {
  std::string config;
  uint32_t env, u, v;
  float got;
  double expected;  // NaN: the reference hits nothing
  double error;     // +inf when one hits and the other does not
};

struct Tally {
  uint64_t pixels = 0, agree = 0, agree_tight = 0;
  uint64_t hits_library = 0, hits_reference = 0;
  uint64_t near_cut_seen_behind = 0;  // unclipped hit below near, yet something behind it is seen
  uint64_t near_cut_to_miss = 0;      // unclipped hit below near, nothing in range behind it
  uint64_t far_cut = 0;               // unclipped hit beyond far: a miss
  std::vector<Mismatch> mismatches;
  std::ostringstream per_config;
};

void compare(const SensorConfig& cfg, const std::vector<float>& got, const ReferenceImages& ref, Tally* tally) {
  const uint64_t pixels = static_cast<uint64_t>(cfg.width) * cfg.height;
  uint64_t agree = 0, tight = 0, hits_lib = 0, hits_ref = 0;
  for (uint64_t k = 0; k < got.size(); ++k) {
    const double b = ref.depth[k];
    const float a = got[k];
    const bool lib_miss = is_miss_value(a, cfg.miss_value);
    const bool ref_miss = std::isnan(b);
    hits_lib += !lib_miss;
    hits_ref += !ref_miss;
    double error = 0.0;
    if (lib_miss != ref_miss) {
      error = std::numeric_limits<double>::infinity();
    } else if (!ref_miss) {  // both hit: a must be a finite depth close to b
      error = std::isfinite(a) ? std::abs(static_cast<double>(a) - b) / std::max(1.0, std::abs(b))
                               : std::numeric_limits<double>::infinity();
    }
    if (error <= kRelTol) ++agree;
    if (error <= kTightRelTol) ++tight;
    if (error > kRelTol) {
      const uint64_t env = k / pixels, rest = k % pixels;
      tally->mismatches.push_back({cfg.name, static_cast<uint32_t>(env), static_cast<uint32_t>(rest % cfg.width),
                                   static_cast<uint32_t>(rest / cfg.width), a, b, error});
    }
    if (!ref.unclipped.empty() && !std::isnan(ref.unclipped[k])) {
      const double unclipped = ref.unclipped[k];
      if (unclipped < cfg.near_clip) (ref_miss ? tally->near_cut_to_miss : tally->near_cut_seen_behind) += 1;
      if (unclipped > cfg.far_clip) tally->far_cut += 1;
    }
  }
  tally->pixels += got.size();
  tally->agree += agree;
  tally->agree_tight += tight;
  tally->hits_library += hits_lib;
  tally->hits_reference += hits_ref;
  tally->per_config << "  " << cfg.name << ": " << agree << " / " << got.size() << " agree, " << tight
                    << " within 1e-5, library hits " << hits_lib << ", reference hits " << hits_ref << "\n";
}

std::string worst_mismatches(std::vector<Mismatch> mismatches, size_t count) {
  std::sort(mismatches.begin(), mismatches.end(), [](const Mismatch& x, const Mismatch& y) { return x.error > y.error; });
  std::ostringstream s;
  s.precision(9);
  s << mismatches.size() << " disagreeing pixels";
  if (!mismatches.empty()) s << "; worst first (config env u v: library vs reference, NaN = no hit):";
  for (size_t i = 0; i < std::min(count, mismatches.size()); ++i) {
    const Mismatch& m = mismatches[i];
    s << "\n  " << m.config << " env " << m.env << " (" << m.u << ", " << m.v << "): " << m.got << " vs "
      << m.expected << " (rel. error " << m.error << ")";
  }
  return s.str();
}

// Everything a scene's test needs to know beyond its mesh.
struct SceneSpec {
  std::string name;
  std::vector<SensorConfig> configs;
  // Camera pose in the world for one env of one config (the body pose is derived from it).
  std::function<Isometry3d(Rng&, const SensorConfig&, uint32_t env)> camera_pose;
  bool enclosed = false;               // camera inside a closed surface: near 0 / far inf must always hit
  bool expect_seen_behind_near = true;  // some near-clipped geometry has something visible behind it
};

// The sensor configurations every scene is rendered with, each in both quaternion orders.
std::vector<SensorConfig> standard_configs(float near_clip, float far_clip) {
  std::vector<SensorConfig> c;
  // Square pixels, centred principal point, identity mount, unit quaternions: the baseline.
  c.push_back({"plane/basic", 80, 60, 40.0f, 40.0f, 40.0f, 30.0f, 0.0f, kInf, kInf, WR_DEPTH_PLANE, WR_QUAT_WXYZ,
               false, false});
  // fx != fy, principal point far from the centre, mount, non-unit quaternions, finite miss value.
  c.push_back({"range/offcentre", 72, 56, 55.0f, 38.0f, 10.0f, 47.5f, 0.0f, kInf, -1.0f, WR_DEPTH_RANGE,
               WR_QUAT_XYZW, true, true});
  // Clipping that cuts through geometry, principal point outside the image, NaN miss value.
  c.push_back({"plane/clip", 64, 64, 48.0f, 48.0f, 90.0f, -12.0f, near_clip, far_clip, kNaN, WR_DEPTH_PLANE,
               WR_QUAT_XYZW, true, true});
  c.push_back({"range/clip", 96, 40, 70.0f, 52.0f, 30.0f, 30.0f, near_clip, far_clip, -7.5f, WR_DEPTH_RANGE,
               WR_QUAT_WXYZ, true, true});
  return c;
}

void run_scene(const SceneSpec& spec, const Mesh& mesh, uint32_t seed) {
  INFO("scene " << spec.name << ": " << mesh.num_vertices() << " vertices, " << mesh.num_triangles()
                << " triangles (" << mesh.reference_indices.size() / 3 << " given to Embree)");
  LibraryScene lib;
  {
    const wr_status s = wr_context_create_cpu(0, &lib.context);
    INFO("wr_context_create_cpu: " << wr_status_string(s) << " " << wr_last_error());
    REQUIRE(s == WR_SUCCESS);
  }
  {
    const wr_status s = wr_scene_create(lib.context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                                        mesh.num_triangles(), &lib.scene);
    INFO("wr_scene_create: " << wr_status_string(s) << " " << wr_last_error());
    REQUIRE(s == WR_SUCCESS);
  }
  const EmbreeScene embree(mesh);
  REQUIRE(embree.ok());

  Rng rng(seed);
  Tally tally;
  uint64_t enclosed_pixels = 0, enclosed_non_hits = 0;
  for (const SensorConfig& cfg : spec.configs) {
    const Isometry3d mount = cfg.mounted ? mount_transform() : Isometry3d::Identity();
    const PoseWxyz mount_wxyz = to_floats(mount, cfg.mounted ? kMountQuatNorm : 1.0);
    // Body poses chosen so that the camera (body * mount) lands where the scene wants it.
    std::vector<PoseWxyz> bodies;
    for (uint32_t env = 0; env < kNumEnvs; ++env) {
      const Isometry3d camera = spec.camera_pose(rng, cfg, env);
      const double quat_scale = cfg.non_unit ? std::exp(rng.uniform(std::log(0.2), std::log(5.0))) : 1.0;
      bodies.push_back(to_floats(camera * mount.inverse(), quat_scale));
    }
    // The same physical poses in both quaternion orders; the config's own order is primary.
    std::vector<float> images[2];
    std::vector<float> primary_poses;
    float primary_mount[7];
    for (int o = 0; o < 2; ++o) {
      const wr_quat_order order = o == 0 ? cfg.quat_order : (cfg.quat_order == WR_QUAT_WXYZ ? WR_QUAT_XYZW : WR_QUAT_WXYZ);
      std::vector<float> poses(7 * kNumEnvs);
      for (uint32_t env = 0; env < kNumEnvs; ++env) write_pose(bodies[env], order, &poses[7 * env]);
      float mount7[7];
      write_pose(mount_wxyz, order, mount7);
      images[o] = render_library(lib.scene, cfg, order, poses, mount7);
      if (o == 0) primary_poses = poses, std::copy(mount7, mount7 + 7, primary_mount);
    }
    {
      uint64_t differing = 0;
      for (size_t k = 0; k < images[0].size(); ++k)
        differing += std::memcmp(&images[0][k], &images[1][k], sizeof(float)) != 0;
      INFO("config " << cfg.name << ": the same poses given as WXYZ and as XYZW must render bit-identical images");
      CAPTURE(differing);
      CHECK(differing == 0);
    }
    const ReferenceImages ref = render_reference(embree, cfg, primary_poses, primary_mount);
    compare(cfg, images[0], ref, &tally);
    if (spec.enclosed && cfg.near_clip == 0.0f && std::isinf(cfg.far_clip)) {
      for (float d : images[0]) {
        ++enclosed_pixels;
        enclosed_non_hits += is_miss_value(d, cfg.miss_value) || !std::isfinite(d);
      }
    }
  }

  const double agreement = static_cast<double>(tally.agree) / static_cast<double>(tally.pixels);
  const double tight = static_cast<double>(tally.agree_tight) / static_cast<double>(tally.pixels);
  INFO("per config:\n" << tally.per_config.str());
  INFO("agreement within 1e-4: " << agreement * 100.0 << " %; within 1e-5: " << tight * 100.0 << " %");
  INFO(worst_mismatches(tally.mismatches, 25));
  CAPTURE(tally.pixels, tally.agree, tally.agree_tight, tally.hits_library, tally.hits_reference);
  CAPTURE(tally.near_cut_seen_behind, tally.near_cut_to_miss, tally.far_cut);
  // The test must be about hits, not about misses agreeing with misses.
  REQUIRE(tally.hits_reference * 5 >= tally.pixels);
  // Clipping must really cut through geometry and really drop far hits.
  REQUIRE(tally.far_cut > 0);
  REQUIRE(tally.near_cut_seen_behind + tally.near_cut_to_miss > 0);
  if (spec.expect_seen_behind_near) REQUIRE(tally.near_cut_seen_behind > 0);
  REQUIRE(tally.agree * 10000 >= tally.pixels * static_cast<uint64_t>(kRequiredAgreement * 10000 + 0.5));
  if (spec.enclosed) {
    INFO("camera inside a closed room with near = 0, far = +inf: every ray must hit a wall");
    CAPTURE(enclosed_pixels, enclosed_non_hits);
    REQUIRE(enclosed_pixels > 0);
    REQUIRE(enclosed_non_hits == 0);
  }
}

}  // namespace

TEST_CASE("terrain with boxes matches Embree pixel by pixel", "[reference][embree]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh mesh = make_terrain_scene(20240601u, &terrain, &boxes);
  SceneSpec spec;
  spec.name = "terrain";
  spec.configs = standard_configs(2.0f, 12.0f);
  spec.camera_pose = [&](Rng& rng, const SensorConfig& cfg, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    if (cfg.near_clip > 0.0f && env % 2 == 1) {
      // Close to a box (0.3 - 1.3 m beyond its bounding sphere) and looking at it, so the near
      // plane cuts through the box and the terrain or the box's far walls show behind it.
      const PlacedBox& box = boxes[rng.below(static_cast<uint32_t>(boxes.size()))];
      const double a = rng.uniform(-kPi, kPi);
      const Vector3d p = box.centre + (box.half.norm() + rng.uniform(0.3, 1.3)) * Vector3d(std::cos(a), std::sin(a), 0.0);
      camera.translation() = Vector3d(p.x(), p.y(), std::max(p.z(), terrain.height(p.x(), p.y()) + 0.3));
      camera.linear() = (AngleAxisd(a + kPi + rng.uniform(-0.2, 0.2), Vector3d::UnitZ()) *
                         AngleAxisd(rng.uniform(-0.3, 0.3), Vector3d::UnitY()) *
                         AngleAxisd(rng.uniform(-0.5, 0.5), Vector3d::UnitX())).toRotationMatrix();
      return camera;
    }
    const double x = rng.uniform(4, 26), y = rng.uniform(4, 26);
    camera.translation() = Vector3d(x, y, terrain.height(x, y) + rng.uniform(0.4, 3.0));
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 7u);
}

TEST_CASE("closed subdivided room matches Embree and no ray escapes", "[reference][embree]") {
  const Mesh mesh = make_room_scene();
  SceneSpec spec;
  spec.name = "room";
  spec.configs = standard_configs(1.0f, 6.0f);
  spec.enclosed = true;
  spec.expect_seen_behind_near = false;  // behind a clipped wall there is only the outside
  spec.camera_pose = [](Rng& rng, const SensorConfig& cfg, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    const double margin = 0.4;
    for (int a = 0; a < 3; ++a) camera.translation()[a] = rng.uniform(kRoomMin[a] + margin, kRoomMax[a] - margin);
    if (cfg.near_clip > 0.0f && env % 2 == 1) {
      // Right next to a wall (0.4 - 0.9 m) and facing it, so the near plane cuts it away.
      const int axis = static_cast<int>(rng.below(2));
      const bool high = rng.below(2) == 1;
      camera.translation()[axis] = high ? kRoomMax[axis] - rng.uniform(0.4, 0.9) : kRoomMin[axis] + rng.uniform(0.4, 0.9);
      const double yaw = (axis == 0 ? 0.0 : kPi / 2) + (high ? 0.0 : kPi) + rng.uniform(-0.3, 0.3);
      camera.linear() = (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(rng.uniform(-0.3, 0.3), Vector3d::UnitY()))
                            .toRotationMatrix();
      return camera;
    }
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 11u);
}

TEST_CASE("triangle soup with slivers and degenerate triangles matches Embree", "[reference][embree]") {
  uint64_t num_degenerate = 0;
  const Mesh mesh = make_soup_scene(424242u, &num_degenerate);
  REQUIRE(num_degenerate == 400);
  SceneSpec spec;
  spec.name = "soup";
  spec.configs = standard_configs(1.5f, 10.0f);
  spec.camera_pose = [](Rng& rng, const SensorConfig&, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    for (int a = 0; a < 3; ++a) camera.translation()[a] = rng.uniform(2.0, kSoupSize - 2.0);
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 13u);
}

// Rays through zero-area triangles. The camera sits at an exact position with an exactly
// representable rotation (quaternions with small integer components: their normalised rotation
// matrices have entries 0 and +-1 exactly), fx = fy = 64 and a centred principal point, so the
// unnormalised pixel ray (1, a, b) has exact components and the point X = org + t * R (1, a, b),
// t a power of two, is exact: every pixel's ray passes through the X placed for it, up to the
// rounding of the library's own normalised direction (exactly, for the centre pixel of the odd
// sized image, whose ray is an axis). Each pixel gets a zero-area triangle through its X
// (exactly collinear vertices, repeated indices, coincident vertices); none may be hit. As a
// control, the same layout with every triangle given a small real area must be hit at every
// pixel at plane depth t: the rays really do go through those points.
TEST_CASE("zero-area triangles are never hit, even by rays through them", "[reference][embree]") {
  constexpr uint32_t kW = 65, kH = 49, kEnvs = 3;
  const float kF = 64.0f;
  // Body poses: identity at the origin; yawed by 180 degrees (non-unit quaternion (0,0,0,2))
  // at an exact offset; pitched by 90 degrees to look straight down (quaternion (1,0,1,0)).
  const float poses[kEnvs][7] = {{0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f},
                                 {0.5f, -0.25f, 0.125f, 0.0f, 0.0f, 0.0f, 2.0f},
                                 {-1.0f, 2.0f, 40.0f, 1.0f, 0.0f, 1.0f, 0.0f}};
  Rng rng(99u);
  Mesh degenerate, control;
  std::vector<float> expected_depth;  // (kEnvs x kH x kW), the control's plane depth
  for (uint32_t env = 0; env < kEnvs; ++env) {
    const Isometry3d body = read_pose(poses[env], WR_QUAT_WXYZ);
    for (uint32_t v = 0; v < kH; ++v)
      for (uint32_t u = 0; u < kW; ++u) {
        const double t = 4.0 * (1u << ((u + 2 * v) % 3));  // 4, 8 or 16 m
        const Vector3d ray(1.0, -(u + 0.5 - kW / 2.0) / kF, -(v + 0.5 - kH / 2.0) / kF);
        // Exact values are multiples of 1/32; snapping drops the 1e-16 noise of the double
        // rotation matrix, so that x and the vertices built from it are exact in float.
        const Vector3d x_raw = body.translation() + t * (body.linear() * ray);
        const Vector3d x = (x_raw * 1024.0).array().round().matrix() / 1024.0;
        // Small offsets with components k / 512 (exact), kept below half a pixel footprint.
        auto offset = [&] {
          for (;;) {
            const Vector3d e(rng.below(9) - 4.0, rng.below(9) - 4.0, rng.below(9) - 4.0);
            if (e.squaredNorm() >= 4.0) return Vector3d(e / 512.0);
          }
        };
        // e and f drawn together until the control triangle (spanned by e and f) faces the
        // ray at 72 degrees or less from its normal: a pair is accepted with fair probability.
        Vector3d e, f;
        do {
          e = offset(), f = offset();
        } while (e.cross(f).norm() < 2.0 / (512.0 * 512.0) ||
                 std::abs(e.cross(f).normalized().dot(body.linear() * ray.normalized())) < 0.3);
        // Zero-area triangles through x (every vertex exact in float, so exactly zero area).
        switch ((u + v) % 5) {
          case 0: degenerate.add_degenerate_triangle(degenerate.add_vertex(x - e), degenerate.add_vertex(x + e),
                                                     degenerate.add_vertex(x)); break;
          case 1: degenerate.add_degenerate_triangle(degenerate.add_vertex(x + 2.0 * e), degenerate.add_vertex(x - e),
                                                     degenerate.add_vertex(x + e)); break;
          case 2: {
            const uint32_t a = degenerate.add_vertex(x - e), b = degenerate.add_vertex(x + e);
            degenerate.add_degenerate_triangle(a, a, b);
            break;
          }
          case 3: {
            const uint32_t a = degenerate.add_vertex(x);
            degenerate.add_degenerate_triangle(a, a, a);
            break;
          }
          default: degenerate.add_degenerate_triangle(degenerate.add_vertex(x), degenerate.add_vertex(x),
                                                      degenerate.add_vertex(x)); break;
        }
        // Control: a real triangle whose interior contains x (x = centroid-ish, off every edge).
        control.triangle(control.add_vertex(x - e - f), control.add_vertex(x + e - f), control.add_vertex(x + f));
        expected_depth.push_back(static_cast<float>(t));
      }
  }
  LibraryScene lib;
  REQUIRE(wr_context_create_cpu(0, &lib.context) == WR_SUCCESS);
  wr_camera_desc desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.width = kW, desc.height = kH, desc.fx = kF, desc.fy = kF, desc.cx = kW / 2.0f, desc.cy = kH / 2.0f;
  desc.near_clip = 0.0f, desc.far_clip = kInf, desc.miss_value = kInf;
  desc.depth_kind = WR_DEPTH_PLANE, desc.quat_order = WR_QUAT_WXYZ;
  desc.mount_rotation[0] = 1.0f;

  auto render = [&](const Mesh& mesh) {
    wr_scene scene = nullptr;
    const wr_status s = wr_scene_create(lib.context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                                        mesh.num_triangles(), &scene);
    INFO("wr_scene_create: " << wr_status_string(s) << " " << wr_last_error());
    REQUIRE(s == WR_SUCCESS);
    wr_sensor sensor = nullptr;
    const wr_status c = wr_sensor_create(scene, &desc, kEnvs, &sensor);
    wr_scene_release(scene);
    INFO("wr_sensor_create: " << wr_status_string(c) << " " << wr_last_error());
    REQUIRE(c == WR_SUCCESS);
    std::vector<float> depth(kEnvs * kW * kH, -12345.0f);
    const wr_status r = wr_sensor_render(sensor, &poses[0][0], depth.data(), nullptr);
    wr_sensor_release(sensor);
    INFO("wr_sensor_render: " << wr_status_string(r) << " " << wr_last_error());
    REQUIRE(r == WR_SUCCESS);
    return depth;
  };

  SECTION("control: the same layout with real triangles is hit at every pixel at depth t") {
    const std::vector<float> depth = render(control);
    uint64_t wrong = 0;
    std::ostringstream first;
    for (size_t k = 0; k < depth.size(); ++k) {
      if (std::abs(depth[k] - expected_depth[k]) <= kTightRelTol * expected_depth[k]) continue;
      if (wrong++ < 10)
        first << "\n  env " << k / (kW * kH) << " (" << k % kW << ", " << (k / kW) % kH << "): " << depth[k]
              << " vs " << expected_depth[k];
    }
    INFO("pixels not at their control triangle's depth:" << first.str());
    CAPTURE(wrong);
    REQUIRE(wrong == 0);
  }
  SECTION("zero-area triangles through every pixel's ray: nothing is hit") {
    REQUIRE(degenerate.reference_indices.empty());
    const std::vector<float> depth = render(degenerate);
    uint64_t hits = 0;
    std::ostringstream first;
    for (size_t k = 0; k < depth.size(); ++k) {
      if (std::isinf(depth[k]) && depth[k] > 0) continue;
      const uint32_t u = k % kW, v = (k / kW) % kH;
      if (hits++ < 10)
        first << "\n  env " << k / (kW * kH) << " (" << u << ", " << v << "), triangle type " << (u + v) % 5
              << ": " << depth[k];
    }
    INFO("pixels that hit a zero-area triangle (types: 0, 1 collinear; 2 repeated index; 3 one vertex thrice; "
         "4 coincident vertices):" << first.str());
    CAPTURE(hits);
    REQUIRE(hits == 0);
  }
}
