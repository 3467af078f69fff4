// The descriptions a sensor is made of: CameraDesc (wr_camera_desc), Pattern and RaySensorDesc
// (wr_patterns.h), NoiseDesc and SensorOptions (the RL pipeline's, wr.h).
#include <cstring>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "arrays.h"
#include "bind.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wrpy {

void register_descs(nb::module_& m) {
  // ---- camera description ----
  nb::class_<wr_camera_desc>(m, "CameraDesc",
                             "wr_camera_desc: pinhole intrinsics (pixels), clipping (metres), miss value, "
                             "depth kind, quaternion order and mount (camera pose in the body frame).")
      // Zeroes, with struct_size set (wr.h: every desc carries its size).
      .def("__init__",
           [](wr_camera_desc* d) {
             new (d) wr_camera_desc{};
             d->struct_size = sizeof *d;
           })
      .def_rw("width", &wr_camera_desc::width)
      .def_rw("height", &wr_camera_desc::height)
      .def_rw("fx", &wr_camera_desc::fx)
      .def_rw("fy", &wr_camera_desc::fy)
      .def_rw("cx", &wr_camera_desc::cx)
      .def_rw("cy", &wr_camera_desc::cy)
      .def_rw("near_clip", &wr_camera_desc::near_clip)
      .def_rw("far_clip", &wr_camera_desc::far_clip)
      .def_rw("miss_value", &wr_camera_desc::miss_value)
      .def_rw("depth_kind", &wr_camera_desc::depth_kind)
      .def_rw("quat_order", &wr_camera_desc::quat_order)
      .def_prop_rw(
          "mount_position", [](const wr_camera_desc& d) { return tuple3(d.mount_position); },
          [](wr_camera_desc& d, std::tuple<float, float, float> p) {
            std::tie(d.mount_position[0], d.mount_position[1], d.mount_position[2]) = p;
          },
          "Camera position in the body frame, metres (3).")
      .def_prop_rw(
          "mount_rotation", [](const wr_camera_desc& d) { return tuple4(d.mount_rotation); },
          [](wr_camera_desc& d, std::tuple<float, float, float, float> q) {
            std::tie(d.mount_rotation[0], d.mount_rotation[1], d.mount_rotation[2], d.mount_rotation[3]) = q;
          },
          "Camera orientation in the body frame, a quaternion in quat_order (4).")
      .def_prop_rw(
          "hit_frame",
          [](const wr_camera_desc& d) {
            int v;
            std::memcpy(&v, &d.hit_frame, sizeof v);
            return v;
          },
          [](wr_camera_desc& d, int v) { std::memcpy(&d.hit_frame, &v, sizeof v); },
          "The frame of the hit points and normals: 0 the world's, 1 the camera's (wr_hit_frame).");
  m.def(
      "camera_desc_pinhole",
      [](uint32_t width, uint32_t height, float hfov_degrees) { return wr::pinhole(width, height, hfov_degrees); },
      "width"_a, "height"_a, "hfov_degrees"_a,
      "wr_camera_desc_pinhole: square pixels, fx = fy = (width/2)/tan(hfov/2), principal point at the "
      "image centre, near 0, far and miss +inf, PLANE depth, WXYZ, identity mount.");

  // ---- ray patterns and the ray sensor's description (wr_patterns.h) ----
  nb::class_<wr::Pattern>(m, "Pattern", "wr_pattern: a ray pattern (starts and unit directions, pattern frame).")
      .def_static(
          "grid",
          [](double size_x, double size_y, double resolution, int ordering, int count_rule, int plane,
             std::tuple<float, float, float> direction) {
            wr_pattern_desc d = wr::pattern_desc(WR_PATTERN_GRID);
            d.grid_size[0] = size_x, d.grid_size[1] = size_y, d.grid_resolution = resolution;
            std::memcpy(&d.grid_ordering, &ordering, sizeof ordering);  // the library names a bad value
            std::memcpy(&d.grid_count_rule, &count_rule, sizeof count_rule);
            std::memcpy(&d.grid_plane, &plane, sizeof plane);
            std::tie(d.grid_direction[0], d.grid_direction[1], d.grid_direction[2]) = direction;
            return wr::Pattern(d);
          },
          "size_x"_a, "size_y"_a, "resolution"_a, "ordering"_a, "count_rule"_a, "plane"_a, "direction"_a,
          "wr_pattern_create, WR_PATTERN_GRID (ordering 0 xy, 1 ij; count_rule 0 isaaclab, 1 mjlab; plane 0 xy, "
          "1 normal).")
      .def_static(
          "spherical",
          [](uint32_t channels, double v0, double v1, std::optional<std::vector<float>> vertical_angles, double h0,
             double h1, double resolution, uint32_t count, int order) {
            wr_pattern_desc d = wr::pattern_desc(WR_PATTERN_SPHERICAL);
            d.channels = channels;
            d.vertical_fov[0] = v0, d.vertical_fov[1] = v1;
            if (vertical_angles) {
              if (vertical_angles->size() != channels)
                invalid_argument("Pattern.spherical", "vertical_angles has " + std::to_string(vertical_angles->size()) +
                                                          " angles, channels = " + std::to_string(channels));
              d.vertical_angles = vertical_angles->data();
            }
            d.horizontal_fov[0] = h0, d.horizontal_fov[1] = h1;
            d.horizontal_resolution = resolution;
            d.horizontal_count = count;
            std::memcpy(&d.spherical_order, &order, sizeof order);
            return wr::Pattern(d);
          },
          "channels"_a, "vertical_min"_a, "vertical_max"_a, "vertical_angles"_a.none(), "horizontal_min"_a,
          "horizontal_max"_a, "horizontal_resolution"_a, "horizontal_count"_a, "order"_a,
          "wr_pattern_create, WR_PATTERN_SPHERICAL (degrees; order 0 channel-major, 1 azimuth-major).")
      .def_static(
          "table",
          [](nb::handle directions, nb::handle starts) {
            const char* fn = "Pattern.table";
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array d =
                take_array(directions, {fn, "directions", false, {Dtype::kFloat32}, {-1, 3}, "(num_rays, 3)"}, host);
            Array o;
            if (!starts.is_none())
              o = take_array(starts, {fn, "starts", false, {Dtype::kFloat32}, {d.shape[0], 3}, "(num_rays, 3)"}, host);
            if (d.shape[0] > int64_t(UINT32_MAX)) invalid_argument(fn, "more than 2^32 - 1 rays");
            wr_pattern_desc desc = wr::pattern_desc(WR_PATTERN_TABLE);
            desc.table_count = static_cast<uint32_t>(d.shape[0]);
            desc.table_directions = static_cast<const float*>(d.data);
            desc.table_starts = static_cast<const float*>(o.data);
            return wr::Pattern(desc);
          },
          "directions"_a.none(), "starts"_a.none(),
          "wr_pattern_create, WR_PATTERN_TABLE: directions (num_rays, 3) float32 and starts (num_rays, 3) or None, "
          "host memory, C-contiguous; copied.")
      .def_static(
          "rosette",
          [](double fov, uint32_t count, double rev0, double rev1) {
            wr_pattern_desc d = wr::pattern_desc(WR_PATTERN_ROSETTE);
            d.rosette_fov = fov;
            d.rosette_count = count;
            d.rosette_revolutions[0] = rev0, d.rosette_revolutions[1] = rev1;
            return wr::Pattern(d);
          },
          "fov"_a, "count"_a, "revolutions0"_a, "revolutions1"_a,
          "wr_pattern_create, WR_PATTERN_ROSETTE: two prisms' rosette within a cone of fov degrees, count rays.")
      .def_prop_ro("num_rays", &wr::Pattern::num_rays)
      .def(
          "rays",
          [](const wr::Pattern& p, nb::handle starts, nb::handle directions) {
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            const int64_t r = p.num_rays();
            Array o =
                take_array(starts, {"Pattern.rays", "starts", true, {Dtype::kFloat32}, {r, 3}, "(num_rays, 3)"}, host);
            Array d = take_array(
                directions, {"Pattern.rays", "directions", true, {Dtype::kFloat32}, {r, 3}, "(num_rays, 3)"}, host);
            p.rays(static_cast<float*>(o.data), static_cast<float*>(d.data));
          },
          "starts"_a.none(), "directions"_a.none(),
          "wr_pattern_rays: writes starts and directions (num_rays, 3) float32 (host arrays).");
  nb::class_<wr_ray_sensor_desc>(m, "RaySensorDesc",
                                 "wr_ray_sensor_desc: a pattern sensor's mount, offset, "
                                 "alignment, distances and value (wr.h).")
      .def("__init__", [](wr_ray_sensor_desc* d) { new (d) wr_ray_sensor_desc(wr::ray_sensor_desc()); })
      .def_rw("quat_order", &wr_ray_sensor_desc::quat_order)
      .def_prop_rw(
          "mount_position", [](const wr_ray_sensor_desc& d) { return tuple3(d.mount_position); },
          [](wr_ray_sensor_desc& d, std::tuple<float, float, float> p) {
            std::tie(d.mount_position[0], d.mount_position[1], d.mount_position[2]) = p;
          })
      .def_prop_rw(
          "mount_rotation", [](const wr_ray_sensor_desc& d) { return tuple4(d.mount_rotation); },
          [](wr_ray_sensor_desc& d, std::tuple<float, float, float, float> q) {
            std::tie(d.mount_rotation[0], d.mount_rotation[1], d.mount_rotation[2], d.mount_rotation[3]) = q;
          })
      .def_prop_rw(
          "offset_position", [](const wr_ray_sensor_desc& d) { return tuple3(d.offset_position); },
          [](wr_ray_sensor_desc& d, std::tuple<float, float, float> p) {
            std::tie(d.offset_position[0], d.offset_position[1], d.offset_position[2]) = p;
          })
      .def_prop_rw(
          "offset_rotation", [](const wr_ray_sensor_desc& d) { return tuple4(d.offset_rotation); },
          [](wr_ray_sensor_desc& d, std::tuple<float, float, float, float> q) {
            std::tie(d.offset_rotation[0], d.offset_rotation[1], d.offset_rotation[2], d.offset_rotation[3]) = q;
          })
      .def_prop_rw(
          "alignment",
          [](const wr_ray_sensor_desc& d) {
            int v;
            std::memcpy(&v, &d.alignment, sizeof v);
            return v;
          },
          [](wr_ray_sensor_desc& d, int v) { std::memcpy(&d.alignment, &v, sizeof v); })
      .def_prop_rw(
          "yaw_rule",
          [](const wr_ray_sensor_desc& d) {
            int v;
            std::memcpy(&v, &d.yaw_rule, sizeof v);
            return v;
          },
          [](wr_ray_sensor_desc& d, int v) { std::memcpy(&d.yaw_rule, &v, sizeof v); })
      .def_prop_rw(
          "value",
          [](const wr_ray_sensor_desc& d) {
            int v;
            std::memcpy(&v, &d.value, sizeof v);
            return v;
          },
          [](wr_ray_sensor_desc& d, int v) { std::memcpy(&d.value, &v, sizeof v); })
      .def_rw("min_distance", &wr_ray_sensor_desc::min_distance)
      .def_rw("max_distance", &wr_ray_sensor_desc::max_distance)
      .def_rw("height_offset", &wr_ray_sensor_desc::height_offset)
      .def_rw("miss_value", &wr_ray_sensor_desc::miss_value)
      .def_rw("rays_per_frame", &wr_ray_sensor_desc::rays_per_frame)
      .def_prop_rw(
          "scan_phase",
          [](const wr_ray_sensor_desc& d) {
            int v;
            std::memcpy(&v, &d.scan_phase, sizeof v);
            return v;
          },
          [](wr_ray_sensor_desc& d, int v) { std::memcpy(&d.scan_phase, &v, sizeof v); })
      .def_rw("scan_seed", &wr_ray_sensor_desc::scan_seed)
      .def_rw("num_frames", &wr_ray_sensor_desc::num_frames)
      .def_prop_rw(
          "hit_frame",
          [](const wr_ray_sensor_desc& d) {
            int v;
            std::memcpy(&v, &d.hit_frame, sizeof v);
            return v;
          },
          [](wr_ray_sensor_desc& d, int v) { std::memcpy(&d.hit_frame, &v, sizeof v); });

  // ---- the RL depth pipeline's options (wr.h) ----
  nb::class_<wr_noise_desc>(m, "NoiseDesc", "wr_noise_desc: the noise models, each off at 0 (wr.h lists their order).")
      .def(nb::init<>())
      .def_rw("seed", &wr_noise_desc::seed)
      .def_rw("min_range", &wr_noise_desc::min_range)
      .def_rw("edge_threshold", &wr_noise_desc::edge_threshold)
      .def_rw("edge_probability", &wr_noise_desc::edge_probability)
      .def_rw("dropout_probability", &wr_noise_desc::dropout_probability)
      .def_prop_rw(
          "range_sigma", [](const wr_noise_desc& n) { return tuple3(n.range_sigma); },
          [](wr_noise_desc& n, std::tuple<float, float, float> v) {
            std::tie(n.range_sigma[0], n.range_sigma[1], n.range_sigma[2]) = v;
          },
          "(a, b, c): sigma(d) = a + b d + c d^2 metres.")
      .def_rw("disparity_focal_baseline", &wr_noise_desc::disparity_focal_baseline)
      .def_rw("disparity_step", &wr_noise_desc::disparity_step)
      .def_rw("env_offset", &wr_noise_desc::env_offset);
  nb::class_<wr_sensor_options>(m, "SensorOptions", "wr_sensor_options: every option off until set (wr.h).")
      .def("__init__", [](wr_sensor_options* o) { new (o) wr_sensor_options(wr::sensor_options()); })
      .def_rw("crop_x", &wr_sensor_options::crop_x)
      .def_rw("crop_y", &wr_sensor_options::crop_y)
      .def_rw("crop_width", &wr_sensor_options::crop_width)
      .def_rw("crop_height", &wr_sensor_options::crop_height)
      .def_rw("out_width", &wr_sensor_options::out_width)
      .def_rw("out_height", &wr_sensor_options::out_height)
      .def_rw("resample", &wr_sensor_options::resample)
      .def_rw("invalid_mode", &wr_sensor_options::invalid_mode)
      .def_rw("clip", &wr_sensor_options::clip)
      .def_rw("clip_min", &wr_sensor_options::clip_min)
      .def_rw("clip_max", &wr_sensor_options::clip_max)
      .def_rw("normalize", &wr_sensor_options::normalize)
      .def_rw("norm_a", &wr_sensor_options::norm_a)
      .def_rw("norm_b", &wr_sensor_options::norm_b)
      .def_rw("norm_c", &wr_sensor_options::norm_c)
      .def_rw("clamp", &wr_sensor_options::clamp)
      .def_rw("clamp_min", &wr_sensor_options::clamp_min)
      .def_rw("clamp_max", &wr_sensor_options::clamp_max)
      .def_rw("dtype", &wr_sensor_options::dtype)
      .def_rw("history_length", &wr_sensor_options::history_length)
      .def_rw("bad_pose_mode", &wr_sensor_options::bad_pose_mode)
      .def_rw("noise", &wr_sensor_options::noise)
      .def_rw("exclude_groups", &wr_sensor_options::exclude_groups,
              "Instanced scenes: bit g set, this camera does not see the instances of group g.");
  m.def(
      "camera_desc_set_mount_angles",
      [](wr_camera_desc& d, float pitch, float yaw, float roll) { wr::set_mount_angles(d, pitch, yaw, roll); },
      "desc"_a, "pitch_deg"_a, "yaw_deg"_a, "roll_deg"_a,
      "wr_camera_desc_set_mount_angles: the mount rotation from pitch (positive down), yaw, roll in degrees.");
}

}  // namespace wrpy
