#include "arrays.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <wr/wr.hpp>

namespace wrpy {

namespace {

// The facts about an imported array the checks need, from either import path.
struct Described {
  void* data = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements; empty = C-contiguous (DLPack's NULL strides)
  uint8_t code = 0;              // DLPack dtype code (0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool)
  uint8_t bits = 0;
  uint16_t lanes = 1;
  int device_type = nb::device::cpu::value;  // DLPack device type
  int device_id = 0;                         // -1: unknown (__cuda_array_interface__ has none)
  nb::object owner;
  nb::ndarray<> imported_rw;
  nb::ndarray<nb::ro> imported_ro;
};

std::string shape_string(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << '(';
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << (shape.size() == 1 ? ",)" : ")");
  return s.str();
}

std::string dtype_string(uint8_t code, uint8_t bits, uint16_t lanes) {
  const char* kind = "dtype code ";
  switch (code) {
    case 0: kind = "int"; break;
    case 1: kind = "uint"; break;
    case 2: kind = "float"; break;
    case 4: kind = "bfloat"; break;
    case 5: kind = "complex"; break;
    case 6: return "bool";
    default: break;
  }
  std::string s = std::string(kind) + std::to_string(bits);
  if (lanes != 1) s += "x" + std::to_string(lanes);
  return s;
}

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kFloat32: return "float32";
    case Dtype::kInt32: return "int32";
    case Dtype::kUInt32: return "uint32";
    case Dtype::kFloat16: return "float16";
    case Dtype::kUInt16: return "uint16";
    case Dtype::kUInt8: return "uint8";
    case Dtype::kBool: return "bool";
    case Dtype::kFloat64: return "float64";
  }
  return "?";
}

bool matches(Dtype d, uint8_t code, uint8_t bits, uint16_t lanes) {
  if (lanes != 1 || bits != 8 * element_bytes(d)) return false;
  switch (d) {
    case Dtype::kFloat32:
    case Dtype::kFloat16:
    case Dtype::kFloat64: return code == 2;
    case Dtype::kInt32: return code == 0;
    case Dtype::kUInt32:
    case Dtype::kUInt16:
    case Dtype::kUInt8: return code == 1;
    case Dtype::kBool: return code == 6;
  }
  return false;
}

std::string python_type_name(nb::handle obj) {
  nb::handle type = obj.type();
  std::string module;
  if (nb::hasattr(type, "__module__")) module = nb::cast<std::string>(nb::str(type.attr("__module__")));
  std::string name = nb::cast<std::string>(nb::str(type.attr("__qualname__")));
  return module.empty() || module == "builtins" ? name : module + "." + name;
}

// __cuda_array_interface__ (version 2 or 3): data = (pointer, read_only), shape, typestr,
// strides in bytes or None (C-contiguous), no mask. It names no device: the pointer is taken to
// be on the context's device (documented in the Python docstrings).
bool describe_cuda_array_interface(nb::handle obj, const ArraySpec& spec, Described& out) {
  if (!nb::hasattr(obj, "__cuda_array_interface__")) return false;
  nb::object cai_obj = obj.attr("__cuda_array_interface__");
  nb::dict cai;
  if (!nb::try_cast(cai_obj, cai))
    invalid_argument(spec.function, std::string(spec.name) + ".__cuda_array_interface__ is not a dict");
  auto field = [&](const char* key) -> nb::object {
    if (!cai.contains(key))
      invalid_argument(spec.function, std::string(spec.name) + ".__cuda_array_interface__ has no '" + key + "'");
    return cai[key];
  };
  if (cai.contains("mask") && !cai["mask"].is_none())
    invalid_argument(spec.function, std::string(spec.name) + ": masked arrays are not supported");
  nb::tuple data = nb::cast<nb::tuple>(field("data"));
  out.data = reinterpret_cast<void*>(nb::cast<uintptr_t>(data[0]));
  if (spec.writable && nb::cast<bool>(data[1]))
    invalid_argument(spec.function, std::string(spec.name) + " is read-only; an output must be writable");
  for (nb::handle d : nb::cast<nb::tuple>(field("shape"))) out.shape.push_back(nb::cast<int64_t>(d));
  const std::string typestr = nb::cast<std::string>(field("typestr"));
  // typestr: byte order (<, >, |), kind (f, i, u, b, c), item size in bytes. This machine's
  // order only (every CUDA device is little-endian).
  if (typestr.size() < 3 || typestr[0] == '>')
    invalid_argument(spec.function, std::string(spec.name) + ": unsupported typestr '" + typestr + "'");
  const int item_bytes = std::atoi(typestr.c_str() + 2);
  switch (typestr[1]) {
    case 'f': out.code = 2; break;
    case 'i': out.code = 0; break;
    case 'u': out.code = 1; break;
    case 'b': out.code = 6; break;
    case 'c': out.code = 5; break;
    default: out.code = 255; break;
  }
  out.bits = static_cast<uint8_t>(item_bytes * 8);
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (nb::handle s : nb::cast<nb::tuple>(cai["strides"])) {
      const int64_t bytes = nb::cast<int64_t>(s);
      // A stride that is not a whole number of elements can never be C-contiguous: mark it.
      out.strides.push_back(item_bytes > 0 && bytes % item_bytes == 0 ? bytes / item_bytes : -1);
    }
  }
  out.device_type = nb::device::cuda::value;
  out.device_id = -1;
  return true;
}

template <class NdArray>
void describe_ndarray(const NdArray& a, Described& out) {
  out.data = const_cast<void*>(static_cast<const void*>(a.data()));
  for (size_t i = 0; i < a.ndim(); ++i) {
    out.shape.push_back(static_cast<int64_t>(a.shape(i)));
    out.strides.push_back(a.stride(i));
  }
  out.code = a.dtype().code;
  out.bits = a.dtype().bits;
  out.lanes = a.dtype().lanes;
  out.device_type = a.device_type();
  out.device_id = a.device_id();
}

Described describe(nb::handle obj, const ArraySpec& spec) {
  Described d;
  if (obj.is_none()) invalid_argument(spec.function, std::string(spec.name) + " is None");
  // DLPack first (torch, numpy, cupy, jax), then the buffer protocol (nanobind tries both).
  // An output is imported writable (nanobind then refuses read-only producers); an input
  // read-only, which every producer grants.
  d.owner = nb::borrow(obj);
  if (spec.writable && nb::try_cast(obj, d.imported_rw, false)) {
    describe_ndarray(d.imported_rw, d);
    return d;
  }
  if (nb::try_cast(obj, d.imported_ro, false)) {
    if (spec.writable)
      invalid_argument(spec.function, std::string(spec.name) + " (" + python_type_name(obj) +
                                          ") is read-only; an output must be writable");
    describe_ndarray(d.imported_ro, d);
    return d;
  }
  if (describe_cuda_array_interface(obj, spec, d)) return d;
  // A torch tensor on the meta device has a shape and no data: say so rather than "not an array".
  if (nb::hasattr(obj, "is_meta") && nb::cast<bool>(obj.attr("is_meta")))
    invalid_argument(spec.function, std::string(spec.name) + " is a " + python_type_name(obj) +
                                        " on device 'meta', which holds no data: pass one on the context's device");
  invalid_argument(spec.function, std::string(spec.name) + " is a " + python_type_name(obj) +
                                      ", not an array: pass a torch tensor, NumPy or CuPy array, or any "
                                      "object with __dlpack__, __cuda_array_interface__ or the buffer "
                                      "protocol");
}

bool on_device(const Described& d, const DeviceSpec& device) {
  // Managed memory is reachable from the host and every device.
  if (d.device_type == nb::device::cuda_managed::value) return true;
  if (device.device == WR_DEVICE_CPU)
    return d.device_type == nb::device::cpu::value || d.device_type == nb::device::cuda_host::value;
  return d.device_type == nb::device::cuda::value && (d.device_id < 0 || d.device_id == device.ordinal);
}

std::string where_is(const Described& d) {
  switch (d.device_type) {
    case nb::device::cpu::value: return "host memory";
    case nb::device::cuda_host::value: return "pinned host memory";
    case nb::device::cuda::value:
      return d.device_id < 0 ? std::string("CUDA memory") : "cuda:" + std::to_string(d.device_id);
    default: return "DLPack device type " + std::to_string(d.device_type);
  }
}

}  // namespace

std::string device_name(const DeviceSpec& spec) {
  return spec.device == WR_DEVICE_CPU ? std::string("cpu") : "cuda:" + std::to_string(spec.ordinal);
}

uint64_t Array::size() const {
  uint64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= static_cast<uint64_t>(shape[i]);
  return n;
}

void invalid_argument(const char* function, const std::string& message) {
  const std::string text =
      std::string(function) + ": " + message + " [" + wr_status_string(WR_ERROR_INVALID_ARGUMENT) + "]";
  throw wr::Error(WR_ERROR_INVALID_ARGUMENT, text.c_str());
}

Array take_array(nb::handle obj, const ArraySpec& spec, const DeviceSpec& device, bool any_shape) {
  Described d = describe(obj, spec);
  const std::string name = spec.name;
  const std::string fn = spec.function;

  bool dtype_ok = false;
  Dtype dtype = Dtype::kFloat32;
  std::string accepted;
  for (Dtype want : spec.dtypes) {
    if (!dtype_ok && matches(want, d.code, d.bits, d.lanes)) {
      dtype_ok = true;
      dtype = want;
    }
    accepted += (accepted.empty() ? "" : " or ") + std::string(dtype_name(want));
  }
  if (!dtype_ok)
    invalid_argument(spec.function, name + " has dtype " + dtype_string(d.code, d.bits, d.lanes) + ", expected " +
                                        accepted + " (nothing is converted: convert it first, once)");

  // Array keeps at most 4 extents (every argument of the C API has at most 3).
  if (d.shape.size() > 4)
    invalid_argument(spec.function, name + " has shape " + shape_string(d.shape) + ": " +
                                        std::to_string(d.shape.size()) + " dimensions, at most 4 are taken");
  bool shape_ok = any_shape || d.shape.size() == spec.shape.size();
  size_t i = 0;
  for (int64_t want : spec.shape) {
    if (any_shape) break;
    if (shape_ok && want >= 0 && d.shape[i] != want) shape_ok = false;
    ++i;
  }
  if (!shape_ok) {
    std::vector<int64_t> expected(spec.shape);
    std::string text = name + " has shape " + shape_string(d.shape) + ", expected " + spec.shape_doc;
    bool concrete = true;
    for (int64_t e : expected) concrete = concrete && e >= 0;
    if (concrete) text += " = " + shape_string(expected);
    invalid_argument(spec.function, text);
  }

  // C order: the innermost stride is 1 element and each outer one spans the inner extents.
  // Extents of 1 may have any stride (torch and numpy give them arbitrary ones), and an empty
  // array (an extent of 0: a scene without instance slots) any strides at all.
  bool empty = false;
  for (int64_t e : d.shape) empty = empty || e == 0;
  if (!d.strides.empty() && !empty) {
    int64_t span = 1;
    for (size_t k = d.shape.size(); k-- > 0;) {
      if (d.shape[k] != 1 && d.strides[k] != span) {
        // Poses sliced out of wider rows (root_states[:, :7], or one body of view(N, A, 13)) are read
        // in place whole: no copy needed.
        const bool row_slice = name == "poses" && d.shape.size() == 2 && d.strides.size() == 2 && d.strides[1] == 1 &&
                               d.strides[0] > d.shape[1];
        invalid_argument(
            spec.function,
            name + " is not C-contiguous (strides " + shape_string(d.strides) + " elements for shape " +
                shape_string(d.shape) + "): the library reads rows of consecutive floats; " +
                (row_slice
                     ? std::string("these rows are a slice of wider ones (such as root_states[:, "
                                   ":7], or one actor of view(N, A, 13)): pass the whole rows, "
                                   "(num_envs, 13) root states or (num_envs, bodies, 13) "
                                   "with inputs=wr.RenderInputs(body=...), which are read in place without a copy")
                     : std::string("pass a contiguous array (e.g. .contiguous() / "
                                   "numpy.ascontiguousarray, once per step)")));
      }
      span *= d.shape[k];
    }
  }

  if (reinterpret_cast<uintptr_t>(d.data) % element_bytes(dtype) != 0)
    invalid_argument(spec.function, name + " is not aligned to " + std::to_string(element_bytes(dtype)) +
                                        " bytes, its elements' size (its data starts at an odd byte offset)");

  if (!on_device(d, device))
    invalid_argument(spec.function,
                     name + " is in " + where_is(d) + ", but the context is " + device_name(device) +
                         (device.device == WR_DEVICE_CPU ? " (host memory needed)" : " (memory of that GPU needed)"));

  Array a;
  a.data = d.data;
  a.ndim = static_cast<int>(d.shape.size());
  for (int k = 0; k < a.ndim && k < 4; ++k) a.shape[k] = d.shape[k];
  a.dtype = dtype;
  a.owner = std::move(d.owner);
  a.imported_rw = std::move(d.imported_rw);
  a.imported_ro = std::move(d.imported_ro);
  return a;
}

void require_disjoint(const char* function, const Array& in, const char* in_name, const Array& out,
                      const char* out_name) {
  const auto begin_in = reinterpret_cast<uintptr_t>(in.data), begin_out = reinterpret_cast<uintptr_t>(out.data);
  const uintptr_t end_in = begin_in + in.bytes(), end_out = begin_out + out.bytes();
  if (begin_in < end_out && begin_out < end_in)
    invalid_argument(function, std::string(out_name) + " overlaps " + in_name);
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

InstancePoses take_instance_poses(const char* fn, nb::handle instance_poses, nb::handle global_poses, int64_t num_envs,
                                  const std::array<uint32_t, 2>& counts, const DeviceSpec& device) {
  InstancePoses p;
  const int64_t slots = counts[0], globals = counts[1];
  if (!instance_poses.is_none())
    p.slots = take_array(
        instance_poses,
        {fn, "instance_poses", false, {Dtype::kFloat32}, {num_envs, slots, 7}, "(num_envs, num_slots, 7)"}, device);
  else if (slots)
    invalid_argument(fn, "instance_poses is None, but the scene has " + std::to_string(slots) +
                             " instance slots per env: pass their poses, (num_envs, num_slots, 7) = " +
                             shape_text({num_envs, slots, 7}) + " float32");
  if (!global_poses.is_none())
    p.globals = take_array(global_poses,
                           {fn, "global_poses", false, {Dtype::kFloat32}, {globals, 7}, "(num_globals, 7)"}, device);
  else if (globals)
    invalid_argument(fn, "global_poses is None, but the scene has " + std::to_string(globals) +
                             " global instances: pass their poses, (num_globals, 7) = " + shape_text({globals, 7}) +
                             " float32");
  return p;
}

}  // namespace wrpy
