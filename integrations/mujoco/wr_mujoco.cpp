// wr_mujoco's MuJoCo forms (wr_mujoco.h): an mjModel read through a ModelView, mjData's poses, an
// mjBatch's outputs. Everything else is model/model_scene.cpp's.
#include "wr_mujoco.h"

#include <memory>
#include <type_traits>
#include <string>

#include "model_labels.h"

namespace wr_mujoco {
namespace {

using namespace internal;  // model_labels.h

// ModelView's constants are MuJoCo's (model_view.h).
static_assert(kGeomPlane == mjGEOM_PLANE && kGeomHfield == mjGEOM_HFIELD && kGeomSphere == mjGEOM_SPHERE &&
                  kGeomCapsule == mjGEOM_CAPSULE && kGeomEllipsoid == mjGEOM_ELLIPSOID &&
                  kGeomCylinder == mjGEOM_CYLINDER && kGeomBox == mjGEOM_BOX && kGeomMesh == mjGEOM_MESH &&
                  kGeomSdf == mjGEOM_SDF,
              "ModelView's geom types are mjtGeom's");
static_assert(kNumGeomGroups == mjNGROUP, "ModelView's group count is mjNGROUP");
static_assert(kProjectionPerspective == mjPROJ_PERSPECTIVE, "ModelView's perspective is mjPROJ_PERSPECTIVE");
static_assert(sizeof(mjtNum) == sizeof(double), "ModelView reads mjtNum as double");
static_assert(std::is_same<decltype(SceneOptions::geomgroup)::value_type, mjtByte>::value,
              "SceneOptions::geomgroup is mj_ray's mjtByte geomgroup");

struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

void check_model(const mjModel* m, const char* where) {
  if (!m) fail(where, "m is NULL");
}

}  // namespace

ModelView view_of(const mjModel* m) {
  ModelView v;
  if (!m) return v;
  v.ngeom = m->ngeom;
  v.nbody = m->nbody;
  v.ncam = m->ncam;
  v.nsite = m->nsite;
  v.nmesh = m->nmesh;
  v.nhfield = m->nhfield;
  v.nmat = m->nmat;
  v.geom_type = m->geom_type;
  v.geom_size = m->geom_size;
  v.geom_dataid = m->geom_dataid;
  v.geom_bodyid = m->geom_bodyid;
  v.geom_group = m->geom_group;
  v.geom_matid = m->geom_matid;
  v.geom_rgba = m->geom_rgba;
  v.mat_rgba = m->mat_rgba;
  v.body_weldid = m->body_weldid;
  v.mesh_vert = m->mesh_vert;
  v.mesh_face = m->mesh_face;
  v.mesh_vertadr = m->mesh_vertadr;
  v.mesh_vertnum = m->mesh_vertnum;
  v.mesh_faceadr = m->mesh_faceadr;
  v.mesh_facenum = m->mesh_facenum;
  v.nmeshvert = m->nmeshvert;
  v.nmeshface = m->nmeshface;
  v.hfield_size = m->hfield_size;
  v.hfield_nrow = m->hfield_nrow;
  v.hfield_ncol = m->hfield_ncol;
  v.hfield_adr = m->hfield_adr;
  v.hfield_data = m->hfield_data;
  v.nhfielddata = m->nhfielddata;
  v.cam_bodyid = m->cam_bodyid;
  v.cam_projection = m->cam_projection;
  v.cam_resolution = m->cam_resolution;
  v.cam_fovy = m->cam_fovy;
  v.cam_intrinsic = m->cam_intrinsic;
  v.cam_sensorsize = m->cam_sensorsize;
  v.site_bodyid = m->site_bodyid;
  v.zfar_extent = static_cast<double>(m->vis.map.zfar) * m->stat.extent;
  v.names = m->names;
  v.nnames = m->nnames;
  v.name_geomadr = m->name_geomadr;
  v.name_bodyadr = m->name_bodyadr;
  v.name_camadr = m->name_camadr;
  v.name_siteadr = m->name_siteadr;
  v.name_meshadr = m->name_meshadr;
  v.name_hfieldadr = m->name_hfieldadr;
  return v;
}

ModelView view_of(const mjModel* m, const mjData* d_at_qpos0) {
  ModelView v = view_of(m);
  if (d_at_qpos0) {
    v.geom_xpos0 = d_at_qpos0->geom_xpos;
    v.geom_xmat0 = d_at_qpos0->geom_xmat;
  }
  return v;
}

BatchOutputs request_batch_outputs(mjBatch* b) {
  if (!b) fail("request_batch_outputs", "b is NULL");
  const mjModel* m = mjb_model(b);
  BatchOutputs out;
  out.nsim = mjb_nsim(b);
  const auto get = [&](const char* field, int expected) -> const mjtNum* {
    int size = -1, elemsize = -1;
    void* p = mjb_output(b, field, &size, &elemsize);
    if (!p) fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") returned NULL");
    if (size != expected || elemsize != static_cast<int>(sizeof(mjtNum)))
      fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") has size " + std::to_string(size) +
                                        " of " + std::to_string(elemsize) + " bytes: expected " +
                                        std::to_string(expected) + " of " + std::to_string(sizeof(mjtNum)));
    return static_cast<const mjtNum*>(p);
  };
  if (m->ngeom > 0) {
    out.geom_xpos = get("geom_xpos", 3 * m->ngeom);
    out.geom_xmat = get("geom_xmat", 9 * m->ngeom);
  }
  if (m->ncam > 0) {
    out.cam_xpos = get("cam_xpos", 3 * m->ncam);
    out.cam_xmat = get("cam_xmat", 9 * m->ncam);
  }
  return out;
}

// ---- the mjModel / mjData forms ----

Mesh geom_mesh(const mjModel* m, int geom, const SceneOptions& options) {
  check_model(m, "geom_mesh");
  return geom_mesh(view_of(m), geom, options);
}

double geom_mesh_deviation(const mjModel* m, int geom, const SceneOptions& options) {
  check_model(m, "geom_mesh_deviation");
  return geom_mesh_deviation(view_of(m), geom, options);
}

Scene Scene::build(wr_context ctx, const mjModel* m, const SceneOptions& options) {
  const char* where = "Scene::build";
  check_model(m, where);
  if (!ctx) fail(where, "ctx is NULL");
  // Static geoms are posed at qpos0 (they do not move with qpos: their bodies are welded to the world).
  std::unique_ptr<mjData, DataDeleter> d(mj_makeData(m));
  if (!d) fail(where, "mj_makeData failed (out of memory?)");
  mj_kinematics(m, d.get());
  return build(ctx, view_of(m, d.get()), options);
}

void Scene::fill_instance_poses(const mjData* d, float* out) const {
  if (!d) fail("Scene::fill_instance_poses", "d is NULL");
  if (!out && !slots_.empty()) fail("Scene::fill_instance_poses", "out is NULL");
  fill_instance_poses_batch(PoseArrays<double>{d->geom_xpos, d->geom_xmat, 1}, out);
}

void Scene::fill_instance_poses_batch(const BatchOutputs& b, float* out) const {
  fill_instance_poses_batch(b.geom_xpos, b.geom_xmat, b.nsim, out);
}

Camera Camera::from_model(const mjModel* m, const Scene& scene, const char* name, const CameraOptions& options) {
  check_model(m, "Camera::from_model");
  return from_model(view_of(m), scene, name, options);
}

Camera Camera::from_model(const mjModel* m, const Scene& scene, int id, const CameraOptions& options) {
  check_model(m, "Camera::from_model");
  return from_model(view_of(m), scene, id, options);
}

void Camera::fill_pose(const mjData* d, float* out) const {
  if (!d) fail("Camera::fill_pose", "d is NULL");
  if (!out) fail("Camera::fill_pose", "out is NULL");
  fill_pose_batch(PoseArrays<double>{d->cam_xpos, d->cam_xmat, 1}, out);
}

void Camera::fill_pose_batch(const BatchOutputs& b, float* out) const {
  fill_pose_batch(b.cam_xpos, b.cam_xmat, b.nsim, out);
}

SensorFrame SensorFrame::at_site(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_site");
  return at_site(view_of(m), scene, name, exclude_own_body);
}

SensorFrame SensorFrame::at_body(const mjModel* m, const Scene& scene, const char* name, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_body");
  return at_body(view_of(m), scene, name, exclude_own_body);
}

SensorFrame SensorFrame::at_site_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_site_id");
  return at_site_id(view_of(m), scene, id, exclude_own_body);
}

SensorFrame SensorFrame::at_body_id(const mjModel* m, const Scene& scene, int id, bool exclude_own_body) {
  check_model(m, "SensorFrame::at_body_id");
  return at_body_id(view_of(m), scene, id, exclude_own_body);
}

void SensorFrame::fill_pose(const mjData* d, float* out) const {
  if (id < 0) fail("SensorFrame::fill_pose", "the frame is not of a model: make it with at_site or at_body");
  if (!d) fail("SensorFrame::fill_pose", "d is NULL");
  if (!out) fail("SensorFrame::fill_pose", "out is NULL");
  if (is_site)
    fill_pose_batch(PoseArrays<double>{d->site_xpos, d->site_xmat, 1}, out);
  else
    fill_pose_batch(PoseArrays<double>{d->xpos, d->xmat, 1}, out);
}

}  // namespace wr_mujoco
