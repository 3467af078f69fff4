// The RL depth pipeline's options on the host: wr_sensor_options checked and turned into the
// constants every pixel reads (core/depth_pipeline.h).
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/depth_pipeline.h"

namespace wr {

// A sensor's pipeline, as its options make it.
struct SensorPipeline {
  PipelineParams params;
  bool active = false;  // some option differs from "off": render goes through the pipeline
  uint64_t out_bytes_per_env = 0;
  uint32_t out_width = 0, out_height = 0;
  // Floats of an env's record a render reads from its pose offset on: 7 (one pose), or for a
  // pattern sensor of several frames its largest frame offset + 7 (the default pose_stride).
  uint32_t pose_floats = 7;
};

// The resampling taps of every output column (out_w) and row (out_h) of p (core/output_stage.h);
// nothing where p does not resample.
void build_resample_taps(const PipelineParams& p, ResampleTaps* columns, ResampleTaps* rows);

// Checks `options` (NULL: all off; messages "<function>: options->field ...") against the camera
// `desc` (already valid) and makes the pipeline.
SensorPipeline make_sensor_pipeline(const char* function, const wr_camera_desc& desc, const wr_sensor_options* options);

}  // namespace wr
