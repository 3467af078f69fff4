// The reference side of the Embree acceptance test (test_reference_embree.cpp): sensor configs
// and poses, the reference rays built in double from the conventions of include/wr/wr.h and
// traced by Embree, the library's render of the same poses, and their pixel-by-pixel comparison.
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
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "embree_reference_scenes.h"

namespace wr_test::embree_tests {

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
inline Isometry3d mount_transform() {
  Isometry3d m = Isometry3d::Identity();
  m.translation() = Vector3d(0.25, -0.10, 0.15);
  m.linear() =
      (AngleAxisd(0.3, Vector3d::UnitZ()) * AngleAxisd(0.35, Vector3d::UnitY()) * AngleAxisd(-0.2, Vector3d::UnitX()))
          .toRotationMatrix();
  return m;
}
constexpr double kMountQuatNorm = 1.7;

// Pose as the library receives it: position (3) then quaternion w, x, y, z (4), floats.
using PoseWxyz = std::array<float, 7>;

inline PoseWxyz to_floats(const Isometry3d& pose, double quat_scale) {
  const Quaterniond q(pose.linear());
  return {static_cast<float>(pose.translation().x()), static_cast<float>(pose.translation().y()),
          static_cast<float>(pose.translation().z()), static_cast<float>(q.w() * quat_scale),
          static_cast<float>(q.x() * quat_scale),     static_cast<float>(q.y() * quat_scale),
          static_cast<float>(q.z() * quat_scale)};
}

// The same floats in the library's layout for `order`: for XYZW the quaternion is permuted, so
// both orders describe bit-identical physical poses.
inline void write_pose(const PoseWxyz& p, wr_quat_order order, float* out7) {
  std::copy(p.begin(), p.begin() + 3, out7);
  if (order == WR_QUAT_WXYZ) {
    std::copy(p.begin() + 3, p.end(), out7 + 3);
  } else {
    out7[3] = p[4], out7[4] = p[5], out7[5] = p[6], out7[6] = p[3];
  }
}

// Reads back a pose from the library's layout, normalising the quaternion (in double).
inline Isometry3d read_pose(const float* p7, wr_quat_order order) {
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
inline Matrix3d camera_orientation(Rng& rng, uint32_t env) {
  const double yaw = rng.uniform(-kPi, kPi);
  double pitch = 0.0, roll = 0.0;
  switch (env % 4) {
    case 0: pitch = rng.uniform(-0.6, 0.6), roll = rng.uniform(-0.3, 0.3); break;
    case 1: pitch = rng.sign() * deg(rng.uniform(80.0, 90.0)), roll = rng.uniform(-kPi, kPi); break;
    case 2: pitch = (env % 8 == 2) ? deg(90.0) : -deg(90.0), roll = 0.0; break;
    default: pitch = rng.uniform(-1.3, 1.3), roll = rng.uniform(-kPi, kPi); break;
  }
  return (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(pitch, Vector3d::UnitY()) *
          AngleAxisd(roll, Vector3d::UnitX()))
      .toRotationMatrix();
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

inline ReferenceImages render_reference(const EmbreeScene& embree, const SensorConfig& cfg,
                                        const std::vector<float>& poses, const float* mount7) {
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
                                        -(v + 0.5 - static_cast<double>(cfg.cy)) / cfg.fy)
                                   .normalized();
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

inline wr_camera_desc make_desc(const SensorConfig& cfg, wr_quat_order order, const float* mount7) {
  wr_camera_desc d;
  std::memset(&d, 0, sizeof(d));
  d.struct_size = sizeof(d);
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
inline std::vector<float> render_library(wr_scene scene, const SensorConfig& cfg, wr_quat_order order,
                                         const std::vector<float>& poses, const float* mount7) {
  const wr_camera_desc desc = make_desc(cfg, order, mount7);
  wr_sensor sensor = nullptr;
  const wr_status created = wr_sensor_create(scene, &desc, kNumEnvs, &sensor);
  INFO("wr_sensor_create: " << wr_status_string(created) << " " << wr_last_error());
  REQUIRE(created == WR_SUCCESS);
  // Pre-filled with a value no render writes here, so an unwritten pixel cannot pass as a miss.
  std::vector<float> depth(static_cast<size_t>(kNumEnvs) * cfg.width * cfg.height, -12345.0f);
  const wr_status rendered = wr_test::render_on_backend(sensor, poses.data(), poses.size(), depth.data(), depth.size());
  INFO("wr_sensor_render: " << wr_status_string(rendered) << " " << wr_last_error());
  wr_sensor_release(sensor);
  REQUIRE(rendered == WR_SUCCESS);
  return depth;
}

inline bool is_miss_value(float got, float miss_value) {
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

inline void compare(const SensorConfig& cfg, const std::vector<float>& got, const ReferenceImages& ref, Tally* tally) {
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

inline std::string worst_mismatches(std::vector<Mismatch> mismatches, size_t count) {
  std::sort(mismatches.begin(), mismatches.end(),
            [](const Mismatch& x, const Mismatch& y) { return x.error > y.error; });
  std::ostringstream s;
  s.precision(9);
  s << mismatches.size() << " disagreeing pixels";
  if (!mismatches.empty()) s << "; worst first (config env u v: library vs reference, NaN = no hit):";
  for (size_t i = 0; i < std::min(count, mismatches.size()); ++i) {
    const Mismatch& m = mismatches[i];
    s << "\n  " << m.config << " env " << m.env << " (" << m.u << ", " << m.v << "): " << m.got << " vs " << m.expected
      << " (rel. error " << m.error << ")";
  }
  return s.str();
}

// Everything a scene's test needs to know beyond its mesh.
struct SceneSpec {
  std::string name;
  std::vector<SensorConfig> configs;
  // Camera pose in the world for one env of one config (the body pose is derived from it).
  std::function<Isometry3d(Rng&, const SensorConfig&, uint32_t env)> camera_pose;
  bool enclosed = false;                // camera inside a closed surface: near 0 / far inf must always hit
  bool expect_seen_behind_near = true;  // some near-clipped geometry has something visible behind it
};

// The sensor configurations every scene is rendered with, each in both quaternion orders.
inline std::vector<SensorConfig> standard_configs(float near_clip, float far_clip) {
  std::vector<SensorConfig> c;
  // Square pixels, centred principal point, identity mount, unit quaternions: the baseline.
  c.push_back({"plane/basic", 80, 60, 40.0f, 40.0f, 40.0f, 30.0f, 0.0f, kInf, kInf, WR_DEPTH_PLANE, WR_QUAT_WXYZ, false,
               false});
  // fx != fy, principal point far from the centre, mount, non-unit quaternions, finite miss value.
  c.push_back({"range/offcentre", 72, 56, 55.0f, 38.0f, 10.0f, 47.5f, 0.0f, kInf, -1.0f, WR_DEPTH_RANGE, WR_QUAT_XYZW,
               true, true});
  // Clipping that cuts through geometry, principal point outside the image, NaN miss value.
  c.push_back({"plane/clip", 64, 64, 48.0f, 48.0f, 90.0f, -12.0f, near_clip, far_clip, kNaN, WR_DEPTH_PLANE,
               WR_QUAT_XYZW, true, true});
  c.push_back({"range/clip", 96, 40, 70.0f, 52.0f, 30.0f, 30.0f, near_clip, far_clip, -7.5f, WR_DEPTH_RANGE,
               WR_QUAT_WXYZ, true, true});
  return c;
}

inline void run_scene(const SceneSpec& spec, const Mesh& mesh, uint32_t seed) {
  INFO("scene " << spec.name << ": " << mesh.num_vertices() << " vertices, " << mesh.num_triangles() << " triangles ("
                << mesh.reference_indices.size() / 3 << " given to Embree)");
  LibraryScene lib;
  {
    const wr_status s = wr_test::create_backend_context(0, &lib.context);
    INFO("wr_context_create: " << wr_status_string(s) << " " << wr_last_error());
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
      const wr_quat_order order =
          o == 0 ? cfg.quat_order : (cfg.quat_order == WR_QUAT_WXYZ ? WR_QUAT_XYZW : WR_QUAT_WXYZ);
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

}  // namespace wr_test::embree_tests
