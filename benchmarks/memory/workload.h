// The workload every strategy renders: the bundled terrain, one 106 x 60 depth camera model
// (87 degrees horizontal FOV, plane depth, no clipping), and random camera poses above the
// terrain, the same for every strategy and every measurement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <wr/wr.h>

#include "buffer.h"

namespace wrbench {

struct Workload {
  std::string obj_path;
  uint32_t width = 106, height = 60;  // extreme-parkour's depth camera (Cheng et al., ICRA 2024)
  float hfov_degrees = 87.0f;
  float pitch_degrees = 30.0f;  // below the horizon
  float camera_height = 0.4f;   // metres above the ground under the camera
  uint64_t seed = 2026;
  uint32_t threads = 0;  // CPU context threads (0: one per hardware thread)
  int ordinal = 0;       // CUDA device
  uint32_t rays() const { return width * height; }
};

/// Exits the program naming `call` and wr_last_error() when status is not WR_SUCCESS.
void wr_check(wr_status status, const char* call);
#define WR_CHECK(call) ::wrbench::wr_check((call), #call)

/// The camera of every strategy: a pinhole with the workload's size and FOV, plane depth,
/// near 0, far +inf, miss +inf (wr_camera_desc_pinhole's defaults), identity mount: a body
/// pose is the camera pose.
wr_camera_desc camera_desc(const Workload& w);

/// Camera-frame unit directions of the template, (rays x 3), through pixel centres,
/// d = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy), computed in double and
/// rounded once as the library computes its template. For plane depth, depth = t * d.x.
std::vector<float> camera_ray_directions(const wr_camera_desc& desc);

/// A context on the host (CPU thread pool) or the device (CUDA; its primary context made
/// current and created before returning). Exits on failure.
wr_context create_context(Space space, const Workload& w);

/// (count x 7) camera poses, position + quaternion (w, x, y, z): x, y uniform over the inner
/// 80% of the scene's footprint, camera_height above the ground there, random yaw, pitched
/// down by pitch_degrees. The ground is found by the library itself, as apps/wr_demo.cpp
/// does: one render of a 1x1 range-depth sensor per point, looking straight down from 1 m
/// above the scene (where it misses, the scene's lowest z stands in).
std::vector<float> place_cameras(wr_scene scene, Space space, void* stream, uint32_t count, const Workload& w);

}  // namespace wrbench
