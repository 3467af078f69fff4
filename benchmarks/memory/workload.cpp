#include "workload.h"

#include <cmath>
#include <cstdio>

#include "child_process.h"
#include "splitmix64.h"

namespace wrbench {
namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

void wr_check(wr_status status, const char* call) {
  if (status != WR_SUCCESS) die("%s failed: %s: %s", call, wr_status_string(status), wr_last_error());
}

wr_camera_desc camera_desc(const Workload& w) {
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, w.width, w.height, w.hfov_degrees);
  return desc;
}

std::vector<float> camera_ray_directions(const wr_camera_desc& desc) {
  std::vector<float> dirs(size_t(desc.width) * desc.height * 3);  // (rays x 3)
  for (uint32_t v = 0; v < desc.height; ++v)
    for (uint32_t u = 0; u < desc.width; ++u) {
      const double y = -((u + 0.5) - desc.cx) / desc.fx;
      const double z = -((v + 0.5) - desc.cy) / desc.fy;
      const double inv_norm = 1.0 / std::sqrt(1.0 + y * y + z * z);
      float* d = &dirs[3 * (size_t(v) * desc.width + u)];
      d[0] = float(inv_norm), d[1] = float(y * inv_norm), d[2] = float(z * inv_norm);
    }
  return dirs;
}

wr_context create_context(Space space, const Workload& w) {
  wr_context context = nullptr;
  if (space == Space::kHost) {
    WR_CHECK(wr_context_create_cpu(w.threads, &context));
  } else {
    WR_CHECK(wr_context_create(WR_DEVICE_CUDA, w.ordinal, &context));
    open_cuda_device(w.ordinal);
  }
  return context;
}

std::vector<float> place_cameras(wr_scene scene, Space space, void* stream, uint32_t count, const Workload& w) {
  float lo[3], hi[3];
  WR_CHECK(wr_scene_bounds(scene, lo, hi));
  wr_tools::SplitMix64 rng{w.seed};
  std::vector<float> poses(size_t(count) * 7);        // (count x 7), the result
  std::vector<float> probe_poses(size_t(count) * 7);  // (count x 7), 1 m above the scene
  const float top = hi[2] + 1.0f;
  for (uint32_t i = 0; i < count; ++i) {
    float* p = &poses[7 * size_t(i)];
    p[0] = float(rng.uniform(lo[0] + 0.1 * (hi[0] - lo[0]), hi[0] - 0.1 * (hi[0] - lo[0])));
    p[1] = float(rng.uniform(lo[1] + 0.1 * (hi[1] - lo[1]), hi[1] - 0.1 * (hi[1] - lo[1])));
    // q = yaw about +Z, then pitch about the new +Y (positive looks down): (w, x, y, z).
    const double yaw = rng.uniform(-kPi, kPi), pitch = w.pitch_degrees * kPi / 180.0;
    const double cz = std::cos(yaw / 2), sz = std::sin(yaw / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
    p[3] = float(cz * cp), p[4] = float(-sz * sp), p[5] = float(cz * sp), p[6] = float(sz * cp);
    float* q = &probe_poses[7 * size_t(i)];
    q[0] = p[0], q[1] = p[1], q[2] = top, q[3] = 1, q[4] = q[5] = q[6] = 0;
  }

  // The probe: one pixel whose optical axis (+X) is turned to -Z by a +90 degree pitch mount.
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 1, 1, 10.0f);
  desc.depth_kind = WR_DEPTH_RANGE;
  desc.mount_rotation[0] = float(std::sqrt(0.5)), desc.mount_rotation[2] = float(std::sqrt(0.5));
  wr_sensor probe = nullptr;
  WR_CHECK(wr_sensor_create(scene, &desc, count, &probe));
  Buffer pose_buffer(space, probe_poses.size() * sizeof(float)), depth_buffer(space, count * sizeof(float));
  pose_buffer.upload(probe_poses.data(), pose_buffer.bytes());
  WR_CHECK(wr_sensor_render(probe, pose_buffer.as<float>(), depth_buffer.as<float>(), stream));
  synchronize(space, stream);
  std::vector<float> depth(count);
  depth_buffer.download(depth.data(), depth_buffer.bytes());
  wr_sensor_release(probe);

  for (uint32_t i = 0; i < count; ++i) {
    const float ground = std::isfinite(depth[i]) ? top - depth[i] : lo[2];
    poses[7 * size_t(i) + 2] = ground + w.camera_height;
  }
  return poses;
}

}  // namespace wrbench
