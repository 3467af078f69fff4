// What the C API's calls on a scene check of it, shared by wr_api.cpp (renders) and intersect_api.cpp
// (explicit rays).
#pragma once

#include <string>

#include <wr/wr.h>

#include "api/handles.h"
#include "errors/status_error.h"

namespace wr_api {

// Refuses a call that takes no instance poses (`instead` names the one that does) on a scene whose
// table has instances.
inline void require_no_instance_poses(const char* function, wr_scene scene, const char* instead) {
  const wr::InstanceView v = scene->instances_view();
  if (wr::num_instances(v) != 0)
    wr::fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": the scene has " + std::to_string(v.num_slots) +
                                            " instance slots per env and " + std::to_string(v.num_globals) +
                                            " global instances, whose poses this call cannot take: use " + instead);
}

}  // namespace wr_api
