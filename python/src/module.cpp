// warp_raycaster._wr: the nanobind binding of the C API (include/wr/wr.h), through the RAII
// wrapper of include/wr/wr.hpp. One Python call is one C call: arrays are taken as they are
// (arrays.h checks them and never copies), the GIL is released while the library works, and a
// failure raises warp_raycaster.Error with the library's message and status, read on the calling
// thread right after the failing call (wr.hpp's check does that before the GIL is taken back).
// The pure-Python layer (warp_raycaster/__init__.py) picks frameworks, devices, output
// allocation and CUDA streams; everything here works on already-allocated arrays.
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "arrays.h"

namespace nb = nanobind;
using namespace nb::literals;
using wrpy::Array;
using wrpy::DeviceSpec;
using wrpy::Dtype;
using wrpy::take_array;

namespace {

// ---- objects: each owns one reference of its C handle (wr.hpp) and knows its device ----

struct ContextObj {
  wr::Context context;
  DeviceSpec device;
};

struct SceneObj {
  wr::Scene scene;
  DeviceSpec device;
};

struct SensorObj {
  wr::Sensor sensor;
  DeviceSpec device;
  wr_camera_desc desc;
  uint32_t num_envs;
  // The C API lets one sensor render from one thread at a time; with the GIL released two
  // Python threads could otherwise enter render on the same sensor together.
  std::mutex busy;
  SensorObj(const SceneObj& scene, const wr_camera_desc& d, uint32_t n)
      : sensor(scene.scene, d, n), device(scene.device), desc(sensor.desc()), num_envs(sensor.num_envs()) {}
};

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
  const uintptr_t end_in = begin_in + in.size() * 4, end_out = begin_out + out.size() * 4;
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

const char* kPosesDoc = "(num_envs, 7)";

}  // namespace

NB_MODULE(_wr, m) {
  m.doc() =
      "The C API of libwr (include/wr/wr.h), one call per C call. Use the package "
      "warp_raycaster, which chooses frameworks, devices, streams and output arrays; this "
      "module takes arrays as they are (DLPack, buffer protocol, __cuda_array_interface__) and "
      "never copies one.";
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
  nb::enum_<wr_quat_order>(m, "QuatOrder",
                           "wr_quat_order: WXYZ (IsaacLab, MuJoCo) or XYZW (IsaacGym root states).")
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
      .value("BUILD_SCRATCH", WR_MEMORY_BUILD_SCRATCH);

  m.def("status_string", [](wr_status s) { return std::string(wr_status_string(s)); }, "status"_a,
        "wr_status_string: the status's name, e.g. 'WR_ERROR_IO'.");
  m.def("cpu_path_string", [](wr_cpu_path p) { return std::string(wr_cpu_path_string(p)); }, "path"_a,
        "wr_cpu_path_string: 'auto', 'scalar', 'avx2' or 'avx512'.");
  m.def("memory_tag_string", [](wr_memory_tag t) { return std::string(wr_memory_tag_string(t)); }, "tag"_a,
        "wr_memory_tag_string: the tag's name, e.g. 'bvh_nodes'.");
  m.def("last_error", [] { return std::string(wr_last_error()); },
        "wr_last_error: the message of the last failed C call on this thread ('' if none). Failed "
        "calls of this module raise warp_raycaster.Error carrying it already.");
  m.def("library_path", &library_path, "The file of the libwr.so this module is linked with.");

  // ---- camera description ----
  nb::class_<wr_camera_desc>(m, "CameraDesc",
                             "wr_camera_desc: pinhole intrinsics (pixels), clipping (metres), miss value, "
                             "depth kind, quaternion order and mount (camera pose in the body frame).")
      .def(nb::init<>())
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
      .def_prop_ro("ordinal", [](const ContextObj& c) { return c.device.ordinal; }, "CUDA device index (0 on the CPU).")
      .def_prop_ro("num_threads", [](const ContextObj& c) { return c.context.num_threads(); },
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
            Array v = take_array(vertices, {"Scene", "vertices", false, {Dtype::kFloat32}, {-1, 3}, "(num_vertices, 3)"},
                                 host);
            Array i = take_array(indices, {"Scene", "indices", false, {Dtype::kUInt32, Dtype::kInt32}, {-1, 3},
                                           "(num_triangles, 3)"},
                                 host);
            nb::gil_scoped_release release;
            new (self) SceneObj{wr::Scene::from_arrays(context.context, static_cast<const float*>(v.data),
                                                      static_cast<uint64_t>(v.shape[0]),
                                                      static_cast<const uint32_t*>(i.data),
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
      .def("memory",
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
              tri = take_array(out_triangle, {fn, "out_triangle", true, {Dtype::kInt32, Dtype::kUInt32}, {count},
                                              "(count,)"},
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
          "(-1 / 0xFFFFFFFF on a miss). stream: a cudaStream_t as an integer (CUDA contexts).");

  // ---- sensor ----
  nb::class_<SensorObj>(m, "Sensor", "wr_sensor: num_envs cameras sharing one description and one scene.")
      .def(
          "__init__",
          [](SensorObj* self, const SceneObj& scene, const wr_camera_desc& desc, uint32_t num_envs) {
            nb::gil_scoped_release release;
            new (self) SensorObj(scene, desc, num_envs);
          },
          "scene"_a, "desc"_a, "num_envs"_a,
          "wr_sensor_create: builds the shared ray template and everything render needs; keeps the scene "
          "alive.")
      .def(
          "render",
          [](SensorObj& s, nb::handle poses, nb::handle out, uintptr_t stream) {
            const int64_t n = s.num_envs, h = s.desc.height, w = s.desc.width;
            Array p = take_array(poses, {"Sensor.render", "poses", false, {Dtype::kFloat32}, {n, 7}, kPosesDoc},
                                 s.device);
            Array o = take_array(out, {"Sensor.render", "out", true, {Dtype::kFloat32}, {n, h, w},
                                       "(num_envs, height, width)"},
                                 s.device);
            require_disjoint("Sensor.render", p, "poses", o, "out");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.busy);
            s.sensor.render(static_cast<const float*>(p.data), static_cast<float*>(o.data),
                            reinterpret_cast<void*>(stream));
          },
          "poses"_a.none(), "out"_a.none(), "stream"_a = 0,
          "wr_sensor_render: poses (num_envs, 7) float32 in, out (num_envs, height, width) float32 written "
          "whole. stream: a cudaStream_t as an integer (CUDA contexts; 0 = the legacy default stream).")
      .def_prop_ro("desc", [](const SensorObj& s) { return s.desc; }, "wr_sensor_desc: the description as given.")
      .def_prop_ro("num_envs", [](const SensorObj& s) { return s.num_envs; })
      .def("stack_overflows",
           [](const SensorObj& s) {
             nb::gil_scoped_release release;  // synchronises with the device on a CUDA context
             return s.sensor.stack_overflows();
           },
           "wr_sensor_stack_overflows: rays that overflowed the fixed traversal stack (still exact).")
      .def("memory",
           [](const SensorObj& s) {
             return memory_dict(s.sensor.memory(), [&](wr_memory_tag t, uint64_t* host, uint64_t* device) {
               return wr_sensor_memory_tag(s.sensor.get(), t, host, device);
             });
           },
           "wr_sensor_memory and wr_sensor_memory_tag for every tag, as a dict.");
}
