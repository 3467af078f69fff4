// The triangles of a MuJoCo geom in its own frame (model_scene.h, geom_mesh): boxes and planes
// exactly, spheres, ellipsoids, capsules and cylinders tessellated within a tolerance, meshes and
// height fields as the model holds them. Internal to the integration: Scene::build
// (model_scene.cpp) and geom_mesh / geom_mesh_deviation (geom_shapes.cpp) call it.
#pragma once

#include <stdexcept>
#include <string>

#include "model_scene.h"

namespace wr_mujoco {
namespace internal {

// What the shape builders throw: the culprit without the public function's name, which
// build_geom_mesh puts in front (an Error never escapes without it).
struct ShapeError : std::runtime_error {
  explicit ShapeError(const std::string& what) : std::runtime_error(what) {}
};

// Refuses options whose tolerance or plane extent is not usable, naming `where`.
void check_options(const SceneOptions& o, const char* where);

// Geom g's height field (type kGeomHfield), checked: a ShapeError names a geom_dataid that
// names no hfield, or fewer than 2 x 2 samples.
struct HfieldParams {
  int id, nrow, ncol;
  const double* size;  // x, y, z_top, z_bottom (hfield_size)
  const float* data;   // nrow x ncol, row r at y, column c at x (hfield_data)
};
HfieldParams hfield_params(const ModelView& m, int g);

// The shape of geom g (model_scene.h, geom_mesh), errors named as `caller`'s (an Error);
// *deviation: the tessellation's distance from the true surface (0 for the exact shapes).
Mesh build_geom_mesh(const ModelView& m, int g, const SceneOptions& o, double* deviation, const char* caller);

}  // namespace internal
}  // namespace wr_mujoco
