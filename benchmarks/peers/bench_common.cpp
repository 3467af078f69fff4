// See bench_common.h.
#include "bench_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <tiny_obj_loader.h>

namespace wr_bench {

namespace {
const char* program_name = "wr-bench-vs-embree";
}  // namespace

void set_program_name(const char* name) { program_name = name; }

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program_name, message.c_str());
  std::exit(1);
}

void wr_ok(wr_status status, const char* call, int line) {
  if (status == WR_SUCCESS) return;
  die("line " + std::to_string(line) + ": " + call + " failed: " + wr_status_string(status) + ": " + wr_last_error());
}

Stats summarize(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const size_t mid = s.size() / 2;
  return Stats{s.size() % 2 ? s[mid] : 0.5 * (s[mid - 1] + s[mid]), s.front(), s.back()};
}

Mesh read_obj(const std::string& path) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config)) die("cannot read " + path + ": " + reader.Error());
  Mesh m;
  m.vertices = reader.GetAttrib().vertices;
  for (const tinyobj::shape_t& shape : reader.GetShapes())
    for (const tinyobj::index_t& idx : shape.mesh.indices) {
      if (idx.vertex_index < 0 || size_t(idx.vertex_index) >= m.num_vertices())
        die(path + ": vertex index out of range");
      m.indices.push_back(uint32_t(idx.vertex_index));
    }
  if (m.indices.empty() || m.indices.size() % 3) die(path + ": no triangles");
  return m;
}

Eigen::Quaternionf yaw_pitch(double yaw, double pitch) {
  // Pitch about the body's +Y after the yaw; positive pitch turns +X (forward) toward -Z (down).
  return Eigen::Quaternionf(
      (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()))
          .cast<float>());
}

wr_camera_desc peer_camera_desc(uint32_t width, uint32_t height, float far_clip) {
  wr_camera_desc desc;
  WR_OK(wr_camera_desc_pinhole(&desc, width, height, 87.0f));
  desc.depth_kind = WR_DEPTH_RANGE;
  desc.far_clip = far_clip;
  desc.miss_value = kInf;
  const Eigen::Quaternionf mount = yaw_pitch(0.0, 30.0 * kPi / 180.0);
  desc.mount_position[0] = 0.1f, desc.mount_position[1] = 0.0f, desc.mount_position[2] = 0.05f;
  desc.mount_rotation[0] = mount.w(), desc.mount_rotation[1] = mount.x();
  desc.mount_rotation[2] = mount.y(), desc.mount_rotation[3] = mount.z();
  return desc;
}

// (n x 7) body poses (x, y, z, w, qx, qy, qz).
std::vector<float> make_poses(wr_scene scene, uint32_t n, uint32_t seed) {
  float lo[3], hi[3];
  WR_OK(wr_scene_bounds(scene, lo, hi));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> origins(3 * size_t(n)), dirs(3 * size_t(n)), t(n);
  for (uint32_t i = 0; i < n; ++i) {
    origins[3 * i] = float(lo[0] + (0.05 + 0.9 * unit(rng)) * (hi[0] - lo[0]));
    origins[3 * i + 1] = float(lo[1] + (0.05 + 0.9 * unit(rng)) * (hi[1] - lo[1]));
    origins[3 * i + 2] = hi[2] + 1.0f;
    dirs[3 * i + 2] = -1.0f;
  }
  WR_OK(wr_scene_intersect(scene, origins.data(), dirs.data(), nullptr, n, t.data(), nullptr, nullptr));
  std::vector<float> poses(7 * size_t(n));
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[7 * size_t(i)];
    const float ground = std::isfinite(t[i]) ? origins[3 * i + 2] - t[i] : lo[2];
    p[0] = origins[3 * i];
    p[1] = origins[3 * i + 1];
    p[2] = ground + float(0.35 + 0.3 * unit(rng));
    const Eigen::Quaternionf q = yaw_pitch(2.0 * kPi * unit(rng), (unit(rng) - 0.5) * 10.0 * kPi / 180.0);
    p[3] = q.w(), p[4] = q.x(), p[5] = q.y(), p[6] = q.z();
  }
  return poses;
}

}  // namespace wr_bench
