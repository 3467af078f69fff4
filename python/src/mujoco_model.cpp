// warp_raycaster._wr's MuJoCo part (mujoco_model.h): a model's arrays as a wr_mujoco::ModelView,
// and the integration's Scene, Camera and SensorFrame over it.
#include "mujoco_model.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <wr/wr.h>
#include <wr/wr.hpp>

#include "arrays.h"
#include "model_scene.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wrpy {
namespace {

// Runs f, turning the integration's errors into warp_raycaster.Error (invalid argument: every
// wr_mujoco::Error names a culprit of the model or the call).
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const wr_mujoco::Error& e) {
    throw wr::Error(WR_ERROR_INVALID_ARGUMENT, e.what());
  }
}

using HostArray = nb::ndarray<nb::ro, nb::device::cpu>;

// ---- the model: MuJoCo's arrays, kept alive, and the view over them ----

class MujocoModel {
 public:
  // `arrays`: MuJoCo's fields by name (the keys below), NumPy arrays of MuJoCo's own element
  // types, C-contiguous; `names`: its names buffer; zfar_extent: vis.map.zfar * stat.extent.
  MujocoModel(nb::dict arrays, nb::bytes names, double zfar_extent)
      : arrays_(std::move(arrays)), names_(names.c_str(), names.size()) {
    ModelView& v = view_;
    v.ngeom = count("geom_type", 1);
    v.nbody = count("body_weldid", 1);
    v.ncam = count("cam_bodyid", 1);
    v.nsite = count("site_bodyid", 1);
    v.nmesh = count("mesh_vertadr", 1);
    v.nhfield = count("hfield_nrow", 1);
    v.nmat = count("mat_rgba", 4);
    v.nmeshvert = count("mesh_vert", 3);
    v.nmeshface = count("mesh_face", 3);
    v.nhfielddata = count("hfield_data", 1);
    v.geom_type = field<int32_t>("geom_type", v.ngeom);
    v.geom_size = field<double>("geom_size", 3 * int64_t(v.ngeom));
    v.geom_dataid = field<int32_t>("geom_dataid", v.ngeom);
    v.geom_bodyid = field<int32_t>("geom_bodyid", v.ngeom);
    v.geom_group = field<int32_t>("geom_group", v.ngeom);
    v.geom_matid = field<int32_t>("geom_matid", v.ngeom);
    v.geom_rgba = field<float>("geom_rgba", 4 * int64_t(v.ngeom));
    v.mat_rgba = field<float>("mat_rgba", 4 * int64_t(v.nmat));
    v.body_weldid = field<int32_t>("body_weldid", v.nbody);
    v.mesh_vert = field<float>("mesh_vert", 3 * v.nmeshvert);
    v.mesh_face = field<int32_t>("mesh_face", 3 * v.nmeshface);
    v.mesh_vertadr = field<int32_t>("mesh_vertadr", v.nmesh);
    v.mesh_vertnum = field<int32_t>("mesh_vertnum", v.nmesh);
    v.mesh_faceadr = field<int32_t>("mesh_faceadr", v.nmesh);
    v.mesh_facenum = field<int32_t>("mesh_facenum", v.nmesh);
    v.hfield_size = field<double>("hfield_size", 4 * int64_t(v.nhfield));
    v.hfield_nrow = field<int32_t>("hfield_nrow", v.nhfield);
    v.hfield_ncol = field<int32_t>("hfield_ncol", v.nhfield);
    v.hfield_adr = field<int32_t>("hfield_adr", v.nhfield);
    v.hfield_data = field<float>("hfield_data", v.nhfielddata);
    v.cam_bodyid = field<int32_t>("cam_bodyid", v.ncam);
    v.cam_projection = field<int32_t>("cam_projection", v.ncam);
    v.cam_resolution = field<int32_t>("cam_resolution", 2 * int64_t(v.ncam));
    v.cam_fovy = field<double>("cam_fovy", v.ncam);
    v.cam_intrinsic = field<float>("cam_intrinsic", 4 * int64_t(v.ncam));
    v.cam_sensorsize = field<float>("cam_sensorsize", 2 * int64_t(v.ncam));
    v.site_bodyid = field<int32_t>("site_bodyid", v.nsite);
    v.geom_xpos0 = field<double>("geom_xpos0", 3 * int64_t(v.ngeom));
    v.geom_xmat0 = field<double>("geom_xmat0", 9 * int64_t(v.ngeom));
    v.name_geomadr = field<int32_t>("name_geomadr", v.ngeom);
    v.name_bodyadr = field<int32_t>("name_bodyadr", v.nbody);
    v.name_camadr = field<int32_t>("name_camadr", v.ncam);
    v.name_siteadr = field<int32_t>("name_siteadr", v.nsite);
    v.name_meshadr = field<int32_t>("name_meshadr", v.nmesh);
    v.name_hfieldadr = field<int32_t>("name_hfieldadr", v.nhfield);
    v.names = names_.data();
    v.nnames = static_cast<int64_t>(names_.size());
    v.zfar_extent = zfar_extent;
    const std::string problem = wr_mujoco::view_problem(v);
    if (!problem.empty()) invalid_argument("mujoco.Model", "the model: " + problem);
  }

  const wr_mujoco::ModelView& view() const { return view_; }

 private:
  using ModelView = wr_mujoco::ModelView;

  HostArray array(const char* name) const {
    if (!arrays_.contains(name)) invalid_argument("mujoco.Model", std::string("the model has no array '") + name + "'");
    HostArray a;
    if (!nb::try_cast(arrays_[name], a)) invalid_argument("mujoco.Model", std::string(name) + " is not a host array");
    return a;
  }
  // The number of items of `per` elements in the array `name`.
  int count(const char* name, int per) const {
    const size_t n = array(name).size();
    if (n % per != 0 || n / per > size_t(INT32_MAX))
      invalid_argument("mujoco.Model", std::string(name) + " has " + std::to_string(n) +
                                           " elements: not a multiple of " + std::to_string(per) + " below 2^31");
    return static_cast<int>(n / per);
  }
  template <typename T>
  const T* field(const char* name, int64_t elements) const {
    HostArray a = array(name);
    if (a.dtype() != nb::dtype<T>())
      invalid_argument("mujoco.Model", std::string(name) + " has the wrong element type (MuJoCo's is " +
                                           (std::is_same<T, double>::value  ? "float64"
                                            : std::is_same<T, float>::value ? "float32"
                                                                            : "int32") +
                                           ")");
    if (static_cast<int64_t>(a.size()) != elements)
      invalid_argument("mujoco.Model", std::string(name) + " has " + std::to_string(a.size()) + " elements, expected " +
                                           std::to_string(elements));
    int64_t expect = 1;
    for (size_t i = a.ndim(); i-- > 0 && a.size() > 0;) {
      if (a.shape(i) > 1 && a.stride(i) != expect)
        invalid_argument("mujoco.Model", std::string(name) + " is not C-contiguous");
      expect *= static_cast<int64_t>(a.shape(i));
    }
    return elements ? static_cast<const T*>(a.data()) : nullptr;
  }

  nb::dict arrays_;
  std::string names_;
  ModelView view_;
};

// ---- per-env pose arrays: positions (N, count, 3) and matrices (N, count, 9) or (N, count, 3, 3) ----

struct PoseInput {
  bool is_double = true;
  const void* xpos = nullptr;
  const void* xmat = nullptr;
  int nsim = 0;
};

// Takes the positions and matrices of `count` items per simulation (one simulation without the
// leading axis), float32 or float64, C-contiguous host arrays, naming `function`'s arguments.
PoseInput take_poses(nb::handle xpos, nb::handle xmat, int count, const char* function, const char* pos_name,
                     const char* mat_name, HostArray* keep_pos, HostArray* keep_mat) {
  const auto take = [&](nb::handle obj, const char* name, HostArray* keep) {
    if (!nb::try_cast(obj, *keep))
      invalid_argument(function, std::string(name) + " is a " + nb::type_name(obj.type()).c_str() +
                                     ": expected a host array (NumPy, a CPU tensor, a Warp CPU array)");
    const HostArray& a = *keep;
    if (a.dtype() != nb::dtype<float>() && a.dtype() != nb::dtype<double>())
      invalid_argument(function, std::string(name) + " must be float32 or float64");
    int64_t expect = 1;
    for (size_t i = a.ndim(); i-- > 0 && a.size() > 0;) {
      if (a.shape(i) > 1 && a.stride(i) != expect)
        invalid_argument(function, std::string(name) + " is not C-contiguous");
      expect *= static_cast<int64_t>(a.shape(i));
    }
  };
  take(xpos, pos_name, keep_pos);
  take(xmat, mat_name, keep_mat);
  const HostArray& p = *keep_pos;
  const HostArray& r = *keep_mat;
  if (p.dtype() != r.dtype())
    invalid_argument(function, std::string(pos_name) + " and " + mat_name + " differ in dtype");
  const auto shape_text = [](const HostArray& a) {
    std::string s = "(";
    for (size_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
  };
  // positions: (count, 3) or (N, count, 3)
  const bool batched = p.ndim() == 3;
  if (!((p.ndim() == 2 || p.ndim() == 3) && p.shape(p.ndim() - 1) == 3 && int64_t(p.shape(p.ndim() - 2)) == count))
    invalid_argument(function, std::string(pos_name) + " has shape " + shape_text(p) + ": expected (num_envs, " +
                                   std::to_string(count) + ", 3) or (" + std::to_string(count) + ", 3)");
  const int64_t nsim = batched ? static_cast<int64_t>(p.shape(0)) : 1;
  // matrices: the same leading axes, then 9 or 3 x 3
  const size_t lead = batched ? 2 : 1;
  const bool flat = r.ndim() == lead + 1 && r.shape(lead) == 9;
  const bool square = r.ndim() == lead + 2 && r.shape(lead) == 3 && r.shape(lead + 1) == 3;
  if (!(flat || square) || int64_t(r.shape(lead - 1)) != count || (batched && int64_t(r.shape(0)) != nsim))
    invalid_argument(function, std::string(mat_name) + " has shape " + shape_text(r) + ": expected " +
                                   (batched ? "(" + std::to_string(nsim) + ", " : std::string("(")) +
                                   std::to_string(count) + ", 9) or (..., 3, 3), matching " + pos_name + " " +
                                   shape_text(p));
  if (nsim > INT32_MAX) invalid_argument(function, std::string(pos_name) + " has more than 2^31 - 1 envs");
  PoseInput in;
  in.is_double = p.dtype() == nb::dtype<double>();
  in.xpos = p.data();
  in.xmat = r.data();
  in.nsim = static_cast<int>(nsim);
  return in;
}

// out: (N, items, 7) float32, writable, on the host.
float* take_out(nb::handle out, const char* function, int64_t nsim, int64_t items) {
  const Array a = take_array(out, {function, "out", true, {Dtype::kFloat32}, {nsim, items, 7}, "(num_envs, items, 7)"},
                             DeviceSpec{WR_DEVICE_CPU, 0});
  return static_cast<float*>(a.data);
}

template <typename Fill>
void fill(nb::handle xpos, nb::handle xmat, nb::handle out, int count, int64_t items, const char* function,
          const char* pos_name, const char* mat_name, Fill&& f) {
  HostArray keep_pos, keep_mat;
  const PoseInput in = take_poses(xpos, xmat, count, function, pos_name, mat_name, &keep_pos, &keep_mat);
  float* o = take_out(out, function, in.nsim, items);
  guarded([&] {
    if (in.is_double)
      f(wr_mujoco::PoseArrays<double>{static_cast<const double*>(in.xpos), static_cast<const double*>(in.xmat),
                                      in.nsim},
        o);
    else
      f(wr_mujoco::PoseArrays<float>{static_cast<const float*>(in.xpos), static_cast<const float*>(in.xmat), in.nsim},
        o);
    return 0;
  });
}

// ---- scene, camera, frame ----

struct MujocoScene {
  nb::object model;  // the MujocoModel it was built from (kept alive for cameras and frames)
  wr_mujoco::Scene scene;
  nb::object handle;  // the SceneObj (warp_raycaster._wr.Scene) that renders it
};

struct MujocoCamera {
  wr_mujoco::Camera camera;
};

struct MujocoFrame {
  wr_mujoco::SensorFrame frame;
};

const wr_mujoco::ModelView& view_of(const MujocoScene& s) { return nb::cast<const MujocoModel&>(s.model).view(); }

}  // namespace

void register_mujoco(nb::module_& m) {
  nb::class_<MujocoModel>(m, "MujocoModel",
                          "A MuJoCo model's arrays (wr_mujoco::ModelView): warp_raycaster.mujoco builds it from "
                          "a mujoco.MjModel.")
      .def(nb::init<nb::dict, nb::bytes, double>(), "arrays"_a, "names"_a, "zfar_extent"_a)
      .def_prop_ro("counts", [](const MujocoModel& mm) {
        const wr_mujoco::ModelView& v = mm.view();
        nb::dict d;
        d["ngeom"] = v.ngeom, d["nbody"] = v.nbody, d["ncam"] = v.ncam, d["nsite"] = v.nsite;
        d["nmesh"] = v.nmesh, d["nhfield"] = v.nhfield;
        return d;
      });

  nb::class_<MujocoScene>(m, "MujocoScene",
                          "wr_mujoco::Scene: the static geoms as the terrain, the moving ones as each env's slots.")
      .def_static(
          "build",
          [](const ContextObj& context, nb::object model, std::vector<int> geomgroup, double tolerance,
             double plane_half_extent, bool skip_unsupported, std::vector<std::string> sensor_bodies) {
            const MujocoModel& mm = nb::cast<const MujocoModel&>(model);
            wr_mujoco::SceneOptions o;
            if (geomgroup.size() != o.geomgroup.size())
              invalid_argument("mujoco.Scene", "geomgroup has " + std::to_string(geomgroup.size()) +
                                                   " values, expected 6 (mj_ray's geomgroup)");
            for (size_t i = 0; i < geomgroup.size(); ++i) o.geomgroup[i] = geomgroup[i] != 0;
            o.tolerance = tolerance;
            o.plane_half_extent = plane_half_extent;
            o.skip_unsupported = skip_unsupported;
            o.sensor_bodies = std::move(sensor_bodies);
            wr_mujoco::Scene scene = guarded([&] {
              nb::gil_scoped_release release;
              return wr_mujoco::Scene::build(context.context.get(), mm.view(), o);
            });
            SceneObj obj{wr::Scene::adopt(scene.release_handle()), context.device};
            return MujocoScene{std::move(model), std::move(scene), nb::cast(std::move(obj))};
          },
          "context"_a, "model"_a, "geomgroup"_a, "tolerance"_a, "plane_half_extent"_a, "skip_unsupported"_a,
          "sensor_bodies"_a)
      .def_prop_ro("scene", [](const MujocoScene& s) { return s.handle; })
      .def_prop_ro("num_slots", [](const MujocoScene& s) { return s.scene.num_slots(); })
      .def_prop_ro("num_prototypes", [](const MujocoScene& s) { return s.scene.num_prototypes(); })
      .def_prop_ro("num_static_geoms", [](const MujocoScene& s) { return s.scene.num_static_geoms(); })
      .def_prop_ro("num_terrain_triangles", [](const MujocoScene& s) { return s.scene.num_terrain_triangles(); })
      .def_prop_ro("slot_geoms",
                   [](const MujocoScene& s) {
                     std::vector<int> g;
                     for (const wr_mujoco::Slot& slot : s.scene.slots()) g.push_back(slot.geom);
                     return g;
                   })
      .def_prop_ro("skipped", [](const MujocoScene& s) { return s.scene.skipped(); })
      .def(
          "body_group",
          [](const MujocoScene& s, int body) { return guarded([&] { return s.scene.body_group(body); }); }, "body"_a)
      .def(
          "fill_instance_poses",
          [](const MujocoScene& s, nb::handle xpos, nb::handle xmat, nb::handle out) {
            fill(xpos, xmat, out, s.scene.model_ngeom(), s.scene.num_slots(), "mujoco.Scene.instance_poses",
                 "geom_xpos", "geom_xmat", [&](const auto& a, float* o) { s.scene.fill_instance_poses_batch(a, o); });
          },
          "geom_xpos"_a, "geom_xmat"_a, "out"_a,
          "out (N, num_slots, 7) = each slot's geom pose (x, y, z, w, qx, qy, qz) from geom_xpos (N, ngeom, 3) and "
          "geom_xmat (N, ngeom, 9 or 3, 3), float32 or float64.")
      .def(
          "camera",
          [](const MujocoScene& s, nb::handle camera, uint32_t width, uint32_t height, wr_depth_kind depth,
             float near_clip, float far_clip, float miss_value, bool exclude_own_body) {
            wr_mujoco::CameraOptions o;
            o.width = width, o.height = height, o.depth_kind = depth;
            o.near_clip = near_clip, o.far_clip = far_clip, o.miss_value = miss_value;
            o.exclude_own_body = exclude_own_body;
            const wr_mujoco::ModelView& v = view_of(s);
            return guarded([&] {
              if (nb::isinstance<nb::int_>(camera))
                return MujocoCamera{wr_mujoco::Camera::from_model(v, s.scene, nb::cast<int>(camera), o)};
              return MujocoCamera{wr_mujoco::Camera::from_model(v, s.scene, nb::cast<std::string>(camera).c_str(), o)};
            });
          },
          "camera"_a, "width"_a, "height"_a, "depth"_a, "near"_a, "far"_a, "miss_value"_a, "exclude_own_body"_a)
      .def(
          "frame",
          [](const MujocoScene& s, nb::handle which, bool site, bool exclude_own_body) {
            const wr_mujoco::ModelView& v = view_of(s);
            return guarded([&] {
              using F = wr_mujoco::SensorFrame;
              if (nb::isinstance<nb::int_>(which)) {
                const int id = nb::cast<int>(which);
                return MujocoFrame{site ? F::at_site_id(v, s.scene, id, exclude_own_body)
                                        : F::at_body_id(v, s.scene, id, exclude_own_body)};
              }
              const std::string name = nb::cast<std::string>(which);
              return MujocoFrame{site ? F::at_site(v, s.scene, name.c_str(), exclude_own_body)
                                      : F::at_body(v, s.scene, name.c_str(), exclude_own_body)};
            });
          },
          "which"_a, "site"_a, "exclude_own_body"_a);

  nb::class_<MujocoCamera>(m, "MujocoCamera", "wr_mujoco::Camera: an MJCF camera's intrinsics and pose rule.")
      .def_prop_ro("desc", [](const MujocoCamera& c) { return c.camera.desc; })
      .def_prop_ro("id", [](const MujocoCamera& c) { return c.camera.id; })
      .def_prop_ro("name", [](const MujocoCamera& c) { return c.camera.name; })
      .def_prop_ro("body", [](const MujocoCamera& c) { return c.camera.body; })
      .def_prop_ro("exclude_groups", [](const MujocoCamera& c) { return c.camera.exclude_groups; })
      .def(
          "fill_poses",
          [](const MujocoCamera& c, nb::handle xpos, nb::handle xmat, nb::handle out) {
            fill(xpos, xmat, out, c.camera.model_ncam(), 1, "mujoco.Camera.poses", "cam_xpos", "cam_xmat",
                 [&](const auto& a, float* o) { c.camera.fill_pose_batch(a, o); });
          },
          "cam_xpos"_a, "cam_xmat"_a, "out"_a,
          "out (N, 1, 7) = the camera's pose in the library's camera frame from cam_xpos (N, ncam, 3) and "
          "cam_xmat (N, ncam, 9 or 3, 3).");

  nb::class_<MujocoFrame>(m, "MujocoFrame", "wr_mujoco::SensorFrame: a site's or a body's frame.")
      .def_prop_ro("is_site", [](const MujocoFrame& f) { return f.frame.is_site; })
      .def_prop_ro("id", [](const MujocoFrame& f) { return f.frame.id; })
      .def_prop_ro("name", [](const MujocoFrame& f) { return f.frame.name; })
      .def_prop_ro("body", [](const MujocoFrame& f) { return f.frame.body; })
      .def_prop_ro("exclude_groups", [](const MujocoFrame& f) { return f.frame.exclude_groups; })
      .def(
          "fill_poses",
          [](const MujocoFrame& f, nb::handle xpos, nb::handle xmat, nb::handle out) {
            fill(xpos, xmat, out, f.frame.model_count(), 1, "mujoco.Frame.poses",
                 f.frame.is_site ? "site_xpos" : "xpos", f.frame.is_site ? "site_xmat" : "xmat",
                 [&](const auto& a, float* o) { f.frame.fill_pose_batch(a, o); });
          },
          "xpos"_a, "xmat"_a, "out"_a,
          "out (N, 1, 7) = the frame's pose from site_xpos / site_xmat (or xpos / xmat) (N, count, 3) and "
          "(N, count, 9 or 3, 3).");
}

}  // namespace wrpy
