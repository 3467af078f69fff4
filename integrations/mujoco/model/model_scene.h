// wr_mujoco's model code: MuJoCo models as warp-raycaster scenes, cameras and sensor frames, through
// the public C API only (wr/wr.h), reading the model through a ModelView (model_view.h): no MuJoCo
// header here. wr_mujoco.h adds the mjModel / mjData / mjBatch forms for C++; the Python package
// builds the view from a mujoco.MjModel's arrays. What follows holds for both.
//
// What a MuJoCo model becomes:
//   - the terrain: one mesh scene of every STATIC geom (of a body welded to the world:
//     body_weldid[geom_bodyid] == 0), in world coordinates at qpos0, merged; or, with
//     SceneOptions::terrain = WR_TERRAIN_GRID, the largest static hfield as a grid terrain (its
//     samples and a min-max pyramid, wr.h's wr_heightfield_desc) and the other static geoms, merged,
//     beside it as one global instance posed by the identity (Scene::global_poses);
//   - moving geometry: every other geom is a slot of an instanced scene (wr_scene_create_instanced),
//     its prototype the geom's shape in the geom's own frame (geoms of the same type, size and
//     mesh/hfield share one prototype), posed per env from mjData.geom_xpos / geom_xmat
//     (Scene::fill_instance_poses, or the batched form from mjBatch's outputs);
//   - a camera of the model: a wr_camera_desc with MuJoCo's intrinsics and an identity mount, posed
//     per env from mjData.cam_xpos / cam_xmat (Camera::fill_pose): the env's "body pose" IS the
//     camera's pose, so every MuJoCo camera mode (fixed, track, targetbody ...) is followed as
//     MuJoCo computes it.
//
// Which geoms are seen: those mj_ray sees with the same geomgroup and flg_static = 1 (mujoco.h,
// "Ray casting"; engine_ray.c's ray_eliminate): a geom is left out when its group (clamped to
// 0..mjNGROUP-1) is off in SceneOptions::geomgroup, or when it is invisible (no material and
// geom_rgba alpha 0, or a material whose mat_rgba alpha is 0, as the model holds them when the
// scene is built). contype / conaffinity do not matter (mj_ray does not look at them).
//
// Shapes, each in the geom's frame (MuJoCo's geom_size conventions, XMLreference "geom/size"):
//   mesh       the compiled mesh_vert / mesh_face of geom_dataid (what mj_ray intersects: the mesh,
//              not its convex hull); exact.
//   hfield     MuJoCo's triangulation (wr.h, above wr_heightfield_desc): samples hfield_data, x from
//              -size[0] to size[0] over hfield_ncol samples, y over hfield_nrow, z = size[2] data,
//              closed into a solid down to z = -size[3] (MuJoCo's base). Moving ones are prototypes
//              made by wr_scene_create_heightfield; static ones are merged into the terrain with the
//              same vertices and triangles (wr.h's formula, evaluated in double and then posed).
//   box        12 triangles; exact.
//   plane      a rectangle of half-extents size[0], size[1] where positive (mj_ray bounds a plane
//              there), else SceneOptions::plane_half_extent (mj_ray's plane of size 0 is infinite:
//              here it is finite), as a grid of cells of a metre at most (256 a side at most: float
//              intersection tests lose accuracy with the distance to a triangle's corners). mj_ray
//              sees a plane only from its front (+z) side; this library sees both faces of every
//              triangle, so a camera below a plane sees it where mj_ray does not.
//   sphere, capsule, cylinder, ellipsoid
//              closed triangle meshes inscribed in the true surface (every vertex on it), fine
//              enough that the Hausdorff distance between the true surface and the triangles (both
//              ways: every point of either within that distance of the other) is at most
//              SceneOptions::tolerance. Sphere: a longitude / latitude grid, refined until
//              r (1 - the smallest distance from the centre to a face's plane) <= tolerance, which
//              bounds that distance for a convex polyhedron inscribed in the sphere; ellipsoid: the
//              unit sphere's grid at tolerance / (largest radius), scaled by the radii (a linear map
//              stretches no distance by more than its largest factor); capsule: two such
//              hemispheres and the prism between them; cylinder: the inscribed n-gon prism and
//              caps, n the least with sagitta r (1 - cos(pi / n)) <= tolerance
//              (geom_mesh_deviation reports the bound reached). Inscribed means a depth is never
//              shorter than the true one: the triangles lie within the solid.
//   sdf        refused (an Error naming the geom), or skipped when SceneOptions::skip_unsupported
//              (then listed in Scene::skipped()). Flexes and skins are not geoms and mj_ray does not
//              trace them either: they are not rendered.
//
// Groups and "exclude the camera's own body": each env slot has a group (0..31) that a camera may
// exclude (wr_sensor_options.exclude_groups). The rule: every moving body that carries a camera of
// the model gets a group of its own, 1, 2, ... up to 31, in the order of the lowest camera id on it;
// every other geom's slot has group 0. CameraOptions::exclude_own_body sets the camera's
// exclude_groups to its body's group: the camera then ignores the geoms of exactly its own body,
// as mj_ray's bodyexclude = cam_bodyid does (MuJoCo's camera rangefinder excludes the same). A
// model with more than 31 camera-carrying moving bodies renders, but exclude_own_body on a camera
// of the 32nd such body onwards is refused by name, as it is for a camera whose own body is static
// with geoms of its own (they are part of the terrain, which cannot be excluded).
//
// Pixel convention of MuJoCo cameras (wr_camera_desc's fx, fy, cx, cy; rows top to bottom):
//   fovy (no sensorsize): fy = (height / 2) / tan(fovy / 2), fx = fy, cx = width / 2, cy = height / 2
//   (XMLreference "camera/fovy": vertical field of view; square pixels).
//   sensorsize (cam_sensorsize W, H > 0), focal (cam_intrinsic[0..1] fl_x, fl_y), principal
//   (cam_intrinsic[2..3] p_x, p_y, lengths, "offset of the principal point from the image centre"):
//     fx = fl_x width / W,  fy = fl_y height / H,  cx = width / 2 - p_x width / W,
//     cy = height / 2 - p_y height / H,
//   which is the image MuJoCo's renderer draws: mjv_updateCamera's frustum (top = zver[0],
//   bottom = -zver[1], center = (zhor[1] - zhor[0]) / 2, engine_vis_visualize.c) given to glFrustum
//   (render_gl3.c), and what tests/check_camera_renderer.py finds in the renderer's images.
//   (MuJoCo's camera-attached rangefinder computes cx = p_x width / W, cy = p_y height / H, i.e. from
//   the image corner, mju_camIntrinsics; that disagrees with its renderer and its documentation, and
//   is not followed.) focalpixel / principalpixel are the same numbers in pixels (the compiler stores
//   them as lengths). Orthographic cameras are refused.
//   Frames: MuJoCo's camera looks along its -Z with +Y up and +X right (XMLreference "camera");
//   the library's camera frame is +X forward, +Y left, +Z up, so the pose's rotation has columns
//   forward = -cam_z, left = -cam_x, up = +cam_y of cam_xmat.
//
// Every failure throws wr_mujoco::Error, whose message names the culprit: the geom (id and name),
// the camera (name or id), the mjBatch output, or the wr_ call with wr_last_error().
//
// Render (one env per simulation; N envs):
//   wr_mujoco::Scene scene = wr_mujoco::Scene::build(ctx, m);
//   wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m, scene, "head", {});
//   wr_sensor_options opts = cam.sensor_options();           // exclude_groups set
//   wr_sensor_create_ex(scene.handle(), &cam.desc, &opts, N, &sensor);
//   per step, env e: cam.fill_pose(d[e], poses + 7 e); scene.fill_instance_poses(d[e], inst + 7 S e);
//   wr_render_args a; wr_render_args_init(&a); a.body_poses = poses;
//   a.instance_poses = scene.num_slots() ? inst : NULL; a.out = depth; a.out_bytes = ...;
//   wr_sensor_render_ex(sensor, &a);
// Poses are WR_QUAT_WXYZ (the desc's quat_order); instance_ids name slots (Scene::slot_geom). The
// fill functions write host memory: on a CUDA context copy the poses to the device before rendering
// (wr_sensor_render_ex reads device pointers there). The scene is what the model held when it was
// built (static geoms at qpos0, sizes, visibility): rebuild it after editing those in the mjModel.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <wr/wr.h>

#include "model_view.h"

// MuJoCo's own types, declared as mujoco.h declares them, for the mjModel / mjData forms below
// (defined in wr_mujoco.cpp, which includes mujoco.h; only wr_mujoco links them).
typedef struct mjModel_ mjModel;
typedef struct mjData_ mjData;

namespace wr_mujoco {

struct BatchOutputs;  // an mjBatch's outputs (wr_mujoco.h)

// Thrown by every function here; what() names the culprit.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

struct SceneOptions {
  // mj_ray's geomgroup: a geom whose geom_group (clamped to 0..5) has a 0 here is not seen. All on
  // (the default) is mj_ray's geomgroup = NULL. Moving geoms are filtered too.
  std::array<unsigned char, kNumGeomGroups> geomgroup{{1, 1, 1, 1, 1, 1}};
  // Curved primitives: the largest distance, in metres, between the true surface and its triangles
  // (finite, > 0; the float rounding of the vertices comes on top).
  double tolerance = 1e-3;
  // Half-extent in metres of planes whose size is 0 along an axis (infinite in MuJoCo); 0: the
  // model's far clipping distance, m->vis.map.zfar * m->stat.extent (where MuJoCo's own renderer
  // stops drawing), centred on the plane's position.
  double plane_half_extent = 0.0;
  // Geoms of an unsupported type (SDF): false, an Error; true, skipped and listed in skipped().
  bool skip_unsupported = false;
  // Moving bodies (by name) that get a group of their own after the camera-carrying ones, so that a
  // pattern sensor on them can exclude them (SensorFrame's exclude_own_body: a height scanner on the
  // base ignores the base, as mj_ray's bodyexclude and mjlab's exclude_parent_body do).
  std::vector<std::string> sensor_bodies;
  // How the static geoms are traced. WR_TERRAIN_AUTO (the default) and WR_TERRAIN_BVH: all merged
  // into one BVH. WR_TERRAIN_GRID: the model's largest static hfield seen (most samples; the lowest
  // geom id on a tie), which must not be turned (geom_xmat0 the identity within 1e-9), is the
  // scene's terrain as a grid (wr_heightfield_desc.terrain: about a tenth of the BVH's bytes, height
  // scans looked up by cell); the other static geoms, merged as above, are one global instance at
  // the identity (render with global_poses(), below). An Error where the model has no such hfield.
  wr_terrain_kind terrain = WR_TERRAIN_AUTO;
};

// The triangles built for one geom, in the geom's frame (what Scene::build poses or instances).
struct Mesh {
  std::vector<double> vertices;   // (num_vertices x 3)
  std::vector<uint32_t> indices;  // (num_triangles x 3)
};

// The shape of geom `geom` as Scene::build triangulates it (types above; hfields with their base).
// Throws for an SDF or an unknown type, naming the geom. Visibility and groups are not looked at.
Mesh geom_mesh(const ModelView& m, int geom, const SceneOptions& options = {});
Mesh geom_mesh(const mjModel* m, int geom, const SceneOptions& options = {});

// The tessellation bound geom_mesh achieved for a curved primitive: the largest distance between its
// true surface and the triangles, <= options.tolerance (0 for the exact shapes).
double geom_mesh_deviation(const ModelView& m, int geom, const SceneOptions& options = {});
double geom_mesh_deviation(const mjModel* m, int geom, const SceneOptions& options = {});

// Where per-env poses are read from: `count` items (geoms, cameras, sites or bodies) of each of
// `nsim` simulations, positions (nsim x count x 3) and row-major rotation matrices
// (nsim x count x 9) of element type T (double: MuJoCo's mjtNum; float: mujoco_warp's arrays),
// C-contiguous.
template <typename T>
struct PoseArrays {
  const T* xpos = nullptr;
  const T* xmat = nullptr;
  int nsim = 0;
};

// The rotation that turns a MuJoCo camera's axes (cam_xmat: it looks along its -Z with +Y up) into the
// library's camera frame (+X forward, +Y left, +Z up), applied on the right of cam_xmat (row-major:
// forward = -cam_z, left = -cam_x, up = +cam_y): wr_pose_gather_desc.frame of a camera's poses.
constexpr float kCameraFrame[9] = {0, -1, 0, 0, 0, 1, -1, 0, 0};

// One slot of each env: a moving geom.
struct Slot {
  int geom;            // geom id
  int body;            // geom_bodyid
  uint32_t prototype;  // index into the scene's prototypes
  uint32_t group;      // 0, or its body's camera group (rule above)
};

class Scene {
 public:
  // Builds the scene of m on ctx (static geoms at qpos0: ModelView::geom_xpos0 / geom_xmat0; the
  // mjModel form computes them with mj_kinematics on a temporary mjData).
  static Scene build(wr_context ctx, const ModelView& m, const SceneOptions& options = {});
  static Scene build(wr_context ctx, const mjModel* m, const SceneOptions& options = {});

  Scene(Scene&& other) noexcept;
  Scene& operator=(Scene&& other) noexcept;
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;
  ~Scene();

  // The scene to render: instanced when the model has moving geoms, else the terrain mesh scene
  // (then render with instance_poses = NULL). The Scene keeps its reference.
  wr_scene handle() const { return scene_; }
  // Gives the scene's reference to the caller (who releases it; handle() is NULL afterwards): the
  // Python package keeps it in its own wr::Scene. Slots, groups and pose fills keep working.
  wr_scene release_handle() noexcept { return std::exchange(scene_, nullptr); }
  uint32_t num_slots() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t num_prototypes() const { return num_prototypes_; }  // the slots' (the global instance's not counted)
  const std::vector<Slot>& slots() const { return slots_; }
  int slot_geom(uint32_t slot) const { return slots_.at(slot).geom; }
  // Number of static geoms in the terrain, and its triangles (a model without static geoms gets one
  // zero-area triangle, never hit: wr_scene_create needs one). With the grid (grid_geom() >= 0):
  // the grid's triangles with its base's, and those of the static geoms in the global instance.
  uint32_t num_static_geoms() const { return num_static_geoms_; }
  uint64_t num_terrain_triangles() const { return num_terrain_triangles_; }
  // SceneOptions::terrain = WR_TERRAIN_GRID: the hfield geom traced as the grid, else -1.
  int grid_geom() const { return grid_geom_; }
  // The global instances (0 or 1: the static geoms beside the grid's hfield) and their poses
  // [num_globals x 7], the identity, for wr_render_args.global_poses / wr_intersect_args.global_poses
  // (copy them to the GPU once for a CUDA context); NULL where there are none.
  uint32_t num_globals() const { return static_cast<uint32_t>(global_poses_.size() / 7); }
  const float* global_poses() const { return global_poses_.empty() ? nullptr : global_poses_.data(); }
  // The group of body's slots: 0, or the body's own group when it is a moving body carrying a
  // camera (rule above); 1u << body_group(b) in exclude_groups hides body b.
  uint32_t body_group(int body) const;
  // Messages of the geoms skipped as unsupported (SceneOptions::skip_unsupported).
  const std::vector<std::string>& skipped() const { return skipped_; }

  // [num_slots x 7]: each slot's geom pose in the world from d (geom_xpos, geom_xmat as a w, x, y,
  // z quaternion); needs d's positions computed (mj_kinematics, mj_forward or mj_step).
  void fill_instance_poses(const mjData* d, float* out) const;
  // [nsim x num_slots x 7] from nsim simulations' geom_xpos (nsim x ngeom x 3) and geom_xmat
  // (nsim x ngeom x 9), as an mjBatch's outputs (double) or mujoco_warp's Data (float) hold them.
  void fill_instance_poses_batch(const double* geom_xpos, const double* geom_xmat, int nsim, float* out) const;
  void fill_instance_poses_batch(const PoseArrays<double>& geoms, float* out) const;
  void fill_instance_poses_batch(const PoseArrays<float>& geoms, float* out) const;
  void fill_instance_poses_batch(const BatchOutputs& b, float* out) const;

  int model_ngeom() const { return ngeom_; }
  int model_nbody() const { return nbody_; }

  // The exclude_groups that hide body b of m (its group's bit; 0 for a body without geoms seen), or
  // an Error naming `label`, the camera or frame at `where`, when b cannot be hidden (rules above).
  uint32_t own_body_groups(const ModelView& m, int b, const char* where, const std::string& label) const;

 private:
  Scene() = default;
  // build's phases, in order, each after everything it needs was refused by name (mujoco_warp's
  // put_model: refuse first, then build): the groups of the moving bodies; the geoms the rays see,
  // gathered (the static ones into one mesh, the moving ones into slots over shared prototypes);
  // the terrain scene (and the static geoms beside a grid); the instanced scene over it.
  struct Gathered;
  void assign_groups(const ModelView& m, const SceneOptions& options, const char* where);
  Gathered gather_geoms(const ModelView& m, const SceneOptions& options, const char* where);
  wr_scene make_terrain(wr_context ctx, const ModelView& m, Gathered* g, wr_scene* rest, const char* where);
  void make_instanced(wr_context ctx, const ModelView& m, const Gathered& g, wr_scene terrain, wr_scene rest,
                      const char* where);
  wr_scene scene_ = nullptr;
  uint32_t num_prototypes_ = 0;
  uint32_t num_static_geoms_ = 0;
  uint64_t num_terrain_triangles_ = 0;
  int grid_geom_ = -1;
  std::vector<float> global_poses_;
  int ngeom_ = 0;
  int nbody_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint32_t> slot_geom_ids_;   // (num_slots) slots_[i].geom: the pose gather's index table
  std::vector<uint32_t> body_group_;      // (nbody)
  std::vector<uint8_t> body_overflow_;    // (nbody) a moving camera body past the 31 groups
  std::vector<uint8_t> body_has_static_;  // (nbody) a static body with geoms in the terrain
  std::vector<std::string> skipped_;
};

struct CameraOptions {
  uint32_t width = 0, height = 0;  // pixels; 0 and 0: the camera's resolution (cam_resolution)
  wr_depth_kind depth_kind = WR_DEPTH_PLANE;
  float near_clip = 0.0f;
  float far_clip = std::numeric_limits<float>::infinity();
  float miss_value = std::numeric_limits<float>::infinity();
  bool exclude_own_body = false;  // hide the geoms of the camera's body (cam_bodyid): rule above
};

class Camera {
 public:
  // The camera named `name` (or of id `id`) of m, for rendering `scene` (built from the same model).
  // Throws naming the camera when there is none of that name or id, or it is orthographic, or its
  // resolution is not positive, or exclude_own_body cannot be honoured.
  static Camera from_model(const ModelView& m, const Scene& scene, const char* name, const CameraOptions& options = {});
  static Camera from_model(const ModelView& m, const Scene& scene, int id, const CameraOptions& options = {});
  static Camera from_model(const mjModel* m, const Scene& scene, const char* name, const CameraOptions& options = {});
  static Camera from_model(const mjModel* m, const Scene& scene, int id, const CameraOptions& options = {});

  int id = -1;
  std::string name;             // "" for an unnamed camera
  int body = -1;                // cam_bodyid
  wr_camera_desc desc{};        // intrinsics, clip, depth kind, WR_QUAT_WXYZ, identity mount
  uint32_t exclude_groups = 0;  // for wr_sensor_options.exclude_groups

  // Options with every stage off but exclude_groups (wr_sensor_options_init, then the mask).
  wr_sensor_options sensor_options() const;
  // The camera's pose in the world (7 floats: position, w x y z) from d's cam_xpos / cam_xmat, in the
  // library's camera frame; pass it as the env's body pose (the mount is the identity).
  void fill_pose(const mjData* d, float* out) const;
  // [nsim x 7] from nsim simulations' cam_xpos (nsim x ncam x 3) and cam_xmat (nsim x ncam x 9).
  void fill_pose_batch(const double* cam_xpos, const double* cam_xmat, int nsim, float* out) const;
  void fill_pose_batch(const PoseArrays<double>& cams, float* out) const;
  void fill_pose_batch(const PoseArrays<float>& cams, float* out) const;
  void fill_pose_batch(const BatchOutputs& b, float* out) const;
  int model_ncam() const { return ncam_; }

 private:
  int ncam_ = 0;
};

// The frame of a pattern sensor (wr.h, "Ray patterns": height scanners, LiDARs) in a model: a site
// or a body, whose pose in the world is each env's body pose for wr_sensor_create_pattern (desc
// quat_order WR_QUAT_WXYZ; the pattern frame is the site's or body's own: +X forward, +Y left, +Z
// up, as MuJoCo's bodies are usually laid out). A height scanner hangs off the base:
//   wr_mujoco::SensorFrame f = wr_mujoco::SensorFrame::at_site(m, scene, "height_scan", true);
//   wr_sensor_options o = f.sensor_options();                 // exclude_groups: the base
//   wr_sensor_create_pattern(scene.handle(), pattern, &desc, &o, N, &sensor);
//   per step, env e: f.fill_pose(d[e], poses + 7 e); then render as a camera.
// exclude_own_body hides the geoms of the frame's body (site_bodyid, or the body), as mj_ray's
// bodyexclude does; the body needs a group of its own: a camera on it, or SceneOptions::sensor_bodies.
class SensorFrame {
 public:
  static SensorFrame at_site(const ModelView& m, const Scene& scene, const char* name, bool exclude_own_body = false);
  static SensorFrame at_body(const ModelView& m, const Scene& scene, const char* name, bool exclude_own_body = false);
  static SensorFrame at_site(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body = false);
  static SensorFrame at_body(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body = false);
  // By id (an unnamed site or body): the engine plugin's sensors, which MuJoCo attaches by id.
  static SensorFrame at_site_id(const ModelView& m, const Scene& scene, int id, bool exclude_own_body = false);
  static SensorFrame at_body_id(const ModelView& m, const Scene& scene, int id, bool exclude_own_body = false);
  static SensorFrame at_site_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body = false);
  static SensorFrame at_body_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body = false);

  bool is_site = true;
  int id = -1;                  // site or body id
  std::string name;             // "" for an unnamed one
  int body = -1;                // the body the frame moves with
  uint32_t exclude_groups = 0;  // for wr_sensor_options.exclude_groups

  // Options with every stage off but exclude_groups.
  wr_sensor_options sensor_options() const;
  // The frame's pose in the world (7 floats: position, w x y z) from d's site_xpos / site_xmat (or
  // xpos / xmat).
  void fill_pose(const mjData* d, float* out) const;
  // [nsim x 7] from nsim simulations' site_xpos (nsim x nsite x 3) and site_xmat (nsim x nsite x 9),
  // or xpos / xmat (nsim x nbody x ...) for a body frame: an mjBatch's outputs of those names.
  void fill_pose_batch(const double* xpos, const double* xmat, int nsim, float* out) const;
  void fill_pose_batch(const PoseArrays<double>& frames, float* out) const;
  void fill_pose_batch(const PoseArrays<float>& frames, float* out) const;
  int model_count() const { return count_; }  // nsite or nbody

 private:
  // The frame of site (or body) `id`, checked (every factory above comes here).
  static SensorFrame frame_of(const ModelView& m, const Scene& scene, int id, bool exclude_own_body, bool site,
                              const char* where);
  int count_ = 0;  // nsite or nbody
};

}  // namespace wr_mujoco
