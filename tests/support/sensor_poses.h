// Poses and camera frames of the sensor tests, in double precision with Eigen: body and mount
// poses as the 7 floats the C API takes, the rigid transforms the library is documented to make of
// them (camera_in_world = body_in_world * mount, quaternions normalised), and each pixel's ray in
// the camera frame (+X forward, +Y left, +Z up).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Geometry>

#include <wr/wr.h>

namespace wr_test::sensor_tests {

using Eigen::AngleAxisd;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

inline double deg(double d) { return d * kPi / 180.0; }

// Orientation from yaw (about world +Z), then pitch (about the new +Y; positive looks DOWN, since
// a positive rotation about +Y turns +X towards -Z), then roll (about the new +X).
inline Quaterniond ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  return Quaterniond(AngleAxisd(deg(yaw_deg), Vector3d::UnitZ()) * AngleAxisd(deg(pitch_deg), Vector3d::UnitY()) *
                     AngleAxisd(deg(roll_deg), Vector3d::UnitX()));
}

// ---- poses --------------------------------------------------------------------------------------

struct Pose {
  Vector3d p;
  Quaterniond q;
};

// The 7 floats of a pose in `order`; the quaternion's floats are multiplied by `scale` (in float).
inline void append_pose(std::vector<float>& out, const Pose& pose, wr_quat_order order, float scale = 1.0f) {
  const float w = float(pose.q.w()) * scale, x = float(pose.q.x()) * scale, y = float(pose.q.y()) * scale,
              z = float(pose.q.z()) * scale;
  out.insert(out.end(), {float(pose.p.x()), float(pose.p.y()), float(pose.p.z())});
  if (order == WR_QUAT_WXYZ)
    out.insert(out.end(), {w, x, y, z});
  else
    out.insert(out.end(), {x, y, z, w});
}

inline std::vector<float> pose_floats(const std::vector<Pose>& poses, wr_quat_order order, float scale = 1.0f) {
  std::vector<float> out;
  for (const Pose& p : poses) append_pose(out, p, order, scale);
  return out;
}

// Sets desc's mount from a pose, in desc's quat_order.
inline void set_mount(wr_camera_desc& desc, const Pose& mount) {
  std::vector<float> f;
  append_pose(f, mount, desc.quat_order);
  std::copy(f.begin(), f.begin() + 3, desc.mount_position);
  std::copy(f.begin() + 3, f.end(), desc.mount_rotation);
}

struct Rigid {
  Matrix3d R;
  Vector3d t;
};

// Position + quaternion (4 floats in `order`), as the library is documented to read them: the
// float values exactly, the quaternion normalised (in double here).
inline Rigid rigid_from(const float* pos, const float* quat, wr_quat_order order) {
  const double w = order == WR_QUAT_WXYZ ? quat[0] : quat[3];
  const double x = order == WR_QUAT_WXYZ ? quat[1] : quat[0];
  const double y = order == WR_QUAT_WXYZ ? quat[2] : quat[1];
  const double z = order == WR_QUAT_WXYZ ? quat[3] : quat[2];
  return Rigid{Quaterniond(w, x, y, z).normalized().toRotationMatrix(), Vector3d(pos[0], pos[1], pos[2])};
}

// camera_in_world = body_in_world * mount, for one env's 7 pose floats.
inline Rigid camera_in_world(const float* body_pose, const wr_camera_desc& desc) {
  const Rigid body = rigid_from(body_pose, body_pose + 3, desc.quat_order);
  const Rigid mount = rigid_from(desc.mount_position, desc.mount_rotation, desc.quat_order);
  return Rigid{body.R * mount.R, body.t + body.R * mount.t};
}

// Unit ray of pixel (u, v) in the camera frame, from the desc's (float) intrinsics.
inline Vector3d ray_cam(const wr_camera_desc& d, uint32_t u, uint32_t v) {
  return Vector3d(1.0, -((u + 0.5) - double(d.cx)) / double(d.fx), -((v + 0.5) - double(d.cy)) / double(d.fy))
      .normalized();
}

// Uniformly random rotation (normalised 4D Gaussian, Shoemake / Muller).
inline Quaterniond random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized();
}

inline Vector3d random_in(std::mt19937& rng, const Vector3d& lo, const Vector3d& hi) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return Vector3d(lo.x() + (hi.x() - lo.x()) * u(rng), lo.y() + (hi.y() - lo.y()) * u(rng),
                  lo.z() + (hi.z() - lo.z()) * u(rng));
}

}  // namespace wr_test::sensor_tests
