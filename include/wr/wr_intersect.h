/* warp-raycaster C API, explicit rays through a scene. Part of wr.h, which includes this file at its end (include wr.h,
 * not this file): the types it builds on (wr_scene, wr_sensor, WR_API, ...) are wr.h's, and so are its
 * conventions (sized structs, errors, streams). */
#ifndef WR_WR_INTERSECT_H
#define WR_WR_INTERSECT_H

#include "wr/wr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Explicit rays ------------------------------------------------------------- */

/* Nearest hit of each of `count` (>= 1, at most 2^40; on a CUDA context at most 2^31 - 1
   blocks of the kernel's, about 2^38) rays, for height scanners, LiDAR patterns and
   probes.
     origins, directions: (count x 3) float. Directions need not be unit; t is in units
                          of |direction|. Both faces of every triangle are hit.
     tmax:         (count) float, the farthest t to accept (inclusive), or NULL for +inf.
     out_t:        (count) float: t of the nearest hit in [0, tmax], +inf where nothing is hit.
     out_triangle: (count) uint32: index into the scene's input triangles, UINT32_MAX where
                   nothing is hit; or NULL.
   CPU context: host pointers, returns when done; a non-finite origin or direction, a zero
   direction or a negative/NaN tmax fails with WR_ERROR_INVALID_ARGUMENT naming the ray and
   writes nothing. CUDA context: device pointers, enqueued on stream (a cudaStream_t);
   such a ray gets out_t = NaN there. Capture-safe on a CUDA context (Conventions). */
WR_API wr_status wr_scene_intersect(wr_scene scene, const float* origins, const float* directions, const float* tmax,
                                    uint64_t count, float* out_t, uint32_t* out_triangle, void* stream);

/* Explicit rays through an instanced scene (or any scene): as wr_scene_intersect, the rays being
   num_envs consecutive blocks of count / num_envs rays, block e seeing the terrain, env e's slots
   and the global instances (a height scanner that must see the obstacles of its env). */
typedef struct wr_intersect_args {
  uint32_t struct_size;        /* sizeof(wr_intersect_args) */
  const float* origins;        /* (count x 3) */
  const float* directions;     /* (count x 3) */
  const float* tmax;           /* (count), or NULL: +inf */
  uint64_t count;              /* as wr_scene_intersect's; a multiple of num_envs */
  uint32_t num_envs;           /* 0: 1 */
  const float* instance_poses; /* (num_envs x num_slots x 7), needed when the scene has slots */
  const float* global_poses;   /* (num_globals x 7), needed when it has global instances */
  wr_quat_order quat_order;    /* of both */
  uint32_t exclude_groups;     /* bit g set: instances of group g are not seen */
  float* out_t;                /* (count) */
  uint32_t* out_triangle;      /* (count) the triangle id within the mesh hit (the terrain's or the
                                  instance's prototype's), UINT32_MAX for a miss; or NULL */
  uint32_t* out_instance;      /* (count) the instance hit, UINT32_MAX for the terrain or a miss; or NULL */
  void* stream;                /* cudaStream_t on a CUDA context */
} wr_intersect_args;

/* Zeroes args and sets struct_size. A NULL args does nothing. */
WR_API void wr_intersect_args_init(wr_intersect_args* args);

/* On a CPU context a bad ray, or a bad instance pose (not finite, zero quaternion), fails naming it
   ("args->instance_poses of env 2, slot 3 ...") and writes nothing; on a CUDA context the rays of
   an env with a bad pose get out_t = NaN. Capture-safe on a CUDA context. */
WR_API wr_status wr_scene_intersect_ex(wr_scene scene, const wr_intersect_args* args);

#ifdef __cplusplus
}
#endif

#endif /* WR_WR_INTERSECT_H */
