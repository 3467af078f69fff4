// warp-raycaster C++17 wrapper: header-only RAII over the C API of <wr/wr.h>.
//
// Every handle owns one reference of the C object and releases it on destruction. The C API
// has no retain call, so a handle cannot be copied: Context, Scene and Sensor are move-only
// (a moved-from handle holds NULL; using it throws wr::Error, because the C API rejects a NULL
// handle). The C objects keep each other alive (a sensor its scene, a scene its context), so
// the wrappers may be destroyed in any order. Every failing call throws wr::Error carrying the
// wr_status and wr_last_error() of that call. Nothing here adds state beyond the raw handle.
#ifndef WR_WR_HPP
#define WR_WR_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <wr/wr.h>

namespace wr {

/// A failed C API call: status() is its wr_status, what() its wr_last_error() message.
class Error : public std::runtime_error {
 public:
  /// Wraps `status` and `message` (the C API's message of the failed call).
  Error(wr_status status, const char* message) : std::runtime_error(message), status_(status) {}
  /// The wr_status the C call returned (never WR_SUCCESS).
  wr_status status() const noexcept { return status_; }

 private:
  wr_status status_;
};

namespace detail {
/// Throws wr::Error with this thread's last error message unless `status` is WR_SUCCESS.
inline void check(wr_status status) {
  if (status != WR_SUCCESS) throw Error(status, wr_last_error());
}
// unique_ptr deleters: each drops the one reference a wrapper owns.
struct ContextRelease {
  void operator()(wr_context c) const noexcept { wr_context_release(c); }
};
struct SceneRelease {
  void operator()(wr_scene s) const noexcept { wr_scene_release(s); }
};
struct SensorRelease {
  void operator()(wr_sensor s) const noexcept { wr_sensor_release(s); }
};
struct PatternRelease {
  void operator()(wr_pattern p) const noexcept { wr_pattern_release(p); }
};
}  // namespace detail

/// A device (CPU thread pool or one CUDA GPU); owns one reference of a wr_context.
class Context {
 public:
  /// CPU context with `num_threads` threads (0 = one per hardware thread).
  static Context cpu(uint32_t num_threads = 0) {
    wr_context c = nullptr;
    detail::check(wr_context_create_cpu(num_threads, &c));
    return Context(c);
  }
  /// CUDA context on device `ordinal`; throws WR_ERROR_UNSUPPORTED without CUDA or a GPU.
  static Context cuda(int ordinal = 0) {
    wr_context c = nullptr;
    detail::check(wr_context_create(WR_DEVICE_CUDA, ordinal, &c));
    return Context(c);
  }
  /// Number of threads the context renders with (1 for a CUDA context's host side).
  uint32_t num_threads() const {
    uint32_t n = 0;
    detail::check(wr_context_num_threads(get(), &n));
    return n;
  }
  /// CPU contexts: how sensors trace (wr_context_set_cpu_path), and the path in use.
  void set_cpu_path(wr_cpu_path path) { detail::check(wr_context_set_cpu_path(get(), path)); }
  wr_cpu_path cpu_path() const {
    wr_cpu_path p = WR_CPU_PATH_AUTO;
    detail::check(wr_context_cpu_path(get(), &p));
    return p;
  }
  /// The raw handle, still owned by this object (NULL once moved from).
  wr_context get() const noexcept { return handle_.get(); }

 private:
  explicit Context(wr_context c) noexcept : handle_(c) {}
  std::unique_ptr<wr_context_, detail::ContextRelease> handle_;
};

/// An immutable triangle mesh (a BVH or a grid); owns one reference of a wr_scene.
class Scene {
 public:
  /// Axis-aligned bounds of the corners of the scene's triangles (vertices no triangle uses are not
  /// counted), metres.
  struct Bounds {
    std::array<float, 3> min, max;
  };
  /// Builds from vertices (num_vertices x 3) float and indices (num_triangles x 3) uint32; both copied.
  static Scene from_arrays(const Context& context, const float* vertices, uint64_t num_vertices,
                           const uint32_t* indices, uint64_t num_triangles) {
    wr_scene s = nullptr;
    detail::check(wr_scene_create(context.get(), vertices, num_vertices, indices, num_triangles, &s));
    return Scene(s);
  }
  /// Loads a Wavefront OBJ file (all shapes merged); WR_ERROR_IO / WR_ERROR_PARSE name the file.
  static Scene load_obj(const Context& context, const std::string& path) {
    wr_scene s = nullptr;
    detail::check(wr_scene_load_obj(context.get(), path.c_str(), &s));
    return Scene(s);
  }
  /// Builds from a height field (wr.h, wr_heightfield_desc); the heights are copied.
  static Scene from_heightfield(const Context& context, const wr_heightfield_desc& desc) {
    wr_scene s = nullptr;
    detail::check(wr_scene_create_heightfield(context.get(), &desc, &s));
    return Scene(s);
  }
  /// Builds from a grid-topology mesh (wr.h, wr_scene_create_grid_mesh: legged_gym's
  /// convert_heightfield_to_trimesh arrays, unchanged), traced through its grid; both copied.
  static Scene from_grid_mesh(const Context& context, const float* vertices, uint64_t num_vertices,
                              const uint32_t* indices, uint64_t num_triangles) {
    wr_scene s = nullptr;
    detail::check(wr_scene_create_grid_mesh(context.get(), vertices, num_vertices, indices, num_triangles, &s));
    return Scene(s);
  }
  /// An instanced scene (wr.h, "Moving geometry"): `desc.terrain` and `desc.prototypes` are mesh
  /// scenes (e.g. terrain.get()); the new scene keeps them alive.
  static Scene instanced(const Context& context, const wr_instanced_scene_desc& desc) {
    wr_scene s = nullptr;
    detail::check(wr_scene_create_instanced(context.get(), &desc, &s));
    return Scene(s);
  }
  /// Instance slots per env and global instances (0 and 0 for a mesh scene).
  std::array<uint32_t, 2> instance_counts() const {
    std::array<uint32_t, 2> n{};
    detail::check(wr_scene_instance_counts(get(), &n[0], &n[1]));
    return n;
  }
  /// Explicit rays through an instanced scene's instances (wr_scene_intersect_ex).
  void intersect(const wr_intersect_args& args) const { detail::check(wr_scene_intersect_ex(get(), &args)); }
  /// Number of triangles, degenerate ones included (an instanced scene: its terrain's).
  uint64_t num_triangles() const {
    uint64_t n = 0;
    detail::check(wr_scene_num_triangles(get(), &n));
    return n;
  }
  /// How the scene's terrain is held and traced: WR_TERRAIN_BVH or WR_TERRAIN_GRID.
  wr_terrain_kind terrain_kind() const {
    wr_terrain_kind k = WR_TERRAIN_AUTO;
    detail::check(wr_scene_terrain_kind(get(), &k));
    return k;
  }
  /// Seconds the BVH or grid build took (validation and file parsing excluded).
  double build_seconds() const {
    double seconds = 0;
    detail::check(wr_scene_build_seconds(get(), &seconds));
    return seconds;
  }
  /// Axis-aligned bounds of the corners of the scene's triangles (wr_scene_bounds).
  Bounds bounds() const {
    Bounds b{};
    detail::check(wr_scene_bounds(get(), b.min.data(), b.max.data()));
    return b;
  }
  /// Bytes the scene holds (BVH, leaf-ordered triangles), host and device.
  wr_memory_stats memory() const {
    wr_memory_stats m{};
    detail::check(wr_scene_memory(get(), &m));
    return m;
  }
  /// Nearest hits of `count` rays: origins, directions (count x 3); tmax (count) or NULL = +inf;
  /// out_t (count), +inf on a miss; out_triangle (count) or NULL, UINT32_MAX on a miss.
  void intersect(const float* origins, const float* directions, const float* tmax, uint64_t count, float* out_t,
                 uint32_t* out_triangle = nullptr, void* stream = nullptr) const {
    detail::check(wr_scene_intersect(get(), origins, directions, tmax, count, out_t, out_triangle, stream));
  }
  /// The raw handle, still owned by this object (NULL once moved from).
  wr_scene get() const noexcept { return handle_.get(); }
  /// Takes over one reference of `s` (a scene made through the C API by other code, e.g.
  /// wr_mujoco's), which this object then releases; NULL throws.
  static Scene adopt(wr_scene s) {
    if (!s) throw Error(WR_ERROR_INVALID_ARGUMENT, "wr::Scene::adopt: the scene is NULL");
    return Scene(s);
  }

 private:
  explicit Scene(wr_scene s) noexcept : handle_(s) {}
  std::unique_ptr<wr_scene_, detail::SceneRelease> handle_;
};

/// A ray pattern (wr_pattern_create: a grid, a spherical LiDAR pattern, a table or a rosette);
/// owns its wr_pattern.
class Pattern {
 public:
  explicit Pattern(const wr_pattern_desc& desc) {
    wr_pattern p = nullptr;
    detail::check(wr_pattern_create(&desc, &p));
    handle_.reset(p);
  }
  uint32_t num_rays() const {
    uint32_t n = 0;
    detail::check(wr_pattern_num_rays(get(), &n));
    return n;
  }
  /// The rays in the pattern frame: starts and directions, (num_rays x 3) each (either may be NULL).
  void rays(float* starts, float* directions) const { detail::check(wr_pattern_rays(get(), starts, directions)); }
  wr_pattern get() const noexcept { return handle_.get(); }

 private:
  std::unique_ptr<wr_pattern_, detail::PatternRelease> handle_;
};

/// num_envs cameras sharing one description and one scene, or num_envs copies of a pattern sensor
/// (height scanner, LiDAR); owns one reference of a wr_sensor.
class Sensor {
 public:
  /// Creates the sensor (ray template and every buffer render needs); keeps `scene` alive.
  Sensor(const Scene& scene, const wr_camera_desc& desc, uint32_t num_envs = 1) {
    wr_sensor s = nullptr;
    detail::check(wr_sensor_create(scene.get(), &desc, num_envs, &s));
    handle_.reset(s);
  }
  /// A sensor with the RL depth pipeline's options (wr_sensor_create_ex; sensor_options() below).
  Sensor(const Scene& scene, const wr_camera_desc& desc, const wr_sensor_options& options, uint32_t num_envs) {
    wr_sensor s = nullptr;
    detail::check(wr_sensor_create_ex(scene.get(), &desc, &options, num_envs, &s));
    handle_.reset(s);
  }
  /// A pattern sensor (wr_sensor_create_pattern): `pattern` (copied) with `desc`; out is
  /// (num_envs x frames x rays), rays the pattern's or a scanning sensor's window.
  Sensor(const Scene& scene, const Pattern& pattern, const wr_ray_sensor_desc& desc, const wr_sensor_options& options,
         uint32_t num_envs) {
    wr_sensor s = nullptr;
    detail::check(wr_sensor_create_pattern(scene.get(), pattern.get(), &desc, &options, num_envs, &s));
    handle_.reset(s);
  }
  /// A pattern sensor's world rays for env `env`'s body pose (and mount, or NULL: the desc's) in
  /// frame `frame`: starts and directions (rays per frame x 3 each), the bits its render traces
  /// (wr_sensor_world_rays).
  void world_rays(const float* body_pose, const float* mount, uint32_t env, uint64_t frame, float* starts,
                  float* directions) const {
    detail::check(wr_sensor_world_rays(get(), body_pose, mount, env, frame, starts, directions));
  }
  /// Renders every env: body_poses (num_envs x 7), out (num_envs x height x width), see wr.h.
  void render(const float* body_poses, float* out, void* stream = nullptr) {
    detail::check(wr_sensor_render(get(), body_poses, out, stream));
  }
  /// Renders through the pipeline (wr_sensor_render_ex; render_args() below).
  void render(const wr_render_args& args) { detail::check(wr_sensor_render_ex(get(), &args)); }
  /// One env's output: width, height, dtype and bytes (wr_sensor_output_shape).
  struct OutputShape {
    uint32_t width = 0, height = 0;
    wr_dtype dtype = WR_DTYPE_FLOAT32;
    uint64_t bytes_per_env = 0;
  };
  OutputShape output_shape() const {
    OutputShape s;
    detail::check(wr_sensor_output_shape(get(), &s.width, &s.height, &s.dtype, &s.bytes_per_env));
    return s;
  }
  /// The camera description as given at creation.
  wr_camera_desc desc() const {
    wr_camera_desc d{};
    d.struct_size = sizeof d;
    detail::check(wr_sensor_desc(get(), &d, nullptr));
    return d;
  }
  /// Number of envs (cameras) the sensor renders.
  uint32_t num_envs() const {
    uint32_t n = 0;
    detail::check(wr_sensor_desc(get(), nullptr, &n));
    return n;
  }
  /// Floats a render writes: num_envs * height * width.
  std::size_t depth_size() const {
    wr_camera_desc d{};
    d.struct_size = sizeof d;
    uint32_t n = 0;
    detail::check(wr_sensor_desc(get(), &d, &n));
    return std::size_t(n) * d.height * d.width;
  }
  /// Rays that overflowed the fixed traversal stack since creation (still exact; see wr.h).
  uint64_t stack_overflows() const {
    uint64_t n = 0;
    detail::check(wr_sensor_stack_overflows(get(), &n));
    return n;
  }
  /// Bytes the sensor holds beyond its scene (ray template, counters), host and device.
  wr_memory_stats memory() const {
    wr_memory_stats m{};
    detail::check(wr_sensor_memory(get(), &m));
    return m;
  }
  /// The raw handle, still owned by this object (NULL once moved from).
  wr_sensor get() const noexcept { return handle_.get(); }

 private:
  std::unique_ptr<wr_sensor_, detail::SensorRelease> handle_;
};

/// Sets desc's mount rotation from pitch (positive down), yaw and roll in degrees, in desc's
/// quat_order (wr_camera_desc_set_mount_angles).
inline void set_mount_angles(wr_camera_desc& desc, float pitch_deg, float yaw_deg, float roll_deg) {
  detail::check(wr_camera_desc_set_mount_angles(&desc, pitch_deg, yaw_deg, roll_deg));
}

/// Every pipeline option off (wr_sensor_options_init).
inline wr_sensor_options sensor_options() {
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  return o;
}

/// Render arguments with the poses and the output (its size in bytes) set, the rest off.
inline wr_render_args render_args(const float* body_poses, void* out, uint64_t out_bytes) {
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = body_poses;
  a.out = out;
  a.out_bytes = out_bytes;
  return a;
}

/// A pattern desc of `kind` with wr_pattern_desc_init's defaults (a grid: 0.1 m, straight down).
inline wr_pattern_desc pattern_desc(wr_pattern_kind kind) {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = kind;
  return d;
}

/// A ray sensor desc with wr_ray_sensor_desc_init's defaults (base alignment, distances to +inf).
inline wr_ray_sensor_desc ray_sensor_desc() {
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  return d;
}

/// A pinhole description with square pixels and the defaults of wr_camera_desc_pinhole; throws
/// wr::Error for a zero size or a horizontal FOV outside [1, 180) degrees.
inline wr_camera_desc pinhole(uint32_t width, uint32_t height, float hfov_degrees) {
  wr_camera_desc d{};
  detail::check(wr_camera_desc_pinhole(&d, width, height, hfov_degrees));
  return d;
}

}  // namespace wr

#endif  // WR_WR_HPP
