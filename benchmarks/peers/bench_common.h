// The peer programs (wr-bench-vs-embree, wr-bench-instances-vs-embree), shared by both sides:
// fatal errors (a benchmark has nothing to recover, it reports and exits 1), the clock and the
// median/min/max of repetitions, the mesh read once from the OBJ, the camera and the body poses
// every engine renders.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "triangle_mesh.h"

#include <wr/wr.h>

namespace wr_bench {

constexpr double kPi = 3.14159265358979323846;
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- error handling: a benchmark has nothing to recover, it reports and exits 1 -------------

// The name die() prefixes its message with (default "wr-bench-vs-embree"); set by main.
void set_program_name(const char* name);
[[noreturn]] void die(const std::string& message);

// die()s naming the call, its source line, status and wr_last_error() unless status is WR_SUCCESS.
void wr_ok(wr_status status, const char* call, int line);
#define WR_OK(call) ::wr_bench::wr_ok((call), #call, __LINE__)

// ---- timing ----------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Stats {
  double median = 0, min = 0, max = 0;  // seconds
};
Stats summarize(std::vector<double> s);

// ---- the mesh, read once --------------------------------------------------------------------

using Mesh = wr_tools::TriangleMesh;  // tools/common/triangle_mesh.h

// Every shape merged into one mesh, polygons fan-triangulated by tinyobjloader.
Mesh read_obj(const std::string& path);

// ---- the camera --------------------------------------------------------------------------------

// The peers' camera at width x height: 87 deg horizontal FOV, mounted 0.1 m ahead of and 0.05 m
// above the body's origin, pitched 30 deg down; range depth (the ray's t, as Embree's tfar),
// misses +inf, far clip far_clip.
wr_camera_desc peer_camera_desc(uint32_t width, uint32_t height, float far_clip);

// ---- poses ------------------------------------------------------------------------------------

// Yaw about world +Z, then pitch about the body's +Y; positive pitch turns +X (forward) toward -Z
// (down).
Eigen::Quaternionf yaw_pitch(double yaw, double pitch);

// (n x 7) body poses (x, y, z, w, qx, qy, qz): random (x, y) inside the scene's bounds, 0.35-0.65 m
// above the ground found with wr_scene_intersect, random yaw, +-5 deg pitch jitter.
std::vector<float> make_poses(wr_scene scene, uint32_t n, uint32_t seed);

}  // namespace wr_bench
