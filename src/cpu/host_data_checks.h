// The CPU backend's checks of the data a call hands it in host memory, before anything is
// written: a render's poses, mounts, intrinsics, latencies and instance poses, and explicit rays.
// One room and one formatter for every such message, which names the argument, the env (and slot,
// or ray) and the values: "<function>: args->body_poses of env 3 (floats 21...) = (0, 0, nan, 1, 0,
// 0, 0): not finite; nothing was rendered". (A CUDA render cannot read device data before it runs:
// there the kernels make a bad env's output invalid instead, core/depth_pipeline.h.)
#pragma once

#include <cstdint>
#include <string>

#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "sensor/render_call.h"

namespace wr {

// "(v0, v1, ...)": n floats as messages show them.
std::string format_floats(const float* v, int n);

// Checks a render's host data (the call of make_render_call, for a sensor of num_envs envs whose
// pipeline constants are p): every env's body pose, and with the pipeline's features, the updated
// envs' poses, mounts and intrinsics (bad ones throw naming the env, unless p.isolate: then they are
// left for the render, which makes those envs invalid) and latencies (< history, always); the
// instance poses where the scene has instances (unless p.isolate). Nothing is written.
void validate_render_host_data(const char* function, const PipelineParams& p, const RenderCall& call,
                               uint32_t num_envs);

// Checks host poses of instances: (num_envs x num_slots x 7) slot_poses (the envs whose
// update_mask entry is nonzero, every env where it is null) and (num_globals x 7) global_poses, in
// quat_order. Throws WR_ERROR_INVALID_ARGUMENT naming the first bad one ("<function>:
// args->instance_poses of env 2, slot 3 (floats 77...) = (...): not finite, or a zero quaternion;
// <consequence>"), global poses first. args_prefix: "args->" or "" (argument_prefix).
void validate_instance_poses(const char* function, const char* args_prefix, const InstanceView& table,
                             const float* slot_poses, const float* global_poses, uint64_t num_envs,
                             const uint8_t* update_mask, int quat_order, const char* consequence);

// Throws WR_ERROR_INVALID_ARGUMENT naming the first bad ray ("<function>: directions of
// ray 5 ..."), then the first bad instance pose ("<function>: args->instance_poses of env 2,
// slot 3 ..."); checks everything before anything is written.
void validate_explicit_rays(const char* function, const ExplicitRays& rays);

}  // namespace wr
