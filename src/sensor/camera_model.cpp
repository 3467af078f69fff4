#include "sensor/camera_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/api_guard.h"
#include "common/field_checks.h"
#include "common/status_error.h"

namespace wr {

void validate_camera_desc(const char* function, const wr_camera_desc& d) {
  if (d.width == 0) bad_field(function, "desc->width", "is 0: must be at least 1");
  if (d.height == 0) bad_field(function, "desc->height", "is 0: must be at least 1");
  // Below 2^31 each: both backends compute pixel coordinates in 32 bits as a tile's corner plus
  // its side (cpu_render.cpp, kernels/warp_tiles.h), which near 2^32 would wrap around and skip
  // the image's last tiles.
  constexpr uint32_t kMaxSide = (1u << 31) - 1;
  if (d.width > kMaxSide) bad_field(function, "desc->width", "= " + std::to_string(d.width) + ": must be below 2^31");
  if (d.height > kMaxSide) bad_field(function, "desc->height", "= " + std::to_string(d.height) + ": must be below 2^31");
  require_positive_field(function, "desc->fx", d.fx);
  require_positive_field(function, "desc->fy", d.fy);
  require_finite_field(function, "desc->cx", d.cx);
  require_finite_field(function, "desc->cy", d.cy);
  require_non_negative_field(function, "desc->near_clip", d.near_clip);
  if (!(d.far_clip > d.near_clip))
    bad_field(function, "desc->far_clip", "= " + num(d.far_clip) + ": must be greater than near_clip (" + num(d.near_clip) +
                                        "); use +infinity for no limit");
  // A C caller may store any int in these enums: read them as ints (an out-of-range enum
  // value is undefined behaviour in C++).
  int kind, order;
  std::memcpy(&kind, &d.depth_kind, sizeof kind);
  std::memcpy(&order, &d.quat_order, sizeof order);
  if (kind != WR_DEPTH_PLANE && kind != WR_DEPTH_RANGE)
    bad_field(function, "desc->depth_kind", "= " + std::to_string(kind) + ": must be WR_DEPTH_PLANE or WR_DEPTH_RANGE");
  if (order != WR_QUAT_WXYZ && order != WR_QUAT_XYZW)
    bad_field(function, "desc->quat_order", "= " + std::to_string(order) + ": must be WR_QUAT_WXYZ or WR_QUAT_XYZW");
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(d.mount_position[i]))
      bad_field(function, "desc->mount_position", "[" + std::to_string(i) + "] = " + num(d.mount_position[i]) +
                                               ": must be finite");
  const float* q = d.mount_rotation;
  const bool identity = q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f;  // wr.h: all 0
  float rot[9];
  if (!identity && !quat_to_matrix(q[0], q[1], q[2], q[3], rot))
    bad_field(function, "desc->mount_rotation",
              "= (" + num(q[0]) + ", " + num(q[1]) + ", " + num(q[2]) + ", " + num(q[3]) +
                  "): must be a finite quaternion, non-zero or all 0 (the identity)");
}

void build_ray_template(const wr_camera_desc& desc, TemplateRay* rays) {
  const Intrinsics k = intrinsics_of(desc);
  for (uint32_t v = 0; v < desc.height; ++v)
    for (uint32_t u = 0; u < desc.width; ++u)
      rays[static_cast<size_t>(v) * desc.width + u] = make_template_ray(u, v, k, desc.depth_kind == WR_DEPTH_PLANE);
}

Intrinsics intrinsics_of(const wr_camera_desc& desc) { return Intrinsics{desc.fx, desc.fy, desc.cx, desc.cy}; }

DepthParams make_depth_params(const wr_camera_desc& desc) {
  DepthParams p;
  p.quat_order = desc.quat_order == WR_QUAT_XYZW ? kQuatXYZW : kQuatWXYZ;
  // The mount uses the same quaternion order as the body poses.
  float mount_pose[7] = {desc.mount_position[0], desc.mount_position[1], desc.mount_position[2],
                         desc.mount_rotation[0], desc.mount_rotation[1], desc.mount_rotation[2],
                         desc.mount_rotation[3]};
  mount_to_transform(mount_pose, p.quat_order, &p.mount);
  p.near_clip = desc.near_clip;
  p.far_clip = desc.far_clip;
  p.miss_value = desc.miss_value;
  return p;
}

}  // namespace wr

// The C API's camera description helpers live with the camera model they describe.
extern "C" wr_status wr_camera_desc_pinhole(wr_camera_desc* desc, uint32_t width, uint32_t height,
                                           float hfov_degrees) {
  const char* fn = "wr_camera_desc_pinhole";
  return wr::api_guard(fn, [&] {
    wr::require_non_null(fn, desc, "desc");
    if (width == 0 || height == 0)
      wr::fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": width x height = " + std::to_string(width) + " x " +
                                              std::to_string(height) + ": both must be at least 1");
    // Below 1 degree is most likely radians given by mistake; 180 and more is no pinhole.
    if (!(hfov_degrees >= 1.0f && hfov_degrees < 180.0f))
      wr::fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": hfov_degrees = " + wr::num(hfov_degrees) +
                                              ": must be in [1, 180) degrees (radians given by mistake?)");
    const double half_fov = 0.5 * static_cast<double>(hfov_degrees) * 3.14159265358979323846 / 180.0;
    const float f = static_cast<float>((0.5 * width) / std::tan(half_fov));
    *desc = wr_camera_desc{};
    desc->struct_size = sizeof *desc;
    desc->width = width;
    desc->height = height;
    desc->fx = f;
    desc->fy = f;
    desc->cx = 0.5f * static_cast<float>(width);
    desc->cy = 0.5f * static_cast<float>(height);
    desc->near_clip = 0.0f;
    desc->far_clip = INFINITY;
    desc->miss_value = INFINITY;
    desc->depth_kind = WR_DEPTH_PLANE;
    desc->quat_order = WR_QUAT_WXYZ;
    // mount_rotation stays all 0: the identity in either quaternion order (wr.h)
  });
}

extern "C" wr_status wr_camera_desc_set_mount_angles(wr_camera_desc* desc, float pitch_deg, float yaw_deg,
                                                    float roll_deg) {
  const char* fn = "wr_camera_desc_set_mount_angles";
  return wr::api_guard(fn, [&] {
    wr::require_non_null(fn, desc, "desc");
    const float angles[3] = {pitch_deg, yaw_deg, roll_deg};
    const char* names[3] = {"pitch_deg", "yaw_deg", "roll_deg"};
    for (int i = 0; i < 3; ++i)
      if (!std::isfinite(angles[i]))
        wr::fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": " + names[i] + " = " + wr::num(angles[i]) +
                                                " is not finite");
    // q = qz(yaw) * qy(pitch) * qx(roll), half angles, in double.
    const double k = 3.14159265358979323846 / 360.0;
    const double cy = std::cos(yaw_deg * k), sy = std::sin(yaw_deg * k);
    const double cp = std::cos(pitch_deg * k), sp = std::sin(pitch_deg * k);
    const double cr = std::cos(roll_deg * k), sr = std::sin(roll_deg * k);
    const double w = cy * cp * cr + sy * sp * sr, x = cy * cp * sr - sy * sp * cr;
    const double y = cy * sp * cr + sy * cp * sr, z = sy * cp * cr - cy * sp * sr;
    int order;
    std::memcpy(&order, &desc->quat_order, sizeof order);
    const double q[4] = {w, x, y, z};
    for (int i = 0; i < 4; ++i)
      desc->mount_rotation[order == WR_QUAT_XYZW ? (i + 3) % 4 : i] = static_cast<float>(q[i]);
  });
}
