// Moving geometry (wr_scene_create_instanced, core/instances.h) through the public C API:
//   - depth and instance ids per pixel against Embree 3's own instancing (RTC_GEOMETRY_TYPE_INSTANCE)
//     on random scenes: overlapping instances, instances cutting the terrain, cameras inside an
//     instance's box, both quaternion orders, both depth kinds, global instances;
//   - explicit rays (wr_scene_intersect_ex) against the same Embree scenes;
//   - env isolation, exclusion masks, ties between coincident instances on every CPU path and
//     thread count, bad instance poses named with env and slot (or isolated), the ledger.
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

#include "embree_reference_scenes.h"

using namespace wr_test::embree_tests;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kNone = UINT32_MAX;

#define REQUIRE_OK(call)                                     \
  do {                                                       \
    const wr_status s_ = (call);                             \
    INFO(#call << ": " << wr_status_string(s_) << " " << wr_last_error()); \
    REQUIRE(s_ == WR_SUCCESS);                               \
  } while (0)

// The prototypes: a trunk-like box, a leg-like slab, and a closed octahedron (slanted faces).
Mesh box_mesh(const Vector3d& half) {
  Mesh m;
  add_box(m, Vector3d::Zero(), half, Matrix3d::Identity());
  return m;
}
Mesh octahedron_mesh(double r) {
  Mesh m;
  const uint32_t v[6] = {m.add_vertex({r, 0, 0}), m.add_vertex({-r, 0, 0}), m.add_vertex({0, r, 0}),
                         m.add_vertex({0, -r, 0}), m.add_vertex({0, 0, r}), m.add_vertex({0, 0, -r})};
  const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  for (const auto& f : faces) m.triangle(v[f[0]], v[f[1]], v[f[2]]);
  return m;
}

std::vector<Mesh> prototype_meshes() {
  return {box_mesh({0.3, 0.15, 0.08}), box_mesh({0.03, 0.03, 0.2}), octahedron_mesh(0.35)};
}

// Per env: 6 slots (prototypes and groups below), and 2 global instances.
const uint32_t kSlotPrototypes[] = {0, 1, 1, 1, 1, 2};
const uint32_t kSlotGroups[] = {0, 1, 1, 2, 2, 3};
const uint32_t kGlobalPrototypes[] = {2, 0};
const uint32_t kGlobalGroups[] = {4, 4};
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

wr_scene make_mesh_scene(wr_context c, const Mesh& m) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(c, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return s;
}

// terrain + prototypes, with the table above (slots x globals as given).
void make_lib_scene(LibScene* lib, uint32_t threads, const Mesh& terrain, const std::vector<Mesh>& protos,
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

Eigen::Matrix<float, 3, 4> float_xf(const Isometry3d& t) { return t.matrix().topRows<3>().cast<float>(); }

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

void put_pose(const Isometry3d& t, wr_quat_order order, float* out7) {
  const Quaterniond q(t.linear());
  const double w = q.w(), x = q.x(), y = q.y(), z = q.z();
  out7[0] = float(t.translation().x()), out7[1] = float(t.translation().y()), out7[2] = float(t.translation().z());
  if (order == WR_QUAT_WXYZ)
    out7[3] = float(w), out7[4] = float(x), out7[5] = float(y), out7[6] = float(z);
  else
    out7[3] = float(x), out7[4] = float(y), out7[5] = float(z), out7[6] = float(w);
}

// What Embree gets: the pose exactly as the library reads the floats (quaternion normalised in double).
Isometry3d as_read(const float* p7, wr_quat_order order) {
  const double w = order == WR_QUAT_WXYZ ? p7[3] : p7[6], x = order == WR_QUAT_WXYZ ? p7[4] : p7[3];
  const double y = order == WR_QUAT_WXYZ ? p7[5] : p7[4], z = order == WR_QUAT_WXYZ ? p7[6] : p7[5];
  Isometry3d t = Isometry3d::Identity();
  t.linear() = Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  t.translation() = Vector3d(p7[0], p7[1], p7[2]);
  return t;
}

Matrix3d random_rotation(Rng& rng) {
  return (AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitZ()) * AngleAxisd(rng.uniform(-1.5, 1.5), Vector3d::UnitY()) *
          AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitX())).toRotationMatrix();
}

struct World {
  uint32_t num_envs;
  std::vector<Isometry3d> cameras;    // (num_envs)
  std::vector<Isometry3d> instances;  // (num_envs x kSlots), then kGlobals shared
};

// Cameras over the terrain; each env's instances in front of its camera (1-4 m), some sunk into
// the terrain, slots 1 and 2 overlapping, and in every fourth env the camera inside slot 0's box.
World make_world(const Terrain& terrain, uint32_t num_envs, uint32_t seed) {
  Rng rng(seed);
  World w;
  w.num_envs = num_envs;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const double x = rng.uniform(6, 24), y = rng.uniform(6, 24), yaw = rng.uniform(-kPi, kPi);
    Isometry3d cam = Isometry3d::Identity();
    cam.translation() = Vector3d(x, y, terrain.height(x, y) + rng.uniform(0.4, 1.2));
    cam.linear() = (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(rng.uniform(0.0, 0.6), Vector3d::UnitY())).toRotationMatrix();
    w.cameras.push_back(cam);
    for (uint32_t s = 0; s < kSlots; ++s) {
      Isometry3d t = Isometry3d::Identity();
      t.linear() = random_rotation(rng);
      const double ahead = rng.uniform(1.0, 4.0), side = rng.uniform(-0.8, 0.8);
      Vector3d p = cam * Vector3d(ahead, side, rng.uniform(-0.6, 0.1));
      if (s == 3) p.z() = terrain.height(p.x(), p.y()) + rng.uniform(-0.1, 0.1);  // cutting the terrain
      if (s == 2) p = w.instances[e * kSlots + 1].translation() + 0.05 * rng.unit_vector();  // overlaps slot 1
      if (s == 0 && e % 4 == 3) p = cam.translation() + 0.02 * rng.unit_vector();  // camera inside the box
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
Floats world_floats(const World& w, wr_quat_order order) {
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
Render render(wr_scene scene, const wr_camera_desc& desc, uint32_t num_envs, const Floats& f,
              uint32_t exclude_groups = 0, const wr_sensor_options* base = nullptr) {
  wr_sensor_options o;
  if (base) o = *base;
  else wr_sensor_options_init(&o);
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

wr_camera_desc camera(wr_depth_kind kind, wr_quat_order order) {
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

void compare_with_embree(const World& w, const Floats& f, const wr_camera_desc& d, const Render& got,
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
        const Vector3d dc = Vector3d(1.0, -(u + 0.5 - double(d.cx)) / d.fx, -(v + 0.5 - double(d.cy)) / d.fy).normalized();
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

}  // namespace

TEST_CASE("instances: depth and instance ids match Embree's instancing pixel by pixel", "[instances][embree]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(20261201u, &terrain, &boxes);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, protos);
  EmbreeWorld embree(terrain_mesh, protos, kSlots + kGlobals);
  REQUIRE(embree.ok());
  const uint32_t n = 16;
  const World w = make_world(terrain, n, 5u);
  Agreement total;
  for (const wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE})
    for (const uint32_t exclude : {0u, 1u << 1 | 1u << 4}) {
      INFO("depth kind " << kind << ", exclude_groups " << exclude);
      Render first;
      for (const wr_quat_order order : {WR_QUAT_WXYZ, WR_QUAT_XYZW}) {
        const wr_camera_desc d = camera(kind, order);
        const Floats f = world_floats(w, order);
        const Render r = render(lib.instanced, d, n, f, exclude);
        Agreement a;
        compare_with_embree(w, f, d, r, embree, exclude, &a);
        INFO("first disagreement: " << a.first_bad);
        CAPTURE(a.pixels, a.agree, a.hits, a.instance_hits);
        CHECK(a.agree * 10000 >= a.pixels * 9998);
        total.pixels += a.pixels, total.agree += a.agree, total.hits += a.hits;
        total.instance_hits += a.instance_hits, total.inside_hits += a.inside_hits;
        if (order == WR_QUAT_WXYZ) {
          first = r;
          // The scalar path (one ray at a time, the CUDA kernel's traversal) gives the same bits
          // as the packet path this context picked.
          REQUIRE_OK(wr_context_set_cpu_path(lib.context, WR_CPU_PATH_SCALAR));
          const Render scalar = render(lib.instanced, d, n, f, exclude);
          REQUIRE_OK(wr_context_set_cpu_path(lib.context, WR_CPU_PATH_AUTO));
          CHECK(std::memcmp(scalar.depth.data(), r.depth.data(), r.depth.size() * 4) == 0);
          CHECK(scalar.ids == r.ids);
        } else {  // the same physical poses in the other order: the same bits
          CHECK(std::memcmp(first.depth.data(), r.depth.data(), r.depth.size() * 4) == 0);
          CHECK(first.ids == r.ids);
        }
      }
    }
  // The test is about instances: many pixels see them, and cameras inside a box see its inside.
  CAPTURE(total.pixels, total.hits, total.instance_hits, total.inside_hits);
  CHECK(total.instance_hits * 10 >= total.pixels);
  CHECK(total.inside_hits > 0);
  CHECK(total.agree * 10000 >= total.pixels * 9998);
}

TEST_CASE("instances: explicit rays see each env's instances, as Embree does", "[instances][embree]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(7u, &terrain, &boxes);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, protos);
  EmbreeWorld embree(terrain_mesh, protos, kSlots + kGlobals);
  const uint32_t n = 6, per_env = 500;
  const World w = make_world(terrain, n, 11u);
  const Floats f = world_floats(w, WR_QUAT_XYZW);
  Rng rng(3u);
  std::vector<float> o, d, tmax;
  for (uint32_t e = 0; e < n; ++e)
    for (uint32_t r = 0; r < per_env; ++r) {
      const Vector3d org = w.cameras[e].translation();
      const Vector3d dir = w.cameras[e].linear() * Vector3d(1.0, rng.uniform(-1, 1), rng.uniform(-1, 0.3)) * 1.7;
      for (int k = 0; k < 3; ++k) o.push_back(float(org[k])), d.push_back(float(dir[k]));
      tmax.push_back(r % 7 == 0 ? 1.0f : kInf);
    }
  const uint64_t count = o.size() / 3;
  std::vector<float> t(count, -1.0f);
  std::vector<uint32_t> tri(count, 7u), inst(count, 7u);
  wr_intersect_args a;
  wr_intersect_args_init(&a);
  a.origins = o.data(), a.directions = d.data(), a.tmax = tmax.data(), a.count = count, a.num_envs = n;
  a.instance_poses = f.slots.data(), a.global_poses = f.globals.data(), a.quat_order = WR_QUAT_XYZW;
  a.out_t = t.data(), a.out_triangle = tri.data(), a.out_instance = inst.data();
  REQUIRE_OK(wr_scene_intersect_ex(lib.instanced, &a));
  for (uint32_t g = 0; g < kGlobals; ++g) {
    const Isometry3d p = as_read(&f.globals[7 * g], WR_QUAT_XYZW);
    embree.pose(kSlots + g, &p);
  }
  uint64_t agree = 0, instance_hits = 0;
  std::string first_bad;
  for (uint32_t e = 0; e < n; ++e) {
    for (uint32_t s = 0; s < kSlots; ++s) {
      const Isometry3d p = as_read(&f.slots[7ull * (e * kSlots + s)], WR_QUAT_XYZW);
      embree.pose(s, &p);
    }
    embree.commit();
    for (uint32_t r = 0; r < per_env; ++r) {
      const uint64_t i = uint64_t(e) * per_env + r;
      const EmbreeWorld::Hit h = embree.trace(Eigen::Vector3f(o[3 * i], o[3 * i + 1], o[3 * i + 2]),
                                              Eigen::Vector3f(d[3 * i], d[3 * i + 1], d[3 * i + 2]), 0.0f, tmax[i]);
      bool ok;
      if (std::isnan(h.t))
        ok = std::isinf(t[i]) && tri[i] == kNone && inst[i] == kNone;
      else
        ok = std::abs(t[i] - h.t) <= 1e-4 * std::max(1.0, h.t) && inst[i] == h.instance && tri[i] == h.triangle;
      instance_hits += !std::isnan(h.t) && h.instance != kNone;
      agree += ok;
      if (!ok && first_bad.empty())
        first_bad = "ray " + std::to_string(i) + ": library t " + std::to_string(t[i]) + " instance " +
                    std::to_string(inst[i]) + " triangle " + std::to_string(tri[i]) + "; Embree " +
                    std::to_string(h.t) + " " + std::to_string(h.instance) + " " + std::to_string(h.triangle);
    }
  }
  INFO("first disagreement: " << first_bad);
  CAPTURE(count, agree, instance_hits);
  CHECK(instance_hits * 20 >= count);
  CHECK(agree * 10000 >= count * 9998);

  // wr_scene_intersect cannot take the poses: it refuses an instanced scene by name.
  CHECK(wr_scene_intersect(lib.instanced, o.data(), d.data(), nullptr, 1, t.data(), nullptr, nullptr) ==
        WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("wr_scene_intersect_ex") != std::string::npos);
}

TEST_CASE("instances: moving env j's instances never changes a byte of env i's image", "[instances]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(3u, &terrain, &boxes);
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, prototype_meshes());
  const uint32_t n = 8, j = 3;
  World w = make_world(terrain, n, 21u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  const Render before = render(lib.instanced, d, n, world_floats(w, WR_QUAT_WXYZ));
  // Env j's instances moved to where env 0's are, right in env 0's view.
  for (uint32_t s = 0; s < kSlots; ++s) w.instances[j * kSlots + s] = w.instances[s];
  const Render after = render(lib.instanced, d, n, world_floats(w, WR_QUAT_WXYZ));
  const uint64_t pixels = uint64_t(d.width) * d.height;
  uint64_t slot_pixels_env0 = 0, changed_j = 0;
  for (uint64_t k = 0; k < pixels; ++k) slot_pixels_env0 += before.ids[k] != kNone && before.ids[k] < kSlots;
  for (uint32_t e = 0; e < n; ++e) {
    INFO("env " << e);
    const uint64_t at = e * pixels;
    const bool same = std::memcmp(&before.depth[at], &after.depth[at], pixels * 4) == 0 &&
                      std::equal(&before.ids[at], &before.ids[at] + pixels, &after.ids[at]);
    if (e == j) {
      for (uint64_t k = at; k < at + pixels; ++k) changed_j += std::memcmp(&before.depth[k], &after.depth[k], 4) != 0;
    } else {
      CHECK(same);
    }
  }
  CHECK(slot_pixels_env0 > 0);  // env 0 sees its slots, where env j's now are too
  CHECK(changed_j > 0);         // and env j's own image did change
}

TEST_CASE("instances: exclusion masks hide exactly their groups", "[instances]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(5u, &terrain, &boxes);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, protos);
  const uint32_t n = 8;
  const World w = make_world(terrain, n, 9u);
  const wr_camera_desc d = camera(WR_DEPTH_RANGE, WR_QUAT_WXYZ);
  const Floats f = world_floats(w, WR_QUAT_WXYZ);
  // Excluding every group is the terrain alone, bit for bit (a plain scene's sensor).
  const Render all_out = render(lib.instanced, d, n, f, 0xffffffffu);
  const Render plain = render(lib.terrain, d, n, Floats{f.bodies, {}, {}});
  CHECK(std::memcmp(all_out.depth.data(), plain.depth.data(), plain.depth.size() * 4) == 0);
  for (uint32_t id : all_out.ids) REQUIRE(id == kNone);
  for (uint32_t id : plain.ids) REQUIRE(id == kNone);
  // Excluding groups 1 and 4: no pixel names an instance of theirs; instances of other groups are seen.
  const Render some_out = render(lib.instanced, d, n, f, 1u << 1 | 1u << 4);
  uint64_t seen = 0;
  for (uint32_t id : some_out.ids) {
    if (id == kNone) continue;
    const uint32_t group = id < kSlots ? kSlotGroups[id] : kGlobalGroups[id - kSlots];
    REQUIRE(group != 1u);
    REQUIRE(group != 4u);
    ++seen;
  }
  CHECK(seen > 0);
}

TEST_CASE("instances: ties go to the terrain, then the lowest instance, on every path and thread count",
          "[instances]") {
  // Terrain: a floor at z = 0. Prototype: the same floor. Slots 0 and 1 both at the identity, so
  // three coincident surfaces; a third slot, a box, lies in front of part of the view.
  Mesh floor;
  const uint32_t a = floor.add_vertex({-50, -50, 0}), b = floor.add_vertex({50, -50, 0}),
                 c = floor.add_vertex({50, 50, 0}), e = floor.add_vertex({-50, 50, 0});
  floor.triangle(a, b, c);
  floor.triangle(a, c, e);
  std::vector<Mesh> protos = {box_mesh({0.3, 0.15, 0.08}), floor, floor};
  const uint32_t slot_protos[] = {1, 2, 1, 0};
  std::vector<Render> renders;
  for (const uint32_t threads : {1u, 2u, 3u})
    for (const wr_cpu_path path : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AUTO}) {
      INFO(threads << " threads, path " << wr_cpu_path_string(path));
      for (const bool with_terrain_tie : {true, false}) {
        wr_context ctx = nullptr;
        REQUIRE_OK(wr_context_create_cpu(threads, &ctx));
        REQUIRE_OK(wr_context_set_cpu_path(ctx, path));
        Mesh far_floor = floor;
        if (!with_terrain_tie)
          for (size_t i = 2; i < far_floor.vertices.size(); i += 3) far_floor.vertices[i] = -1.0f;
        wr_scene terrain = make_mesh_scene(ctx, far_floor);
        std::vector<wr_scene> ps;
        for (const Mesh& m : protos) ps.push_back(make_mesh_scene(ctx, m));
        wr_instanced_scene_desc d;
        wr_instanced_scene_desc_init(&d);
        d.terrain = terrain, d.prototypes = ps.data(), d.num_prototypes = 3;
        d.slot_prototypes = slot_protos, d.num_slots = 4;
        wr_scene scene = nullptr;
        REQUIRE_OK(wr_scene_create_instanced(ctx, &d, &scene));
        wr_scene_release(terrain);
        for (wr_scene p : ps) wr_scene_release(p);
        const uint32_t n = 3;
        Floats f;
        for (uint32_t env = 0; env < n; ++env) {
          f.bodies.insert(f.bodies.end(), {0.1f * env, 0, 1.5f, 1, 0, 0.3f, 0});  // looking down ahead
          for (uint32_t s = 0; s < 3; ++s) f.slots.insert(f.slots.end(), {0, 0, 0, 1, 0, 0, 0});
          f.slots.insert(f.slots.end(), {2.0f, 0.0f, 0.5f, 1, 0, 0, 0});
        }
        wr_camera_desc cd = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
        const Render r = render(scene, cd, n, f);
        uint64_t terrain_px = 0, slot0_px = 0, box_px = 0, other = 0;
        for (uint32_t id : r.ids) {
          terrain_px += id == kNone;
          slot0_px += id == 0;
          box_px += id == 3;
          other += id == 1 || id == 2;
        }
        CAPTURE(terrain_px, slot0_px, box_px, other);
        CHECK(other == 0);  // slot 1 and 2 coincide with 0 (and the terrain): they never win
        CHECK(box_px > 0);
        if (with_terrain_tie) {
          CHECK(slot0_px == 0);  // the terrain keeps every tie
        } else {
          CHECK(slot0_px > 0);
        }
        renders.push_back(r);
        wr_scene_release(scene);
        wr_context_release(ctx);
      }
    }
  for (size_t i = 2; i < renders.size(); ++i) {  // the same bits on every path and thread count
    CHECK(std::memcmp(renders[i].depth.data(), renders[i % 2].depth.data(), renders[i].depth.size() * 4) == 0);
    CHECK(renders[i].ids == renders[i % 2].ids);
  }
}

TEST_CASE("instances: bad poses are named with env and slot, and nothing is written", "[instances]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(4u, &terrain, &boxes);
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, prototype_meshes());
  const uint32_t n = 5;
  const World w = make_world(terrain, n, 2u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, nullptr, n, &sensor));
  std::vector<float> out(size_t(n) * d.width * d.height, -5.0f);
  wr_render_args a;
  wr_render_args_init(&a);
  Floats f = world_floats(w, WR_QUAT_WXYZ);
  a.body_poses = f.bodies.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.global_poses = f.globals.data();
  // Missing slot poses: named.
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_poses") != std::string::npos);
  a.instance_poses = f.slots.data();
  // A NaN in env 3's slot 4; then a zero quaternion in global 1.
  f.slots[7 * (3 * kSlots + 4) + 1] = std::nanf("");
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_poses of env 3, slot 4") != std::string::npos);
  f.slots[7 * (3 * kSlots + 4) + 1] = 0.0f;
  for (int k = 3; k < 7; ++k) f.globals[7 + k] = 0.0f;
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->global_poses of global instance 1 (instance 7)") != std::string::npos);
  for (float v : out) REQUIRE(v == -5.0f);  // nothing written by the refused calls
  // wr_sensor_render cannot take the poses: refused by name.
  CHECK(wr_sensor_render(sensor, f.bodies.data(), out.data(), nullptr) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("wr_sensor_render_ex") != std::string::npos);
  wr_sensor_release(sensor);

  // Isolating: env 2's bad slot makes env 2 NaN (ids UINT32_MAX) and is reported; the others render.
  f = world_floats(w, WR_QUAT_WXYZ);
  const Render good = render(lib.instanced, d, n, f);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  f.slots[7 * (2 * kSlots + 0) + 2] = kInf;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, &o, n, &sensor));
  std::vector<uint32_t> ids(out.size(), 0);
  std::vector<uint8_t> mask(n, 9);
  uint32_t bad = 99;
  a.body_poses = f.bodies.data(), a.instance_poses = f.slots.data(), a.global_poses = f.globals.data();
  a.instance_ids = ids.data(), a.bad_env_count = &bad, a.bad_env_mask = mask.data();
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
  CHECK(bad == 1);
  const uint64_t pixels = uint64_t(d.width) * d.height;
  for (uint32_t e = 0; e < n; ++e) {
    CHECK(mask[e] == (e == 2 ? 1 : 0));
    for (uint64_t k = e * pixels; k < (e + 1) * pixels; ++k) {
      if (e == 2) {
        REQUIRE(std::isnan(out[k]));
        REQUIRE(ids[k] == kNone);
      } else {
        INFO("env " << e << " pixel " << k - e * pixels << ": " << out[k] << " vs " << good.depth[k]);
        REQUIRE(std::memcmp(&out[k], &good.depth[k], 4) == 0);
        REQUIRE(ids[k] == good.ids[k]);
      }
    }
  }
}

TEST_CASE("instances: the scene's description is checked field by field", "[instances]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(6u, &terrain, &boxes);
  LibScene lib;
  make_lib_scene(&lib, 1, terrain_mesh, prototype_meshes());
  wr_context other = nullptr;
  REQUIRE_OK(wr_context_create_cpu(1, &other));
  wr_scene foreign = make_mesh_scene(other, box_mesh({1, 1, 1}));
  const auto refused = [&](wr_instanced_scene_desc d, const std::string& culprit) {
    wr_scene s = reinterpret_cast<wr_scene>(uintptr_t(0x40));
    INFO("culprit " << culprit);
    CHECK(wr_scene_create_instanced(lib.context, &d, &s) == WR_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(wr_last_error()).find(culprit) != std::string::npos);
    CHECK(s == reinterpret_cast<wr_scene>(uintptr_t(0x40)));
  };
  wr_instanced_scene_desc ok;
  wr_instanced_scene_desc_init(&ok);
  ok.terrain = lib.terrain, ok.prototypes = lib.prototypes.data(), ok.num_prototypes = 3;
  ok.slot_prototypes = kSlotPrototypes, ok.slot_groups = kSlotGroups, ok.num_slots = kSlots;
  wr_instanced_scene_desc d = ok;
  d.terrain = nullptr;
  refused(d, "desc->terrain is NULL");
  d = ok, d.terrain = lib.instanced;
  refused(d, "desc->terrain is an instanced scene");
  d = ok, d.terrain = foreign;
  refused(d, "desc->terrain belongs to another context");
  const uint32_t bad_protos[] = {0, 3};
  d = ok, d.slot_prototypes = bad_protos, d.num_slots = 2, d.slot_groups = nullptr;
  refused(d, "desc->slot_prototypes[1] = 3");
  const uint32_t bad_groups[] = {0, 32};
  d = ok, d.slot_prototypes = kSlotPrototypes, d.slot_groups = bad_groups, d.num_slots = 2;
  refused(d, "desc->slot_groups[1] = 32");
  d = ok, d.num_globals = 1, d.global_prototypes = nullptr;
  refused(d, "desc->global_prototypes is NULL");
  d = ok, d.num_slots = 1u << 16, d.num_globals = 1;
  refused(d, "desc->num_slots + desc->num_globals");
  wr_scene protos_with_foreign[] = {lib.prototypes[0], foreign};
  d = ok, d.prototypes = protos_with_foreign, d.num_prototypes = 2, d.slot_prototypes = bad_protos, d.num_slots = 1;
  refused(d, "desc->prototypes[1] belongs to another context");
  wr_scene_release(foreign);
  wr_context_release(other);

  // Counts, and what the scene's ledger holds: the table alone (the meshes are their own scenes').
  uint32_t slots = 0, globals = 0;
  REQUIRE_OK(wr_scene_instance_counts(lib.instanced, &slots, &globals));
  CHECK(slots == kSlots);
  CHECK(globals == kGlobals);
  REQUIRE_OK(wr_scene_instance_counts(lib.terrain, &slots, &globals));
  CHECK(slots + globals == 0);
  uint64_t host = 0, device = 0;
  REQUIRE_OK(wr_scene_memory_tag(lib.instanced, WR_MEMORY_INSTANCE_TABLE, &host, &device));
  CHECK(host == 3 * (sizeof(void*) * 3 + sizeof(void*)) + (kSlots + kGlobals) * 8);
  CHECK(device == 0);
  uint64_t nodes = 0;
  REQUIRE_OK(wr_scene_memory_tag(lib.instanced, WR_MEMORY_BVH_NODES, &nodes, nullptr));
  CHECK(nodes == 0);
  uint64_t tris = 0, terrain_tris = 0;
  REQUIRE_OK(wr_scene_num_triangles(lib.instanced, &tris));
  REQUIRE_OK(wr_scene_num_triangles(lib.terrain, &terrain_tris));
  CHECK(tris == terrain_tris);

  // Per env the library holds nothing for the instances: a sensor's per-env bytes are its options'.
  const wr_camera_desc cd = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  for (const uint32_t history : {0u, 3u}) {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.history_length = history;
    wr_sensor on_instanced = nullptr, on_terrain = nullptr;
    REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &cd, &o, 10, &on_instanced));
    REQUIRE_OK(wr_sensor_create_ex(lib.terrain, &cd, &o, 10, &on_terrain));
    wr_memory_stats mi{}, mt{};
    REQUIRE_OK(wr_sensor_memory(on_instanced, &mi));
    REQUIRE_OK(wr_sensor_memory(on_terrain, &mt));
    CHECK(mi.per_env_bytes == mt.per_env_bytes);
    // The only other difference: each render thread's place for the env's prepared instances.
    uint64_t scratch_i = 0, scratch_t = 0;
    REQUIRE_OK(wr_sensor_memory_tag(on_instanced, WR_MEMORY_RENDER_SCRATCH, &scratch_i, nullptr));
    REQUIRE_OK(wr_sensor_memory_tag(on_terrain, WR_MEMORY_RENDER_SCRATCH, &scratch_t, nullptr));
    CHECK(mi.host_bytes - mt.host_bytes == scratch_i - scratch_t);
    CHECK(scratch_i > scratch_t);
    CHECK((scratch_i - scratch_t) % (kSlots + kGlobals) == 0);
    wr_sensor_release(on_instanced);
    wr_sensor_release(on_terrain);
  }

  // Instance ids need an output whose pixels are each one camera pixel's.
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.out_width = 32, o.out_height = 20, o.resample = WR_RESAMPLE_AREA;
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &cd, &o, 1, &sensor));
  std::vector<float> body = {15, 15, 3, 1, 0, 0, 0}, slot_poses(7 * kSlots), global_poses(7 * kGlobals);
  for (size_t i = 0; i < slot_poses.size(); i += 7) slot_poses[i + 3] = 1.0f;
  for (size_t i = 0; i < global_poses.size(); i += 7) global_poses[i + 3] = 1.0f;
  std::vector<float> out(32 * 20);
  std::vector<uint32_t> ids(32 * 20);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = body.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.instance_poses = slot_poses.data(), a.global_poses = global_poses.data(), a.instance_ids = ids.data();
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_ids") != std::string::npos);
  a.instance_ids = nullptr;
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
}

TEST_CASE("instances: the scene outlives the caller's references to its parts", "[instances]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh terrain_mesh = make_terrain_scene(8u, &terrain, &boxes);
  const World w = make_world(terrain, 4, 1u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  const Floats f = world_floats(w, WR_QUAT_WXYZ);
  LibScene lib;
  make_lib_scene(&lib, 2, terrain_mesh, prototype_meshes());
  const Render want = render(lib.instanced, d, 4, f);
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, nullptr, 4, &sensor));
  // Everything but the sensor released: it keeps the instanced scene, which keeps its parts.
  wr_scene_release(lib.instanced), lib.instanced = nullptr;
  for (wr_scene& p : lib.prototypes) wr_scene_release(p), p = nullptr;
  wr_scene_release(lib.terrain), lib.terrain = nullptr;
  wr_context_release(lib.context), lib.context = nullptr;
  std::vector<float> out(want.depth.size());
  std::vector<uint32_t> ids(out.size());
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = f.bodies.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.instance_poses = f.slots.data(), a.global_poses = f.globals.data(), a.instance_ids = ids.data();
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
  CHECK(std::memcmp(out.data(), want.depth.data(), out.size() * 4) == 0);
  CHECK(ids == want.ids);
}
