// wr_mujoco: depth images and ray sensors of MuJoCo models through warp-raycaster (the public C API,
// wr/wr.h), for C++ programs built against MuJoCo 4.
//
// The rules (what a model becomes, which geoms are seen, shapes, groups, camera intrinsics and frames,
// errors, a render loop) are in model/model_scene.h, which declares Scene, Camera, SensorFrame and
// geom_mesh: their code reads a model through a ModelView (model/model_view.h), so that the Python
// package (warp_raycaster.mujoco, for any MuJoCo from 3.3 on) runs the same code on a mujoco.MjModel's
// arrays. This header adds what needs MuJoCo's own C API: the mjModel / mjData forms of those
// functions (view_of, then the ModelView form) and an mjBatch's outputs.
#pragma once

#include <mujoco/mjbatch.h>
#include <mujoco/mujoco.h>
#include <wr/wr.h>

#include "model_scene.h"

namespace wr_mujoco {

// The view of m: its arrays, its names, and every geom's pose at qpos0 from d (mj_kinematics done:
// Scene::build(ctx, m) makes such a d itself). The view points into m and d.
ModelView view_of(const mjModel* m, const mjData* d_at_qpos0);
// The view of m without poses (geom_xpos0 / geom_xmat0 NULL): enough for cameras, frames and
// geom_mesh, not for Scene::build.
ModelView view_of(const mjModel* m);

// Pointers to the outputs of an mjBatch this integration reads, as mjb_output returns them
// ((nsim x size) mjtNum, copied out of the simulations after every mjb_step / mjb_forward /
// mjb_reset: ask once, before the first call whose results are to be read).
struct BatchOutputs {
  int nsim = 0;
  const mjtNum* geom_xpos = nullptr;  // (nsim x ngeom x 3)
  const mjtNum* geom_xmat = nullptr;  // (nsim x ngeom x 9)
  const mjtNum* cam_xpos = nullptr;   // (nsim x ncam x 3), NULL when the model has no camera
  const mjtNum* cam_xmat = nullptr;   // (nsim x ncam x 9), NULL when the model has no camera
};

// Asks b for the outputs above (mjb_output); throws naming a field it refuses or sizes otherwise.
BatchOutputs request_batch_outputs(mjBatch* b);

}  // namespace wr_mujoco
