// The rays of a pattern sensor (height scanners, LiDARs: wr_patterns.h): one pattern of
// ray starts and directions in the pattern frame, shared by every env, and per env only its pose.
// The env stage turns the sensor's pose (the body's times the mount) into the pattern's aligned
// frame (pattern_frame, once per env); the ray stage makes ray i's world origin and direction from
// it (pattern_world_ray); the value stage turns the hit into a distance or a height
// (pattern_value). Plain functions, so the CPU backend, the CUDA kernels and wr_sensor_world_rays
// compute the same bits.
#pragma once

#include "camera.h"
#include "philox.h"

namespace wr {

// How the pattern frame follows the sensor (IsaacLab's RayCasterCfg.ray_alignment, mjlab's
// RayCastSensorCfg.ray_alignment).
enum PatternAlignment : int {
  kAlignBase = 0,   // the sensor's full rotation
  kAlignYaw = 1,    // its heading only (a rotation about world +Z)
  kAlignWorld = 2,  // none: the pattern's axes are the world's
};

// Which peer's rule the yaw alignment follows; they differ in what they rotate.
enum PatternYawRule : int {
  // IsaacLab (ray_caster.py, quat_apply_yaw): the starts are turned by the heading, the directions
  // stay as the pattern has them (world-fixed); the heading is atan2 of the sensor's +X projected
  // on the ground, the identity where that projection is zero.
  kYawIsaacLab = 0,
  // mjlab (raycast_sensor.py, _extract_yaw_rotation): starts and directions are both turned; where
  // the sensor's +X projects onto the ground shorter than 0.1, the heading comes from its +Y
  // (turned by -90 degrees) instead.
  kYawMjlab = 1,
};

// What a pattern sensor reports per ray.
enum PatternValue : int {
  kPatternDistance = 0,  // t along the unit direction, from the ray's start
  kPatternHeight = 1,    // sensor z - hit z - height_offset (IsaacLab's height_scan)
};

// The most frames a pattern sensor has per env (wr_patterns.h's WR_MAX_PATTERN_FRAMES): their mounts and
// offsets travel in the sensor's constants, by value to the kernels.
constexpr uint32_t kMaxPatternFrames = 8;

// A pattern sensor's constants (made on the host from wr_ray_sensor_desc: sensor/pattern_model.cpp).
struct PatternParams {
  bool enabled;  // the sensor is a pattern sensor (its ray source is PatternRays)
  int alignment;
  int yaw_rule;
  int value;
  float height_offset;
  // Scanning (wr_ray_sensor_desc.rays_per_frame): each frame reads a window of rays_per_frame of the
  // pattern's `length` rays, env e's starting at (frame x rays_per_frame + phase_e) mod length,
  // phase_e 0 or (hashed_phase) a Philox draw of (seed, e) mod length. Not scanning: the whole
  // pattern, every frame (rays_per_frame = length).
  // Every start (offset applied) is the origin: each ray starts at the aligned frame's position,
  // taken as it is (no rotated zero added), as a camera's rays start at the camera's.
  bool shared_origin;
  bool scanning;
  bool hashed_phase;
  uint32_t length, rays_per_frame;
  uint32_t seed_lo, seed_hi;
  // Several frames per env (wr_ray_sensor_desc.num_frames > 1): output row f is frame f's, its
  // body pose frame_offsets[f] floats into the env's record, its mount frame_mounts[f]. With one
  // frame these are not read (the env stage uses the desc's mount and the call's pose).
  uint32_t num_frames;
  uint32_t frame_offsets[kMaxPatternFrames];
  RigidTransform frame_mounts[kMaxPatternFrames];
};

// The phase of env `env` of a scanning sensor: 0, or a draw of Philox keyed by the seed, counter
// (env, 0x5CA7, 0, 0), taken mod length (the same for every N and every order the envs are
// rendered in).
WR_HD uint32_t pattern_phase(const PatternParams& p, uint32_t env) {
  if (!p.hashed_phase) return 0;
  return philox4x32_10(Philox4x32{{env, 0x5CA7u, 0u, 0u}}, p.seed_lo, p.seed_hi).v[0] % p.length;
}

// The pattern ray that output ray u of env `env` reads in frame `frame`: u, or for a scanning
// sensor (frame x rays_per_frame + phase + u) mod length, in 64 bits (length < 2^26).
WR_HD uint32_t pattern_ray_index(const PatternParams& p, uint32_t env, uint64_t frame, uint32_t u) {
  if (!p.scanning) return u;
  const uint64_t n = p.length;
  const uint64_t start = ((frame % n) * (p.rays_per_frame % n) + pattern_phase(p, env)) % n;
  return static_cast<uint32_t>((start + u) % n);
}

// The heading of rotation r (row-major, a valid rotation) as (cos, sin) under `rule`.
WR_HD void pattern_heading(const float r[9], int rule, float* c, float* s) {
  float x = r[0], y = r[3];  // +X of the sensor in the world, projected on the ground
  float n = sqrt_(x * x + y * y);
  if (rule == kYawMjlab) {
    if (n < 0.1f) {
      // +Y instead, turned by -90 degrees: (yx, yy) -> (yy, -yx)
      const float yx = r[1], yy = r[4];
      float m = sqrt_(yx * yx + yy * yy);
      m = m < 1e-6f ? 1e-6f : m;
      x = yy / m;
      y = -yx / m;
      n = 1.0f;
    }
    n = n < 1e-6f ? 1e-6f : n;
    *c = x / n;
    *s = y / n;
    return;
  }
  if (n == 0.0f) {  // atan2(0, 0) = 0: the identity
    *c = 1.0f;
    *s = 0.0f;
    return;
  }
  *c = x / n;
  *s = y / n;
}

// The env stage: the pattern's aligned frame from the sensor's pose (body times mount). Its
// position is the sensor's; its rotation turns the starts (and the directions, unless
// pattern_directions_fixed).
WR_HD RigidTransform pattern_frame(const RigidTransform& sensor, const PatternParams& p) {
  RigidTransform f = sensor;
  if (p.alignment == kAlignBase) return f;
  float c = 1.0f, s = 0.0f;
  if (p.alignment == kAlignYaw) pattern_heading(sensor.rot, p.yaw_rule, &c, &s);
  const float rot[9] = {c, -s, 0.0f, s, c, 0.0f, 0.0f, 0.0f, 1.0f};
  for (int i = 0; i < 9; ++i) f.rot[i] = rot[i];
  return f;
}

// Whether the directions stay as the pattern has them (world-fixed): the world alignment, and
// IsaacLab's yaw.
WR_HD bool pattern_directions_fixed(const PatternParams& p) {
  return p.alignment == kAlignWorld || (p.alignment == kAlignYaw && p.yaw_rule == kYawIsaacLab);
}

// Ray i of the pattern `rays` ((2 x length) template entries) in the world, for the env whose
// aligned frame is `frame`: the operations of make_pixel_ray's for the direction (where it turns
// with the frame) and a camera's origin where the starts are all the origin, so that the CPU's
// packets, which trace such a sensor as a one-row camera, give the same bits.
WR_HD WorldRay pattern_world_ray(const TemplateRay* rays, uint32_t i, const RigidTransform& frame,
                                 const PatternParams& p) {
  const TemplateRay d = load_template_ray(rays + i);
  WorldRay r;
  if (p.shared_origin) {
    r.org = frame.pos;
  } else {
    const TemplateRay s = load_template_ray(rays + p.length + i);
    r.org = frame.pos + rotate(frame.rot, Vec3{s.dir[0], s.dir[1], s.dir[2]});
  }
  const Vec3 dir{d.dir[0], d.dir[1], d.dir[2]};
  r.dir = pattern_directions_fixed(p) ? dir : rotate(frame.rot, dir);
  return r;
}

// Whether the CPU may trace a pattern sensor's rays as a one-row camera of its directions (the
// SIMD packets): one origin, directions turning with the frame (make_pixel_ray's operations), the
// distance as the value (pixel_value's, depth factor 1), the whole pattern every frame, one frame.
WR_HD bool pattern_as_camera(const PatternParams& p) {
  return p.shared_origin && !pattern_directions_fixed(p) && p.value == kPatternDistance && !p.scanning &&
         p.num_frames <= 1;
}

// The value of a ray that hit at t (hit: a triangle was hit in [tmin, tmax]), or `miss` where it
// did not.
WR_HD float pattern_value(float t, bool hit, const WorldRay& r, const RigidTransform& frame, const PatternParams& p,
                          float miss) {
  if (!hit) return miss;
  if (p.value == kPatternHeight) return frame.pos.z - (r.org.z + t * r.dir.z) - p.height_offset;
  return t;
}

}  // namespace wr
