// wr_mujoco: MuJoCo models as warp-raycaster scenes and cameras (wr_mujoco.h says what and why).
#include "wr_mujoco.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "geom_shapes.h"
#include "model_labels.h"

namespace wr_mujoco {
namespace {

using namespace internal;  // model_labels.h, geom_shapes.h

constexpr double kPi = 3.14159265358979323846;

// mj_ray's visibility (engine_ray.c, ray_eliminate): transparent geoms and geoms of a group that
// is off are not seen; with flg_static = 1 static geoms are seen.
bool seen_by_mj_ray(const mjModel* m, int g, const SceneOptions& o) {
  const int mat = m->geom_matid[g];
  if (mat < 0 && m->geom_rgba[4 * g + 3] == 0) return false;
  if (mat >= 0 && m->mat_rgba[4 * mat + 3] == 0) return false;
  const int group = std::min(mjNGROUP - 1, std::max(0, m->geom_group[g]));
  return o.geomgroup[group] != 0;
}

bool is_static(const mjModel* m, int g) { return m->body_weldid[m->geom_bodyid[g]] == 0; }

// w x y z of the rotation whose row-major matrix is mat.
void pose_from(const mjtNum pos[3], const mjtNum mat[9], float* out) {
  mjtNum q[4];
  mju_mat2Quat(q, mat);
  for (int i = 0; i < 3; ++i) out[i] = static_cast<float>(pos[i]);
  for (int i = 0; i < 4; ++i) out[3 + i] = static_cast<float>(q[i]);
}

struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

// Every pipeline option off, but the instance groups a sensor does not see.
wr_sensor_options options_excluding(uint32_t groups) {
  wr_sensor_options opts;
  wr_sensor_options_init(&opts);
  opts.exclude_groups = groups;
  return opts;
}

}  // namespace

BatchOutputs request_batch_outputs(mjBatch* b) {
  if (!b) fail("request_batch_outputs", "b is NULL");
  const mjModel* m = mjb_model(b);
  BatchOutputs out;
  out.nsim = mjb_nsim(b);
  const auto get = [&](const char* field, int expected) -> const mjtNum* {
    int size = -1, elemsize = -1;
    void* p = mjb_output(b, field, &size, &elemsize);
    if (!p) fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") returned NULL");
    if (size != expected || elemsize != static_cast<int>(sizeof(mjtNum)))
      fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") has size " + std::to_string(size) +
                                        " of " + std::to_string(elemsize) + " bytes: expected " +
                                        std::to_string(expected) + " of " + std::to_string(sizeof(mjtNum)));
    return static_cast<const mjtNum*>(p);
  };
  if (m->ngeom > 0) {
    out.geom_xpos = get("geom_xpos", 3 * m->ngeom);
    out.geom_xmat = get("geom_xmat", 9 * m->ngeom);
  }
  if (m->ncam > 0) {
    out.cam_xpos = get("cam_xpos", 3 * m->ncam);
    out.cam_xmat = get("cam_xmat", 9 * m->ncam);
  }
  return out;
}

// ---- Scene ----

Scene::Scene(Scene&& o) noexcept { *this = std::move(o); }

Scene& Scene::operator=(Scene&& o) noexcept {
  if (this != &o) {
    wr_scene_release(scene_);
    scene_ = std::exchange(o.scene_, nullptr);
    num_prototypes_ = o.num_prototypes_;
    num_static_geoms_ = o.num_static_geoms_;
    num_terrain_triangles_ = o.num_terrain_triangles_;
    ngeom_ = o.ngeom_;
    nbody_ = o.nbody_;
    slots_ = std::move(o.slots_);
    body_group_ = std::move(o.body_group_);
    body_overflow_ = std::move(o.body_overflow_);
    body_has_static_ = std::move(o.body_has_static_);
    skipped_ = std::move(o.skipped_);
  }
  return *this;
}

Scene::~Scene() { wr_scene_release(scene_); }

uint32_t Scene::own_body_groups(const mjModel* m, int b, const char* where, const std::string& label) const {
  if (body_group_[b] != 0) return 1u << body_group_[b];
  if (body_overflow_[b])
    fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                    " is past the 31st moving body with a group (cameras' and options.sensor_bodies'), and has no "
                    "group of its own (wr_mujoco.h)");
  if (body_has_static_[b])
    fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                    " is welded to the world, and its geoms are part of the terrain, which cannot be excluded");
  if (m->body_weldid[b] != 0) {
    for (const Slot& slot : slots_)
      if (slot.body == b)
        fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                        " has no group of its own: name it in SceneOptions::sensor_bodies");
  }
  return 0;  // a body without geoms seen: there is nothing to exclude
}

uint32_t Scene::body_group(int body) const {
  if (body < 0 || body >= nbody_)
    fail("Scene::body_group",
         "body " + std::to_string(body) + " is out of range: the model has " + std::to_string(nbody_) + " bodies");
  return body_group_[body];
}

Scene Scene::build(wr_context ctx, const mjModel* m, const SceneOptions& options) {
  const char* where = "Scene::build";
  check_model(m, where);
  if (!ctx) fail(where, "ctx is NULL");
  check_options(options, where);

  Scene scene;
  scene.ngeom_ = m->ngeom;
  scene.nbody_ = m->nbody;
  scene.body_group_.assign(m->nbody, 0);
  scene.body_overflow_.assign(m->nbody, 0);
  scene.body_has_static_.assign(m->nbody, 0);
  // Groups 1..31 to the moving bodies that carry cameras, by lowest camera id (wr_mujoco.h).
  uint32_t next_group = 1;
  for (int c = 0; c < m->ncam; ++c) {
    const int b = m->cam_bodyid[c];
    if (m->body_weldid[b] == 0 || scene.body_group_[b] != 0 || scene.body_overflow_[b]) continue;
    if (next_group < 32)
      scene.body_group_[b] = next_group++;
    else
      scene.body_overflow_[b] = 1;
  }
  // Then the sensor bodies the options name, in their order.
  for (const std::string& name : options.sensor_bodies) {
    const int b = mj_name2id(m, mjOBJ_BODY, name.c_str());
    if (b < 0) fail(where, "options.sensor_bodies: no body named '" + name + "' in the model");
    if (m->body_weldid[b] == 0)
      fail(where, "options.sensor_bodies: " + body_label(m, b) +
                      " is welded to the world: its geoms are part of the terrain, which cannot be excluded");
    if (scene.body_group_[b] != 0 || scene.body_overflow_[b]) continue;
    if (next_group < 32)
      scene.body_group_[b] = next_group++;
    else
      scene.body_overflow_[b] = 1;
  }

  // Static geoms are posed at qpos0 (they do not move with qpos: their bodies are welded to the world).
  std::unique_ptr<mjData, DataDeleter> d(mj_makeData(m));
  if (!d) fail(where, "mj_makeData failed (out of memory?)");
  mj_kinematics(m, d.get());

  std::vector<float> terrain_vertices;
  std::vector<uint32_t> terrain_indices;
  struct Prototype {
    Mesh mesh;
    int hfield_geom = -1;  // >= 0: made by wr_scene_create_heightfield from this geom's hfield
  };
  std::vector<Prototype> prototypes;
  std::map<std::tuple<int, int, double, double, double>, uint32_t> prototype_of;

  for (int g = 0; g < m->ngeom; ++g) {
    if (!seen_by_mj_ray(m, g, options)) continue;
    const int type = m->geom_type[g];
    if (type == mjGEOM_SDF && options.skip_unsupported) {
      scene.skipped_.push_back(geom_label(m, g) + ": type sdf is not supported, skipped");
      continue;
    }
    const bool fixed = is_static(m, g);
    if (fixed) {
      double deviation;
      const Mesh mesh = build_geom_mesh(m, g, options, &deviation, where);
      const mjtNum* p = d->geom_xpos + 3 * g;
      const mjtNum* r = d->geom_xmat + 9 * g;
      const uint64_t base = terrain_vertices.size() / 3;
      if (base + mesh.vertices.size() / 3 > UINT32_MAX)
        fail(where, geom_label(m, g) + ": the terrain would have more than 2^32 - 1 vertices");
      for (size_t i = 0; i < mesh.vertices.size(); i += 3) {
        const double* v = &mesh.vertices[i];
        for (int k = 0; k < 3; ++k) {
          const float w = static_cast<float>(p[k] + r[3 * k] * v[0] + r[3 * k + 1] * v[1] + r[3 * k + 2] * v[2]);
          if (!std::isfinite(w)) fail(where, geom_label(m, g) + ": a vertex in the world is not finite as a float");
          terrain_vertices.push_back(w);
        }
      }
      for (uint32_t i : mesh.indices) terrain_indices.push_back(static_cast<uint32_t>(base) + i);
      scene.num_static_geoms_++;
      scene.body_has_static_[m->geom_bodyid[g]] = 1;
      continue;
    }
    // Moving: a slot, its prototype shared by geoms of the same shape.
    const mjtNum* s = m->geom_size + 3 * g;
    const int dataid = (type == mjGEOM_MESH || type == mjGEOM_HFIELD) ? m->geom_dataid[g] : -1;
    const auto key = std::make_tuple(type, dataid, s[0], s[1], s[2]);
    auto it = prototype_of.find(key);
    if (it == prototype_of.end()) {
      Prototype proto;
      if (type == mjGEOM_HFIELD) {
        try {
          hfield_params(m, g);  // checked here, made below
        } catch (const ShapeError& e) {
          fail(where, e.what());
        }
        proto.hfield_geom = g;
      } else {
        double deviation;
        proto.mesh = build_geom_mesh(m, g, options, &deviation, where);
      }
      it = prototype_of.emplace(key, static_cast<uint32_t>(prototypes.size())).first;
      prototypes.push_back(std::move(proto));
    }
    const int body = m->geom_bodyid[g];
    scene.slots_.push_back(Slot{g, body, it->second, scene.body_group_[body]});
  }
  if (scene.slots_.size() > 65536)
    fail(where, "the model has " + std::to_string(scene.slots_.size()) +
                    " moving geoms seen: an instanced scene takes at most 65536 per env");

  if (terrain_indices.empty()) {
    // wr_scene_create needs a triangle; a zero-area one is never hit (wr.h).
    terrain_vertices.assign(9, 0.0f);
    terrain_indices = {0, 1, 2};
  }
  scene.num_terrain_triangles_ = terrain_indices.size() / 3;
  wr_scene terrain = nullptr;
  check(wr_scene_create(ctx, terrain_vertices.data(), terrain_vertices.size() / 3, terrain_indices.data(),
                        terrain_indices.size() / 3, &terrain),
        where, "wr_scene_create (the terrain: " + std::to_string(scene.num_static_geoms_) + " static geoms)");
  if (scene.slots_.empty()) {
    scene.scene_ = terrain;
    return scene;
  }

  std::vector<wr_scene> handles(prototypes.size(), nullptr);
  const auto release_all = [&]() {
    for (wr_scene h : handles) wr_scene_release(h);
    wr_scene_release(terrain);
  };
  try {
    for (size_t i = 0; i < prototypes.size(); ++i) {
      const Prototype& proto = prototypes[i];
      if (proto.hfield_geom >= 0) {
        const int g = proto.hfield_geom;
        const HfieldParams p = hfield_params(m, g);  // checked above
        wr_heightfield_desc hd;
        wr_heightfield_desc_init(&hd);
        hd.heights = p.data;
        hd.num_x = static_cast<uint32_t>(p.ncol);
        hd.num_y = static_cast<uint32_t>(p.nrow);
        hd.layout = WR_HEIGHTFIELD_X_FASTEST;  // hfield_data: row r (y) after row, column c (x) fastest
        hd.spacing_x = static_cast<float>(2.0 * p.size[0] / (p.ncol - 1));
        hd.spacing_y = static_cast<float>(2.0 * p.size[1] / (p.nrow - 1));
        hd.z_scale = static_cast<float>(p.size[2]);
        hd.origin[0] = static_cast<float>(-p.size[0]);
        hd.origin[1] = static_cast<float>(-p.size[1]);
        hd.origin[2] = 0.0f;
        hd.base_depth = static_cast<float>(p.size[3]);
        hd.terrain = WR_TERRAIN_BVH;  // a prototype is traced in its own frame through its BVH (wr.h)
        check(wr_scene_create_heightfield(ctx, &hd, &handles[i]), where,
              "wr_scene_create_heightfield (the prototype of " + geom_label(m, g) + ")");
      } else {
        std::vector<float> v(proto.mesh.vertices.begin(), proto.mesh.vertices.end());
        for (float x : v)
          if (!std::isfinite(x)) fail(where, "prototype " + std::to_string(i) + ": a vertex is not finite as a float");
        check(wr_scene_create(ctx, v.data(), v.size() / 3, proto.mesh.indices.data(), proto.mesh.indices.size() / 3,
                              &handles[i]),
              where, "wr_scene_create (prototype " + std::to_string(i) + ")");
      }
    }
    std::vector<uint32_t> slot_prototypes, slot_groups;
    for (const Slot& s : scene.slots_) {
      slot_prototypes.push_back(s.prototype);
      slot_groups.push_back(s.group);
    }
    wr_instanced_scene_desc desc;
    wr_instanced_scene_desc_init(&desc);
    desc.terrain = terrain;
    desc.prototypes = handles.data();
    desc.num_prototypes = static_cast<uint32_t>(handles.size());
    desc.slot_prototypes = slot_prototypes.data();
    desc.slot_groups = slot_groups.data();
    desc.num_slots = static_cast<uint32_t>(slot_prototypes.size());
    check(wr_scene_create_instanced(ctx, &desc, &scene.scene_), where, "wr_scene_create_instanced");
  } catch (...) {
    release_all();
    throw;
  }
  release_all();  // the instanced scene keeps what it needs
  scene.num_prototypes_ = static_cast<uint32_t>(prototypes.size());
  return scene;
}

void Scene::fill_instance_poses(const mjData* d, float* out) const {
  if (!d) fail("Scene::fill_instance_poses", "d is NULL");
  if (!out && !slots_.empty()) fail("Scene::fill_instance_poses", "out is NULL");
  for (size_t i = 0; i < slots_.size(); ++i) {
    const int g = slots_[i].geom;
    pose_from(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, out + 7 * i);
  }
}

void Scene::fill_instance_poses_batch(const mjtNum* geom_xpos, const mjtNum* geom_xmat, int nsim, float* out) const {
  const char* where = "Scene::fill_instance_poses_batch";
  if (nsim < 0) fail(where, "nsim = " + std::to_string(nsim) + ": must be >= 0");
  if (slots_.empty() || nsim == 0) return;
  if (!geom_xpos) fail(where, "geom_xpos is NULL");
  if (!geom_xmat) fail(where, "geom_xmat is NULL");
  if (!out) fail(where, "out is NULL");
  const size_t n = slots_.size();
  for (int e = 0; e < nsim; ++e) {
    const mjtNum* xpos = geom_xpos + size_t(e) * 3 * ngeom_;
    const mjtNum* xmat = geom_xmat + size_t(e) * 9 * ngeom_;
    for (size_t i = 0; i < n; ++i) {
      const int g = slots_[i].geom;
      pose_from(xpos + 3 * g, xmat + 9 * g, out + 7 * (size_t(e) * n + i));
    }
  }
}

void Scene::fill_instance_poses_batch(const BatchOutputs& b, float* out) const {
  fill_instance_poses_batch(b.geom_xpos, b.geom_xmat, b.nsim, out);
}

// ---- Camera ----

Camera Camera::from_model(const mjModel* m, const Scene& scene, const char* name, const CameraOptions& options) {
  check_model(m, "Camera::from_model");
  if (!name) fail("Camera::from_model", "name is NULL");
  const int id = mj_name2id(m, mjOBJ_CAMERA, name);
  if (id < 0) {
    std::string have;
    for (int c = 0; c < m->ncam; ++c) {
      const char* n = mj_id2name(m, mjOBJ_CAMERA, c);
      have += (c ? ", " : "") + (n && *n ? "'" + std::string(n) + "'" : "camera " + std::to_string(c) + " (unnamed)");
    }
    fail("Camera::from_model", "no camera named '" + std::string(name) + "' in the model (it has " +
                                   std::to_string(m->ncam) + (m->ncam == 1 ? " camera" : " cameras") +
                                   (m->ncam ? ": " + have : "") + ")");
  }
  return from_model(m, scene, id, options);
}

Camera Camera::from_model(const mjModel* m, const Scene& scene, int id, const CameraOptions& o) {
  const char* where = "Camera::from_model";
  check_model(m, where);
  if (id < 0 || id >= m->ncam)
    fail(where,
         "camera " + std::to_string(id) + " is out of range: the model has " + std::to_string(m->ncam) + " cameras");
  if (scene.ngeom_ != m->ngeom || scene.nbody_ != m->nbody)
    fail(where, "the scene was built from another model (" + std::to_string(scene.ngeom_) + " geoms, " +
                    std::to_string(scene.nbody_) + " bodies; this one has " + std::to_string(m->ngeom) + ", " +
                    std::to_string(m->nbody) + ")");
  const std::string label = camera_label(m, id);
  Camera cam;
  cam.id = id;
  const char* n = mj_id2name(m, mjOBJ_CAMERA, id);
  cam.name = n ? n : "";
  cam.body = m->cam_bodyid[id];
  cam.ncam_ = m->ncam;
  if (m->cam_projection[id] != mjPROJ_PERSPECTIVE)
    fail(where, label + ": orthographic projection is not supported (the library renders pinhole cameras)");

  if ((o.width == 0) != (o.height == 0))
    fail(where, label + ": options.width = " + std::to_string(o.width) + ", options.height = " +
                    std::to_string(o.height) + ": give both, or neither for the camera's resolution");
  const int width = o.width ? static_cast<int>(o.width) : m->cam_resolution[2 * id];
  const int height = o.height ? static_cast<int>(o.height) : m->cam_resolution[2 * id + 1];
  if (width < 1 || height < 1)
    fail(where,
         label + ": resolution " + std::to_string(width) + " x " + std::to_string(height) + ": must be positive");

  wr_camera_desc& desc = cam.desc;
  std::memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.width = static_cast<uint32_t>(width);
  desc.height = static_cast<uint32_t>(height);
  const float* sensorsize = m->cam_sensorsize + 2 * id;
  const float* intrinsic = m->cam_intrinsic + 4 * id;
  double fx, fy, cx, cy;
  if (sensorsize[0] > 0 && sensorsize[1] > 0) {
    // focal / sensorsize / principal (XMLreference camera/sensorsize: fovy is then ignored). The
    // principal offset moves the optical axis p_x left and p_y up of the image centre, as the
    // renderer's frustum does (wr_mujoco.h).
    if (!(intrinsic[0] > 0) || !(intrinsic[1] > 0))
      fail(where, label + ": focal length (cam_intrinsic[0..1]) = " + num(intrinsic[0]) + ", " + num(intrinsic[1]) +
                      ": must be > 0 with a sensorsize");
    fx = double(intrinsic[0]) / sensorsize[0] * width;
    fy = double(intrinsic[1]) / sensorsize[1] * height;
    cx = 0.5 * width - double(intrinsic[2]) / sensorsize[0] * width;
    cy = 0.5 * height - double(intrinsic[3]) / sensorsize[1] * height;
  } else {
    // fovy: the vertical field of view in degrees (XMLreference camera/fovy), square pixels.
    const double fovy = m->cam_fovy[id];
    if (!(fovy > 0 && fovy < 180)) fail(where, label + ": fovy = " + num(fovy) + " degrees: must be in (0, 180)");
    fy = 0.5 * height / std::tan(fovy * kPi / 360.0);
    fx = fy;
    cx = 0.5 * width;
    cy = 0.5 * height;
  }
  desc.fx = static_cast<float>(fx);
  desc.fy = static_cast<float>(fy);
  desc.cx = static_cast<float>(cx);
  desc.cy = static_cast<float>(cy);
  desc.near_clip = o.near_clip;
  desc.far_clip = o.far_clip;
  desc.miss_value = o.miss_value;
  desc.depth_kind = o.depth_kind;
  desc.quat_order = WR_QUAT_WXYZ;  // mount all zero: the identity

  if (o.exclude_own_body) cam.exclude_groups = scene.own_body_groups(m, cam.body, where, label);
  return cam;
}

wr_sensor_options Camera::sensor_options() const { return options_excluding(exclude_groups); }

namespace {
// The library's camera frame from MuJoCo's: forward = -cam_z, left = -cam_x, up = +cam_y.
void camera_pose(const mjtNum pos[3], const mjtNum xmat[9], float* out) {
  mjtNum r[9];
  for (int i = 0; i < 3; ++i) {
    r[3 * i + 0] = -xmat[3 * i + 2];
    r[3 * i + 1] = -xmat[3 * i + 0];
    r[3 * i + 2] = xmat[3 * i + 1];
  }
  pose_from(pos, r, out);
}
}  // namespace

void Camera::fill_pose(const mjData* d, float* out) const {
  if (!d) fail("Camera::fill_pose", "d is NULL");
  if (!out) fail("Camera::fill_pose", "out is NULL");
  camera_pose(d->cam_xpos + 3 * id, d->cam_xmat + 9 * id, out);
}

void Camera::fill_pose_batch(const mjtNum* cam_xpos, const mjtNum* cam_xmat, int nsim, float* out) const {
  const char* where = "Camera::fill_pose_batch";
  if (nsim < 0) fail(where, "nsim = " + std::to_string(nsim) + ": must be >= 0");
  if (nsim == 0) return;
  if (!cam_xpos) fail(where, "cam_xpos is NULL");
  if (!cam_xmat) fail(where, "cam_xmat is NULL");
  if (!out) fail(where, "out is NULL");
  for (int e = 0; e < nsim; ++e)
    camera_pose(cam_xpos + size_t(e) * 3 * ncam_ + 3 * id, cam_xmat + size_t(e) * 9 * ncam_ + 9 * id,
                out + 7 * size_t(e));
}

void Camera::fill_pose_batch(const BatchOutputs& b, float* out) const {
  fill_pose_batch(b.cam_xpos, b.cam_xmat, b.nsim, out);
}

// ---- SensorFrame ----

namespace {
// The frame of site (or body) `id`, checked.
SensorFrame frame_of(const mjModel* m, const Scene& scene, int id, bool exclude_own_body, bool site,
                     const char* where) {
  const int type = site ? mjOBJ_SITE : mjOBJ_BODY;
  const int count = site ? m->nsite : m->nbody;
  if (id < 0 || id >= count)
    fail(where, std::string(site ? "site " : "body ") + std::to_string(id) + " is out of range: the model has " +
                    std::to_string(count) + (site ? " sites" : " bodies"));
  SensorFrame f;
  f.is_site = site;
  f.id = id;
  const char* name = mj_id2name(m, type, id);
  f.name = name ? name : "";
  f.body = site ? m->site_bodyid[id] : id;
  if (exclude_own_body)
    f.exclude_groups = scene.own_body_groups(m, f.body, where, named(m, type, id, site ? "site" : "body"));
  return f;
}

SensorFrame make_frame(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body, bool site) {
  const char* where = site ? "SensorFrame::at_site" : "SensorFrame::at_body";
  check_model(m, where);
  if (!name) fail(where, "name is NULL");
  if (scene.model_ngeom() != m->ngeom) fail(where, "the scene was built from another model");
  const int type = site ? mjOBJ_SITE : mjOBJ_BODY;
  const int count = site ? m->nsite : m->nbody;
  const int id = mj_name2id(m, type, name);
  if (id < 0) {
    std::string have;
    for (int i = 0, shown = 0; i < count && shown < 8; ++i) {
      const char* n = mj_id2name(m, type, i);
      if (n && *n) have += (shown++ ? ", '" : "'") + std::string(n) + "'";
    }
    fail(where, std::string("no ") + (site ? "site" : "body") + " named '" + name + "' in the model (it has " +
                    std::to_string(count) + (site ? " sites" : " bodies") + (have.empty() ? "" : ": " + have) + ")");
  }
  return frame_of(m, scene, id, exclude_own_body, site, where);
}
}  // namespace

SensorFrame SensorFrame::at_site(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body) {
  SensorFrame f = make_frame(m, scene, name, exclude_own_body, true);
  f.count_ = m->nsite;
  return f;
}

SensorFrame SensorFrame::at_body(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body) {
  SensorFrame f = make_frame(m, scene, name, exclude_own_body, false);
  f.count_ = m->nbody;
  return f;
}

SensorFrame SensorFrame::at_site_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_site_id");
  if (scene.model_ngeom() != m->ngeom) fail("SensorFrame::at_site_id", "the scene was built from another model");
  SensorFrame f = frame_of(m, scene, id, exclude_own_body, true, "SensorFrame::at_site_id");
  f.count_ = m->nsite;
  return f;
}

SensorFrame SensorFrame::at_body_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_body_id");
  if (scene.model_ngeom() != m->ngeom) fail("SensorFrame::at_body_id", "the scene was built from another model");
  SensorFrame f = frame_of(m, scene, id, exclude_own_body, false, "SensorFrame::at_body_id");
  f.count_ = m->nbody;
  return f;
}

wr_sensor_options SensorFrame::sensor_options() const { return options_excluding(exclude_groups); }

void SensorFrame::fill_pose(const mjData* d, float* out) const {
  if (id < 0) fail("SensorFrame::fill_pose", "the frame is not of a model: make it with at_site or at_body");
  if (!d) fail("SensorFrame::fill_pose", "d is NULL");
  if (!out) fail("SensorFrame::fill_pose", "out is NULL");
  if (is_site)
    pose_from(d->site_xpos + 3 * id, d->site_xmat + 9 * id, out);
  else
    pose_from(d->xpos + 3 * id, d->xmat + 9 * id, out);
}

void SensorFrame::fill_pose_batch(const mjtNum* xpos, const mjtNum* xmat, int nsim, float* out) const {
  const char* where = "SensorFrame::fill_pose_batch";
  if (id < 0) fail(where, "the frame is not of a model: make it with at_site or at_body");
  if (nsim < 0) fail(where, "nsim = " + std::to_string(nsim) + ": must be >= 0");
  if (nsim == 0) return;
  if (!xpos) fail(where, is_site ? "site_xpos is NULL" : "xpos is NULL");
  if (!xmat) fail(where, is_site ? "site_xmat is NULL" : "xmat is NULL");
  if (!out) fail(where, "out is NULL");
  for (int e = 0; e < nsim; ++e)
    pose_from(xpos + size_t(e) * 3 * count_ + 3 * id, xmat + size_t(e) * 9 * count_ + 9 * id, out + 7 * size_t(e));
}

}  // namespace wr_mujoco
