// warp_raycaster._wr.gather_poses (poses.cpp): wr_gather_poses for Python arrays.
#pragma once

#include <nanobind/nanobind.h>

namespace wrpy {

/// Adds gather_poses to the module (after Context, which it takes).
void register_poses(nanobind::module_& m);

}  // namespace wrpy
