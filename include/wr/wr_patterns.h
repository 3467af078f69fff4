/* warp-raycaster C API, ray patterns: height scanners and LiDARs. Part of wr.h, which includes
 * this file at its end (include wr.h, not this file): the types and calls it builds on (wr_scene,
 * wr_sensor, wr_sensor_options, wr_quat_order, WR_API) are wr.h's, and so are its conventions
 * (sized structs, errors, streams). */
#ifndef WR_WR_PATTERNS_H
#define WR_WR_PATTERNS_H

#include "wr/wr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Ray patterns: height scanners and LiDARs ------------------------------------------------

   A pattern is a set of rays (a start and a unit direction each, in the pattern frame: +X
   forward, +Y left, +Z up) made once and copied into each sensor made from it, where every env
   shares it: an env adds only its pose and its output. A pattern sensor traces ray i of env e from

     start_w = S.pos + A (start_i + offset_position)
     dir_w   = A (offset_rotation dir_i)          (base alignment; mjlab's yaw)
             = offset_rotation dir_i              (world alignment; IsaacLab's yaw)

   where S = body pose x mount is the sensor's pose and A the alignment's rotation: S's rotation
   (WR_ALIGN_BASE), its heading alone (WR_ALIGN_YAW, a rotation about world +Z, under the named
   peer's rule) or none (WR_ALIGN_WORLD). Its output per env is (num_rays) values: the distance
   along dir_w from start_w, or the height S.pos.z - hit z - height_offset (IsaacLab's
   height_scan), through the pipeline's options as for a camera (clip, normalise, clamp, dtype,
   history, latency, update masks, bad-pose isolation; noise on distances). */

typedef enum wr_pattern_kind {
  WR_PATTERN_GRID = 0,      /* parallel rays from a grid of starts (a height scan) */
  WR_PATTERN_SPHERICAL = 1, /* rays from the origin over elevation x azimuth (a spinning LiDAR) */
  WR_PATTERN_TABLE = 2,     /* the caller's directions (and starts): any sensor model */
  WR_PATTERN_ROSETTE = 3    /* a non-repetitive rosette of two rotating prisms (Livox), read by a
                               scanning sensor a window at a time (wr_ray_sensor_desc.rays_per_frame) */
} wr_pattern_kind;

/* The order of a grid's rays (torch.meshgrid's indexing): WR_GRID_XY, x fastest (ray j nx + i is
   x_i, y_j: IsaacLab's default); WR_GRID_IJ, y fastest (ray i ny + j). */
typedef enum wr_grid_ordering { WR_GRID_XY = 0, WR_GRID_IJ = 1 } wr_grid_ordering;

/* How many samples a grid side of `size` metres at `resolution` has, and where:
   WR_GRID_COUNT_ISAACLAB: torch.arange(-size/2, size/2 + 1e-9, resolution) (IsaacLab's
     grid_pattern: 1.6 m at 0.1 gives 17);
   WR_GRID_COUNT_MJLAB: torch.arange(-size/2, size/2 + resolution/2, resolution) (mjlab's
     GridPatternCfg). Sample k is -size/2 + k resolution, computed in double and rounded once. */
typedef enum wr_grid_count_rule { WR_GRID_COUNT_ISAACLAB = 0, WR_GRID_COUNT_MJLAB = 1 } wr_grid_count_rule;

/* Where a grid's starts lie: WR_GRID_PLANE_XY, the pattern frame's z = 0 plane, whatever the
   direction (IsaacLab, mjlab: a tilted direction makes a grid of slanted parallel rays);
   WR_GRID_PLANE_NORMAL, the plane through the origin normal to the direction, its first axis the
   frame's +X made normal to it (+Z where the direction is along X), its second axis the first
   cross the direction (so that for a straight-down direction both planes are the same). */
typedef enum wr_grid_plane { WR_GRID_PLANE_XY = 0, WR_GRID_PLANE_NORMAL = 1 } wr_grid_plane;

/* The order of a spherical pattern's rays: WR_SPHERICAL_CHANNEL_MAJOR, ray c na + a is channel c
   at azimuth a (IsaacLab's lidar_pattern); WR_SPHERICAL_AZIMUTH_MAJOR, ray a nc + c (IsaacLab's
   bpearl_pattern). */
typedef enum wr_spherical_order { WR_SPHERICAL_CHANNEL_MAJOR = 0, WR_SPHERICAL_AZIMUTH_MAJOR = 1 } wr_spherical_order;

typedef struct wr_pattern_desc {
  uint32_t struct_size; /* sizeof(wr_pattern_desc), set by wr_pattern_desc_init */
  wr_pattern_kind kind;
  /* WR_PATTERN_GRID: sides (x, y) in metres (>= 0), spacing in metres (> 0), the rays' direction
     (not zero; normalised here; default (0, 0, -1), straight down). */
  double grid_size[2];
  double grid_resolution;
  wr_grid_ordering grid_ordering;
  wr_grid_count_rule grid_count_rule;
  wr_grid_plane grid_plane;
  float grid_direction[3];
  /* WR_PATTERN_SPHERICAL, angles in degrees. Elevations: `channels` evenly over
     [vertical_fov[0], vertical_fov[1]] (as torch.linspace, computed in double), or, where vertical_angles is not NULL,
     those `channels` angles as given (Bpearl, VLP-32). Azimuths over [horizontal_fov[0],
     horizontal_fov[1]]: horizontal_count of them evenly (as linspace), or, with horizontal_count 0,
     IsaacLab's lidar_pattern rule: ceil((end - start) / horizontal_resolution) + 1 (linspace);
     either way the last is dropped where |end - start| is 360 (within 1e-6), the duplicate of the
     first. Ray direction (cos e cos a, cos e sin a, sin e), from the origin. */
  uint32_t channels;
  double vertical_fov[2];
  const float* vertical_angles; /* (channels) or NULL; read during wr_pattern_create only */
  double horizontal_fov[2];
  double horizontal_resolution;
  uint32_t horizontal_count;
  wr_spherical_order spherical_order;
  /* WR_PATTERN_TABLE: table_count rays; directions (table_count x 3, not zero, normalised here)
     and starts (table_count x 3, or NULL: the origin); read during wr_pattern_create only.
     Lengths (grid sides, starts, and a sensor's mount and offset positions) are at most 1e18
     metres: beyond, a coordinate overflows when a rotation turns it into the world. */
  uint32_t table_count;
  const float* table_directions;
  const float* table_starts;
  /* WR_PATTERN_ROSETTE (the Risley-prism principle of Livox's Mid-40 and Avia): rosette_count rays
     from the origin; ray k is deflected from +X by the sum of two prisms' deflections of
     rosette_fov / 4 degrees each, the prisms at angles 2 pi k rosette_revolutions[i] (revolutions
     per ray; opposite signs for counter-rotating prisms, an irrational ratio for a pattern that
     never repeats): (a, e) = rosette_fov / 4 (cos t0 + cos t1, sin t0 + sin t1), the ray's azimuth
     and elevation, direction (cos e cos a, cos e sin a, sin e); the whole pattern lies within a
     cone of rosette_fov degrees. */
  double rosette_fov;
  uint32_t rosette_count;
  double rosette_revolutions[2];
} wr_pattern_desc;

/* Zeroes desc, sets struct_size, grid_direction (0, 0, -1) and grid_resolution 0.1. NULL does
   nothing. */
WR_API void wr_pattern_desc_init(wr_pattern_desc* desc);

typedef struct wr_pattern_* wr_pattern;

/* Makes the pattern's rays (host memory; nothing on a device). WR_ERROR_INVALID_ARGUMENT naming
   the field for a bad desc (a zero direction, a grid or a table of no ray, more than 2^26 rays,
   a non-finite angle), nothing made. */
WR_API wr_status wr_pattern_create(const wr_pattern_desc* desc, wr_pattern* out);
WR_API wr_status wr_pattern_num_rays(wr_pattern pattern, uint32_t* out);
/* Copies the rays in the pattern frame: starts and directions (num_rays x 3 each; either may be
   NULL). */
WR_API wr_status wr_pattern_rays(wr_pattern pattern, float* starts, float* directions);
/* Frees the pattern (sensors made from it keep their copy). NULL does nothing. */
WR_API void wr_pattern_release(wr_pattern pattern);

typedef enum wr_ray_alignment { WR_ALIGN_BASE = 0, WR_ALIGN_YAW = 1, WR_ALIGN_WORLD = 2 } wr_ray_alignment;

/* What WR_ALIGN_YAW turns, as the peers do:
   WR_YAW_ISAACLAB: the starts by the heading, the directions not at all (IsaacLab's RayCaster,
     ray_alignment="yaw"); the heading is the direction of the sensor's +X projected on the ground,
     none where that projection is zero;
   WR_YAW_MJLAB: the starts and the directions (mjlab's RayCastSensor); where +X projects shorter
     than 0.1, the heading comes from +Y turned by -90 degrees. */
typedef enum wr_yaw_rule { WR_YAW_ISAACLAB = 0, WR_YAW_MJLAB = 1 } wr_yaw_rule;

typedef enum wr_ray_value {
  WR_RAY_DISTANCE = 0, /* t along dir_w from start_w, metres */
  WR_RAY_HEIGHT = 1    /* S.pos.z - hit z - height_offset: a height scan */
} wr_ray_value;

typedef enum wr_scan_phase { WR_SCAN_PHASE_ZERO = 0, WR_SCAN_PHASE_HASHED = 1 } wr_scan_phase;

typedef struct wr_ray_sensor_desc {
  uint32_t struct_size; /* sizeof(wr_ray_sensor_desc), set by wr_ray_sensor_desc_init */
  wr_quat_order quat_order;
  float mount_position[3];  /* the sensor in the body frame */
  float mount_rotation[4];  /* quaternion in quat_order; all four 0: the identity */
  float offset_position[3]; /* added to every start, in the aligned frame (IsaacLab's cfg.offset.pos:
                               a height scanner's 20 m lift) */
  float offset_rotation[4]; /* turns every direction in the pattern frame (IsaacLab's cfg.offset.rot);
                               all four 0: the identity */
  wr_ray_alignment alignment;
  wr_yaw_rule yaw_rule;
  float min_distance, max_distance; /* hits with t in [min, max] count; 0 <= min < max (max may be +inf) */
  wr_ray_value value;
  float height_offset; /* WR_RAY_HEIGHT's */
  float miss_value;    /* written for a ray that hits nothing in range (any value; IsaacLab's height
                          scan, clipped to [-1, 1], reads -1 there) */
  /* Scanning: 0, every frame traces the whole pattern; else each frame traces rays_per_frame of
     its rays (<= num_rays), env e's window starting at (frame x rays_per_frame + phase_e) mod
     num_rays and wrapping around, `frame` being wr_render_args.frame; the output per env is
     rays_per_frame values. phase_e: 0 (WR_SCAN_PHASE_ZERO: every env in step) or a hash of
     (scan_seed, e) (WR_SCAN_PHASE_HASHED: the same for every num_envs). Nothing is kept per env. */
  uint32_t rays_per_frame;
  wr_scan_phase scan_phase;
  uint64_t scan_seed;
  /* Several frames per env on one pattern (mjlab's per-foot scans): num_frames (0 and 1: one; at
     most WR_MAX_PATTERN_FRAMES) frames, frame f on the body whose pose lies frame_pose_offsets[f]
     floats into the env's record (NULL: 7 f, poses packed (num_envs x num_frames x 7); with
     rigid-body states (N x B x 13), 13 b for body b, and pose_stride 13 B) and mounted by
     frame_mounts[f] (num_frames x 7, position and quaternion in quat_order; NULL: mount_* for
     every frame). The output per env is (num_frames x rays) values, row f frame f's; a render's
     pose_stride (0: the largest offset + 7) must hold every frame's pose, and args->mounts is
     refused (the mounts are the frames'). Both arrays are read during wr_sensor_create_pattern. */
  uint32_t num_frames;
  const uint32_t* frame_pose_offsets; /* with num_frames >= 2 only (else refused) */
  const float* frame_mounts;          /* with num_frames >= 2 only (else refused) */
  wr_hit_frame hit_frame;             /* of wr_render_args.hit_points and hit_normals: WR_HIT_FRAME_PATTERN
                                         (WR_HIT_FRAME_SENSOR) is the pattern's aligned frame, the one its
                                         starts are in, at the sensor's position (the sensor's own axes with
                                         WR_ALIGN_BASE, its heading with WR_ALIGN_YAW, the world's axes with
                                         WR_ALIGN_WORLD) (0.5) */
} wr_ray_sensor_desc;

/* The most frames a pattern sensor has per env. */
#define WR_MAX_PATTERN_FRAMES 8

/* Zeroes desc, sets struct_size, max_distance +inf and miss_value +inf. NULL does nothing. */
WR_API void wr_ray_sensor_desc_init(wr_ray_sensor_desc* desc);

/* Creates a sensor of num_envs envs tracing `pattern` (copied: the pattern may be released
   afterwards) with `desc` and the pipeline's options (NULL: all off). Its output per env is
   (num_frames x rays) values: rays = num_rays, or rays_per_frame for a scanning sensor; one row
   without frames (wr_sensor_output_shape: width rays, height num_frames or 1); render it with
   wr_sensor_render or wr_sensor_render_ex, as a camera (args->mounts: per-env mounts;
   args->intrinsics must be NULL). Options that make an image of the camera's (crop, out size,
   resampling, edge dropout) are refused; so is noise on WR_RAY_HEIGHT. The pattern is the
   sensor's ray template (WR_MEMORY_RAY_TEMPLATE, 32 bytes a ray), shared by every env.
   wr_sensor_desc reports a camera desc of rays x num_frames (or x 1) with the sensor's mount,
   distances and miss value. Heights refuse noise and WR_DTYPE_UINT16_MM (millimetres of depth
   read 0 and below as no return).
   Besides the value, a render reports each ray's hit where wr_render_args asks (a sensor without
   history only): instance_ids, triangle_ids, hit_points, hit_normals. */
WR_API wr_status wr_sensor_create_pattern(wr_scene scene, wr_pattern pattern, const wr_ray_sensor_desc* desc,
                                          const wr_sensor_options* options, uint32_t num_envs, wr_sensor* out);

/* The world rays a sensor traces for env `env` in frame `frame` (the two matter only to a scanning
   sensor's window), whose body pose is body_pose (7 floats, position and quaternion in the desc's
   quat_order) and whose mount is `mount` (7 floats, or NULL: the desc's): starts and directions
   (out_height x out_width x 3 each, wr_sensor_output_shape's), the same bits its render traces
   (feed them to wr_scene_intersect_ex to get its hits). A pattern sensor's: one row of width rays
   (num_rays, or rays_per_frame); one of several frames reads body_pose as the env's record (each
   frame's pose at its offset), takes no mount, and writes (num_frames x width x 3). A camera's
   (0.7): each output pixel's ray (the crop's camera pixels), every start the camera's position,
   each direction a unit vector, the desc's intrinsics; its render traces t in
   [near_clip / s, far_clip / s], s the pixel's depth factor (the direction's +X in the camera frame
   for WR_DEPTH_PLANE, 1 for WR_DEPTH_RANGE); refused for an output that resamples or drops edges.
   WR_ERROR_INVALID_ARGUMENT for a bad pose or mount, or an env out of range. */
WR_API wr_status wr_sensor_world_rays(wr_sensor sensor, const float* body_pose, const float* mount, uint32_t env,
                                      uint64_t frame, float* starts, float* directions);

#ifdef __cplusplus
}
#endif
#endif /* WR_WR_PATTERNS_H */
