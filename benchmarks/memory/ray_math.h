// The per-ray math the per-camera ray-buffer strategy does itself (as IsaacLab does in its
// own kernels): quaternion to rotation matrix, rotating a vector, and turning a hit distance
// into a hit point and a depth value. Host and device (ray_buffers_kernels.cu).
//
// Same formula and the same order of float operations as the library's src/core/camera.h,
// on purpose: strategy (b) then traces exactly the rays the library traces for (a), so the
// per-pixel check compares like with like and any difference is a real bug.
#pragma once

#if defined(__CUDACC__)
#define WRB_HD __host__ __device__ inline
#else
#define WRB_HD inline
#endif

namespace wrbench {

/// Row-major 3x3 rotation of quaternion (w, x, y, z), normalised on the way (the 2/|q|^2
/// factor folds the normalisation into the usual 2*(...) terms).
WRB_HD void quat_wxyz_to_matrix(float w, float x, float y, float z, float r[9]) {
  const float n2 = w * w + x * x + y * y + z * z;
  const float s = 2.0f / n2;
  const float xx = x * x * s, yy = y * y * s, zz = z * z * s;
  const float xy = x * y * s, xz = x * z * s, yz = y * z * s;
  const float wx = w * x * s, wy = w * y * s, wz = w * z * s;
  r[0] = 1.0f - (yy + zz), r[1] = xy - wz, r[2] = xz + wy;
  r[3] = xy + wz, r[4] = 1.0f - (xx + zz), r[5] = yz - wx;
  r[6] = xz - wy, r[7] = yz + wx, r[8] = 1.0f - (xx + yy);
}

/// out = r * v (r row-major 3x3; v and out 3 floats, may not alias).
WRB_HD void rotate(const float r[9], const float* v, float* out) {
  out[0] = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
  out[1] = r[3] * v[0] + r[4] * v[1] + r[5] * v[2];
  out[2] = r[6] * v[0] + r[7] * v[1] + r[8] * v[2];
}

/// One ray after the trace, as IsaacLab's RayCasterCamera finishes it: the hit point
/// hit = start + t * dir (+inf where nothing is hit) and the distance to the image plane,
/// t * dir_cam.x for a unit camera-frame direction (IsaacLab rotates t * dir back into the
/// camera frame and takes x, the same value), with the depth clipping of the camera:
/// outside [near_clip, far_clip] or a miss reads miss_value.
/// start, dir: 3 floats, world frame; dir_cam: 3 floats, camera frame; hit: 3 floats out.
WRB_HD float finish_ray(const float* start, const float* dir, const float* dir_cam, float t, float near_clip,
                        float far_clip, float miss_value, float* hit) {
  const float inf = __builtin_inff();
  const bool found = t < inf;
  for (int k = 0; k < 3; ++k) hit[k] = found ? start[k] + t * dir[k] : inf;
  const float depth = t * dir_cam[0];
  return found && depth >= near_clip && depth <= far_clip ? depth : miss_value;
}

}  // namespace wrbench
