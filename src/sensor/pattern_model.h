// A pattern sensor's model on the host (as camera_model.h is a camera's): a wr_ray_sensor_desc
// checked and turned into the constants its rays read (core/pattern_rays.h) and its ray template:
// the pattern's rays with the desc's pattern-frame offset applied.
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/camera.h"
#include "sensor/pipeline_options.h"
#include "sensor/ray_pattern.h"

namespace wr {

// Checks `desc` (messages "<function>: desc->field ...") and the pipeline's `options` (NULL: all
// off) for `pattern`, and makes the sensor's pipeline: the camera desc it is
// made as (*camera: (rays per frame: the pattern's, or a scanning sensor's window) x frames, range depth, the desc's
// mount, the distances as its clip range, its miss value), with the pattern's constants, always active (its value stage
// is the pipeline's). Options that make an image of a camera's (crop, resampling, edge dropout) are refused, and noise
// on heights.
SensorPipeline make_pattern_pipeline(const char* function, const wr_ray_sensor_desc& desc, const RayPattern& pattern,
                                     const wr_sensor_options* options, wr_camera_desc* camera);

// Writes out (2 x num_rays): the directions (desc.offset_rotation applied, in double, rounded
// once; depth_scale 1), then the starts (desc.offset_position added in float, as IsaacLab adds
// cfg.offset.pos to its float32 starts; depth_scale 0): core/pattern_rays.h's layout. `desc` is
// valid (make_pattern_pipeline).
void build_pattern_template(const RayPattern& pattern, const wr_ray_sensor_desc& desc, TemplateRay* out);

// Whether every start, offset applied (in float, as build_pattern_template adds it), is the origin
// (PatternParams::shared_origin).
bool pattern_starts_at_origin(const RayPattern& pattern, const wr_ray_sensor_desc& desc);

}  // namespace wr
