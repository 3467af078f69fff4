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
// off) for a pattern of pattern_rays rays, and makes the sensor's pipeline: the camera desc it is
// made as (*camera: (rays per frame: pattern_rays, or a scanning sensor's window) x frames, range depth, the desc's mount, the distances as its clip range, its
// miss value), with the pattern's constants, always active (its value stage is the pipeline's).
// Options that make an image of a camera's (crop, resampling, edge dropout) are refused, and noise
// on heights.
SensorPipeline make_pattern_pipeline(const char* function, const wr_ray_sensor_desc& desc, uint32_t pattern_rays,
                                     const wr_sensor_options* options, wr_camera_desc* camera);

// Writes out (num_rays x 2): ray i's direction (desc.offset_rotation applied, in double, rounded
// once; depth_scale 1) and its start (desc.offset_position added in float, as IsaacLab adds
// cfg.offset.pos to its float32 starts; depth_scale 0). `desc` is valid (make_pattern_pipeline).
void build_pattern_template(const RayPattern& pattern, const wr_ray_sensor_desc& desc, TemplateRay* out);

}  // namespace wr
