// The C API's enums (wr.h) and its functions that name them.
#include <string>

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

void register_enums(nb::module_& m) {
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
}

}  // namespace wrpy
