// Camera pose math and the sensor constants every pixel reads, shared by the CPU backend and the
// CUDA kernel. The ray template (one unit direction per pixel, camera frame) is built once per
// sensor on the host (src/sensor/camera_model); here it is only read. What one pixel does with
// them is the per-pixel pipeline (pixel_pipeline.h).
#pragma once

#include "vec3.h"

namespace wr {

enum QuatOrder : int { kQuatWXYZ = 0, kQuatXYZW = 1 };

// Rigid transform: p_world = rot * p_local + pos. rot is row-major 3x3.
struct RigidTransform {
  float rot[9];
  Vec3 pos;
};

// A ray in the world: its origin and unit direction.
struct WorldRay {
  Vec3 org, dir;
};

// One pixel of the shared ray template: unit direction in the camera frame (+X forward,
// +Y left, +Z up) and the factor that turns ray distance into the reported depth
// (dir.x for plane depth, 1 for range depth). 16 bytes: one aligned load.
struct alignas(16) TemplateRay {
  float dir[3];
  float depth_scale;
};
static_assert(sizeof(TemplateRay) == 16, "TemplateRay must stay 16 bytes");

// One pixel of the ray template, read where it lies: one 16-byte read-only load on the GPU.
WR_HD TemplateRay load_template_ray(const TemplateRay* p) {
#if defined(__CUDA_ARCH__)
  const float4 r = __ldg(reinterpret_cast<const float4*>(p));
  return TemplateRay{{r.x, r.y, r.z}, r.w};
#else
  return *p;
#endif
}

// Pinhole intrinsics in pixels (wr.h: d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)).
struct Intrinsics {
  float fx, fy, cx, cy;
};

WR_HD bool valid_intrinsics(const Intrinsics& k) {
  return is_finite_(k.fx) && k.fx > 0.0f && is_finite_(k.fy) && k.fy > 0.0f && is_finite_(k.cx) && is_finite_(k.cy);
}

// The template ray of pixel (u, v) for intrinsics k, computed in double and rounded once. The
// sensor's shared template is built with it on the host (sensor/camera_model.cpp), and a render
// with per-env intrinsics makes each env's rays with it where it traces (on the GPU too, whose
// double arithmetic and square root are IEEE's): so a ray made per env is bit for bit the ray a
// sensor built with that env's camera holds. What the template keeps of a pixel is its
// coordinates, which are its index.
WR_HD TemplateRay make_template_ray(uint32_t u, uint32_t v, const Intrinsics& k, bool plane_depth) {
  const double y = -((u + 0.5) - static_cast<double>(k.cx)) / static_cast<double>(k.fx);
  const double z = -((v + 0.5) - static_cast<double>(k.cy)) / static_cast<double>(k.fy);
  double n2 = 1.0 + y * y;
  n2 = n2 + z * z;
#if defined(__CUDA_ARCH__)
  const double inv_norm = 1.0 / sqrt(n2);
#else
  const double inv_norm = 1.0 / __builtin_sqrt(n2);
#endif
  TemplateRay r;
  r.dir[0] = static_cast<float>(inv_norm);
  r.dir[1] = static_cast<float>(y * inv_norm);
  r.dir[2] = static_cast<float>(z * inv_norm);
  r.depth_scale = plane_depth ? static_cast<float>(inv_norm) : 1.0f;
  return r;
}

// Sensor constants every pixel reads. The mount's rotation is precomputed on the host.
struct DepthParams {
  RigidTransform mount;  // camera in the body frame
  float near_clip, far_clip, miss_value;
  int quat_order;  // QuatOrder of the body poses
};

WR_HD Vec3 rotate(const float r[9], Vec3 v) {
  return Vec3{r[0] * v.x + r[1] * v.y + r[2] * v.z, r[3] * v.x + r[4] * v.y + r[5] * v.z,
              r[6] * v.x + r[7] * v.y + r[8] * v.z};
}

// Rotation matrix of quaternion (w, x, y, z), normalised here. Returns false when the
// quaternion is zero or not finite.
WR_HD bool quat_to_matrix(float w, float x, float y, float z, float r[9]) {
  float n2 = w * w + x * x + y * y + z * z;
  // A finite, non-zero quaternion whose squared norm under- or overflows (components below about
  // 1e-19 or above 1e19) is first scaled by powers of two until its largest component lies in
  // [2^-32, 2^32]. Without it a tiny one made s infinite and the matrix NaN (0 * inf), and a huge
  // one was refused as if it were zero. Scaling by a power of two is exact and the formula below
  // is invariant to it, so the matrix is bit for bit that of the quaternion at any other scale
  // (where no component's square is subnormal); unit-like ones skip this altogether.
  if (!(n2 >= 0x1p-100f && n2 <= 0x1p100f)) {
    if (!(is_finite_(w) && is_finite_(x) && is_finite_(y) && is_finite_(z))) return false;
    float m = fmax_(fmax_(fabs_(w), fabs_(x)), fmax_(fabs_(y), fabs_(z)));
    if (!(m > 0.0f)) return false;
    for (; m < 0x1p-32f; m *= 0x1p32f) {
      w *= 0x1p32f;
      x *= 0x1p32f;
      y *= 0x1p32f;
      z *= 0x1p32f;
    }
    for (; m > 0x1p32f; m *= 0x1p-32f) {
      w *= 0x1p-32f;
      x *= 0x1p-32f;
      y *= 0x1p-32f;
      z *= 0x1p-32f;
    }
    n2 = w * w + x * x + y * y + z * z;
  }
  const float s = 2.0f / n2;  // folds the normalisation into the usual 2*(...) terms
  const float xx = x * x * s, yy = y * y * s, zz = z * z * s;
  const float xy = x * y * s, xz = x * z * s, yz = y * z * s;
  const float wx = w * x * s, wy = w * y * s, wz = w * z * s;
  r[0] = 1.0f - (yy + zz);
  r[1] = xy - wz;
  r[2] = xz + wy;
  r[3] = xy + wz;
  r[4] = 1.0f - (xx + zz);
  r[5] = yz - wx;
  r[6] = xz - wy;
  r[7] = yz + wx;
  r[8] = 1.0f - (xx + yy);
  return true;
}

// Reads a 7-float pose (position, quaternion in `order`) into a transform. False when any
// value is not finite or the quaternion is zero.
// (A mount is read by mount_to_transform below, where a zero quaternion means the identity.)
WR_HD bool pose_to_transform(const float* pose, int order, RigidTransform* out) {
  for (int i = 0; i < 7; ++i)
    if (!is_finite_(pose[i])) return false;
  const float w = order == kQuatXYZW ? pose[6] : pose[3];
  const float x = order == kQuatXYZW ? pose[3] : pose[4];
  const float y = order == kQuatXYZW ? pose[4] : pose[5];
  const float z = order == kQuatXYZW ? pose[5] : pose[6];
  out->pos = Vec3{pose[0], pose[1], pose[2]};
  return quat_to_matrix(w, x, y, z, out->rot);
}

// A 7-float mount (camera in the body frame): as pose_to_transform, but a quaternion of four zeros
// is the identity in either order (wr.h: so that the identity mount does not depend on it).
WR_HD bool mount_to_transform(const float* mount, int order, RigidTransform* out) {
  if (mount[3] == 0.0f && mount[4] == 0.0f && mount[5] == 0.0f && mount[6] == 0.0f) {
    const float identity[7] = {mount[0], mount[1], mount[2], 1.0f, 0.0f, 0.0f, 0.0f};
    return pose_to_transform(identity, kQuatWXYZ, out);
  }
  return pose_to_transform(mount, order, out);
}

// camera_in_world = body_in_world * mount.
WR_HD RigidTransform compose(const RigidTransform& a, const RigidTransform& b) {
  RigidTransform c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      c.rot[3 * i + j] = a.rot[3 * i] * b.rot[j] + a.rot[3 * i + 1] * b.rot[3 + j] + a.rot[3 * i + 2] * b.rot[6 + j];
  c.pos = a.pos + rotate(a.rot, b.pos);
  return c;
}

// Camera pose of one env from its body pose (7 floats). False for a bad pose.
WR_HD bool camera_from_body_pose(const float* body_pose, const DepthParams& p, RigidTransform* camera) {
  RigidTransform body;
  if (!pose_to_transform(body_pose, p.quat_order, &body)) return false;
  *camera = compose(body, p.mount);
  return true;
}

}  // namespace wr
