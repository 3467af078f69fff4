#include "sensor/camera_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"

namespace wr {

void validate_camera_desc(const char* function, const wr_camera_desc& d) {
  if (d.width == 0) bad_field(function, "desc->width", "is 0: must be at least 1");
  if (d.height == 0) bad_field(function, "desc->height", "is 0: must be at least 1");
  // Below 2^31 each: both backends compute pixel coordinates in 32 bits as a tile's corner plus
  // its side (cpu_render.cpp, kernels/warp_tiles.h), which near 2^32 would wrap around and skip
  // the image's last tiles.
  constexpr uint32_t kMaxSide = (1u << 31) - 1;
  if (d.width > kMaxSide) bad_field(function, "desc->width", "= " + std::to_string(d.width) + ": must be below 2^31");
  if (d.height > kMaxSide)
    bad_field(function, "desc->height", "= " + std::to_string(d.height) + ": must be below 2^31");
  require_positive_field(function, "desc->fx", d.fx);
  require_positive_field(function, "desc->fy", d.fy);
  require_finite_field(function, "desc->cx", d.cx);
  require_finite_field(function, "desc->cy", d.cy);
  require_non_negative_field(function, "desc->near_clip", d.near_clip);
  if (!(d.far_clip > d.near_clip))
    bad_field(function, "desc->far_clip",
              "= " + num(d.far_clip) + ": must be greater than near_clip (" + num(d.near_clip) +
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
  int hit_frame;
  std::memcpy(&hit_frame, &d.hit_frame, sizeof hit_frame);
  if (hit_frame != WR_HIT_FRAME_WORLD && hit_frame != WR_HIT_FRAME_SENSOR)
    bad_field(function, "desc->hit_frame",
              "= " + std::to_string(hit_frame) + ": must be WR_HIT_FRAME_WORLD or WR_HIT_FRAME_SENSOR");
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(d.mount_position[i]))
      bad_field(function, "desc->mount_position",
                "[" + std::to_string(i) + "] = " + num(d.mount_position[i]) + ": must be finite");
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
  float mount_pose[7] = {desc.mount_position[0], desc.mount_position[1], desc.mount_position[2], desc.mount_rotation[0],
                         desc.mount_rotation[1], desc.mount_rotation[2], desc.mount_rotation[3]};
  mount_to_transform(mount_pose, p.quat_order, &p.mount);
  p.near_clip = desc.near_clip;
  p.far_clip = desc.far_clip;
  p.miss_value = desc.miss_value;
  return p;
}

}  // namespace wr
