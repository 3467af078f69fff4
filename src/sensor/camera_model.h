// The pinhole camera model on the host: checks a wr_camera_desc, builds the shared ray
// template, and turns the description into the constants every pixel reads.
#pragma once

#include <string>

#include <wr/wr.h>

#include "core/camera.h"

namespace wr {

// Throws WR_ERROR_INVALID_ARGUMENT naming the first bad field ("<function>: desc->fx ...").
void validate_camera_desc(const char* function, const wr_camera_desc& desc);

// Writes out (height x width): unit directions in the camera frame, row-major, through
// pixel centres,  d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy),
// computed in double and rounded once, with the depth factor of desc.depth_kind.
void build_ray_template(const wr_camera_desc& desc, TemplateRay* out);

// Mount transform, clip range, miss value and quaternion order of a valid desc.
DepthParams make_depth_params(const wr_camera_desc& desc);

Intrinsics intrinsics_of(const wr_camera_desc& desc);

}  // namespace wr
