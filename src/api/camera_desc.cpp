// The C API's camera description helpers (wr.h): wr_camera_desc_pinhole and
// wr_camera_desc_set_mount_angles. Compiled into wr_core (src/CMakeLists.txt) with the other
// C functions the unit tests call without libwr.
#include <cmath>
#include <cstring>
#include <string>

#include <wr/wr.h>

#include "api/api_guard.h"
#include "errors/status_error.h"

extern "C" wr_status wr_camera_desc_pinhole(wr_camera_desc* desc, uint32_t width, uint32_t height, float hfov_degrees) {
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
        wr::fail(WR_ERROR_INVALID_ARGUMENT,
                 std::string(fn) + ": " + names[i] + " = " + wr::num(angles[i]) + " is not finite");
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
