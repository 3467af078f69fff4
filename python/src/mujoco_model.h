// warp_raycaster._wr's MuJoCo part: scenes, cameras and sensor frames of a MuJoCo model given as
// its arrays (a mujoco.MjModel of any MuJoCo from 3.3 on, read by warp_raycaster/mujoco.py),
// through the integration's MuJoCo-free code (integrations/mujoco/model/model_scene.h): the
// same shapes, rules and pose conversions as the C++ adapter, compiled once.
#pragma once

#include <nanobind/nanobind.h>

namespace wrpy {

/// Adds MujocoModel, MujocoScene, MujocoCamera and MujocoFrame to the module (after Context,
/// Scene and CameraDesc, which they take and return).
void register_mujoco(nanobind::module_& m);

}  // namespace wrpy
