// The C API: argument checks at the boundary, handles with reference counts, and error
// capture (api_guard.h). Each function either succeeds or leaves every object as it was.
#include <cstring>
#include <iterator>
#include <string>

#include <wr/wr.h>

#include "api/api_guard.h"
#include "errors/field_checks.h"
#include "api/sized_struct.h"
#include "api/handles.h"
#include "api/scene_checks.h"
#include "scene/heightfield.h"
#include "scene/obj_loader.h"
#include "sensor/render_call.h"
#include "sensor/world_rays.h"

using wr::api_guard;
using wr::fail;
using wr::require_array;
using wr::require_element_aligned;
using wr::require_non_null;
using wr_api::require_no_instance_poses;

namespace {

template <class Handle>
void retain(Handle h) {
  h->refs.fetch_add(1, std::memory_order_relaxed);
}

template <class Handle>
bool drop(Handle h) {  // true when this was the last reference
  return h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

// A context around the device that make() returns.
template <class Make>
wr_status create_context(const char* function, wr_context* out, Make&& make) {
  return api_guard(function, [&] {
    require_non_null(function, out, "out");
    auto context = std::make_unique<wr_context_>();
    context->device = make();
    *out = context.release();
  });
}

// Each env's pose and output live in the caller's buffers; what the library holds per env is
// what the sensor's options imply (the pipeline's history, CUDA's camera images: their tags), the
// same for every env. A scene holds nothing per env (num_envs 0).
wr_memory_stats memory_stats(const wr::MemoryLedger& ledger, uint32_t num_envs) {
  wr_memory_stats stats{};
  stats.host_bytes = ledger.total(wr::MemorySpace::kHost);
  stats.device_bytes = ledger.total(wr::MemorySpace::kDevice);
  uint64_t per_env_total = 0;
  for (wr::MemoryTag tag : {wr::MemoryTag::kHistory, wr::MemoryTag::kCameraImages})
    per_env_total += ledger.bytes(wr::MemorySpace::kHost, tag) + ledger.bytes(wr::MemorySpace::kDevice, tag);
  stats.per_env_bytes = num_envs ? per_env_total / num_envs : 0;
  stats.shared_bytes = stats.host_bytes + stats.device_bytes - per_env_total;
  return stats;
}

void memory_of_tag(const char* fn, const wr::MemoryLedger& ledger, wr_memory_tag tag, uint64_t* out_host_bytes,
                   uint64_t* out_device_bytes) {
  int value;
  std::memcpy(&value, &tag, sizeof value);
  if (value < 0 || value >= WR_MEMORY_TAG_COUNT)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": tag = " + std::to_string(value) + ": must be in [0, " +
                                        std::to_string(int(WR_MEMORY_TAG_COUNT)) + ")");
  if (!out_host_bytes && !out_device_bytes)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": out_host_bytes and out_device_bytes are both NULL");
  const auto t = static_cast<wr::MemoryTag>(value);
  if (out_host_bytes) *out_host_bytes = ledger.bytes(wr::MemorySpace::kHost, t);
  if (out_device_bytes) *out_device_bytes = ledger.bytes(wr::MemorySpace::kDevice, t);
}

// A scene whose own terrain make_terrain(build options) returns.
template <class Make>
wr_status create_scene(const char* function, wr_context context, wr_scene* out, Make&& make_terrain) {
  return api_guard(function, [&] {
    require_non_null(function, context, "context");
    require_non_null(function, out, "out");
    auto scene = std::make_unique<wr_scene_>();
    scene->own_terrain = make_terrain(context->device->bvh_build_options());
    scene->own_terrain_device = context->device->create_scene(function, *scene->own_terrain);
    // The handle and the SceneTerrain object are the scene's too (operator new'd right here).
    scene->own_terrain->ledger().add(wr::MemorySpace::kHost, wr::MemoryTag::kObjects,
                                     sizeof(wr_scene_) + sizeof(wr::SceneTerrain));
    retain(context);
    scene->context = context;
    *out = scene.release();
  });
}

wr_status create_scene(const char* function, wr_context context, const float* vertices, uint64_t num_vertices,
                       const uint32_t* indices, uint64_t num_triangles, wr_scene* out) {
  return create_scene(function, context, out, [&](const wr::BvhBuildOptions& options) {
    return std::make_unique<wr::SceneTerrain>(function, vertices, num_vertices, indices, num_triangles, options);
  });
}

// The handle of a sensor of `scene` whose host model is `model`, with its device data; it holds a
// reference to the scene.
wr_sensor make_sensor(const char* fn, wr_scene scene, std::unique_ptr<wr::CameraSensor> model) {
  auto sensor = std::make_unique<wr_sensor_>();
  sensor->sensor = std::move(model);
  sensor->device = scene->terrain_device().create_sensor(fn, *sensor->sensor);
  sensor->sensor->ledger().add(wr::MemorySpace::kHost, wr::MemoryTag::kObjects,
                               sizeof(wr_sensor_) + sizeof(wr::CameraSensor));
  retain(scene);
  sensor->scene = scene;
  return sensor.release();
}

wr_status create_sensor(const char* fn, wr_scene scene, const wr_camera_desc* desc, const wr_sensor_options* options,
                        uint32_t num_envs, wr_sensor* out) {
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, desc, "desc");
    require_non_null(fn, out, "out");
    // Read as far as the caller's struct_size reaches (fields past it count as 0).
    const wr_camera_desc d = wr::read_sized_struct(fn, desc, "desc", "wr_camera_desc_pinhole");
    wr_sensor_options o;
    if (options) o = wr::read_sized_struct(fn, options, "options");
    *out = make_sensor(fn, scene,
                       std::make_unique<wr::CameraSensor>(fn, scene->terrain(), d, options ? &o : nullptr, num_envs,
                                                          wr::num_instances(scene->instances_view())));
  });
}

// A pattern sensor, as create_sensor makes a camera.
wr_status create_pattern_sensor(const char* fn, wr_scene scene, wr_pattern pattern, const wr_ray_sensor_desc* desc,
                                const wr_sensor_options* options, uint32_t num_envs, wr_sensor* out) {
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, pattern, "pattern");
    require_non_null(fn, desc, "desc");
    require_non_null(fn, out, "out");
    const wr_ray_sensor_desc d = wr::read_sized_struct(fn, desc, "desc", "wr_ray_sensor_desc_init");
    wr_sensor_options o;
    if (options) o = wr::read_sized_struct(fn, options, "options");
    *out = make_sensor(
        fn, scene,
        std::make_unique<wr::CameraSensor>(fn, scene->terrain(), pattern->pattern, d, options ? &o : nullptr, num_envs,
                                           wr::num_instances(scene->instances_view())));
  });
}

// The one render: both entries fill wr_render_args, and make_render_call derives what it uses.
void render(const char* fn, wr_sensor sensor, const wr_render_args& args, wr::ArgumentsAs as) {
  const wr::CameraSensor& s = *sensor->sensor;
  sensor->device->render(fn, wr::make_render_call(fn, s.pipeline(), s.num_envs(), sensor->scene->instances_view(),
                                                  sensor->scene->terrain().kind(), args, as));
}

}  // namespace

extern "C" {

uint32_t wr_version(void) { return WR_VERSION; }

const char* wr_version_string(void) { return WR_VERSION_STRING; }

wr_status wr_context_create(wr_device device_enum, int ordinal, wr_context* out) {
  const char* fn = "wr_context_create";
  // A C caller may pass any int: read it as one, since an out-of-range enum value is
  // undefined behaviour in C++.
  int device;
  std::memcpy(&device, &device_enum, sizeof device);
  if (device == WR_DEVICE_CPU) return create_context(fn, out, [&] { return wr::make_cpu_backend(fn, 0); });
  if (device == WR_DEVICE_CUDA && ordinal >= 0)
    return create_context(fn, out, [&] { return wr::make_cuda_backend(fn, ordinal); });
  return api_guard(fn, [&] {
    require_non_null(fn, out, "out");
    if (device != WR_DEVICE_CUDA)
      fail(WR_ERROR_INVALID_ARGUMENT,
           std::string(fn) + ": device = " + std::to_string(device) + ": must be WR_DEVICE_CPU or WR_DEVICE_CUDA");
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": ordinal = " + std::to_string(ordinal) + ": must be >= 0");
  });
}

wr_status wr_context_create_cpu(uint32_t num_threads, wr_context* out) {
  const char* fn = "wr_context_create_cpu";
  return create_context(fn, out, [&] { return wr::make_cpu_backend(fn, num_threads); });
}

wr_status wr_context_num_threads(wr_context context, uint32_t* out) {
  const char* fn = "wr_context_num_threads";
  return api_guard(fn, [&] {
    require_non_null(fn, context, "context");
    require_non_null(fn, out, "out");
    *out = context->device->num_threads();
  });
}

wr_status wr_context_set_cpu_path(wr_context context, wr_cpu_path path) {
  const char* fn = "wr_context_set_cpu_path";
  return api_guard(fn, [&] {
    require_non_null(fn, context, "context");
    int value;
    std::memcpy(&value, &path, sizeof value);  // C callers may pass any int
    context->device->set_cpu_path(fn, value);
  });
}

wr_status wr_context_cpu_path(wr_context context, wr_cpu_path* out) {
  const char* fn = "wr_context_cpu_path";
  return api_guard(fn, [&] {
    require_non_null(fn, context, "context");
    require_non_null(fn, out, "out");
    *out = static_cast<wr_cpu_path>(context->device->cpu_path(fn));
  });
}

void wr_context_release(wr_context context) {
  if (context && drop(context)) delete context;
}

wr_status wr_scene_create(wr_context context, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                          uint64_t num_triangles, wr_scene* out) {
  return create_scene("wr_scene_create", context, vertices, num_vertices, indices, num_triangles, out);
}

wr_status wr_scene_load_obj(wr_context context, const char* path, wr_scene* out) {
  const char* fn = "wr_scene_load_obj";
  wr::Mesh mesh;
  const wr_status status = api_guard(fn, [&] {
    require_non_null(fn, context, "context");
    require_non_null(fn, path, "path");
    require_non_null(fn, out, "out");
    mesh = wr::load_obj(path);
  });
  if (status != WR_SUCCESS) return status;
  return create_scene(fn, context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(), mesh.num_triangles(),
                      out);
}

wr_status wr_scene_create_heightfield(wr_context context, const wr_heightfield_desc* desc, wr_scene* out) {
  const char* fn = "wr_scene_create_heightfield";
  return create_scene(fn, context, out, [&](const wr::BvhBuildOptions& options) {
    require_non_null(fn, desc, "desc");
    const wr_heightfield_desc d = wr::read_sized_struct(fn, desc, "desc");
    int terrain;
    std::memcpy(&terrain, &d.terrain, sizeof terrain);  // a C caller may pass any int
    return std::make_unique<wr::SceneTerrain>(fn, d, terrain, options);
  });
}

wr_status wr_scene_create_grid_mesh(wr_context context, const float* vertices, uint64_t num_vertices,
                                    const uint32_t* indices, uint64_t num_triangles, wr_scene* out) {
  const char* fn = "wr_scene_create_grid_mesh";
  return create_scene(fn, context, out, [&](const wr::BvhBuildOptions&) {
    return std::make_unique<wr::SceneTerrain>(wr::SceneTerrain::GridMeshArrays{}, fn, vertices, num_vertices, indices,
                                              num_triangles);
  });
}

// The wr_terrain_kind each kind reports, in core/terrain.h's list's order (WR_TERRAIN_KINDS): a
// grid-topology mesh is a grid.
constexpr wr_terrain_kind kReportedTerrainKind[] = {WR_TERRAIN_BVH, WR_TERRAIN_GRID, WR_TERRAIN_GRID};
static_assert(std::size(kReportedTerrainKind) == wr::kNumTerrainKinds, "one wr_terrain_kind per kind");

wr_status wr_scene_terrain_kind(wr_scene scene, wr_terrain_kind* out) {
  const char* fn = "wr_scene_terrain_kind";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, out, "out");
    *out = kReportedTerrainKind[static_cast<int>(scene->terrain().kind())];
  });
}

wr_status wr_scene_num_triangles(wr_scene scene, uint64_t* out) {
  const char* fn = "wr_scene_num_triangles";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, out, "out");
    *out = scene->terrain().num_triangles();
  });
}

wr_status wr_scene_build_seconds(wr_scene scene, double* out) {
  const char* fn = "wr_scene_build_seconds";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, out, "out");
    *out = scene->terrain().build_seconds();
  });
}

wr_status wr_scene_bounds(wr_scene scene, float* out_min, float* out_max) {
  const char* fn = "wr_scene_bounds";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, out_min, "out_min");
    require_non_null(fn, out_max, "out_max");
    const wr::SceneTerrain& terrain = scene->terrain();
    for (int a = 0; a < 3; ++a) {
      out_min[a] = terrain.bounds_min()[a];
      out_max[a] = terrain.bounds_max()[a];
    }
  });
}

void wr_scene_release(wr_scene scene) {
  if (!scene || !drop(scene)) return;
  wr_context context = scene->context;
  wr_scene terrain = scene->shared_terrain;
  // The table holds only views of the prototypes' BVHs, never read again: they may go first.
  for (wr_scene p : scene->prototypes) wr_scene_release(p);
  delete scene;
  wr_scene_release(terrain);
  wr_context_release(context);
}

wr_status wr_scene_create_instanced(wr_context context, const wr_instanced_scene_desc* desc_in, wr_scene* out) {
  const char* fn = "wr_scene_create_instanced";
  return api_guard(fn, [&] {
    require_non_null(fn, context, "context");
    require_non_null(fn, desc_in, "desc");
    require_non_null(fn, out, "out");
    const wr_instanced_scene_desc d = wr::read_sized_struct(fn, desc_in, "desc");
    // A scene of this context without instances (one level of instancing).
    auto mesh_scene = [&](wr_scene s, const std::string& name) {
      if (!s) wr::bad_field(fn, name, "is NULL");
      if (s->instances) wr::bad_field(fn, name, "is an instanced scene: instances are of mesh scenes");
      if (s->context != context) wr::bad_field(fn, name, "belongs to another context");
    };
    mesh_scene(d.terrain, "desc->terrain");
    if (d.num_prototypes) require_array(fn, d.prototypes, "desc->prototypes");
    for (uint32_t i = 0; i < d.num_prototypes; ++i) {
      const std::string name = "desc->prototypes[" + std::to_string(i) + "]";
      mesh_scene(d.prototypes[i], name);
      // A prototype is traced in its own frame through its BVH (core/instances.h).
      if (!d.prototypes[i]->terrain().is<wr::BvhTerrain>())
        wr::bad_field(fn, name,
                      "is a grid terrain: prototypes are traced through their BVH (a height field's with "
                      "desc->terrain = WR_TERRAIN_BVH)");
    }
    auto scene = std::make_unique<wr_scene_>();
    scene->instances = std::make_unique<wr::InstanceTable>(fn, d);
    for (uint32_t i = 0; i < d.num_prototypes; ++i)
      scene->instances->set_prototype(i, d.prototypes[i]->terrain_device().device_view().bvh);
    scene->prototypes = wr::TrackedVector<wr_scene>(
        wr::TrackedAllocator<wr_scene>(&scene->instances->ledger(), wr::MemoryTag::kInstanceTable));
    scene->prototypes.assign(d.prototypes, d.prototypes + d.num_prototypes);
    scene->instances_device = context->device->create_instances(fn, *scene->instances);
    scene->instances->ledger().add(wr::MemorySpace::kHost, wr::MemoryTag::kObjects,
                                   sizeof(wr_scene_) + sizeof(wr::InstanceTable));
    // Nothing can fail past here: the references are taken.
    retain(context);
    scene->context = context;
    retain(d.terrain);
    scene->shared_terrain = d.terrain;
    for (wr_scene p : scene->prototypes) retain(p);
    *out = scene.release();
  });
}

wr_status wr_scene_instance_counts(wr_scene scene, uint32_t* out_num_slots, uint32_t* out_num_globals) {
  const char* fn = "wr_scene_instance_counts";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    if (!out_num_slots && !out_num_globals)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": out_num_slots and out_num_globals are both NULL");
    const wr::InstanceView v = scene->instances_view();
    if (out_num_slots) *out_num_slots = v.num_slots;
    if (out_num_globals) *out_num_globals = v.num_globals;
  });
}

wr_status wr_sensor_create(wr_scene scene, const wr_camera_desc* desc, uint32_t num_envs, wr_sensor* out) {
  return create_sensor("wr_sensor_create", scene, desc, nullptr, num_envs, out);
}

wr_status wr_sensor_create_ex(wr_scene scene, const wr_camera_desc* desc, const wr_sensor_options* options,
                              uint32_t num_envs, wr_sensor* out) {
  return create_sensor("wr_sensor_create_ex", scene, desc, options, num_envs, out);
}

wr_status wr_sensor_render(wr_sensor sensor, const float* body_poses, float* depth_out, void* stream) {
  const char* fn = "wr_sensor_render";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    require_array(fn, body_poses, "body_poses");
    require_array(fn, depth_out, "depth_out");
    require_no_instance_poses(fn, sensor->scene, "wr_sensor_render_ex with args->instance_poses / global_poses");
    // The sensor's pipeline (if any), frame 0, nothing per env; depth_out of its output's size.
    wr_render_args args;
    wr_render_args_init(&args);
    args.body_poses = body_poses;
    args.out = depth_out;
    args.out_bytes = uint64_t(sensor->sensor->num_envs()) * sensor->sensor->pipeline().out_bytes_per_env;
    args.stream = stream;
    render(fn, sensor, args, wr::ArgumentsAs::kParameters);
  });
}

wr_status wr_sensor_render_ex(wr_sensor sensor, const wr_render_args* args_in) {
  const char* fn = "wr_sensor_render_ex";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    require_non_null(fn, args_in, "args");
    render(fn, sensor, wr::read_sized_struct(fn, args_in, "args"), wr::ArgumentsAs::kArgsStruct);
  });
}

wr_status wr_sensor_output_shape(wr_sensor sensor, uint32_t* out_width, uint32_t* out_height, wr_dtype* out_dtype,
                                 uint64_t* out_bytes_per_env) {
  const char* fn = "wr_sensor_output_shape";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    const wr::SensorPipeline& pipeline = sensor->sensor->pipeline();
    if (out_width) *out_width = pipeline.out_width;
    if (out_height) *out_height = pipeline.out_height;
    if (out_dtype) *out_dtype = static_cast<wr_dtype>(pipeline.params.output.dtype);
    if (out_bytes_per_env) *out_bytes_per_env = pipeline.out_bytes_per_env;
  });
}

wr_status wr_sensor_desc(wr_sensor sensor, wr_camera_desc* out_desc, uint32_t* out_num_envs) {
  const char* fn = "wr_sensor_desc";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    if (!out_desc && !out_num_envs)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": out_desc and out_num_envs are both NULL");
    if (out_desc)
      wr::write_sized_struct(fn, out_desc, sensor->sensor->desc(), "out_desc", "the caller: sizeof(wr_camera_desc)");
    if (out_num_envs) *out_num_envs = sensor->sensor->num_envs();
  });
}

wr_status wr_sensor_stack_overflows(wr_sensor sensor, uint64_t* out) {
  const char* fn = "wr_sensor_stack_overflows";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    require_non_null(fn, out, "out");
    *out = sensor->device->stack_overflows(fn);
  });
}

wr_status wr_scene_memory(wr_scene scene, wr_memory_stats* out) {
  const char* fn = "wr_scene_memory";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, out, "out");
    wr::MemoryLedger own;
    scene->add_own_bytes(&own);
    *out = memory_stats(own, 0);
  });
}

wr_status wr_sensor_memory(wr_sensor sensor, wr_memory_stats* out) {
  const char* fn = "wr_sensor_memory";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    require_non_null(fn, out, "out");
    *out = memory_stats(sensor->sensor->ledger(), sensor->sensor->num_envs());
  });
}

wr_status wr_scene_memory_tag(wr_scene scene, wr_memory_tag tag, uint64_t* out_host_bytes, uint64_t* out_device_bytes) {
  const char* fn = "wr_scene_memory_tag";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    wr::MemoryLedger own;
    scene->add_own_bytes(&own);
    memory_of_tag(fn, own, tag, out_host_bytes, out_device_bytes);
  });
}

wr_status wr_sensor_memory_tag(wr_sensor sensor, wr_memory_tag tag, uint64_t* out_host_bytes,
                               uint64_t* out_device_bytes) {
  const char* fn = "wr_sensor_memory_tag";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    memory_of_tag(fn, sensor->sensor->ledger(), tag, out_host_bytes, out_device_bytes);
  });
}

wr_status wr_pattern_create(const wr_pattern_desc* desc, wr_pattern* out) {
  const char* fn = "wr_pattern_create";
  return api_guard(fn, [&] {
    require_non_null(fn, desc, "desc");
    require_non_null(fn, out, "out");
    const wr_pattern_desc d = wr::read_sized_struct(fn, desc, "desc", "wr_pattern_desc_init");
    auto pattern = std::make_unique<wr_pattern_>();
    pattern->pattern = wr::make_ray_pattern(fn, d);
    *out = pattern.release();
  });
}

wr_status wr_pattern_num_rays(wr_pattern pattern, uint32_t* out) {
  const char* fn = "wr_pattern_num_rays";
  return api_guard(fn, [&] {
    require_non_null(fn, pattern, "pattern");
    require_non_null(fn, out, "out");
    *out = pattern->pattern.num_rays();
  });
}

wr_status wr_pattern_rays(wr_pattern pattern, float* starts, float* directions) {
  const char* fn = "wr_pattern_rays";
  return api_guard(fn, [&] {
    require_non_null(fn, pattern, "pattern");
    if (starts) require_element_aligned(fn, starts, "starts");
    if (directions) require_element_aligned(fn, directions, "directions");
    const wr::RayPattern& p = pattern->pattern;
    if (starts) std::memcpy(starts, p.starts.data(), p.starts.size() * sizeof(float));
    if (directions) std::memcpy(directions, p.directions.data(), p.directions.size() * sizeof(float));
  });
}

void wr_pattern_release(wr_pattern pattern) { delete pattern; }

wr_status wr_sensor_create_pattern(wr_scene scene, wr_pattern pattern, const wr_ray_sensor_desc* desc,
                                   const wr_sensor_options* options, uint32_t num_envs, wr_sensor* out) {
  return create_pattern_sensor("wr_sensor_create_pattern", scene, pattern, desc, options, num_envs, out);
}

wr_status wr_sensor_world_rays(wr_sensor sensor, const float* body_pose, const float* mount, uint32_t env,
                               uint64_t frame, float* starts, float* directions) {
  const char* fn = "wr_sensor_world_rays";
  return api_guard(fn, [&] {
    require_non_null(fn, sensor, "sensor");
    require_array(fn, body_pose, "body_pose");
    if (mount) require_element_aligned(fn, mount, "mount");
    require_array(fn, starts, "starts");
    require_array(fn, directions, "directions");
    wr::sensor_world_rays(fn, *sensor->sensor, body_pose, mount, env, frame, starts, directions);
  });
}

void wr_sensor_release(wr_sensor sensor) {
  if (!sensor || !drop(sensor)) return;
  wr_scene scene = sensor->scene;
  delete sensor;
  wr_scene_release(scene);
}

}  // extern "C"

// wr.h's wr_memory_tag and the ledger's MemoryTag are one list.
static_assert(int(wr::MemoryTag::kObjects) == WR_MEMORY_OBJECTS &&
                  int(wr::MemoryTag::kBvhNodes) == WR_MEMORY_BVH_NODES &&
                  int(wr::MemoryTag::kBvhTriangles) == WR_MEMORY_BVH_TRIANGLES &&
                  int(wr::MemoryTag::kBvhParents) == WR_MEMORY_BVH_PARENTS &&
                  int(wr::MemoryTag::kRayTemplate) == WR_MEMORY_RAY_TEMPLATE &&
                  int(wr::MemoryTag::kCounters) == WR_MEMORY_COUNTERS &&
                  int(wr::MemoryTag::kBuildScratch) == WR_MEMORY_BUILD_SCRATCH &&
                  int(wr::MemoryTag::kHistory) == WR_MEMORY_HISTORY &&
                  int(wr::MemoryTag::kCameraImages) == WR_MEMORY_CAMERA_IMAGES &&
                  int(wr::MemoryTag::kRenderScratch) == WR_MEMORY_RENDER_SCRATCH &&
                  int(wr::MemoryTag::kInstanceTable) == WR_MEMORY_INSTANCE_TABLE &&
                  int(wr::MemoryTag::kCount) == WR_MEMORY_TAG_COUNT,
              "wr.h's wr_memory_tag and the ledger's MemoryTag are out of step");
