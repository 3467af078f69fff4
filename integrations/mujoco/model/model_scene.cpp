// wr_mujoco's scenes, cameras and sensor frames from a ModelView (model_scene.h says what and why).
#include "model_scene.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>
#include <type_traits>
#include <utility>

#include "geom_shapes.h"
#include "model_labels.h"

namespace wr_mujoco {
namespace {

using namespace internal;  // model_labels.h, geom_shapes.h

constexpr double kPi = 3.14159265358979323846;

// mj_ray's visibility (engine_ray.c, ray_eliminate): transparent geoms and geoms of a group that
// is off are not seen; with flg_static = 1 static geoms are seen.
bool seen_by_mj_ray(const ModelView& m, int g, const SceneOptions& o) {
  const int mat = m.geom_matid[g];
  if (mat < 0 && m.geom_rgba[4 * g + 3] == 0) return false;
  if (mat >= 0 && m.mat_rgba[4 * mat + 3] == 0) return false;
  const int group = std::min(kNumGeomGroups - 1, std::max(0, m.geom_group[g]));
  return o.geomgroup[group] != 0;
}

bool is_static(const ModelView& m, int g) { return m.body_weldid[m.geom_bodyid[g]] == 0; }

// Every pipeline option off, but the instance groups a sensor does not see.
wr_sensor_options options_excluding(uint32_t groups) {
  wr_sensor_options opts;
  wr_sensor_options_init(&opts);
  opts.exclude_groups = groups;
  return opts;
}

// wr.h's parameterisation of hfield p (MuJoCo's triangulation, its base included) in the geom's
// frame, moved by `offset` (a static, unturned geom's position; zero for a prototype), as `kind`.
wr_heightfield_desc hfield_desc(const HfieldParams& p, const double offset[3], wr_terrain_kind kind) {
  wr_heightfield_desc hd;
  wr_heightfield_desc_init(&hd);
  hd.heights = p.data;
  hd.num_x = static_cast<uint32_t>(p.ncol);
  hd.num_y = static_cast<uint32_t>(p.nrow);
  hd.layout = WR_HEIGHTFIELD_X_FASTEST;  // hfield_data: row r (y) after row, column c (x) fastest
  hd.spacing_x = static_cast<float>(2.0 * p.size[0] / (p.ncol - 1));
  hd.spacing_y = static_cast<float>(2.0 * p.size[1] / (p.nrow - 1));
  hd.z_scale = static_cast<float>(p.size[2]);
  hd.origin[0] = static_cast<float>(offset[0] - p.size[0]);
  hd.origin[1] = static_cast<float>(offset[1] - p.size[1]);
  hd.origin[2] = static_cast<float>(offset[2]);
  hd.base_depth = static_cast<float>(p.size[3]);
  hd.terrain = kind;
  return hd;
}

// SceneOptions::terrain = WR_TERRAIN_GRID: the static hfield geom seen with the most samples (the
// lowest id on a tie), which must be unturned; an Error where there is none.
int grid_hfield_geom(const ModelView& m, const SceneOptions& o, const char* where) {
  int best = -1;
  int64_t best_samples = -1;
  for (int g = 0; g < m.ngeom; ++g) {
    if (m.geom_type[g] != kGeomHfield || !is_static(m, g) || !seen_by_mj_ray(m, g, o)) continue;
    int64_t samples = 0;
    try {
      const HfieldParams p = hfield_params(m, g);
      samples = int64_t(p.nrow) * p.ncol;
    } catch (const ShapeError& e) {
      fail(where, e.what());
    }
    if (samples > best_samples) best = g, best_samples = samples;
  }
  if (best < 0)
    fail(where,
         "options.terrain = WR_TERRAIN_GRID: the model has no static hfield geom seen (the grid kind traces a "
         "height field; use WR_TERRAIN_BVH)");
  const double* r = m.geom_xmat0 + 9 * best;
  for (int k = 0; k < 9; ++k)
    if (std::fabs(r[k] - (k % 4 == 0 ? 1.0 : 0.0)) > 1e-9)
      fail(where, "options.terrain = WR_TERRAIN_GRID: " + geom_label(m, best) +
                      " (hfield) is turned (geom_xmat0 is not the identity): the grid kind traces a height field "
                      "along the world's axes (use WR_TERRAIN_BVH)");
  return best;
}

}  // namespace

// ---- Scene ----

Scene::Scene(Scene&& o) noexcept { *this = std::move(o); }

Scene& Scene::operator=(Scene&& o) noexcept {
  if (this != &o) {
    wr_scene_release(scene_);
    scene_ = std::exchange(o.scene_, nullptr);
    num_prototypes_ = o.num_prototypes_;
    num_static_geoms_ = o.num_static_geoms_;
    num_terrain_triangles_ = o.num_terrain_triangles_;
    grid_geom_ = o.grid_geom_;
    global_poses_ = std::move(o.global_poses_);
    ngeom_ = o.ngeom_;
    nbody_ = o.nbody_;
    slots_ = std::move(o.slots_);
    slot_geom_ids_ = std::move(o.slot_geom_ids_);
    body_group_ = std::move(o.body_group_);
    body_overflow_ = std::move(o.body_overflow_);
    body_has_static_ = std::move(o.body_has_static_);
    skipped_ = std::move(o.skipped_);
  }
  return *this;
}

Scene::~Scene() { wr_scene_release(scene_); }

uint32_t Scene::own_body_groups(const ModelView& m, int b, const char* where, const std::string& label) const {
  if (b < 0 || b >= nbody_ || m.nbody != nbody_)
    fail(where, label + ": exclude_own_body: body " + std::to_string(b) + " is not a body of the scene's model");
  if (body_group_[b] != 0) return 1u << body_group_[b];
  if (body_overflow_[b])
    fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                    " is past the 31st moving body with a group (cameras' and options.sensor_bodies'), and has no "
                    "group of its own (model_scene.h)");
  if (body_has_static_[b])
    fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                    " is welded to the world, and its geoms are part of the terrain, which cannot be excluded");
  if (m.body_weldid[b] != 0) {
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

// The geoms the rays see, gathered: the static ones merged into one mesh in the world (at qpos0),
// the moving ones as slots (scene.slots_) over prototypes shared by geoms of the same shape.
struct Scene::Gathered {
  std::vector<float> terrain_vertices;
  std::vector<uint32_t> terrain_indices;
  struct Prototype {
    Mesh mesh;
    int hfield_geom = -1;  // >= 0: made by wr_scene_create_heightfield from this geom's hfield
  };
  std::vector<Prototype> prototypes;
};

Scene Scene::build(wr_context ctx, const ModelView& m, const SceneOptions& options) {
  const char* where = "Scene::build";
  check_view(m, where);
  if (!ctx) fail(where, "ctx is NULL");
  check_options(options, where);
  // Static geoms are posed at qpos0 (they do not move with qpos: their bodies are welded to the world).
  if (m.ngeom > 0 && (!m.geom_xpos0 || !m.geom_xmat0))
    fail(where, "the model's geom poses at qpos0 (geom_xpos0, geom_xmat0) are missing");

  Scene scene;
  scene.ngeom_ = m.ngeom;
  scene.nbody_ = m.nbody;
  scene.assign_groups(m, options, where);
  if (options.terrain == WR_TERRAIN_GRID) scene.grid_geom_ = grid_hfield_geom(m, options, where);
  Gathered g = scene.gather_geoms(m, options, where);
  wr_scene rest = nullptr;
  wr_scene terrain = scene.make_terrain(ctx, m, &g, &rest, where);
  if (scene.slots_.empty() && !rest) {
    scene.scene_ = terrain;
    return scene;
  }
  scene.make_instanced(ctx, m, g, terrain, rest, where);
  return scene;
}

// Groups 1..31 to the moving bodies that carry cameras, by lowest camera id, then to the sensor
// bodies the options name, in their order (model_scene.h); past 31, a body overflows.
void Scene::assign_groups(const ModelView& m, const SceneOptions& options, const char* where) {
  body_group_.assign(m.nbody, 0);
  body_overflow_.assign(m.nbody, 0);
  body_has_static_.assign(m.nbody, 0);
  uint32_t next_group = 1;
  const auto give_group = [&](int b) {
    if (body_group_[b] != 0 || body_overflow_[b]) return;
    if (next_group < 32)
      body_group_[b] = next_group++;
    else
      body_overflow_[b] = 1;
  };
  for (int c = 0; c < m.ncam; ++c) {
    const int b = m.cam_bodyid[c];
    if (m.body_weldid[b] != 0) give_group(b);
  }
  for (const std::string& name : options.sensor_bodies) {
    const int b = object_id(m, ObjectKind::kBody, name);
    if (b < 0) fail(where, "options.sensor_bodies: no body named '" + name + "' in the model");
    if (m.body_weldid[b] == 0)
      fail(where, "options.sensor_bodies: " + body_label(m, b) +
                      " is welded to the world: its geoms are part of the terrain, which cannot be excluded");
    give_group(b);
  }
}

Scene::Gathered Scene::gather_geoms(const ModelView& m, const SceneOptions& options, const char* where) {
  Gathered out;
  std::map<std::tuple<int, int, double, double, double>, uint32_t> prototype_of;
  for (int g = 0; g < m.ngeom; ++g) {
    if (!seen_by_mj_ray(m, g, options)) continue;
    const int type = m.geom_type[g];
    if (type == kGeomSdf && options.skip_unsupported) {
      skipped_.push_back(geom_label(m, g) + ": type sdf is not supported, skipped");
      continue;
    }
    const bool fixed = is_static(m, g);
    if (g == grid_geom_) {  // the terrain itself, made by make_terrain
      num_static_geoms_++;
      body_has_static_[m.geom_bodyid[g]] = 1;
      continue;
    }
    if (fixed) {
      double deviation;
      const Mesh mesh = build_geom_mesh(m, g, options, &deviation, where);
      const double* p = m.geom_xpos0 + 3 * g;
      const double* r = m.geom_xmat0 + 9 * g;
      const uint64_t base = out.terrain_vertices.size() / 3;
      if (base + mesh.vertices.size() / 3 > UINT32_MAX)
        fail(where, geom_label(m, g) + ": the terrain would have more than 2^32 - 1 vertices");
      for (size_t i = 0; i < mesh.vertices.size(); i += 3) {
        const double* v = &mesh.vertices[i];
        for (int k = 0; k < 3; ++k) {
          const float w = static_cast<float>(p[k] + r[3 * k] * v[0] + r[3 * k + 1] * v[1] + r[3 * k + 2] * v[2]);
          if (!std::isfinite(w)) fail(where, geom_label(m, g) + ": a vertex in the world is not finite as a float");
          out.terrain_vertices.push_back(w);
        }
      }
      for (uint32_t i : mesh.indices) out.terrain_indices.push_back(static_cast<uint32_t>(base) + i);
      num_static_geoms_++;
      body_has_static_[m.geom_bodyid[g]] = 1;
      continue;
    }
    // Moving: a slot, its prototype shared by geoms of the same shape.
    const double* s = m.geom_size + 3 * g;
    const int dataid = (type == kGeomMesh || type == kGeomHfield) ? m.geom_dataid[g] : -1;
    const auto key = std::make_tuple(type, dataid, s[0], s[1], s[2]);
    auto it = prototype_of.find(key);
    if (it == prototype_of.end()) {
      Gathered::Prototype proto;
      if (type == kGeomHfield) {
        try {
          hfield_params(m, g);  // checked here, made by make_instanced
        } catch (const ShapeError& e) {
          fail(where, e.what());
        }
        proto.hfield_geom = g;
      } else {
        double deviation;
        proto.mesh = build_geom_mesh(m, g, options, &deviation, where);
      }
      it = prototype_of.emplace(key, static_cast<uint32_t>(out.prototypes.size())).first;
      out.prototypes.push_back(std::move(proto));
    }
    const int body = m.geom_bodyid[g];
    slots_.push_back(Slot{g, body, it->second, body_group_[body]});
  }
  if (slots_.size() > 65536)
    fail(where, "the model has " + std::to_string(slots_.size()) +
                    " moving geoms seen: an instanced scene takes at most 65536 per env");
  for (const Slot& slot : slots_) slot_geom_ids_.push_back(static_cast<uint32_t>(slot.geom));
  return out;
}

// The terrain: the merged static geoms (a BVH), or the grid's hfield with the others beside it as
// the one global instance (*rest, a prototype in world coordinates posed by the identity).
wr_scene Scene::make_terrain(wr_context ctx, const ModelView& m, Gathered* g, wr_scene* rest, const char* where) {
  wr_scene terrain = nullptr;
  const std::string merged = std::to_string(num_static_geoms_) + " static geoms";
  if (grid_geom_ >= 0) {
    const int geom = grid_geom_;
    const wr_heightfield_desc hd = hfield_desc(hfield_params(m, geom), m.geom_xpos0 + 3 * geom, WR_TERRAIN_GRID);
    check(wr_scene_create_heightfield(ctx, &hd, &terrain), where,
          "wr_scene_create_heightfield (the terrain: " + geom_label(m, geom) + " as a grid)");
    if (!g->terrain_indices.empty()) {
      const wr_status st = wr_scene_create(ctx, g->terrain_vertices.data(), g->terrain_vertices.size() / 3,
                                           g->terrain_indices.data(), g->terrain_indices.size() / 3, rest);
      if (st != WR_SUCCESS) wr_scene_release(terrain);
      check(st, where,
            "wr_scene_create (the " + std::to_string(num_static_geoms_ - 1) + " static geoms beside " +
                geom_label(m, geom) + ")");
      global_poses_ = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f};
    }
    uint64_t grid_triangles = 0;
    wr_scene_num_triangles(terrain, &grid_triangles);
    num_terrain_triangles_ = grid_triangles + g->terrain_indices.size() / 3;
    return terrain;
  }
  if (g->terrain_indices.empty()) {
    // wr_scene_create needs a triangle; a zero-area one is never hit (wr.h).
    g->terrain_vertices.assign(9, 0.0f);
    g->terrain_indices = {0, 1, 2};
  }
  num_terrain_triangles_ = g->terrain_indices.size() / 3;
  check(wr_scene_create(ctx, g->terrain_vertices.data(), g->terrain_vertices.size() / 3, g->terrain_indices.data(),
                        g->terrain_indices.size() / 3, &terrain),
        where, "wr_scene_create (the terrain: " + merged + ")");
  return terrain;
}

// The instanced scene over `terrain`: the prototypes' scenes, the slots, and `rest` as the one
// global instance. Takes `terrain` and `rest` (released here, kept by the instanced scene).
void Scene::make_instanced(wr_context ctx, const ModelView& m, const Gathered& g, wr_scene terrain, wr_scene rest,
                           const char* where) {
  std::vector<wr_scene> handles(g.prototypes.size(), nullptr);
  const auto release_all = [&]() {
    for (wr_scene h : handles) wr_scene_release(h);
    wr_scene_release(rest);
    wr_scene_release(terrain);
  };
  try {
    for (size_t i = 0; i < g.prototypes.size(); ++i) {
      const Gathered::Prototype& proto = g.prototypes[i];
      if (proto.hfield_geom >= 0) {
        const int geom = proto.hfield_geom;
        const double zero[3] = {0.0, 0.0, 0.0};
        // A prototype is traced in its own frame through its BVH (wr.h).
        const wr_heightfield_desc hd = hfield_desc(hfield_params(m, geom), zero, WR_TERRAIN_BVH);  // checked above
        check(wr_scene_create_heightfield(ctx, &hd, &handles[i]), where,
              "wr_scene_create_heightfield (the prototype of " + geom_label(m, geom) + ")");
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
    for (const Slot& s : slots_) {
      slot_prototypes.push_back(s.prototype);
      slot_groups.push_back(s.group);
    }
    if (rest) handles.push_back(rest);  // the global instance's prototype, after the slots'
    const uint32_t rest_prototype = static_cast<uint32_t>(handles.size() - 1);
    wr_instanced_scene_desc desc;
    wr_instanced_scene_desc_init(&desc);
    desc.terrain = terrain;
    desc.prototypes = handles.data();
    desc.num_prototypes = static_cast<uint32_t>(handles.size());
    desc.slot_prototypes = slot_prototypes.data();
    desc.slot_groups = slot_groups.data();
    desc.num_slots = static_cast<uint32_t>(slot_prototypes.size());
    desc.global_prototypes = rest ? &rest_prototype : nullptr;
    desc.num_globals = rest ? 1u : 0u;
    if (rest) rest = nullptr;  // released with handles from here
    check(wr_scene_create_instanced(ctx, &desc, &scene_), where, "wr_scene_create_instanced");
  } catch (...) {
    release_all();
    throw;
  }
  release_all();  // the instanced scene keeps what it needs
  num_prototypes_ = static_cast<uint32_t>(g.prototypes.size());
}

namespace {

// [nsim x num_ids x 7] poses of items `ids` (of `count` per simulation) from `a`, through
// wr_gather_poses on the host (the library's one conversion of matrices into quaternions), turned
// by `frame` (NULL: none).
template <typename T>
void fill_batch(const PoseArrays<T>& a, int count, const uint32_t* ids, size_t num_ids, float* out, const char* where,
                const char* pos_name, const char* mat_name, const float* frame) {
  if (a.nsim < 0) fail(where, "nsim = " + std::to_string(a.nsim) + ": must be >= 0");
  if (num_ids == 0 || a.nsim == 0) return;
  if (!a.xpos) fail(where, std::string(pos_name) + " is NULL");
  if (!a.xmat) fail(where, std::string(mat_name) + " is NULL");
  if (!out) fail(where, "out is NULL");
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.scalar_type = std::is_same<T, double>::value ? WR_SCALAR_FLOAT64 : WR_SCALAR_FLOAT32;
  d.positions = a.xpos;
  d.matrices = a.xmat;
  d.num_batches = static_cast<uint32_t>(a.nsim);
  d.items_per_batch = static_cast<uint32_t>(count);
  d.indices = ids;
  d.count = static_cast<uint32_t>(num_ids);
  if (frame) std::memcpy(d.frame, frame, sizeof d.frame);
  d.quat_order = WR_QUAT_WXYZ;
  check(wr_gather_poses(nullptr, &d, out), where, "wr_gather_poses");
}

}  // namespace

void Scene::fill_instance_poses_batch(const double* geom_xpos, const double* geom_xmat, int nsim, float* out) const {
  fill_instance_poses_batch(PoseArrays<double>{geom_xpos, geom_xmat, nsim}, out);
}
void Scene::fill_instance_poses_batch(const PoseArrays<double>& geoms, float* out) const {
  fill_batch(geoms, ngeom_, slot_geom_ids_.data(), slot_geom_ids_.size(), out, "Scene::fill_instance_poses_batch",
             "geom_xpos", "geom_xmat", nullptr);
}
void Scene::fill_instance_poses_batch(const PoseArrays<float>& geoms, float* out) const {
  fill_batch(geoms, ngeom_, slot_geom_ids_.data(), slot_geom_ids_.size(), out, "Scene::fill_instance_poses_batch",
             "geom_xpos", "geom_xmat", nullptr);
}

// ---- Camera ----

Camera Camera::from_model(const ModelView& m, const Scene& scene, const char* name, const CameraOptions& options) {
  check_view(m, "Camera::from_model");
  if (!name) fail("Camera::from_model", "name is NULL");
  const int id = object_id(m, ObjectKind::kCamera, name);
  if (id < 0) {
    std::string have;
    for (int c = 0; c < m.ncam; ++c) {
      const std::string n = object_name(m, ObjectKind::kCamera, c);
      have += (c ? ", " : "") + (!n.empty() ? "'" + n + "'" : "camera " + std::to_string(c) + " (unnamed)");
    }
    fail("Camera::from_model", "no camera named '" + std::string(name) + "' in the model (it has " +
                                   std::to_string(m.ncam) + (m.ncam == 1 ? " camera" : " cameras") +
                                   (m.ncam ? ": " + have : "") + ")");
  }
  return from_model(m, scene, id, options);
}

Camera Camera::from_model(const ModelView& m, const Scene& scene, int id, const CameraOptions& o) {
  const char* where = "Camera::from_model";
  check_view(m, where);
  if (id < 0 || id >= m.ncam)
    fail(where,
         "camera " + std::to_string(id) + " is out of range: the model has " + std::to_string(m.ncam) + " cameras");
  if (scene.model_ngeom() != m.ngeom || scene.model_nbody() != m.nbody)
    fail(where, "the scene was built from another model (" + std::to_string(scene.model_ngeom()) + " geoms, " +
                    std::to_string(scene.model_nbody()) + " bodies; this one has " + std::to_string(m.ngeom) + ", " +
                    std::to_string(m.nbody) + ")");
  const std::string label = camera_label(m, id);
  Camera cam;
  cam.id = id;
  cam.name = object_name(m, ObjectKind::kCamera, id);
  cam.body = m.cam_bodyid[id];
  cam.ncam_ = m.ncam;
  if (m.cam_projection[id] != kProjectionPerspective)
    fail(where, label + ": orthographic projection is not supported (the library renders pinhole cameras)");
  if ((o.width == 0) != (o.height == 0))
    fail(where, label + ": options.width = " + std::to_string(o.width) + ", options.height = " +
                    std::to_string(o.height) + ": give both, or neither for the camera's resolution");
  const int width = o.width ? static_cast<int>(o.width) : m.cam_resolution[2 * id];
  const int height = o.height ? static_cast<int>(o.height) : m.cam_resolution[2 * id + 1];
  if (width < 1 || height < 1)
    fail(where,
         label + ": resolution " + std::to_string(width) + " x " + std::to_string(height) + ": must be positive");

  wr_camera_desc& desc = cam.desc;
  std::memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.width = static_cast<uint32_t>(width);
  desc.height = static_cast<uint32_t>(height);
  const float* sensorsize = m.cam_sensorsize + 2 * id;
  const float* intrinsic = m.cam_intrinsic + 4 * id;
  double fx, fy, cx, cy;
  if (sensorsize[0] > 0 && sensorsize[1] > 0) {
    // focal / sensorsize / principal (XMLreference camera/sensorsize: fovy is then ignored). The
    // principal offset moves the optical axis p_x left and p_y up of the image centre, as the
    // renderer's frustum does (model_scene.h).
    if (!(intrinsic[0] > 0) || !(intrinsic[1] > 0))
      fail(where, label + ": focal length (cam_intrinsic[0..1]) = " + num(intrinsic[0]) + ", " + num(intrinsic[1]) +
                      ": must be > 0 with a sensorsize");
    fx = double(intrinsic[0]) / sensorsize[0] * width;
    fy = double(intrinsic[1]) / sensorsize[1] * height;
    cx = 0.5 * width - double(intrinsic[2]) / sensorsize[0] * width;
    cy = 0.5 * height - double(intrinsic[3]) / sensorsize[1] * height;
  } else {
    // fovy: the vertical field of view in degrees (XMLreference camera/fovy), square pixels.
    const double fovy = m.cam_fovy[id];
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
template <typename T>
void fill_camera(int id, int ncam, const PoseArrays<T>& a, float* out) {
  const uint32_t item = static_cast<uint32_t>(id);
  fill_batch(a, ncam, &item, 1, out, "Camera::fill_pose_batch", "cam_xpos", "cam_xmat", kCameraFrame);
}
}  // namespace

void Camera::fill_pose_batch(const double* cam_xpos, const double* cam_xmat, int nsim, float* out) const {
  fill_camera(id, ncam_, PoseArrays<double>{cam_xpos, cam_xmat, nsim}, out);
}
void Camera::fill_pose_batch(const PoseArrays<double>& cams, float* out) const { fill_camera(id, ncam_, cams, out); }
void Camera::fill_pose_batch(const PoseArrays<float>& cams, float* out) const { fill_camera(id, ncam_, cams, out); }

// ---- SensorFrame ----

SensorFrame SensorFrame::frame_of(const ModelView& m, const Scene& scene, int id, bool exclude_own_body, bool site,
                                  const char* where) {
  check_view(m, where);
  if (scene.model_ngeom() != m.ngeom || scene.model_nbody() != m.nbody)
    fail(where, "the scene was built from another model");
  const ObjectKind kind = site ? ObjectKind::kSite : ObjectKind::kBody;
  const int count = site ? m.nsite : m.nbody;
  if (id < 0 || id >= count)
    fail(where, std::string(site ? "site " : "body ") + std::to_string(id) + " is out of range: the model has " +
                    std::to_string(count) + (site ? " sites" : " bodies"));
  SensorFrame f;
  f.is_site = site;
  f.id = id;
  f.name = object_name(m, kind, id);
  f.body = site ? m.site_bodyid[id] : id;
  f.count_ = count;
  if (exclude_own_body)
    f.exclude_groups = scene.own_body_groups(m, f.body, where, named(m, kind, id, site ? "site" : "body"));
  return f;
}

namespace {
// The id of the site (or body) named `name`, or an Error listing a few names the model has.
int frame_id(const ModelView& m, const char* name, bool site, const char* where) {
  check_view(m, where);
  if (!name) fail(where, "name is NULL");
  const ObjectKind kind = site ? ObjectKind::kSite : ObjectKind::kBody;
  const int count = site ? m.nsite : m.nbody;
  const int id = object_id(m, kind, name);
  if (id < 0) {
    std::string have;
    for (int i = 0, shown = 0; i < count && shown < 8; ++i) {
      const std::string n = object_name(m, kind, i);
      if (!n.empty()) have += (shown++ ? ", '" : "'") + n + "'";
    }
    fail(where, std::string("no ") + (site ? "site" : "body") + " named '" + name + "' in the model (it has " +
                    std::to_string(count) + (site ? " sites" : " bodies") + (have.empty() ? "" : ": " + have) + ")");
  }
  return id;
}
}  // namespace

SensorFrame SensorFrame::at_site(const ModelView& m, const Scene& scene, const char* name, bool exclude_own_body) {
  const char* where = "SensorFrame::at_site";
  return frame_of(m, scene, frame_id(m, name, true, where), exclude_own_body, true, where);
}

SensorFrame SensorFrame::at_body(const ModelView& m, const Scene& scene, const char* name, bool exclude_own_body) {
  const char* where = "SensorFrame::at_body";
  return frame_of(m, scene, frame_id(m, name, false, where), exclude_own_body, false, where);
}

SensorFrame SensorFrame::at_site_id(const ModelView& m, const Scene& scene, int id, bool exclude_own_body) {
  return frame_of(m, scene, id, exclude_own_body, true, "SensorFrame::at_site_id");
}

SensorFrame SensorFrame::at_body_id(const ModelView& m, const Scene& scene, int id, bool exclude_own_body) {
  return frame_of(m, scene, id, exclude_own_body, false, "SensorFrame::at_body_id");
}

wr_sensor_options SensorFrame::sensor_options() const { return options_excluding(exclude_groups); }

namespace {
template <typename T>
void fill_frame(const SensorFrame& f, int count, const PoseArrays<T>& a, float* out) {
  const char* where = "SensorFrame::fill_pose_batch";
  if (f.id < 0) fail(where, "the frame is not of a model: make it with at_site or at_body");
  const uint32_t item = static_cast<uint32_t>(f.id);
  fill_batch(a, count, &item, 1, out, where, f.is_site ? "site_xpos" : "xpos", f.is_site ? "site_xmat" : "xmat",
             nullptr);
}
}  // namespace

void SensorFrame::fill_pose_batch(const double* xpos, const double* xmat, int nsim, float* out) const {
  fill_frame(*this, count_, PoseArrays<double>{xpos, xmat, nsim}, out);
}
void SensorFrame::fill_pose_batch(const PoseArrays<double>& frames, float* out) const {
  fill_frame(*this, count_, frames, out);
}
void SensorFrame::fill_pose_batch(const PoseArrays<float>& frames, float* out) const {
  fill_frame(*this, count_, frames, out);
}

}  // namespace wr_mujoco
