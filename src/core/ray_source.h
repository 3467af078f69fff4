// Ray sources: how a pixel's (or a ray's) world ray comes from a sensor's shared template and its
// env's pose, and what its hit is worth. The trace, the output channels, the noise, output and
// history stages (depth_pipeline.h, output_channels.h) do not care which source made a ray; a
// render's feature set (render_features.h) names its source as a type, and every question whose
// answer differs between a camera and a pattern is a member of the source here, so that the render
// has one path and a new source is a new type through it, never a second render beside it.
//
// A source provides, each a static member:
//   env_frame<F>(c, env, p, *frame, *k)  the env stage: the env's sensor frame in the world (and its
//                                        intrinsics); false for a bad pose, mount or intrinsics
//   world_ray<F>(...)                    the ray stage: pixel (u, v)'s world ray (SourceRay)
//   value<F>(hit, ray, p)                the value stage: the hit's reported value
// and what a backend asks of it:
//   kCameraImage          it may make an image of the camera's (crop windows, resampling, edge
//                         dropout), so its renders carry the camera-image and sample kernels
//   kPinhole              its tiles are a pinhole's (the CPU culls instances wholly behind the
//                         camera, and packets by the tile's corner rays)
//   as_camera_tile(p)     the CPU may trace its rays as a camera's tile (the SIMD packets)
#pragma once

#include "camera.h"
#include "pattern_rays.h"
#include "pipeline_call.h"
#include "pixel_pipeline.h"

namespace wr {

// The common env stage: env e's sensor pose in the world (its body pose in the call's record,
// times the mount: the env's own where the call has per-env mounts) and the intrinsics (the env's
// own where the call has them), the per-env arrays only with the pipeline's features (F::pipeline).
template <class F>
WR_HD bool sensor_pose(const PipelineCall& c, uint32_t env, const PipelineParams& p, RigidTransform* pose,
                       Intrinsics* k) {
  RigidTransform body;
  if (!pose_to_transform(c.body_poses + static_cast<uint64_t>(env) * c.pose_stride + c.pose_offset, p.depth.quat_order,
                         &body))
    return false;
  RigidTransform mount = p.depth.mount;
  *k = p.intrinsics;
  if constexpr (F::pipeline) {
    if (c.mounts && !mount_to_transform(c.mounts + 7ull * env, p.depth.quat_order, &mount)) return false;
    if (c.intrinsics) {
      const float* ki = c.intrinsics + 4ull * env;
      *k = Intrinsics{ki[0], ki[1], ki[2], ki[3]};
      if (!valid_intrinsics(*k)) return false;
    }
  }
  *pose = compose(body, mount);
  return true;
}

// Pixel (u, v)'s template ray. shared: (cam_h x cam_w) template rows of cam_w; own_intrinsics: the
// env has its own intrinsics `k` (then `shared` is not read).
WR_HD TemplateRay source_ray(const TemplateRay* shared, uint32_t cam_w, bool own_intrinsics, const Intrinsics& k,
                             bool plane_depth, uint32_t u, uint32_t v) {
  return own_intrinsics ? make_template_ray(u, v, k, plane_depth)
                        : load_template_ray(shared + static_cast<uint64_t>(v) * cam_w + u);
}

// A depth camera's rays: one origin per env (the camera's position in the world: the env's body
// pose times the mount), and per pixel (u, v) a direction of the shared template (camera.h,
// build_ray_template: (height x width) rays in the camera frame, shared by every env), or, where
// the render gives each env its own intrinsics, the template ray made from those (the same bits as
// a template built with them). The value is the depth (pixel_value: the ray's depth factor, the
// clip, the miss value). The sensor frame is the camera's.
struct CameraTemplateRays {
  static constexpr bool kCameraImage = true;
  static constexpr bool kPinhole = true;
  WR_HD static bool as_camera_tile(const PipelineParams&) { return true; }

  template <class F>
  WR_HD static bool env_frame(const PipelineCall& c, uint32_t env, const PipelineParams& p, RigidTransform* camera,
                              Intrinsics* k) {
    return sensor_pose<F>(c, env, p, camera, k);
  }

  // make_pixel_ray's ray from the camera, over the camera stage's clip (camera_stage_params).
  template <class F>
  WR_HD static SourceRay world_ray(const TemplateRay* shared, const PipelineCall& c, uint32_t, uint32_t u, uint32_t v,
                                   const RigidTransform& camera, const Intrinsics& k, const PipelineParams& p) {
    const TemplateRay ray = source_ray(shared, p.cam_w, F::pipeline && c.intrinsics != nullptr, k, p.plane_depth, u, v);
    const PixelRay r = make_pixel_ray(ray, camera, camera_stage_params<F>(p));
    return SourceRay{WorldRay{camera.pos, r.dir}, r.tmin, r.tmax, ray.depth_scale, camera};
  }

  template <class F>
  WR_HD static float value(const SceneHit& h, const SourceRay& r, const PipelineParams& p) {
    return pixel_value(h.t, h.triangle, r.depth_scale, camera_stage_params<F>(p));
  }
};

// The rays of a pattern (pattern_rays.h): the sensor's template holds the directions first,
// (length) entries (direction, 1), then the starts, (length) entries (start, 0), in the pattern
// frame, offset applied: (2 x length). Output ray u of row v is the pattern ray pattern_ray_index
// says, from row v's aligned frame (pattern_frame; with several frames, frame v's own body pose and
// mount); its value a distance or a height (pattern_value). The directions alone are a camera
// template of one row (depth factor 1), which the CPU's packets read for a sensor of shared origin
// (pattern_as_camera). The sensor frame is the aligned frame. Always with the pipeline's stages.
struct PatternRays {
  static constexpr bool kCameraImage = false;  // pattern_model.cpp refuses crops, resampling, edge dropout
  static constexpr bool kPinhole = false;      // its rays go every way: no culling by a camera's view
  WR_HD static bool as_camera_tile(const PipelineParams& p) { return pattern_as_camera(p.pattern); }

  // Frame f of env `env` of a sensor of several frames, aligned: its body pose
  // p.pattern.frame_offsets[f] floats into the env's record, times its mount. False for a bad pose.
  WR_HD static bool frame_of(const PipelineCall& c, uint32_t env, uint32_t f, const PipelineParams& p,
                             RigidTransform* out) {
    RigidTransform body;
    if (!pose_to_transform(
            c.body_poses + static_cast<uint64_t>(env) * c.pose_stride + c.pose_offset + p.pattern.frame_offsets[f],
            p.depth.quat_order, &body))
      return false;
    *out = pattern_frame(compose(body, p.pattern.frame_mounts[f]), p.pattern);
    return true;
  }

  // The aligned frame of the sensor's pose; with several frames, every frame's pose checked and
  // frame 0's returned (world_ray makes each row's).
  template <class F>
  WR_HD static bool env_frame(const PipelineCall& c, uint32_t env, const PipelineParams& p, RigidTransform* frame,
                              Intrinsics* k) {
    static_assert(F::pipeline, "a pattern sensor's value stage is the pipeline's");
    if (p.pattern.num_frames > 1) {
      *k = p.intrinsics;
      for (uint32_t f = p.pattern.num_frames; f-- > 0;)
        if (!frame_of(c, env, f, p, frame)) return false;
      return true;
    }
    if (!sensor_pose<F>(c, env, p, frame, k)) return false;
    *frame = pattern_frame(*frame, p.pattern);
    return true;
  }

  // Row v is frame v's (several frames: its own body and mount; the env stage checked its pose).
  template <class F>
  WR_HD static SourceRay world_ray(const TemplateRay* shared, const PipelineCall& c, uint32_t env, uint32_t u,
                                   uint32_t v, const RigidTransform& aligned, const Intrinsics&,
                                   const PipelineParams& p) {
    RigidTransform frame = aligned;
    if (p.pattern.num_frames > 1) frame_of(c, env, v, p, &frame);
    const WorldRay r = pattern_world_ray(shared, pattern_ray_index(p.pattern, env, c.frame, u), frame, p.pattern);
    return SourceRay{r, p.depth.near_clip, p.depth.far_clip, 1.0f, frame};
  }

  template <class F>
  WR_HD static float value(const SceneHit& h, const SourceRay& r, const PipelineParams& p) {
    return pattern_value(h.t, h.triangle != kInvalidIndex, r.world, r.frame, p.pattern, p.depth.miss_value);
  }
};

}  // namespace wr
