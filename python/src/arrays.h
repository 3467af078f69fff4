// Array arguments of the Python binding: any object that speaks DLPack (__dlpack__), the buffer
// protocol or __cuda_array_interface__ is taken as it is, never copied or converted, and checked
// against what the C API call needs (dtype, shape, C-contiguity, 4-byte alignment, device), with a
// message that names the Python function and argument. nanobind's ndarray caster does the DLPack
// and buffer-protocol import; __cuda_array_interface__ (numba, older CuPy), which nanobind does not
// read, is parsed here.
#pragma once

#include <cstdint>
#include <array>
#include <initializer_list>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <wr/wr.h>

namespace wrpy {

namespace nb = nanobind;

/// The memory a context's calls take: host memory for a CPU context (pageable, pinned or
/// managed), device memory of the context's own GPU for a CUDA context (or managed memory).
struct DeviceSpec {
  wr_device device = WR_DEVICE_CPU;
  int ordinal = 0;  // CUDA device index; unused for the CPU
};

/// "cpu" or "cuda:<ordinal>", as torch names devices.
std::string device_name(const DeviceSpec& spec);

enum class Dtype { kFloat32, kInt32, kUInt32, kFloat16, kUInt16, kUInt8, kBool, kFloat64 };

/// Bytes of one element.
inline int element_bytes(Dtype d) {
  if (d == Dtype::kFloat64) return 8;
  return d == Dtype::kUInt8 || d == Dtype::kBool ? 1 : (d == Dtype::kFloat16 || d == Dtype::kUInt16) ? 2 : 4;
}

/// A checked array argument. It keeps the producer's memory alive while it exists: the imported
/// ndarray holds the DLPack capsule or the buffer view, `owner` the Python object. Destroy it
/// with the GIL held.
struct Array {
  void* data = nullptr;
  int ndim = 0;
  int64_t shape[4] = {0, 0, 0, 0};
  Dtype dtype = Dtype::kFloat32;
  nb::object owner;
  nb::ndarray<> imported_rw;
  nb::ndarray<nb::ro> imported_ro;
  /// Number of elements (the product of the shape).
  uint64_t size() const;
  /// Bytes it spans.
  uint64_t bytes() const { return size() * static_cast<uint64_t>(element_bytes(dtype)); }
};

/// What a call requires of one argument. A dimension of -1 in `shape` takes any extent.
struct ArraySpec {
  const char* function;                  // Python name of the call, e.g. "Sensor.render"
  const char* name;                      // Python name of the argument, e.g. "poses"
  bool writable;                         // an output: read-only arrays are refused
  std::initializer_list<Dtype> dtypes;   // accepted element types
  std::initializer_list<int64_t> shape;  // expected extents, -1 = any
  const char* shape_doc;                 // the shape as the docstring states it, e.g. "(num_envs, 7)"
};

/// Takes `obj` as the array `spec` describes, on `device`; throws wr::Error
/// (WR_ERROR_INVALID_ARGUMENT) naming spec.function and spec.name when it is not one. With
/// `any_shape`, spec.shape is not checked (the caller checks the extents it needs).
Array take_array(nb::handle obj, const ArraySpec& spec, const DeviceSpec& device, bool any_shape = false);

/// Throws wr::Error(WR_ERROR_INVALID_ARGUMENT) "<function>: <out_name> overlaps <in_name>" where the
/// two arrays' memory overlaps: the library reads its inputs while it writes its outputs.
void require_disjoint(const char* function, const Array& in, const char* in_name, const Array& out,
                      const char* out_name);

/// "(2, 3)", "(5,)": extents as Python writes a shape; an array's own shape.
std::string shape_text(std::initializer_list<int64_t> extents);
std::string array_shape_text(const Array& a);

/// The poses of an instanced scene's instances for one call (wr.h, "Moving geometry"):
/// instance_poses (num_envs, num_slots, 7) and global_poses (num_globals, 7) float32 on the
/// context's device, each needed when the scene has such instances (counts: its slots per env and
/// its globals; None otherwise, or an array of that shape).
struct InstancePoses {
  Array slots, globals;
};
InstancePoses take_instance_poses(const char* function, nb::handle instance_poses, nb::handle global_poses,
                                  int64_t num_envs, const std::array<uint32_t, 2>& counts, const DeviceSpec& device);

/// Throws wr::Error(WR_ERROR_INVALID_ARGUMENT) with "<function>: <message>
/// [WR_ERROR_INVALID_ARGUMENT]", the form of the C API's messages.
[[noreturn]] void invalid_argument(const char* function, const std::string& message);

}  // namespace wrpy
