// One render, from the C API to a backend: the caller's wr_render_args checked (what needs no
// reading of their data) and turned into the call every backend takes (backend/backend.h,
// SensorBackend::render), with the feature set the render uses (core/render_features.h) derived
// here, once, from the sensor and the call: nothing else decides which parts of the pipeline a
// render runs. wr_sensor_render and wr_sensor_render_ex both come through make_render_call.
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/depth_pipeline.h"
#include "sensor/pipeline_options.h"

namespace wr {

// How the caller passed a render's arguments, which its messages name as the caller wrote them:
// in a wr_render_args (wr_sensor_render_ex: "args->body_poses"), or as the parameters of
// wr_sensor_render ("body_poses", "depth_out").
enum class ArgumentsAs { kArgsStruct, kParameters };

// The prefix of an argument's name in a message: "args->" or "".
inline const char* argument_prefix(ArgumentsAs as) { return as == ArgumentsAs::kArgsStruct ? "args->" : ""; }

struct RenderCall {
  PipelineCall call;          // core/depth_pipeline.h
  RenderFeatureSet features;  // render_features(sensor's pipeline, call)
  void* stream;               // a cudaStream_t on CUDA (null: the default stream); unused on the CPU
  ArgumentsAs arguments;      // how the caller passed them (the spelling of the messages)
};

// Whether a call has per-env inputs: any pointer of PerEnvInputs set (compared byte by byte, so
// that a field added there counts without being listed).
bool has_per_env_inputs(const PerEnvInputs& inputs);

// The feature set of a render of a sensor whose pipeline is `pipeline` (the pipeline's stages
// where the sensor's options ask for them or the call has per-env inputs or output channels; the instances where the
// scene's table is not empty; the scene's terrain kind, by default the list's first, the BVH).
RenderFeatureSet render_features(const SensorPipeline& pipeline, const PipelineCall& call,
                                 TerrainKind terrain = TerrainKind{});

// Checks a render's arguments for what needs no reading of their data (null, sizes, alignment,
// stride and offset; the instance poses the scene's table needs, `instances` being where its device
// reads it; messages "<function>: args->body_poses ..." or "... body_poses ...", as `as` says) and
// makes the call, for a scene whose terrain is of the kind `terrain`.
RenderCall make_render_call(const char* function, const SensorPipeline& pipeline, uint32_t num_envs,
                            const InstanceView& instances, TerrainKind terrain, const wr_render_args& args,
                            ArgumentsAs as);

}  // namespace wr
