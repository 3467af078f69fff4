// The world rays a sensor traces for one env (wr_sensor_world_rays): a camera's output pixels' or
// a pattern sensor's rays, made by the render's own ray source (core/ray_source.h), so that they
// are the bits its render traces.
#pragma once

#include <cstdint>

#include "sensor/sensor.h"

namespace wr {

// Env `env`'s rays in frame `frame` for its body pose (7 floats in the sensor's quat_order; a
// pattern of several frames: the env's record, each frame's pose at its offset) and mount (7
// floats, or null: the sensor's; refused with several frames): starts and directions,
// (out_height x out_width x 3) each. A camera's need each output pixel to be one camera pixel's
// (no resampling, no edge dropout). Messages name `function`'s arguments; nothing is written
// before every check has passed.
void sensor_world_rays(const char* function, const CameraSensor& sensor, const float* body_pose, const float* mount,
                       uint32_t env, uint64_t frame, float* starts, float* directions);

}  // namespace wr
