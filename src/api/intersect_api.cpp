// The C API's explicit rays (wr_intersect.h): wr_scene_intersect and wr_scene_intersect_ex,
// their checks at the boundary and one call into the scene's device.
#include <cstring>
#include <string>

#include <wr/wr.h>

#include "api/api_guard.h"
#include "api/handles.h"
#include "api/scene_checks.h"
#include "api/sized_struct.h"

using wr::api_guard;
using wr::fail;
using wr::require_array;
using wr::require_element_aligned;
using wr::require_non_null;
using wr_api::require_no_instance_poses;

namespace {

// The checks every explicit-ray call makes (null, alignment, count) and the call itself.
void intersect(const char* fn, wr_scene scene, const wr::ExplicitRays& rays, void* stream) {
  require_array(fn, rays.origins, "origins");
  require_array(fn, rays.directions, "directions");
  if (rays.tmax) require_element_aligned(fn, rays.tmax, "tmax");
  require_array(fn, rays.out_t, "out_t");
  if (rays.out_triangle) require_element_aligned(fn, rays.out_triangle, "out_triangle");
  if (rays.out_instance) require_element_aligned(fn, rays.out_instance, "out_instance");
  if (rays.count == 0) fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": count is 0: must be at least 1");
  if (rays.count > (1ull << 40))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": count = " + std::to_string(rays.count) + " exceeds 2^40 rays");
  scene->terrain_device().intersect(fn, wr::IntersectCall{rays, stream});
}

}  // namespace

extern "C" {

wr_status wr_scene_intersect(wr_scene scene, const float* origins, const float* directions, const float* tmax,
                             uint64_t count, float* out_t, uint32_t* out_triangle, void* stream) {
  const char* fn = "wr_scene_intersect";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_no_instance_poses(fn, scene, "wr_scene_intersect_ex with args->instance_poses / global_poses");
    wr::ExplicitRays rays{};
    rays.origins = origins;
    rays.directions = directions;
    rays.tmax = tmax;
    rays.count = count;
    rays.rays_per_env = count ? count : 1;
    rays.out_t = out_t;
    rays.out_triangle = out_triangle;
    intersect(fn, scene, rays, stream);
  });
}

wr_status wr_scene_intersect_ex(wr_scene scene, const wr_intersect_args* args_in) {
  const char* fn = "wr_scene_intersect_ex";
  return api_guard(fn, [&] {
    require_non_null(fn, scene, "scene");
    require_non_null(fn, args_in, "args");
    const wr_intersect_args a = wr::read_sized_struct(fn, args_in, "args");
    const uint32_t envs = a.num_envs ? a.num_envs : 1u;
    if (a.count % envs != 0)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": args->count = " + std::to_string(a.count) +
                                          " is not a multiple of args->num_envs = " + std::to_string(envs));
    int order;
    std::memcpy(&order, &a.quat_order, sizeof order);
    if (order != WR_QUAT_WXYZ && order != WR_QUAT_XYZW)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": args->quat_order = " + std::to_string(order) +
                                          ": must be WR_QUAT_WXYZ (0) or WR_QUAT_XYZW (1)");
    wr::ExplicitRays rays{};
    rays.origins = a.origins;
    rays.directions = a.directions;
    rays.tmax = a.tmax;
    rays.count = a.count;
    rays.instances = scene->instances_view();
    if (rays.instances.num_slots) require_array(fn, a.instance_poses, "args->instance_poses");
    if (rays.instances.num_globals) require_array(fn, a.global_poses, "args->global_poses");
    rays.instance_poses = rays.instances.num_slots ? a.instance_poses : nullptr;
    rays.global_poses = rays.instances.num_globals ? a.global_poses : nullptr;
    rays.quat_order = order == WR_QUAT_XYZW ? wr::kQuatXYZW : wr::kQuatWXYZ;
    rays.exclude_groups = a.exclude_groups;
    rays.rays_per_env = a.count / envs ? a.count / envs : 1;
    rays.out_t = a.out_t;
    rays.out_triangle = a.out_triangle;
    rays.out_instance = a.out_instance;
    intersect(fn, scene, rays, a.stream);
  });
}

}  // extern "C"
