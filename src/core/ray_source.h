// Ray sources: how a pixel's (or a ray's) origin and direction come from a sensor's shared
// template and its env's pose. The trace, noise, output and history stages (depth_pipeline.h) do
// not care which source made a ray; a render's feature set (render_features.h) names its source as
// a type, so that a new source (the patterns of height scanners and LiDARs) is a new type through
// the same render, never a second render beside it.
#pragma once

#include "camera.h"
#include "pattern_rays.h"

namespace wr {

// A source is a tag type: CameraTemplateRays (below: one origin per env, a direction per pixel,
// source_ray) or PatternRays (pattern_rays.h: a start and a direction per ray, turned by the env's
// aligned frame, pattern_world_ray). The places that ask which (F::pattern) are the env stage
// (depth_pipeline.h, env_camera: the aligned frame, a frame per row), the camera stage
// (camera_depth: the ray and its value), the CPU's tiles (cpu_render.cpp: a pattern of one origin
// as a one-row camera's packets, no instance culled behind a camera) and the CUDA launch
// (cuda_kernels.cu: no camera image for a pattern).

// A depth camera's rays: one origin per env (the camera's position in the world: the env's body
// pose times the mount), and per pixel (u, v) a direction of the shared template (camera.h,
// build_ray_template: (height x width) rays in the camera frame, shared by every env), or, where
// the render gives each env its own intrinsics, the template ray made from those (the same bits as
// a template built with them).
struct CameraTemplateRays {};

// Pixel (u, v)'s template ray. shared: (cam_h x cam_w) template rows of cam_w; own_intrinsics: the
// env has its own intrinsics `k` (then `shared` is not read).
WR_HD TemplateRay source_ray(CameraTemplateRays, const TemplateRay* shared, uint32_t cam_w, bool own_intrinsics,
                             const Intrinsics& k, bool plane_depth, uint32_t u, uint32_t v) {
  return own_intrinsics ? make_template_ray(u, v, k, plane_depth)
                        : load_template_ray(shared + static_cast<uint64_t>(v) * cam_w + u);
}

WR_HD constexpr bool is_pattern_source(CameraTemplateRays) { return false; }
WR_HD constexpr bool is_pattern_source(PatternRays) { return true; }

}  // namespace wr
