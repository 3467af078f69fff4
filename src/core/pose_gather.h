// Poses from positions and rotation matrices (wr_gather_poses, wr_poses.h): what simulators that keep
// matrices (MuJoCo's geom_xmat / cam_xmat, mujoco_warp's Data) give, turned into the library's
// records (x, y, z and a unit quaternion) per env, gathered at an index table. One thread's work is
// one pose; the CPU backend runs gather_pose in a loop, the CUDA kernel one pose a thread, so both
// give the same bits: double arithmetic and square root are IEEE's on both (no contraction into
// fused multiply-adds: the project builds with it off).
#pragma once

#include <cstdint>

#include "core/platform.h"

namespace wr {

struct PoseGather {
  const void* positions;  // (num_batches x items_per_batch x 3), float or double (f64)
  const void* matrices;   // (num_batches x items_per_batch x 9), row-major
  bool f64;
  uint32_t num_batches, items_per_batch;
  const uint32_t* indices;  // (count): the item of each output pose
  uint32_t count;
  double frame[9];  // row-major rotation applied on the right: R_out = R * frame
  bool xyzw;        // quaternion order of the output (else w, x, y, z)
  float* out;       // (num_batches x count x 7)
};

// The unit quaternion (w, x, y, z) of the row-major rotation matrix r: Shepperd's method
// (S. W. Shepperd, "Quaternion from rotation matrix", J. Guidance and Control 1(3), 1978). The
// largest of 4w^2, 4x^2, 4y^2, 4z^2 (from the trace and the diagonal) gives its component through a
// square root far from 0, the off-diagonal sums and differences the others; then normalised, as a
// float simulator's matrices are orthonormal only to rounding. w >= 0 where the trace branch is
// taken. A non-finite matrix gives a non-finite quaternion (which a render then refuses or isolates).
WR_HD void quat_from_rotation(const double r[9], double q[4]) {
  const double tr = r[0] + r[4] + r[8];
  if (tr >= r[0] && tr >= r[4] && tr >= r[8]) {
    const double s = 2.0 * sqrt_(1.0 + tr > 0.0 ? 1.0 + tr : 0.0);  // 4 w
    q[0] = 0.25 * s;
    q[1] = (r[7] - r[5]) / s;
    q[2] = (r[2] - r[6]) / s;
    q[3] = (r[3] - r[1]) / s;
  } else if (r[0] >= r[4] && r[0] >= r[8]) {
    const double t = 1.0 + r[0] - r[4] - r[8];
    const double s = 2.0 * sqrt_(t > 0.0 ? t : 0.0);  // 4 x
    q[0] = (r[7] - r[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (r[1] + r[3]) / s;
    q[3] = (r[2] + r[6]) / s;
  } else if (r[4] >= r[8]) {
    const double t = 1.0 + r[4] - r[0] - r[8];
    const double s = 2.0 * sqrt_(t > 0.0 ? t : 0.0);  // 4 y
    q[0] = (r[2] - r[6]) / s;
    q[1] = (r[1] + r[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (r[5] + r[7]) / s;
  } else {
    const double t = 1.0 + r[8] - r[0] - r[4];
    const double s = 2.0 * sqrt_(t > 0.0 ? t : 0.0);  // 4 z
    q[0] = (r[3] - r[1]) / s;
    q[1] = (r[2] + r[6]) / s;
    q[2] = (r[5] + r[7]) / s;
    q[3] = 0.25 * s;
  }
  const double n = sqrt_(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] = q[i] / n;
}

// Pose i of the gather (i < num_batches * count): batch i / count, item indices[i % count]. An index
// past items_per_batch (which only a device gather can meet: the host checks them first) writes NaN.
WR_HD void gather_pose(const PoseGather& g, uint64_t i) {
  const uint64_t batch = i / g.count;
  const uint32_t item = g.indices[i % g.count];
  float* o = g.out + 7 * i;
  if (item >= g.items_per_batch) {
    const float nan = quiet_nan_();
    for (int k = 0; k < 7; ++k) o[k] = nan;
    return;
  }
  const uint64_t at = batch * g.items_per_batch + item;
  double p[3], m[9];
  if (g.f64) {
    const double* ps = static_cast<const double*>(g.positions) + 3 * at;
    const double* ms = static_cast<const double*>(g.matrices) + 9 * at;
    for (int k = 0; k < 3; ++k) p[k] = ps[k];
    for (int k = 0; k < 9; ++k) m[k] = ms[k];
  } else {
    const float* ps = static_cast<const float*>(g.positions) + 3 * at;
    const float* ms = static_cast<const float*>(g.matrices) + 9 * at;
    for (int k = 0; k < 3; ++k) p[k] = ps[k];
    for (int k = 0; k < 9; ++k) m[k] = ms[k];
  }
  // R * frame, row by row (three products and two sums each, in this order on every backend).
  double r[9];
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col)
      r[3 * row + col] =
          m[3 * row] * g.frame[col] + m[3 * row + 1] * g.frame[3 + col] + m[3 * row + 2] * g.frame[6 + col];
  double q[4];
  quat_from_rotation(r, q);
  for (int k = 0; k < 3; ++k) o[k] = static_cast<float>(p[k]);
  if (g.xyzw) {
    o[3] = static_cast<float>(q[1]), o[4] = static_cast<float>(q[2]), o[5] = static_cast<float>(q[3]);
    o[6] = static_cast<float>(q[0]);
  } else {
    for (int k = 0; k < 4; ++k) o[3 + k] = static_cast<float>(q[k]);
  }
}

}  // namespace wr
