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
  // wr_pose_gather_desc.frame of a MuJoCo camera's poses (model_scene.h): its axes into the library's.
  nb::list frame;
  for (float v : wr_mujoco::kCameraFrame) frame.append(v);
  m.attr("MUJOCO_CAMERA_FRAME") = nb::tuple(frame);
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
             double plane_half_extent, bool skip_unsupported, std::vector<std::string> sensor_bodies, int terrain) {
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
            std::memcpy(&o.terrain, &terrain, sizeof terrain);  // Scene::build names a bad value
            wr_mujoco::Scene scene = guarded([&] {
              nb::gil_scoped_release release;
              return wr_mujoco::Scene::build(context.context.get(), mm.view(), o);
            });
            SceneObj obj{wr::Scene::adopt(scene.release_handle()), context.device};
            return MujocoScene{std::move(model), std::move(scene), nb::cast(std::move(obj))};
          },
          "context"_a, "model"_a, "geomgroup"_a, "tolerance"_a, "plane_half_extent"_a, "skip_unsupported"_a,
          "sensor_bodies"_a, "terrain"_a = 0)
      .def_prop_ro("scene", [](const MujocoScene& s) { return s.handle; })
      .def_prop_ro("num_slots", [](const MujocoScene& s) { return s.scene.num_slots(); })
      .def_prop_ro("num_globals", [](const MujocoScene& s) { return s.scene.num_globals(); })
      .def_prop_ro("grid_geom", [](const MujocoScene& s) { return s.scene.grid_geom(); })
      .def_prop_ro("num_geoms", [](const MujocoScene& s) { return s.scene.model_ngeom(); })
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
      .def_prop_ro("num_cameras", [](const MujocoCamera& c) { return c.camera.model_ncam(); });
  nb::class_<MujocoFrame>(m, "MujocoFrame", "wr_mujoco::SensorFrame: a site's or a body's frame.")
      .def_prop_ro("is_site", [](const MujocoFrame& f) { return f.frame.is_site; })
      .def_prop_ro("id", [](const MujocoFrame& f) { return f.frame.id; })
      .def_prop_ro("name", [](const MujocoFrame& f) { return f.frame.name; })
      .def_prop_ro("body", [](const MujocoFrame& f) { return f.frame.body; })
      .def_prop_ro("exclude_groups", [](const MujocoFrame& f) { return f.frame.exclude_groups; })
      .def_prop_ro("num_items", [](const MujocoFrame& f) { return f.frame.model_count(); });
}

}  // namespace wrpy
