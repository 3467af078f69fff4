// warp_raycaster._wr: the nanobind binding of the C API (include/wr/wr.h), through the RAII
// wrapper of include/wr/wr.hpp. One Python call is one C call: arrays are taken as they are
// (arrays.h checks them and never copies), the GIL is released while the library works, and a
// failure raises warp_raycaster.Error with the library's message and status, read on the calling
// thread right after the failing call (wr.hpp's check does that before the GIL is taken back).
// The module is split by object (bind.h: the enums, the descriptions, Context and Scene, Sensor;
// poses.cpp, mujoco_model.cpp). The pure-Python layer (warp_raycaster/) picks frameworks, devices, output
// allocation and CUDA streams; everything here works on already-allocated arrays.
#include <dlfcn.h>

#include <exception>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "bind.h"
#include "mujoco_model.h"
#include "poses.h"

namespace nb = nanobind;

namespace {

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

  wrpy::register_enums(m);
  m.def("library_path", &library_path, "The file of the libwr.so this module is linked with.");
  wrpy::register_descs(m);
  wrpy::register_scene(m);
  wrpy::register_sensor(m);

  // ---- poses from rotation matrices, and MuJoCo models (warp_raycaster.mujoco) ----
  wrpy::register_poses(m);
  wrpy::register_mujoco(m);
}
