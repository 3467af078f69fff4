// ModelView: the arrays of a MuJoCo model that wr_mujoco reads, as plain pointers, without
// MuJoCo's headers. The scene, camera and frame code (model_scene.h) reads a model only through
// it, so one implementation serves two ways in:
//   - C++ (wr_mujoco.h): an mjModel of the MuJoCo this project was built against (view_of);
//   - Python (warp_raycaster.mujoco): the same arrays of a mujoco.MjModel of any MuJoCo from 3.3
//     on, whose C structs this project never sees (python/src/mujoco_model.cpp).
// Every array is MuJoCo's own field of that name, with MuJoCo's element type and layout (row-major,
// C-contiguous; mjtNum is double), and must outlive the calls that read the view. Counts are the
// model's (ngeom, nbody, ...); an array of a count 0 may be NULL.
#pragma once

#include <cstdint>
#include <string>

namespace wr_mujoco {

// Geom types, numbered as MuJoCo's mjtGeom (wr_mujoco.cpp checks them against mujoco.h).
constexpr int kGeomPlane = 0;
constexpr int kGeomHfield = 1;
constexpr int kGeomSphere = 2;
constexpr int kGeomCapsule = 3;
constexpr int kGeomEllipsoid = 4;
constexpr int kGeomCylinder = 5;
constexpr int kGeomBox = 6;
constexpr int kGeomMesh = 7;
constexpr int kGeomSdf = 8;
// MuJoCo's mjNGROUP: the geom groups mj_ray's geomgroup filters.
constexpr int kNumGeomGroups = 6;
// mjtProjection's perspective value (cam_projection; MuJoCo before 3.3.1 had cam_orthographic, 0 or 1,
// with the same meaning).
constexpr int kProjectionPerspective = 0;

// Objects a model names (name_<object>adr below).
enum class ObjectKind { kGeom, kBody, kCamera, kSite, kMesh, kHfield };

struct ModelView {
  int ngeom = 0, nbody = 0, ncam = 0, nsite = 0, nmesh = 0, nhfield = 0, nmat = 0;

  // geoms (ngeom)
  const int* geom_type = nullptr;
  const double* geom_size = nullptr;  // (ngeom x 3)
  const int* geom_dataid = nullptr;
  const int* geom_bodyid = nullptr;
  const int* geom_group = nullptr;
  const int* geom_matid = nullptr;
  const float* geom_rgba = nullptr;  // (ngeom x 4)
  const float* mat_rgba = nullptr;   // (nmat x 4)
  const int* body_weldid = nullptr;  // (nbody)

  // meshes (nmesh); mesh_vert (total x 3), mesh_face (total x 3)
  const float* mesh_vert = nullptr;
  const int* mesh_face = nullptr;
  const int* mesh_vertadr = nullptr;
  const int* mesh_vertnum = nullptr;
  const int* mesh_faceadr = nullptr;
  const int* mesh_facenum = nullptr;
  int64_t nmeshvert = 0, nmeshface = 0;  // the lengths of mesh_vert and mesh_face, in vertices / faces

  // height fields (nhfield); hfield_size (nhfield x 4), hfield_data (nhfielddata)
  const double* hfield_size = nullptr;
  const int* hfield_nrow = nullptr;
  const int* hfield_ncol = nullptr;
  const int* hfield_adr = nullptr;
  const float* hfield_data = nullptr;
  int64_t nhfielddata = 0;

  // cameras (ncam)
  const int* cam_bodyid = nullptr;
  const int* cam_projection = nullptr;    // kProjectionPerspective or not
  const int* cam_resolution = nullptr;    // (ncam x 2)
  const double* cam_fovy = nullptr;       // degrees
  const float* cam_intrinsic = nullptr;   // (ncam x 4)
  const float* cam_sensorsize = nullptr;  // (ncam x 2)

  // sites (nsite)
  const int* site_bodyid = nullptr;

  // vis.map.zfar * stat.extent: where MuJoCo's renderer stops drawing (the default plane extent).
  double zfar_extent = 0.0;

  // Every geom's pose in the world at qpos0 (mj_kinematics on a fresh mjData): geom_xpos0
  // (ngeom x 3), geom_xmat0 (ngeom x 9, row-major). Only the static geoms' are read.
  const double* geom_xpos0 = nullptr;
  const double* geom_xmat0 = nullptr;

  // Names: MuJoCo's names buffer (nnames bytes, NUL-separated) and the offsets into it of each
  // object's name. NULL names: every object unnamed.
  const char* names = nullptr;
  int64_t nnames = 0;
  const int* name_geomadr = nullptr;
  const int* name_bodyadr = nullptr;
  const int* name_camadr = nullptr;
  const int* name_siteadr = nullptr;
  const int* name_meshadr = nullptr;
  const int* name_hfieldadr = nullptr;
};

// The name of object `id` of `kind` ("" when unnamed or out of range).
std::string object_name(const ModelView& m, ObjectKind kind, int id);
// The id of the object of `kind` named `name`, or -1.
int object_id(const ModelView& m, ObjectKind kind, const std::string& name);
// The number of objects of `kind` in m.
int object_count(const ModelView& m, ObjectKind kind);

// Checks that the view is whole: counts >= 0 and every array a count needs present, so that the
// code reading it can index it. Returns "" or the first field missing.
std::string view_problem(const ModelView& m);

}  // namespace wr_mujoco
