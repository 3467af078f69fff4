// The instances' tests (test_instances_embree.cpp, test_instances_contract.cpp): the prototypes and
// the instance table they share, Embree 3 with the same instances (RTC_GEOMETRY_TYPE_INSTANCE, the
// terrain as geometry 0 and instance i as geometry 1 + i of one top-level scene), random worlds of
// cameras and instances over the terrain, and one render through the public C API.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "api_test_support.h"  // REQUIRE_OK
#include "embree_reference_scenes.h"

namespace wr_test::instance_tests {

using namespace wr_test::embree_tests;
using wr_test::embree_tests::Mesh;  // not tests/support/mesh_builders.h's

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kNone = UINT32_MAX;

// The prototypes: a trunk-like box, a leg-like slab, and a closed octahedron (slanted faces).
inline Mesh box_mesh(const Vector3d& half) {
  Mesh m;
  add_box(m, Vector3d::Zero(), half, Matrix3d::Identity());
  return m;
}
inline Mesh octahedron_mesh(double r) {
  Mesh m;
  const uint32_t v[6] = {m.add_vertex({r, 0, 0}),  m.add_vertex({-r, 0, 0}), m.add_vertex({0, r, 0}),
                         m.add_vertex({0, -r, 0}), m.add_vertex({0, 0, r}),  m.add_vertex({0, 0, -r})};
  const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  for (const auto& f : faces) m.triangle(v[f[0]], v[f[1]], v[f[2]]);
  return m;
}

inline std::vector<Mesh> prototype_meshes() {
  return {box_mesh({0.3, 0.15, 0.08}), box_mesh({0.03, 0.03, 0.2}), octahedron_mesh(0.35)};
}

// Per env: 6 slots (prototypes and groups below), and 2 global instances.
inline const uint32_t kSlotPrototypes[] = {0, 1, 1, 1, 1, 2};
inline const uint32_t kSlotGroups[] = {0, 1, 1, 2, 2, 3};
inline const uint32_t kGlobalPrototypes[] = {2, 0};
inline const uint32_t kGlobalGroups[] = {4, 4};
constexpr uint32_t kSlots = 6, kGlobals = 2;

struct LibScene {
  wr_context context = nullptr;
  wr_scene terrain = nullptr, instanced = nullptr;
  std::vector<wr_scene> prototypes;
  ~LibScene() {
    wr_scene_release(instanced);
    for (wr_scene p : prototypes) wr_scene_release(p);
    wr_scene_release(terrain);
    wr_context_release(context);
  }
};

inline wr_scene make_mesh_scene(wr_context c, const Mesh& m) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(c, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return s;
}

// terrain + prototypes, with the table above (slots x globals as given).
inline void make_lib_scene(LibScene* lib, uint32_t threads, const Mesh& terrain, const std::vector<Mesh>& protos,
                           uint32_t slots = kSlots, uint32_t globals = kGlobals) {
  REQUIRE_OK(wr_context_create_cpu(threads, &lib->context));
  lib->terrain = make_mesh_scene(lib->context, terrain);
  for (const Mesh& m : protos) lib->prototypes.push_back(make_mesh_scene(lib->context, m));
  wr_instanced_scene_desc d;
  wr_instanced_scene_desc_init(&d);
  d.terrain = lib->terrain;
  d.prototypes = lib->prototypes.data();
  d.num_prototypes = static_cast<uint32_t>(protos.size());
  d.slot_prototypes = kSlotPrototypes, d.slot_groups = kSlotGroups, d.num_slots = slots;
  d.global_prototypes = kGlobalPrototypes, d.global_groups = kGlobalGroups, d.num_globals = globals;
  REQUIRE_OK(wr_scene_create_instanced(lib->context, &d, &lib->instanced));
}

// ---- Embree: the terrain as geometry 0, instance i as geometry 1 + i of one top-level scene ----

inline Eigen::Matrix<float, 3, 4> float_xf(const Isometry3d& t) { return t.matrix().topRows<3>().cast<float>(); }

class EmbreeWorld {
 public:
  EmbreeWorld(const Mesh& terrain, const std::vector<Mesh>& protos, uint32_t num_instances) {
    device_ = rtcNewDevice(nullptr);
    top_ = rtcNewScene(device_);
    rtcSetSceneFlags(top_, RTC_SCENE_FLAG_ROBUST);
    RTCGeometry ground = triangles(terrain);
    rtcAttachGeometryByID(top_, ground, 0);
    rtcReleaseGeometry(ground);  // the scene holds it now
    for (const Mesh& m : protos) {
      RTCScene s = rtcNewScene(device_);
      rtcSetSceneFlags(s, RTC_SCENE_FLAG_ROBUST);
      rtcSetSceneBuildQuality(s, RTC_BUILD_QUALITY_HIGH);
      RTCGeometry g = triangles(m);
      rtcAttachGeometry(s, g);
      rtcReleaseGeometry(g);
      rtcCommitScene(s);
      prototypes_.push_back(s);
    }
    for (uint32_t i = 0; i < num_instances; ++i) {
      const uint32_t proto = i < kSlots ? kSlotPrototypes[i] : kGlobalPrototypes[i - kSlots];
      RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_INSTANCE);
      rtcSetGeometryInstancedScene(g, prototypes_[proto]);
      rtcAttachGeometryByID(top_, g, 1 + i);
      instances_.push_back(g);
    }
  }
  ~EmbreeWorld() {
    for (RTCGeometry g : instances_) rtcReleaseGeometry(g);
    for (RTCScene s : prototypes_) rtcReleaseScene(s);
    rtcReleaseScene(top_);
    rtcReleaseDevice(device_);
  }
  // Instance i's pose (world from instance); null: the instance is left out (disabled).
  void pose(uint32_t i, const Isometry3d* t) {
    if (t) {
      const Eigen::Matrix<float, 3, 4> m = float_xf(*t);
      rtcSetGeometryTransform(instances_[i], 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, m.data());
      rtcEnableGeometry(instances_[i]);
    } else {
      rtcDisableGeometry(instances_[i]);
    }
    rtcCommitGeometry(instances_[i]);
  }
  void commit() { rtcCommitScene(top_); }
  bool ok() const { return rtcGetDeviceError(device_) == RTC_ERROR_NONE; }

  struct Hit {
    double t;           // NaN: none
    uint32_t instance;  // kNone: the terrain
    uint32_t triangle;
  };
  Hit trace(const Eigen::Vector3f& org, const Eigen::Vector3f& dir, float tnear, float tfar) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh;
    std::memset(&rh, 0, sizeof rh);
    rh.ray.org_x = org.x(), rh.ray.org_y = org.y(), rh.ray.org_z = org.z();
    rh.ray.dir_x = dir.x(), rh.ray.dir_y = dir.y(), rh.ray.dir_z = dir.z();
    rh.ray.tnear = tnear, rh.ray.tfar = tfar, rh.ray.mask = ~0u;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(top_, &context, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return {std::nan(""), kNone, kNone};
    const bool instanced = rh.hit.instID[0] != RTC_INVALID_GEOMETRY_ID;
    return {rh.ray.tfar, instanced ? rh.hit.instID[0] - 1 : kNone, rh.hit.primID};
  }

 private:
  RTCGeometry triangles(const Mesh& m) {
    RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* v = static_cast<float*>(
        rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 12, m.num_vertices()));
    auto* i = static_cast<unsigned*>(
        rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 12, m.reference_indices.size() / 3));
    std::copy(m.vertices.begin(), m.vertices.end(), v);
    std::copy(m.reference_indices.begin(), m.reference_indices.end(), i);
    rtcCommitGeometry(g);
    return g;
  }
  RTCDevice device_ = nullptr;
  RTCScene top_ = nullptr;
  std::vector<RTCScene> prototypes_;
  std::vector<RTCGeometry> instances_;
};

// ---- poses ------------------------------------------------------------------------------------

inline void put_pose(const Isometry3d& t, wr_quat_order order, float* out7) {
  const Quaterniond q(t.linear());
  const double w = q.w(), x = q.x(), y = q.y(), z = q.z();
  out7[0] = float(t.translation().x()), out7[1] = float(t.translation().y()), out7[2] = float(t.translation().z());
  if (order == WR_QUAT_WXYZ)
    out7[3] = float(w), out7[4] = float(x), out7[5] = float(y), out7[6] = float(z);
  else
    out7[3] = float(x), out7[4] = float(y), out7[5] = float(z), out7[6] = float(w);
}

// What Embree gets: the pose exactly as the library reads the floats (quaternion normalised in double).
inline Isometry3d as_read(const float* p7, wr_quat_order order) {
  const double w = order == WR_QUAT_WXYZ ? p7[3] : p7[6], x = order == WR_QUAT_WXYZ ? p7[4] : p7[3];
  const double y = order == WR_QUAT_WXYZ ? p7[5] : p7[4], z = order == WR_QUAT_WXYZ ? p7[6] : p7[5];
  Isometry3d t = Isometry3d::Identity();
  t.linear() = Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  t.translation() = Vector3d(p7[0], p7[1], p7[2]);
  return t;
}

inline Matrix3d random_rotation(Rng& rng) {
  return (AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitZ()) *
          AngleAxisd(rng.uniform(-1.5, 1.5), Vector3d::UnitY()) * AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitX()))
      .toRotationMatrix();
}

struct World {
  uint32_t num_envs;
  std::vector<Isometry3d> cameras;    // (num_envs)
  std::vector<Isometry3d> instances;  // (num_envs x kSlots), then kGlobals shared
};

// Cameras over the terrain; each env's instances in front of its camera (1-4 m), some sunk into
// the terrain, slots 1 and 2 overlapping, and in every fourth env the camera inside slot 0's box.
inline World make_world(const Terrain& terrain, uint32_t num_envs, uint32_t seed) {
  Rng rng(seed);
  World w;
  w.num_envs = num_envs;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const double x = rng.uniform(6, 24), y = rng.uniform(6, 24), yaw = rng.uniform(-kPi, kPi);
    Isometry3d cam = Isometry3d::Identity();
    cam.translation() = Vector3d(x, y, terrain.height(x, y) + rng.uniform(0.4, 1.2));
    cam.linear() =
        (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(rng.uniform(0.0, 0.6), Vector3d::UnitY())).toRotationMatrix();
    w.cameras.push_back(cam);
    for (uint32_t s = 0; s < kSlots; ++s) {
      Isometry3d t = Isometry3d::Identity();
      t.linear() = random_rotation(rng);
      const double ahead = rng.uniform(1.0, 4.0), side = rng.uniform(-0.8, 0.8);
      Vector3d p = cam * Vector3d(ahead, side, rng.uniform(-0.6, 0.1));
      if (s == 3) p.z() = terrain.height(p.x(), p.y()) + rng.uniform(-0.1, 0.1);             // cutting the terrain
      if (s == 2) p = w.instances[e * kSlots + 1].translation() + 0.05 * rng.unit_vector();  // overlaps slot 1
      if (s == 0 && e % 4 == 3) p = cam.translation() + 0.02 * rng.unit_vector();            // camera inside the box
      t.translation() = p;
      w.instances.push_back(t);
    }
  }
  for (uint32_t g = 0; g < kGlobals; ++g) {
    Isometry3d t = Isometry3d::Identity();
    t.linear() = random_rotation(rng);
    t.translation() = Vector3d(rng.uniform(8, 22), rng.uniform(8, 22), 1.0);
    t.translation().z() = terrain.height(t.translation().x(), t.translation().y()) + 0.2;
    w.instances.push_back(t);
  }
  return w;
}

struct Floats {
  std::vector<float> bodies, slots, globals;
};
inline Floats world_floats(const World& w, wr_quat_order order) {
  Floats f;
  f.bodies.resize(7 * w.num_envs);
  f.slots.resize(7ull * w.num_envs * kSlots);
  f.globals.resize(7 * kGlobals);
  for (uint32_t e = 0; e < w.num_envs; ++e) put_pose(w.cameras[e], order, &f.bodies[7 * e]);
  for (uint32_t i = 0; i < w.num_envs * kSlots; ++i) put_pose(w.instances[i], order, &f.slots[7 * i]);
  for (uint32_t g = 0; g < kGlobals; ++g) put_pose(w.instances[w.num_envs * kSlots + g], order, &f.globals[7 * g]);
  return f;
}

struct Render {
  std::vector<float> depth;
  std::vector<uint32_t> ids;
};

// A sensor on `scene`, one render with the world's poses (instance ids too).
inline Render render(wr_scene scene, const wr_camera_desc& desc, uint32_t num_envs, const Floats& f,
                     uint32_t exclude_groups = 0, const wr_sensor_options* base = nullptr) {
  wr_sensor_options o;
  if (base)
    o = *base;
  else
    wr_sensor_options_init(&o);
  o.exclude_groups = exclude_groups;
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(scene, &desc, &o, num_envs, &sensor));
  Render r;
  r.depth.assign(size_t(num_envs) * desc.width * desc.height, -123.0f);
  r.ids.assign(r.depth.size(), 0xdeadbeefu);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = f.bodies.data();
  a.out = r.depth.data();
  a.out_bytes = r.depth.size() * 4;
  a.instance_poses = f.slots.empty() ? nullptr : f.slots.data();
  a.global_poses = f.globals.empty() ? nullptr : f.globals.data();
  a.instance_ids = r.ids.data();
  const wr_status s = wr_sensor_render_ex(sensor, &a);
  INFO("wr_sensor_render_ex: " << wr_last_error());
  wr_sensor_release(sensor);
  REQUIRE(s == WR_SUCCESS);
  return r;
}

inline wr_camera_desc camera(wr_depth_kind kind, wr_quat_order order) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 64, 40, 100.0f);
  d.depth_kind = kind;
  d.quat_order = order;
  d.near_clip = 0.0f;
  d.far_clip = 30.0f;
  return d;
}

// Per pixel: depth within 1e-4 relative (or both misses), and the same instance hit.
struct Agreement {
  uint64_t pixels = 0, agree = 0, hits = 0, instance_hits = 0, inside_hits = 0;
  std::string first_bad;
};

inline void compare_with_embree(const World& w, const Floats& f, const wr_camera_desc& d, const Render& got,
                                EmbreeWorld& embree, uint32_t exclude_groups, Agreement* a) {
  for (uint32_t g = 0; g < kGlobals; ++g) {
    const Isometry3d t = as_read(&f.globals[7 * g], d.quat_order);
    embree.pose(kSlots + g, (exclude_groups >> kGlobalGroups[g] & 1) ? nullptr : &t);
  }
  const uint64_t pixels = uint64_t(d.width) * d.height;
  for (uint32_t e = 0; e < w.num_envs; ++e) {
    for (uint32_t s = 0; s < kSlots; ++s) {
      const Isometry3d t = as_read(&f.slots[7ull * (e * kSlots + s)], d.quat_order);
      embree.pose(s, (exclude_groups >> kSlotGroups[s] & 1) ? nullptr : &t);
    }
    embree.commit();
    const Isometry3d cam = as_read(&f.bodies[7 * e], d.quat_order);
    for (uint32_t v = 0; v < d.height; ++v)
      for (uint32_t u = 0; u < d.width; ++u) {
        const Vector3d dc =
            Vector3d(1.0, -(u + 0.5 - double(d.cx)) / d.fx, -(v + 0.5 - double(d.cy)) / d.fy).normalized();
        const Eigen::Vector3f dir = (cam.linear() * dc).cast<float>();
        const double to_reported = dir.cast<double>().norm() * (d.depth_kind == WR_DEPTH_PLANE ? dc.x() : 1.0);
        const EmbreeWorld::Hit h =
            embree.trace(cam.translation().cast<float>(), dir, 0.0f, float(d.far_clip / to_reported));
        const uint64_t k = e * pixels + uint64_t(v) * d.width + u;
        const float gd = got.depth[k];
        const uint32_t gi = got.ids[k];
        bool ok;
        if (std::isnan(h.t)) {
          ok = std::isinf(gd) && gi == kNone;
        } else {
          const double want = h.t * to_reported;
          ok = std::abs(double(gd) - want) <= 1e-4 * std::max(1.0, want) && gi == h.instance;
          ++a->hits;
          a->instance_hits += h.instance != kNone;
          a->inside_hits += h.instance == 0 && e % 4 == 3;
        }
        ++a->pixels;
        a->agree += ok;
        if (!ok && a->first_bad.empty())
          a->first_bad = "env " + std::to_string(e) + " pixel (" + std::to_string(u) + ", " + std::to_string(v) +
                         "): library " + std::to_string(gd) + " instance " + std::to_string(gi) + ", Embree " +
                         std::to_string(h.t * to_reported) + " instance " + std::to_string(h.instance);
      }
  }
}

// The terrain scene of `seed` (embree_reference_scenes.h) and its height function.
inline Mesh terrain_mesh(uint32_t seed, Terrain* terrain) {
  std::vector<PlacedBox> boxes;
  return make_terrain_scene(seed, terrain, &boxes);
}

}  // namespace wr_test::instance_tests
