// warp_raycaster._wr: the nanobind binding of the C API (include/wr/wr.h), through the RAII
// wrapper of include/wr/wr.hpp. One Python call is one C call: arrays are taken as they are
// (arrays.h checks them and never copies), the GIL is released while the library works, and a
// failure raises warp_raycaster.Error with the library's message and status, read on the calling
// thread right after the failing call (wr.hpp's check does that before the GIL is taken back).
// The pure-Python layer (warp_raycaster/__init__.py) picks frameworks, devices, output
// allocation and CUDA streams; everything here works on already-allocated arrays.
#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
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
#include "mujoco_model.h"
#include "objects.h"
#include "poses.h"

namespace nb = nanobind;
using namespace nb::literals;
using wrpy::Array;
using wrpy::DeviceSpec;
using wrpy::Dtype;
using wrpy::take_array;

namespace {

using wrpy::ContextObj;
using wrpy::SceneObj;

// ---- objects: each owns one reference of its C handle (wr.hpp) and knows its device ----
// (ContextObj and SceneObj are in objects.h: the MuJoCo binding makes scenes too)

// Whether `o` sets no option (a plain sensor: wr_sensor_create, whose errors name it).
bool all_off(const wr_sensor_options& o) {
  const wr_sensor_options off = wr::sensor_options();
  return std::memcmp(&o, &off, sizeof o) == 0;
}

struct SensorObj {
  wr::Sensor sensor;
  DeviceSpec device;
  wr_camera_desc desc;
  uint32_t num_envs;
  // The C API lets one sensor render from one thread at a time; with the GIL released two
  // Python threads could otherwise enter render on the same sensor together.
  std::mutex busy;
  wr::Sensor::OutputShape shape;
  uint32_t history;                   // the options' history length (the latency bound)
  std::array<uint32_t, 2> instances;  // the scene's instance slots per env and global instances
  bool pattern = false;               // a pattern sensor: its output is (num_envs, num_rays)
  uint32_t record_floats = 7;         // floats of an env's pose record a pattern sensor reads (its frames)
  SensorObj(const SceneObj& scene, const wr_camera_desc& d, const wr_sensor_options& o, uint32_t n)
      : sensor(all_off(o) ? wr::Sensor(scene.scene, d, n) : wr::Sensor(scene.scene, d, o, n)),
        device(scene.device),
        desc(sensor.desc()),
        num_envs(sensor.num_envs()),
        shape(sensor.output_shape()),
        history(o.history_length > 1 ? o.history_length : 1),
        instances(scene.scene.instance_counts()) {}
  SensorObj(const SceneObj& scene, const wr::Pattern& p, const wr_ray_sensor_desc& d, const wr_sensor_options& o,
            uint32_t n)
      : sensor(scene.scene, p, d, o, n),
        device(scene.device),
        desc(sensor.desc()),
        num_envs(sensor.num_envs()),
        shape(sensor.output_shape()),
        history(o.history_length > 1 ? o.history_length : 1),
        instances(scene.scene.instance_counts()),
        pattern(true) {}
};

// The element type of an output of wr_dtype `d`.
Dtype output_dtype(wr_dtype d) {
  return d == WR_DTYPE_FLOAT16 ? Dtype::kFloat16 : d == WR_DTYPE_UINT16_MM ? Dtype::kUInt16 : Dtype::kFloat32;
}

// ---- helpers ----

std::tuple<float, float, float> tuple3(const float (&v)[3]) { return {v[0], v[1], v[2]}; }
std::tuple<float, float, float, float> tuple4(const float (&v)[4]) { return {v[0], v[1], v[2], v[3]}; }

// The ledger as a dict: the four totals of wr_memory_stats and, under "tags", each tag's host
// and device bytes (wr_memory_tag_string names).
template <class QueryTag>
nb::dict memory_dict(const wr_memory_stats& m, QueryTag&& query_tag) {
  nb::dict d;
  d["host_bytes"] = m.host_bytes;
  d["device_bytes"] = m.device_bytes;
  d["shared_bytes"] = m.shared_bytes;
  d["per_env_bytes"] = m.per_env_bytes;
  nb::dict tags;
  for (int t = 0; t < WR_MEMORY_TAG_COUNT; ++t) {
    uint64_t host = 0, device = 0;
    wr::detail::check(query_tag(static_cast<wr_memory_tag>(t), &host, &device));
    nb::dict entry;
    entry["host_bytes"] = host;
    entry["device_bytes"] = device;
    tags[wr_memory_tag_string(static_cast<wr_memory_tag>(t))] = entry;
  }
  d["tags"] = tags;
  return d;
}

// Output memory must not overlap an input: the library reads inputs while it writes.
void require_disjoint(const char* function, const Array& in, const char* in_name, const Array& out,
                      const char* out_name) {
  const auto begin_in = reinterpret_cast<uintptr_t>(in.data), begin_out = reinterpret_cast<uintptr_t>(out.data);
  const uintptr_t end_in = begin_in + in.bytes(), end_out = begin_out + out.bytes();
  if (begin_in < end_out && begin_out < end_in)
    wrpy::invalid_argument(function, std::string(out_name) + " overlaps " + in_name);
}

// Where this module's libwr.so was loaded from (the file ctypes can load to call the same C API).
std::string library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&wr_status_string), &info) == 0 || !info.dli_fname) return "";
  return info.dli_fname;
}

// wr::Error -> warp_raycaster.Error(message, status), the class defined in Python (_errors.py).
void translate_errors(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const wr::Error& e) {
    try {
      nb::object cls = nb::module_::import_("warp_raycaster._errors").attr("Error");
      nb::object exc = cls(e.what(), static_cast<int>(e.status()));
      PyErr_SetObject(cls.ptr(), exc.ptr());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, e.what());  // the package is broken; still say what failed
    }
  }
}

std::string shape_text(std::initializer_list<int64_t> extents) {
  std::string s = "(";
  size_t i = 0;
  for (int64_t e : extents) s += (i++ ? ", " : "") + std::to_string(e);
  return s + (extents.size() == 1 ? ",)" : ")");
}

std::string array_shape_text(const Array& a) {
  std::string s = "(";
  for (int i = 0; i < a.ndim && i < 4; ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
  if (a.ndim > 4) s += ", ...";
  return s + (a.ndim == 1 ? ",)" : ")");
}

// The poses of an instanced scene's instances for one call (wr.h, "Moving geometry"): instance_poses
// (num_envs, num_slots, 7) and global_poses (num_globals, 7) float32 on the context's device, each
// needed when the scene has such instances (None otherwise, or an array of that shape).
struct InstancePoses {
  Array slots, globals;
};
InstancePoses take_instance_poses(const char* fn, nb::handle instance_poses, nb::handle global_poses, int64_t num_envs,
                                  const std::array<uint32_t, 2>& counts, const DeviceSpec& device) {
  InstancePoses p;
  const int64_t slots = counts[0], globals = counts[1];
  if (!instance_poses.is_none())
    p.slots = take_array(
        instance_poses,
        {fn, "instance_poses", false, {Dtype::kFloat32}, {num_envs, slots, 7}, "(num_envs, num_slots, 7)"}, device);
  else if (slots)
    wrpy::invalid_argument(fn, "instance_poses is None, but the scene has " + std::to_string(slots) +
                                   " instance slots per env: pass their poses, (num_envs, num_slots, 7) = " +
                                   shape_text({num_envs, slots, 7}) + " float32");
  if (!global_poses.is_none())
    p.globals = take_array(global_poses,
                           {fn, "global_poses", false, {Dtype::kFloat32}, {globals, 7}, "(num_globals, 7)"}, device);
  else if (globals)
    wrpy::invalid_argument(
        fn, "global_poses is None, but the scene has " + std::to_string(globals) +
                " global instances: pass their poses, (num_globals, 7) = " + shape_text({globals, 7}) + " float32");
  return p;
}

}  // namespace

NB_MODULE(_wr, m) {
  m.doc() =
      "The C API of libwr (include/wr/wr.h), one call per C call. Use the package "
      "warp_raycaster, which chooses frameworks, devices, streams and output arrays; this "
      "module takes arrays as they are (DLPack, buffer protocol, __cuda_array_interface__) and "
      "never copies one.";
  // The version of wr.h this module was built against (wr/wr_version.h); version() is the loaded
  // libwr's. The package's __version__ is this one, and its metadata is the same project version.
  m.attr("__version__") = WR_VERSION_STRING;
  nb::register_exception_translator(translate_errors);
  // Objects still referenced when the interpreter exits (module globals of a script) are not
  // leaks of this library; nanobind would print a warning for each.
  nb::set_leak_warnings(false);

  // ---- enums (wr.h) ----
  nb::enum_<wr_status>(m, "Status", nb::is_arithmetic(), "wr_status: what a C API call returned.")
      .value("SUCCESS", WR_SUCCESS)
      .value("ERROR_INVALID_ARGUMENT", WR_ERROR_INVALID_ARGUMENT)
      .value("ERROR_IO", WR_ERROR_IO)
      .value("ERROR_PARSE", WR_ERROR_PARSE)
      .value("ERROR_OUT_OF_MEMORY", WR_ERROR_OUT_OF_MEMORY)
      .value("ERROR_UNSUPPORTED", WR_ERROR_UNSUPPORTED)
      .value("ERROR_DEVICE", WR_ERROR_DEVICE)
      .value("ERROR_INTERNAL", WR_ERROR_INTERNAL);
  nb::enum_<wr_device>(m, "Device", "wr_device: a CPU thread pool or one CUDA GPU.")
      .value("CPU", WR_DEVICE_CPU)
      .value("CUDA", WR_DEVICE_CUDA);
  nb::enum_<wr_depth_kind>(m, "DepthKind",
                           "wr_depth_kind: PLANE = distance along the optical axis (z-depth, REP 118); "
                           "RANGE = Euclidean distance along the ray.")
      .value("PLANE", WR_DEPTH_PLANE)
      .value("RANGE", WR_DEPTH_RANGE);
  nb::enum_<wr_quat_order>(m, "QuatOrder", "wr_quat_order: WXYZ (IsaacLab, MuJoCo) or XYZW (IsaacGym root states).")
      .value("WXYZ", WR_QUAT_WXYZ)
      .value("XYZW", WR_QUAT_XYZW);
  nb::enum_<wr_cpu_path>(m, "CpuPath", "wr_cpu_path: how a CPU context traces; every path gives identical depth.")
      .value("AUTO", WR_CPU_PATH_AUTO)
      .value("SCALAR", WR_CPU_PATH_SCALAR)
      .value("AVX2", WR_CPU_PATH_AVX2)
      .value("AVX512", WR_CPU_PATH_AVX512);
  nb::enum_<wr_memory_tag>(m, "MemoryTag", "wr_memory_tag: what a ledger's bytes are.")
      .value("OBJECTS", WR_MEMORY_OBJECTS)
      .value("BVH_NODES", WR_MEMORY_BVH_NODES)
      .value("BVH_TRIANGLES", WR_MEMORY_BVH_TRIANGLES)
      .value("BVH_PARENTS", WR_MEMORY_BVH_PARENTS)
      .value("RAY_TEMPLATE", WR_MEMORY_RAY_TEMPLATE)
      .value("COUNTERS", WR_MEMORY_COUNTERS)
      .value("BUILD_SCRATCH", WR_MEMORY_BUILD_SCRATCH)
      .value("HISTORY", WR_MEMORY_HISTORY)
      .value("CAMERA_IMAGES", WR_MEMORY_CAMERA_IMAGES)
      .value("RENDER_SCRATCH", WR_MEMORY_RENDER_SCRATCH)
      .value("INSTANCE_TABLE", WR_MEMORY_INSTANCE_TABLE)
      .value("GRID_SAMPLES", WR_MEMORY_GRID_SAMPLES)
      .value("GRID_PYRAMID", WR_MEMORY_GRID_PYRAMID);
  nb::enum_<wr_resample>(m, "Resample", "wr_resample: NONE, AREA (interpolate mode='area'), BICUBIC (mode='bicubic').")
      .value("NONE", WR_RESAMPLE_NONE)
      .value("AREA", WR_RESAMPLE_AREA)
      .value("BICUBIC", WR_RESAMPLE_BICUBIC);
  nb::enum_<wr_invalid_mode>(m, "InvalidMode",
                             "wr_invalid_mode: MISS_VALUE (the camera's miss value) or REP117 (-inf too close, "
                             "+inf no return, NaN invalid).")
      .value("MISS_VALUE", WR_INVALID_MISS_VALUE)
      .value("REP117", WR_INVALID_REP117);
  nb::enum_<wr_dtype>(m, "Dtype", "wr_dtype: FLOAT32, FLOAT16, UINT16_MM (REP 118 millimetres, 0 = invalid).")
      .value("FLOAT32", WR_DTYPE_FLOAT32)
      .value("FLOAT16", WR_DTYPE_FLOAT16)
      .value("UINT16_MM", WR_DTYPE_UINT16_MM);
  nb::enum_<wr_bad_pose_mode>(m, "BadPoseMode", "wr_bad_pose_mode: FAIL (the default) or ISOLATE.")
      .value("FAIL", WR_BAD_POSE_FAIL)
      .value("ISOLATE", WR_BAD_POSE_ISOLATE);

  m.def(
      "status_string", [](wr_status s) { return std::string(wr_status_string(s)); }, "status"_a,
      "wr_status_string: the status's name, e.g. 'WR_ERROR_IO'.");
  m.def(
      "cpu_path_string", [](wr_cpu_path p) { return std::string(wr_cpu_path_string(p)); }, "path"_a,
      "wr_cpu_path_string: 'auto', 'scalar', 'avx2' or 'avx512'.");
  m.def(
      "memory_tag_string", [](wr_memory_tag t) { return std::string(wr_memory_tag_string(t)); }, "tag"_a,
      "wr_memory_tag_string: the tag's name, e.g. 'bvh_nodes'.");
  m.def(
      "last_error", [] { return std::string(wr_last_error()); },
      "wr_last_error: the message of the last failed C call on this thread ('' if none). Failed "
      "calls of this module raise warp_raycaster.Error carrying it already.");
  m.def(
      "version", [] { return std::string(wr_version_string()); },
      "wr_version_string(): the version of the libwr.so this module is linked with, 'major.minor.patch'.");
  m.def("library_path", &library_path, "The file of the libwr.so this module is linked with.");

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
          "Camera orientation in the body frame, a quaternion in quat_order (4).");
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
                wrpy::invalid_argument("Pattern.spherical", "vertical_angles has " +
                                                                std::to_string(vertical_angles->size()) +
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
            if (d.shape[0] > int64_t(UINT32_MAX)) wrpy::invalid_argument(fn, "more than 2^32 - 1 rays");
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

  // ---- context ----
  nb::class_<ContextObj>(m, "Context", "wr_context: a CPU thread pool or one CUDA GPU, and its allocator.")
      .def(
          "__init__",
          [](ContextObj* self, wr_device device, int ordinal, uint32_t threads) {
            nb::gil_scoped_release release;  // a CUDA context initialises the driver
            if (device == WR_DEVICE_CPU)
              new (self) ContextObj{wr::Context::cpu(threads), DeviceSpec{WR_DEVICE_CPU, 0}};
            else
              new (self) ContextObj{wr::Context::cuda(ordinal), DeviceSpec{WR_DEVICE_CUDA, ordinal}};
          },
          "device"_a, "ordinal"_a = 0, "threads"_a = 0,
          "wr_context_create_cpu(threads) for Device.CPU (0 threads = one per hardware thread), "
          "wr_context_create(WR_DEVICE_CUDA, ordinal) for Device.CUDA.")
      .def_prop_ro("device", [](const ContextObj& c) { return c.device.device; })
      .def_prop_ro(
          "ordinal", [](const ContextObj& c) { return c.device.ordinal; }, "CUDA device index (0 on the CPU).")
      .def_prop_ro(
          "num_threads", [](const ContextObj& c) { return c.context.num_threads(); },
          "wr_context_num_threads (1 for a CUDA context's host side).")
      .def_prop_rw(
          "cpu_path", [](const ContextObj& c) { return c.context.cpu_path(); },
          [](ContextObj& c, wr_cpu_path p) { c.context.set_cpu_path(p); },
          "wr_context_cpu_path / wr_context_set_cpu_path (CPU contexts).");

  // ---- scene ----
  nb::class_<SceneObj>(m, "Scene", "wr_scene: an immutable triangle mesh and its BVH.")
      .def(
          "__init__",
          [](SceneObj* self, const ContextObj& context, nb::handle vertices, nb::handle indices) {
            // The library copies the mesh from host memory on every context (wr_scene_create).
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array v = take_array(vertices,
                                 {"Scene", "vertices", false, {Dtype::kFloat32}, {-1, 3}, "(num_vertices, 3)"}, host);
            Array i = take_array(
                indices, {"Scene", "indices", false, {Dtype::kUInt32, Dtype::kInt32}, {-1, 3}, "(num_triangles, 3)"},
                host);
            nb::gil_scoped_release release;
            new (self)
                SceneObj{wr::Scene::from_arrays(context.context, static_cast<const float*>(v.data),
                                                static_cast<uint64_t>(v.shape[0]), static_cast<const uint32_t*>(i.data),
                                                static_cast<uint64_t>(i.shape[0])),
                         context.device};
          },
          "context"_a, "vertices"_a.none(), "indices"_a.none(),
          "wr_scene_create: vertices (num_vertices, 3) float32 and indices (num_triangles, 3) uint32 or "
          "int32, host memory, C-contiguous; both copied.")
      .def_static(
          "load_obj",
          [](const ContextObj& context, const std::string& path) {
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::load_obj(context.context, path), context.device};
          },
          "context"_a, "path"_a, "wr_scene_load_obj: every shape of a Wavefront OBJ file merged into one mesh.")
      .def_static(
          "create_heightfield",
          [](const ContextObj& context, nb::handle heights, bool x_fastest, float spacing_x, float spacing_y,
             float z_scale, std::array<float, 3> origin, float base_depth, int terrain) {
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array h = take_array(heights,
                                 {"Scene.from_heightfield",
                                  "heights",
                                  false,
                                  {Dtype::kFloat32},
                                  {-1, -1},
                                  x_fastest ? "(num_y, num_x)" : "(num_x, num_y)"},
                                 host);
            wr_heightfield_desc d;
            wr_heightfield_desc_init(&d);
            d.heights = static_cast<const float*>(h.data);
            // The array's slow axis is y for heights[iy, ix] (x fastest), x for heights[ix, iy].
            const uint64_t slow = static_cast<uint64_t>(h.shape[0]), fast = static_cast<uint64_t>(h.shape[1]);
            const uint64_t nx = x_fastest ? fast : slow, ny = x_fastest ? slow : fast;
            if (nx > UINT32_MAX || ny > UINT32_MAX)
              throw wr::Error(WR_ERROR_INVALID_ARGUMENT,
                              "Scene.from_heightfield: heights has more than 2^32 - 1 "
                              "samples along an axis");
            d.num_x = static_cast<uint32_t>(nx), d.num_y = static_cast<uint32_t>(ny);
            d.layout = x_fastest ? WR_HEIGHTFIELD_X_FASTEST : WR_HEIGHTFIELD_Y_FASTEST;
            d.spacing_x = spacing_x, d.spacing_y = spacing_y, d.z_scale = z_scale, d.base_depth = base_depth;
            for (int i = 0; i < 3; ++i) d.origin[i] = origin[i];
            std::memcpy(&d.terrain, &terrain, sizeof terrain);  // the library names a bad value
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::from_heightfield(context.context, d), context.device};
          },
          "context"_a, "heights"_a.none(), "x_fastest"_a, "spacing_x"_a, "spacing_y"_a, "z_scale"_a, "origin"_a,
          "base_depth"_a, "terrain"_a = 0,
          "wr_scene_create_heightfield: heights (num_y, num_x) float32 with x_fastest (heights[iy, ix]), else "
          "(num_x, num_y), host memory, C-contiguous; copied. terrain: a wr_terrain_kind (0 auto, 1 bvh, 2 grid).")
      .def_static(
          "create_grid_mesh",
          [](const ContextObj& context, nb::handle vertices, nb::handle indices) {
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            Array v = take_array(
                vertices, {"Scene.from_grid_mesh", "vertices", false, {Dtype::kFloat32}, {-1, 3}, "(num_vertices, 3)"},
                host);
            Array i = take_array(indices,
                                 {"Scene.from_grid_mesh",
                                  "indices",
                                  false,
                                  {Dtype::kUInt32, Dtype::kInt32},
                                  {-1, 3},
                                  "(num_triangles, 3)"},
                                 host);
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::from_grid_mesh(
                                context.context, static_cast<const float*>(v.data), static_cast<uint64_t>(v.shape[0]),
                                static_cast<const uint32_t*>(i.data), static_cast<uint64_t>(i.shape[0])),
                            context.device};
          },
          "context"_a, "vertices"_a.none(), "indices"_a.none(),
          "wr_scene_create_grid_mesh: legged_gym's convert_heightfield_to_trimesh arrays, vertices "
          "(num_vertices, 3) float32 and indices (num_triangles, 3) uint32 or int32, host memory, "
          "C-contiguous; both copied.")
      .def_prop_ro(
          "terrain_kind", [](const SceneObj& s) { return std::string(wr_terrain_kind_string(s.scene.terrain_kind())); },
          "wr_scene_terrain_kind: 'bvh' or 'grid'.")
      .def_static(
          "create_instanced",
          [](const ContextObj& context, const SceneObj& terrain, nb::typed<nb::sequence, SceneObj> prototypes,
             std::vector<uint32_t> slot_prototypes, std::optional<std::vector<uint32_t>> slot_groups,
             std::vector<uint32_t> global_prototypes, std::optional<std::vector<uint32_t>> global_groups) {
            const char* fn = "Scene.instanced";
            std::vector<wr_scene> handles;
            size_t i = 0;
            for (nb::handle p : prototypes) {
              SceneObj* scene = nullptr;
              if (!nb::try_cast(p, scene) || !scene)
                wrpy::invalid_argument(fn, "prototypes[" + std::to_string(i) + "] is not a Scene");
              handles.push_back(scene->scene.get());
              ++i;
            }
            if (slot_groups && slot_groups->size() != slot_prototypes.size())
              wrpy::invalid_argument(fn, "slot_groups has " + std::to_string(slot_groups->size()) +
                                             " entries, slot_prototypes " + std::to_string(slot_prototypes.size()) +
                                             ": one group per slot");
            if (global_groups && global_groups->size() != global_prototypes.size())
              wrpy::invalid_argument(fn, "global_groups has " + std::to_string(global_groups->size()) +
                                             " entries, global_prototypes " + std::to_string(global_prototypes.size()) +
                                             ": one group per global");
            if (handles.size() > UINT32_MAX || slot_prototypes.size() > UINT32_MAX ||
                global_prototypes.size() > UINT32_MAX)
              wrpy::invalid_argument(fn, "more than 2^32 - 1 prototypes or instances");
            wr_instanced_scene_desc d;
            wr_instanced_scene_desc_init(&d);
            d.terrain = terrain.scene.get();
            d.prototypes = handles.data();
            d.num_prototypes = static_cast<uint32_t>(handles.size());
            d.slot_prototypes = slot_prototypes.data();
            d.slot_groups = slot_groups ? slot_groups->data() : nullptr;
            d.num_slots = static_cast<uint32_t>(slot_prototypes.size());
            d.global_prototypes = global_prototypes.data();
            d.global_groups = global_groups ? global_groups->data() : nullptr;
            d.num_globals = static_cast<uint32_t>(global_prototypes.size());
            nb::gil_scoped_release release;
            return SceneObj{wr::Scene::instanced(context.context, d), context.device};
          },
          "context"_a, "terrain"_a, "prototypes"_a, "slot_prototypes"_a, "slot_groups"_a.none(), "global_prototypes"_a,
          "global_groups"_a.none(),
          "wr_scene_create_instanced: the terrain and the prototypes (mesh scenes of this context), each "
          "env's slots (the prototype of each, and its group 0-31, or None: all 0) and the global instances "
          "(likewise). The tables are copied; the new scene keeps the terrain and prototypes alive.")
      .def_prop_ro(
          "instance_counts",
          [](const SceneObj& s) {
            const std::array<uint32_t, 2> n = s.scene.instance_counts();
            return std::make_tuple(n[0], n[1]);
          },
          "wr_scene_instance_counts: (num_slots, num_globals), (0, 0) for a mesh scene.")
      .def_prop_ro("num_triangles", [](const SceneObj& s) { return s.scene.num_triangles(); })
      .def_prop_ro("build_seconds", [](const SceneObj& s) { return s.scene.build_seconds(); })
      .def_prop_ro(
          "bounds",
          [](const SceneObj& s) {
            wr::Scene::Bounds b = s.scene.bounds();
            return std::make_pair(std::make_tuple(b.min[0], b.min[1], b.min[2]),
                                  std::make_tuple(b.max[0], b.max[1], b.max[2]));
          },
          "wr_scene_bounds: ((min x, y, z), (max x, y, z)) of the triangles' corners, metres.")
      .def(
          "memory",
          [](const SceneObj& s) {
            return memory_dict(s.scene.memory(), [&](wr_memory_tag t, uint64_t* host, uint64_t* device) {
              return wr_scene_memory_tag(s.scene.get(), t, host, device);
            });
          },
          "wr_scene_memory and wr_scene_memory_tag for every tag, as a dict.")
      .def(
          "intersect",
          [](const SceneObj& s, nb::handle origins, nb::handle directions, nb::handle tmax, nb::handle out_t,
             nb::handle out_triangle, uintptr_t stream) {
            const char* fn = "Scene.intersect";
            Array o = take_array(origins, {fn, "origins", false, {Dtype::kFloat32}, {-1, 3}, "(count, 3)"}, s.device);
            const int64_t count = o.shape[0];
            Array d = take_array(directions, {fn, "directions", false, {Dtype::kFloat32}, {count, 3}, "(count, 3)"},
                                 s.device);
            Array tm;
            if (!tmax.is_none())
              tm = take_array(tmax, {fn, "tmax", false, {Dtype::kFloat32}, {count}, "(count,)"}, s.device);
            Array t = take_array(out_t, {fn, "out_t", true, {Dtype::kFloat32}, {count}, "(count,)"}, s.device);
            Array tri;
            if (!out_triangle.is_none())
              tri = take_array(out_triangle,
                               {fn, "out_triangle", true, {Dtype::kInt32, Dtype::kUInt32}, {count}, "(count,)"},
                               s.device);
            for (const Array* in : {&o, &d, &tm}) {
              if (!in->data) continue;
              const char* name = in == &o ? "origins" : in == &d ? "directions" : "tmax";
              require_disjoint(fn, *in, name, t, "out_t");
              if (tri.data) require_disjoint(fn, *in, name, tri, "out_triangle");
            }
            if (tri.data) require_disjoint(fn, t, "out_t", tri, "out_triangle");
            nb::gil_scoped_release release;
            s.scene.intersect(static_cast<const float*>(o.data), static_cast<const float*>(d.data),
                              static_cast<const float*>(tm.data), static_cast<uint64_t>(count),
                              static_cast<float*>(t.data), static_cast<uint32_t*>(tri.data),
                              reinterpret_cast<void*>(stream));
          },
          "origins"_a.none(), "directions"_a.none(), "tmax"_a.none(), "out_t"_a.none(), "out_triangle"_a.none(),
          "stream"_a = 0,
          "wr_scene_intersect: origins, directions (count, 3) float32; tmax (count,) float32 or None; "
          "writes out_t (count,) float32 and, unless None, out_triangle (count,) int32 or uint32 "
          "(-1 / 0xFFFFFFFF on a miss). stream: a cudaStream_t as an integer (CUDA contexts).")
      .def(
          "intersect_ex",
          [](const SceneObj& s, nb::handle origins, nb::handle directions, nb::handle tmax, uint32_t num_envs,
             nb::handle instance_poses, nb::handle global_poses, wr_quat_order quat_order, uint32_t exclude_groups,
             nb::handle out_t, nb::handle out_triangle, nb::handle out_instance, uintptr_t stream) {
            const char* fn = "Scene.intersect";
            // origins: (count, 3), or (num_envs, rays_per_env, 3), env e's rays being block e.
            Array o = take_array(origins, {fn, "origins", false, {Dtype::kFloat32}, {}, ""}, s.device, true);
            const bool blocks = o.ndim == 3;
            if ((o.ndim != 2 && o.ndim != 3) || o.shape[o.ndim - 1] != 3)
              wrpy::invalid_argument(fn, "origins has shape " + array_shape_text(o) +
                                             ", expected (count, 3) or (num_envs, rays_per_env, 3)");
            if (blocks && o.shape[0] > int64_t(UINT32_MAX))
              wrpy::invalid_argument(fn, "origins has " + std::to_string(o.shape[0]) + " envs, more than 2^32 - 1");
            if (blocks && num_envs == 0) num_envs = static_cast<uint32_t>(o.shape[0]);
            if (blocks && int64_t(num_envs) != o.shape[0])
              wrpy::invalid_argument(fn, "origins has shape " + array_shape_text(o) + ", " +
                                             std::to_string(o.shape[0]) +
                                             " envs, but num_envs = " + std::to_string(num_envs));
            const uint32_t envs = num_envs ? num_envs : 1u;
            const int64_t count = blocks ? o.shape[0] * o.shape[1] : o.shape[0];
            if (count % envs != 0)
              wrpy::invalid_argument(fn, "origins holds " + std::to_string(count) +
                                             " rays, not a multiple of num_envs = " + std::to_string(envs) +
                                             " (env e's rays are block e of count / num_envs)");
            // Every other ray array has the origins' leading shape.
            auto take = [&](nb::handle h, const char* name, bool writable, std::initializer_list<Dtype> types,
                            bool xyz) {
              if (blocks && xyz)
                return take_array(
                    h, {fn, name, writable, types, {o.shape[0], o.shape[1], 3}, "(num_envs, rays_per_env, 3)"},
                    s.device);
              if (blocks)
                return take_array(h, {fn, name, writable, types, {o.shape[0], o.shape[1]}, "(num_envs, rays_per_env)"},
                                  s.device);
              if (xyz) return take_array(h, {fn, name, writable, types, {count, 3}, "(count, 3)"}, s.device);
              return take_array(h, {fn, name, writable, types, {count}, "(count,)"}, s.device);
            };
            Array d = take(directions, "directions", false, {Dtype::kFloat32}, true);
            Array tm, tri, ins;
            if (!tmax.is_none()) tm = take(tmax, "tmax", false, {Dtype::kFloat32}, false);
            Array t = take(out_t, "out_t", true, {Dtype::kFloat32}, false);
            if (!out_triangle.is_none())
              tri = take(out_triangle, "out_triangle", true, {Dtype::kInt32, Dtype::kUInt32}, false);
            if (!out_instance.is_none())
              ins = take(out_instance, "out_instance", true, {Dtype::kInt32, Dtype::kUInt32}, false);
            InstancePoses inst =
                take_instance_poses(fn, instance_poses, global_poses, envs, s.scene.instance_counts(), s.device);
            const std::pair<const Array*, const char*> inputs[] = {{&o, "origins"},
                                                                   {&d, "directions"},
                                                                   {&tm, "tmax"},
                                                                   {&inst.slots, "instance_poses"},
                                                                   {&inst.globals, "global_poses"}};
            const std::pair<const Array*, const char*> outputs[] = {
                {&t, "out_t"}, {&tri, "out_triangle"}, {&ins, "out_instance"}};
            for (const auto& out : outputs) {
              if (!out.first->data) continue;
              for (const auto& in : inputs)
                if (in.first->data) require_disjoint(fn, *in.first, in.second, *out.first, out.second);
              for (const auto& other : outputs)
                if (&other < &out && other.first->data)
                  require_disjoint(fn, *other.first, other.second, *out.first, out.second);
            }
            wr_intersect_args a;
            wr_intersect_args_init(&a);
            a.origins = static_cast<const float*>(o.data);
            a.directions = static_cast<const float*>(d.data);
            a.tmax = static_cast<const float*>(tm.data);
            a.count = static_cast<uint64_t>(count);
            a.num_envs = num_envs;
            a.instance_poses = static_cast<const float*>(inst.slots.data);
            a.global_poses = static_cast<const float*>(inst.globals.data);
            a.quat_order = quat_order;
            a.exclude_groups = exclude_groups;
            a.out_t = static_cast<float*>(t.data);
            a.out_triangle = static_cast<uint32_t*>(tri.data);
            a.out_instance = static_cast<uint32_t*>(ins.data);
            a.stream = reinterpret_cast<void*>(stream);
            nb::gil_scoped_release release;
            s.scene.intersect(a);
          },
          "origins"_a.none(), "directions"_a.none(), "tmax"_a.none(), "num_envs"_a, "instance_poses"_a.none(),
          "global_poses"_a.none(), "quat_order"_a, "exclude_groups"_a, "out_t"_a.none(), "out_triangle"_a.none(),
          "out_instance"_a.none(), "stream"_a = 0,
          "wr_scene_intersect_ex: origins, directions (count, 3) float32, num_envs consecutive blocks of "
          "count / num_envs rays (0: 1), or (num_envs, rays_per_env, 3); tmax, out_t, out_triangle and "
          "out_instance (int32 or uint32, -1 / 0xFFFFFFFF for the terrain or a miss; or None) of their leading "
          "shape. Block e sees the terrain, env e's instance slots (instance_poses (num_envs, num_slots, 7)) "
          "and the global instances (global_poses (num_globals, 7)), both in quat_order, less the groups "
          "whose bit is set in exclude_groups.");

  // ---- sensor ----
  nb::class_<SensorObj>(m, "Sensor", "wr_sensor: num_envs cameras sharing one description and one scene.")
      .def(
          "__init__",
          [](SensorObj* self, const SceneObj& scene, const wr_camera_desc& desc, uint32_t num_envs,
             const wr_sensor_options& options) {
            nb::gil_scoped_release release;
            new (self) SensorObj(scene, desc, options, num_envs);
          },
          "scene"_a, "desc"_a, "num_envs"_a, "options"_a,
          "wr_sensor_create_ex: builds the shared ray template and everything render needs (the pipeline's "
          "history and images for `options`); keeps the scene alive.")
      .def(
          "__init__",
          [](SensorObj* self, const SceneObj& scene, const wr_camera_desc& desc, uint32_t num_envs) {
            nb::gil_scoped_release release;
            new (self) SensorObj(scene, desc, wr::sensor_options(), num_envs);
          },
          "scene"_a, "desc"_a, "num_envs"_a, "wr_sensor_create: a sensor without pipeline options.")
      .def(
          "__init__",
          [](SensorObj* self, const SceneObj& scene, const wr::Pattern& pattern, const wr_ray_sensor_desc& desc,
             uint32_t num_envs, const wr_sensor_options& options, std::vector<uint32_t> frame_pose_offsets,
             std::vector<float> frame_mounts) {
            wr_ray_sensor_desc d = desc;
            if (!frame_pose_offsets.empty() && frame_pose_offsets.size() != d.num_frames)
              wrpy::invalid_argument("RaySensor", "frame_pose_offsets has " +
                                                      std::to_string(frame_pose_offsets.size()) +
                                                      " entries for num_frames = " + std::to_string(d.num_frames));
            if (!frame_mounts.empty() && frame_mounts.size() != 7ull * d.num_frames)
              wrpy::invalid_argument("RaySensor",
                                     "frame_mounts has " + std::to_string(frame_mounts.size()) +
                                         " floats: 7 per frame, num_frames = " + std::to_string(d.num_frames));
            d.frame_pose_offsets = frame_pose_offsets.empty() ? nullptr : frame_pose_offsets.data();
            d.frame_mounts = frame_mounts.empty() ? nullptr : frame_mounts.data();
            uint32_t record = 7;
            for (uint32_t f = 0; d.num_frames > 1 && f < d.num_frames; ++f)
              record = std::max(record, (frame_pose_offsets.empty() ? 7 * f : frame_pose_offsets[f]) + 7);
            {
              nb::gil_scoped_release release;
              new (self) SensorObj(scene, pattern, d, options, num_envs);
            }
            self->record_floats = record;
          },
          "scene"_a, "pattern"_a, "desc"_a, "num_envs"_a, "options"_a, "frame_pose_offsets"_a, "frame_mounts"_a,
          "wr_sensor_create_pattern: a pattern sensor (its output (num_envs, num_rays), or (num_envs, num_frames, "
          "num_rays)); frame_pose_offsets (num_frames) and frame_mounts (num_frames * 7), or empty; keeps the "
          "scene alive.")
      .def_prop_ro(
          "is_pattern", [](const SensorObj& s) { return s.pattern; }, "Whether this is a pattern sensor.")
      .def(
          "world_rays",
          [](const SensorObj& s, nb::handle pose, nb::handle mount, uint32_t env, uint64_t frame, nb::handle starts,
             nb::handle directions) {
            const char* fn = "RaySensor.world_rays";
            const DeviceSpec host{WR_DEVICE_CPU, 0};
            const int64_t r = int64_t(s.shape.width) * s.shape.height;  // (frames x rays)
            Array p = take_array(pose, {fn, "pose", false, {Dtype::kFloat32}, {}, ""}, host, true);
            if (uint64_t(p.size()) < s.record_floats)
              wrpy::invalid_argument(fn, "pose holds " + std::to_string(p.size()) + " floats; the sensor reads " +
                                             std::to_string(s.record_floats) +
                                             (s.record_floats == 7 ? " (a pose)" : " (its frames' poses)"));
            Array m;
            if (!mount.is_none()) m = take_array(mount, {fn, "mount", false, {Dtype::kFloat32}, {7}, "(7,)"}, host);
            Array o = take_array(starts, {fn, "starts", true, {Dtype::kFloat32}, {r, 3}, "(num_rays, 3)"}, host);
            Array d =
                take_array(directions, {fn, "directions", true, {Dtype::kFloat32}, {r, 3}, "(num_rays, 3)"}, host);
            require_disjoint(fn, o, "starts", d, "directions");
            s.sensor.world_rays(static_cast<const float*>(p.data), static_cast<const float*>(m.data), env, frame,
                                static_cast<float*>(o.data), static_cast<float*>(d.data));
          },
          "pose"_a.none(), "mount"_a.none(), "env"_a, "frame"_a, "starts"_a.none(), "directions"_a.none(),
          "wr_sensor_world_rays: env's world rays in frame `frame` (host arrays): pose (7,) (a sensor of several "
          "frames: the env's record) and mount (7,) or None float32; writes starts and directions "
          "(frames x rays, 3) float32.")
      .def(
          "render",
          [](SensorObj& s, nb::handle poses, nb::handle out, uintptr_t stream, uint32_t stride, uint32_t offset,
             nb::handle intrinsics, nb::handle mounts, uint64_t frame, nb::handle latency, nb::handle update_mask,
             nb::handle reset_mask, nb::handle bad_env_count, nb::handle bad_env_mask, nb::handle instance_poses,
             nb::handle global_poses, nb::handle instance_ids, nb::handle triangle_ids, nb::handle hit_points,
             nb::handle hit_normals) {
            const char* fn = "Sensor.render";
            const int64_t n = s.num_envs;
            // poses: (num_envs, 7) float32 (pose_stride 0); or, read in place from simulator state,
            // (num_envs, stride) or (num_envs, bodies, 13) with the pose_stride (and pose_offset) of it.
            const bool state = stride != 0 || offset != 0;
            Array p =
                state ? take_array(poses, {fn, "poses", false, {Dtype::kFloat32}, {}, ""}, s.device, true)
                      : take_array(poses, {fn, "poses", false, {Dtype::kFloat32}, {n, 7}, "(num_envs, 7)"}, s.device);
            // (the camera's image where the sensor has no options: its output is that image; a
            // pattern sensor's, one value per ray)
            const bool camera_sized = s.shape.height == s.desc.height && s.shape.width == s.desc.width;
            const bool rays = s.pattern && s.shape.height == 1;  // one frame: (num_envs, num_rays)
            Array o = rays ? take_array(out,
                                        {fn,
                                         "out",
                                         true,
                                         {output_dtype(s.shape.dtype)},
                                         {n, int64_t(s.shape.width)},
                                         "(num_envs, num_rays)"},
                                        s.device)
                           : take_array(out,
                                        {fn,
                                         "out",
                                         true,
                                         {output_dtype(s.shape.dtype)},
                                         {n, int64_t(s.shape.height), int64_t(s.shape.width)},
                                         s.pattern      ? "(num_envs, num_frames, num_rays)"
                                         : camera_sized ? "(num_envs, height, width)"
                                                        : "(num_envs, out_height, out_width)"},
                                        s.device);
            auto optional = [&](nb::handle h, const char* name, std::initializer_list<Dtype> types,
                                std::initializer_list<int64_t> shape, const char* doc, bool writable) {
              Array a;
              if (!h.is_none()) a = take_array(h, {fn, name, writable, types, shape, doc}, s.device);
              return a;
            };
            Array k = optional(intrinsics, "intrinsics", {Dtype::kFloat32}, {n, 4}, "(num_envs, 4)", false);
            Array m = optional(mounts, "mounts", {Dtype::kFloat32}, {n, 7}, "(num_envs, 7)", false);
            Array lat = optional(latency, "latency", {Dtype::kInt32, Dtype::kUInt32}, {n}, "(num_envs,)", false);
            Array upd = optional(update_mask, "update_mask", {Dtype::kBool, Dtype::kUInt8}, {n}, "(num_envs,)", false);
            Array rst = optional(reset_mask, "reset_mask", {Dtype::kBool, Dtype::kUInt8}, {n}, "(num_envs,)", false);
            Array cnt = optional(bad_env_count, "bad_env_count", {Dtype::kInt32, Dtype::kUInt32}, {1}, "(1,)", true);
            Array msk = optional(bad_env_mask, "bad_env_mask", {Dtype::kBool, Dtype::kUInt8}, {n}, "(num_envs,)", true);
            InstancePoses inst = take_instance_poses(fn, instance_poses, global_poses, n, s.instances, s.device);
            Array ids = rays ? optional(instance_ids, "instance_ids", {Dtype::kUInt32, Dtype::kInt32},
                                        {n, int64_t(s.shape.width)}, "(num_envs, num_rays)", true)
                             : optional(instance_ids, "instance_ids", {Dtype::kUInt32, Dtype::kInt32},
                                        {n, int64_t(s.shape.height), int64_t(s.shape.width)},
                                        "(num_envs, out_height, out_width)", true);
            // A pattern sensor's hit details: (num_envs, [num_frames,] num_rays[, 3]).
            auto details = [&](nb::handle h, const char* name, bool vectors) {
              const int64_t w = s.shape.width, fr = s.shape.height;
              if (vectors)
                return rays ? optional(h, name, {Dtype::kFloat32}, {n, w, 3}, "(num_envs, num_rays, 3)", true)
                            : optional(h, name, {Dtype::kFloat32}, {n, fr, w, 3},
                                       "(num_envs, out_height, out_width, 3)", true);
              return rays ? optional(h, name, {Dtype::kUInt32, Dtype::kInt32}, {n, w}, "(num_envs, num_rays)", true)
                          : optional(h, name, {Dtype::kUInt32, Dtype::kInt32}, {n, fr, w},
                                     "(num_envs, out_height, out_width)", true);
            };
            Array tri = details(triangle_ids, "triangle_ids", false);
            Array pts = details(hit_points, "hit_points", true);
            Array nrm = details(hit_normals, "hit_normals", true);
            const std::pair<const Array*, const char*> outputs[] = {{&o, "out"},
                                                                    {&ids, "instance_ids"},
                                                                    {&tri, "triangle_ids"},
                                                                    {&pts, "hit_points"},
                                                                    {&nrm, "hit_normals"}};
            const std::pair<const Array*, const char*> inputs[] = {{&p, "poses"},
                                                                   {&k, "intrinsics"},
                                                                   {&m, "mounts"},
                                                                   {&lat, "latency"},
                                                                   {&upd, "update_mask"},
                                                                   {&rst, "reset_mask"},
                                                                   {&inst.slots, "instance_poses"},
                                                                   {&inst.globals, "global_poses"}};
            for (const auto& [in, name] : inputs) {
              if (!in->data) continue;
              for (const auto& [written, written_name] : outputs)
                if (written->data) require_disjoint(fn, *in, name, *written, written_name);
            }
            for (size_t i = 0; i < std::size(outputs); ++i)
              for (size_t j = i + 1; j < std::size(outputs); ++j)
                if (outputs[i].first->data && outputs[j].first->data)
                  require_disjoint(fn, *outputs[i].first, outputs[i].second, *outputs[j].first, outputs[j].second);
            wr_render_args a = wr::render_args(static_cast<const float*>(p.data), o.data, o.bytes());
            a.pose_stride = stride;
            a.pose_offset = offset;
            a.intrinsics = static_cast<const float*>(k.data);
            a.mounts = static_cast<const float*>(m.data);
            a.frame = frame;
            a.latency = static_cast<const uint32_t*>(lat.data);
            a.update_mask = static_cast<const uint8_t*>(upd.data);
            a.reset_mask = static_cast<const uint8_t*>(rst.data);
            a.bad_env_count = static_cast<uint32_t*>(cnt.data);
            a.bad_env_mask = static_cast<uint8_t*>(msk.data);
            a.stream = reinterpret_cast<void*>(stream);
            a.instance_poses = static_cast<const float*>(inst.slots.data);
            a.global_poses = static_cast<const float*>(inst.globals.data);
            a.instance_ids = static_cast<uint32_t*>(ids.data);
            a.triangle_ids = static_cast<uint32_t*>(tri.data);
            a.hit_points = static_cast<float*>(pts.data);
            a.hit_normals = static_cast<float*>(nrm.data);
            if (uint64_t(p.size()) < uint64_t(n - 1) * (stride ? stride : 7) + offset + 7)
              wrpy::invalid_argument(fn, "poses holds " + std::to_string(p.size()) + " floats, fewer than " +
                                             std::to_string(n) + " envs of pose_stride " +
                                             std::to_string(stride ? stride : 7) + " need");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.busy);
            s.sensor.render(a);
          },
          "poses"_a.none(), "out"_a.none(), "stream"_a = 0, "pose_stride"_a = 0, "pose_offset"_a = 0,
          "intrinsics"_a.none() = nb::none(), "mounts"_a.none() = nb::none(), "frame"_a = 0,
          "latency"_a.none() = nb::none(), "update_mask"_a.none() = nb::none(), "reset_mask"_a.none() = nb::none(),
          "bad_env_count"_a.none() = nb::none(), "bad_env_mask"_a.none() = nb::none(),
          "instance_poses"_a.none() = nb::none(), "global_poses"_a.none() = nb::none(),
          "instance_ids"_a.none() = nb::none(), "triangle_ids"_a.none() = nb::none(),
          "hit_points"_a.none() = nb::none(), "hit_normals"_a.none() = nb::none(),
          "wr_sensor_render_ex: the one render (wr.h, wr_render_args; the library derives which parts of the "
          "pipeline it runs); the Python layer's Sensor.render fills the arguments. poses (num_envs, 7) float32 "
          "(pose_stride 0), or simulator state with its pose_stride (and pose_offset). An instanced scene's poses: "
          "instance_poses (num_envs, "
          "num_slots, 7) and global_poses (num_globals, 7) float32, each needed when the scene has such "
          "instances; instance_ids (num_envs, out_height, out_width) uint32 or int32 or None is written with "
          "the instance each pixel hit (0xFFFFFFFF / -1: the terrain or nothing). A pattern sensor's hit details: "
          "triangle_ids (num_envs, num_rays) uint32 or int32, hit_points and hit_normals (num_envs, num_rays, 3) "
          "float32 (with frames: (num_envs, num_frames, num_rays[, 3])).")
      .def_prop_ro(
          "output_shape",
          [](const SensorObj& s) { return std::make_tuple(s.shape.height, s.shape.width, s.shape.dtype); },
          "wr_sensor_output_shape: (out_height, out_width, dtype) of one env's output.")
      .def_prop_ro("history_length", [](const SensorObj& s) { return s.history; })
      .def_prop_ro(
          "desc", [](const SensorObj& s) { return s.desc; }, "wr_sensor_desc: the description as given.")
      .def_prop_ro("num_envs", [](const SensorObj& s) { return s.num_envs; })
      .def(
          "stack_overflows",
          [](const SensorObj& s) {
            nb::gil_scoped_release release;  // synchronises with the device on a CUDA context
            return s.sensor.stack_overflows();
          },
          "wr_sensor_stack_overflows: rays that overflowed the fixed traversal stack (still exact).")
      .def(
          "memory",
          [](const SensorObj& s) {
            return memory_dict(s.sensor.memory(), [&](wr_memory_tag t, uint64_t* host, uint64_t* device) {
              return wr_sensor_memory_tag(s.sensor.get(), t, host, device);
            });
          },
          "wr_sensor_memory and wr_sensor_memory_tag for every tag, as a dict.");

  // ---- poses from rotation matrices, and MuJoCo models (warp_raycaster.mujoco) ----
  wrpy::register_poses(m);
  wrpy::register_mujoco(m);
}
