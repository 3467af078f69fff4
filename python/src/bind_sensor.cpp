// Sensor (wr_sensor): cameras and pattern sensors, and the one render (wr_sensor_render_ex).
#include <array>
#include <cstring>
#include <iterator>
#include <mutex>
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
#include "bind.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wrpy {

namespace {

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

// ---- the render's arrays: one table ----------------------------------------------------------

// What an array of the render holds, as its accepted element types.
enum Kind { kFloats, kIndices, kMask, kOutput };
// Its shape: per env, per env x 4 or 7, one value, or the output's shape (x 3).
enum class Extent { kPerEnv, kPerEnv4, kPerEnv7, kOne, kPixels, kPixels3 };

// One optional array of wr_render_args: its Python keyword (the C field's name), what it holds,
// its shape, whether the render writes it, and where it goes in the C call. The argument parsing,
// the overlap checks and the assignment loop over this table; a new per-env input or output
// channel is a row.
struct RenderArray {
  const char* name;
  Kind kind;
  Extent extent;
  bool writable;
  void (*assign)(wr_render_args& a, void* data);
};

const RenderArray kRenderArrays[] = {
    {"intrinsics", kFloats, Extent::kPerEnv4, false,
     [](wr_render_args& a, void* d) { a.intrinsics = static_cast<const float*>(d); }},
    {"mounts", kFloats, Extent::kPerEnv7, false,
     [](wr_render_args& a, void* d) { a.mounts = static_cast<const float*>(d); }},
    {"latency", kIndices, Extent::kPerEnv, false,
     [](wr_render_args& a, void* d) { a.latency = static_cast<const uint32_t*>(d); }},
    {"update_mask", kMask, Extent::kPerEnv, false,
     [](wr_render_args& a, void* d) { a.update_mask = static_cast<const uint8_t*>(d); }},
    {"reset_mask", kMask, Extent::kPerEnv, false,
     [](wr_render_args& a, void* d) { a.reset_mask = static_cast<const uint8_t*>(d); }},
    {"bad_env_count", kIndices, Extent::kOne, true,
     [](wr_render_args& a, void* d) { a.bad_env_count = static_cast<uint32_t*>(d); }},
    {"bad_env_mask", kMask, Extent::kPerEnv, true,
     [](wr_render_args& a, void* d) { a.bad_env_mask = static_cast<uint8_t*>(d); }},
    {"instance_ids", kIndices, Extent::kPixels, true,
     [](wr_render_args& a, void* d) { a.instance_ids = static_cast<uint32_t*>(d); }},
    {"triangle_ids", kIndices, Extent::kPixels, true,
     [](wr_render_args& a, void* d) { a.triangle_ids = static_cast<uint32_t*>(d); }},
    {"hit_points", kFloats, Extent::kPixels3, true,
     [](wr_render_args& a, void* d) { a.hit_points = static_cast<float*>(d); }},
    {"hit_normals", kFloats, Extent::kPixels3, true,
     [](wr_render_args& a, void* d) { a.hit_normals = static_cast<float*>(d); }},
};
constexpr size_t kNumRenderArrays = std::size(kRenderArrays);

const RenderArray* find_render_array(const char* name) {
  for (const RenderArray& r : kRenderArrays)
    if (std::strcmp(r.name, name) == 0) return &r;
  return nullptr;
}

// The output's shape in Python: (num_envs, num_rays) for a pattern of one frame, else
// (num_envs, out_height, out_width), each with the name its docstrings use.
struct OutputDims {
  int64_t envs, height, width;
  bool rays;  // a pattern sensor of one frame: no height axis
  const char* doc;
  const char* doc3;
};
OutputDims output_dims(const SensorObj& s) {
  const bool camera_sized = s.shape.height == s.desc.height && s.shape.width == s.desc.width;
  OutputDims d{s.num_envs, int64_t(s.shape.height), int64_t(s.shape.width), s.pattern && s.shape.height == 1, "", ""};
  d.doc = d.rays         ? "(num_envs, num_rays)"
          : s.pattern    ? "(num_envs, num_frames, num_rays)"
          : camera_sized ? "(num_envs, height, width)"
                         : "(num_envs, out_height, out_width)";
  d.doc3 = d.rays         ? "(num_envs, num_rays, 3)"
           : s.pattern    ? "(num_envs, num_frames, num_rays, 3)"
           : camera_sized ? "(num_envs, height, width, 3)"
                          : "(num_envs, out_height, out_width, 3)";
  return d;
}

// The render's array `name` taken from `h` as its row says (kOutput: `out`, of element type
// `output`). (take_array's spec holds initializer lists, so each is made in its own call.)
Array take_render_array(nb::handle h, const char* fn, const char* name, Kind kind, Extent extent, const OutputDims& d,
                        Dtype output, const DeviceSpec& device) {
  const bool w = kind == kOutput || find_render_array(name)->writable;
  const int64_t n = d.envs;
  switch (extent) {
    case Extent::kPerEnv4: return take_array(h, {fn, name, w, {Dtype::kFloat32}, {n, 4}, "(num_envs, 4)"}, device);
    case Extent::kPerEnv7: return take_array(h, {fn, name, w, {Dtype::kFloat32}, {n, 7}, "(num_envs, 7)"}, device);
    case Extent::kOne: return take_array(h, {fn, name, w, {Dtype::kInt32, Dtype::kUInt32}, {1}, "(1,)"}, device);
    case Extent::kPerEnv:
      if (kind == kMask) return take_array(h, {fn, name, w, {Dtype::kBool, Dtype::kUInt8}, {n}, "(num_envs,)"}, device);
      return take_array(h, {fn, name, w, {Dtype::kInt32, Dtype::kUInt32}, {n}, "(num_envs,)"}, device);
    case Extent::kPixels3:
      if (d.rays) return take_array(h, {fn, name, w, {Dtype::kFloat32}, {n, d.width, 3}, d.doc3}, device);
      return take_array(h, {fn, name, w, {Dtype::kFloat32}, {n, d.height, d.width, 3}, d.doc3}, device);
    case Extent::kPixels: break;
  }
  if (kind == kOutput) {
    if (d.rays) return take_array(h, {fn, name, w, {output}, {n, d.width}, d.doc}, device);
    return take_array(h, {fn, name, w, {output}, {n, d.height, d.width}, d.doc}, device);
  }
  if (d.rays) return take_array(h, {fn, name, w, {Dtype::kUInt32, Dtype::kInt32}, {n, d.width}, d.doc}, device);
  return take_array(h, {fn, name, w, {Dtype::kUInt32, Dtype::kInt32}, {n, d.height, d.width}, d.doc}, device);
}

}  // namespace

void register_sensor(nb::module_& m) {
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
              invalid_argument("RaySensor", "frame_pose_offsets has " + std::to_string(frame_pose_offsets.size()) +
                                                " entries for num_frames = " + std::to_string(d.num_frames));
            if (!frame_mounts.empty() && frame_mounts.size() != 7ull * d.num_frames)
              invalid_argument("RaySensor", "frame_mounts has " + std::to_string(frame_mounts.size()) +
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
              invalid_argument(fn, "pose holds " + std::to_string(p.size()) + " floats; the sensor reads " +
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
             uint64_t frame, nb::handle instance_poses, nb::handle global_poses, const std::string& function,
             nb::kwargs arrays) {
            const char* fn = function.c_str();  // the Python method the caller called, for its messages
            const int64_t n = s.num_envs;
            // poses: (num_envs, 7) float32 (pose_stride 0); or, read in place from simulator state,
            // (num_envs, stride) or (num_envs, bodies, 13) with the pose_stride (and pose_offset) of it.
            const bool state = stride != 0 || offset != 0;
            Array p =
                state ? take_array(poses, {fn, "poses", false, {Dtype::kFloat32}, {}, ""}, s.device, true)
                      : take_array(poses, {fn, "poses", false, {Dtype::kFloat32}, {n, 7}, "(num_envs, 7)"}, s.device);
            const OutputDims dims = output_dims(s);
            Array o = take_render_array(out, fn, "out", kOutput, Extent::kPixels, dims, output_dtype(s.shape.dtype),
                                        s.device);
            InstancePoses inst = take_instance_poses(fn, instance_poses, global_poses, n, s.instances, s.device);
            // The table's arrays, each None or taken as its row says; any other keyword is refused.
            for (auto [key, value] : arrays) {
              const std::string name = nb::cast<std::string>(key);
              if (!find_render_array(name.c_str()))
                invalid_argument(fn, "unknown array " + name + " (the render's arrays: wr_render_args)");
              (void)value;
            }
            Array taken[kNumRenderArrays];
            for (size_t i = 0; i < kNumRenderArrays; ++i) {
              const RenderArray& r = kRenderArrays[i];
              if (arrays.contains(r.name) && !arrays[r.name].is_none())
                taken[i] =
                    take_render_array(arrays[r.name], fn, r.name, r.kind, r.extent, dims, Dtype::kFloat32, s.device);
            }
            // Output memory must not overlap an input, nor another output.
            std::vector<std::pair<const Array*, const char*>> inputs = {
                {&p, "poses"}, {&inst.slots, "instance_poses"}, {&inst.globals, "global_poses"}};
            std::vector<std::pair<const Array*, const char*>> outputs = {{&o, "out"}};
            for (size_t i = 0; i < kNumRenderArrays; ++i)
              (kRenderArrays[i].writable ? outputs : inputs).push_back({&taken[i], kRenderArrays[i].name});
            for (const auto& [in, name] : inputs) {
              if (!in->data) continue;
              for (const auto& [written, written_name] : outputs)
                if (written->data) require_disjoint(fn, *in, name, *written, written_name);
            }
            for (size_t i = 0; i < outputs.size(); ++i)
              for (size_t j = i + 1; j < outputs.size(); ++j)
                if (outputs[i].first->data && outputs[j].first->data)
                  require_disjoint(fn, *outputs[i].first, outputs[i].second, *outputs[j].first, outputs[j].second);
            wr_render_args a = wr::render_args(static_cast<const float*>(p.data), o.data, o.bytes());
            a.pose_stride = stride;
            a.pose_offset = offset;
            a.frame = frame;
            a.stream = reinterpret_cast<void*>(stream);
            a.instance_poses = static_cast<const float*>(inst.slots.data);
            a.global_poses = static_cast<const float*>(inst.globals.data);
            for (size_t i = 0; i < kNumRenderArrays; ++i) kRenderArrays[i].assign(a, taken[i].data);
            if (uint64_t(p.size()) < uint64_t(n - 1) * (stride ? stride : 7) + offset + 7)
              invalid_argument(fn, "poses holds " + std::to_string(p.size()) + " floats, fewer than " +
                                       std::to_string(n) + " envs of pose_stride " +
                                       std::to_string(stride ? stride : 7) + " need");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.busy);
            s.sensor.render(a);
          },
          "poses"_a.none(), "out"_a.none(), "stream"_a = 0, "pose_stride"_a = 0, "pose_offset"_a = 0, "frame"_a = 0,
          "instance_poses"_a.none() = nb::none(), "global_poses"_a.none() = nb::none(), "function"_a = "Sensor.render",
          "arrays"_a,
          "wr_sensor_render_ex: the one render (wr.h, wr_render_args; the library derives which parts of the "
          "pipeline it runs); the Python layer's Sensor.render fills the arguments. poses (num_envs, 7) float32 "
          "(pose_stride 0), or simulator state with its pose_stride (and pose_offset). An instanced scene's poses: "
          "instance_poses (num_envs, num_slots, 7) and global_poses (num_globals, 7) float32, each needed when "
          "the scene has such instances. The per-env arrays by keyword, each None or an array: intrinsics "
          "(num_envs, 4) and mounts (num_envs, 7) float32; latency (num_envs,) int32 or uint32; update_mask, "
          "reset_mask (num_envs,) bool or uint8; written: bad_env_count (1,) int32 or uint32, bad_env_mask "
          "(num_envs,) bool or uint8, and the output channels, shaped as out: instance_ids and triangle_ids "
          "uint32 or int32 (0xFFFFFFFF / -1: none), hit_points and hit_normals float32 with a last axis of 3.")
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
}

}  // namespace wrpy
