// The binding's objects that more than one file of it makes: each owns one reference of its C
// handle (wr.hpp) and knows its device. module.cpp binds them (Context, Scene); mujoco_model.cpp
// makes Scenes of MuJoCo models.
#pragma once

#include <wr/wr.hpp>

#include "arrays.h"

namespace wrpy {

struct ContextObj {
  wr::Context context;
  DeviceSpec device;
};

struct SceneObj {
  wr::Scene scene;
  DeviceSpec device;
};

}  // namespace wrpy
