/* warp-raycaster C API, memory accounting: the bytes scenes and sensors hold, by kind. Part of wr.h, which includes
 * this file at its end (include wr.h, not this file): the types it builds on (wr_scene, wr_sensor, WR_API, ...) are
 * wr.h's, and so are its conventions (sized structs, errors, streams). */
#ifndef WR_WR_MEMORY_H
#define WR_WR_MEMORY_H

#include "wr/wr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Memory accounting ----------------------------------------------------- */

/* Bytes an object holds, as recorded by the library's one allocator (every host and
   device allocation goes through it, tagged). Caller-owned buffers (poses, depth) are
   never counted. */
typedef struct wr_memory_stats {
  uint64_t host_bytes;    /* host memory the object holds now */
  uint64_t device_bytes;  /* device memory the object holds now */
  uint64_t shared_bytes;  /* the part that does not grow with num_envs (BVH, triangles, template) */
  uint64_t per_env_bytes; /* what each env adds inside the library (caller-owned poses/outputs excluded) */
} wr_memory_stats;

/* A scene's own memory: BVH nodes, triangles in leaf order, parent links (or a grid's samples
   and pyramid), the object itself; on a CUDA context both the host copy and the device copy. */
WR_API wr_status wr_scene_memory(wr_scene scene, wr_memory_stats* out);

/* A sensor's own memory, its scene's excluded: the ray template (host, and device on a
   CUDA context), counters and the object itself. */
WR_API wr_status wr_sensor_memory(wr_sensor sensor, wr_memory_stats* out);

/* What the bytes of wr_memory_stats are, one kind of allocation at a time. */
typedef enum wr_memory_tag {
  WR_MEMORY_OBJECTS = 0,         /* the handle and object structs themselves */
  WR_MEMORY_BVH_NODES = 1,       /* BVH nodes, 32 bytes each */
  WR_MEMORY_BVH_TRIANGLES = 2,   /* triangles, as leaf blocks: 12 bytes per distinct corner of a
                                    leaf and 8 per triangle (corner indices, id) */
  WR_MEMORY_BVH_PARENTS = 3,     /* a parent index per node (exact stack-overflow fallback) */
  WR_MEMORY_RAY_TEMPLATE = 4,    /* a direction per pixel, shared by every env */
  WR_MEMORY_COUNTERS = 5,        /* small device counters */
  WR_MEMORY_BUILD_SCRATCH = 6,   /* BVH build working arrays: 0 once the scene exists */
  WR_MEMORY_HISTORY = 7,         /* per env: the pipeline's history ring (history_length frames of the
                                    output) and its frame count (4 bytes) */
  WR_MEMORY_CAMERA_IMAGES = 8,   /* per env, CUDA: the crop's samples (4 bytes a pixel) a resampled or
                                    edge-dropout output is made from, and with edge dropout the clean
                                    depth of the crop and one pixel around it */
  WR_MEMORY_RENDER_SCRATCH = 9,  /* shared, CPU: the same per render thread instead of per env, and on an
                                    instanced scene each thread's place for an env's posed instances */
  WR_MEMORY_INSTANCE_TABLE = 10, /* shared: an instanced scene's table: on the host 32 bytes per prototype
                                    (its BVH's view and its handle) and 8 per instance; on a CUDA
                                    context's device 24 per prototype and 8 per instance */
  WR_MEMORY_GRID_SAMPLES = 11,   /* a grid terrain's vertices: a height field's sample z (4 bytes each)
                                    and column x and row y; a grid mesh's vertex z and flags (64 bytes
                                    per 14 vertices), row x and column y, 8 bytes per vertex off them
                                    (moved to make walls), where rows and columns of cells reach (16
                                    bytes per row and column) and a bit per triangle where some have
                                    zero area */
  WR_MEMORY_GRID_PYRAMID = 12,   /* a grid terrain's min-max pyramid above its cells: a height field's
                                    8 bytes per node, a grid mesh's 24 (about a third of the cells) */
  WR_MEMORY_TAG_COUNT = 13
} wr_memory_tag;

/* Static name of a tag, e.g. "bvh_nodes"; "unknown" outside the enum. Never NULL. */
WR_API const char* wr_memory_tag_string(wr_memory_tag tag);

/* Host and device bytes of one tag in a scene's or a sensor's memory (either output may be
   NULL, not both). The tags' bytes add up to wr_scene_memory / wr_sensor_memory. */
WR_API wr_status wr_scene_memory_tag(wr_scene scene, wr_memory_tag tag, uint64_t* out_host_bytes,
                                     uint64_t* out_device_bytes);
WR_API wr_status wr_sensor_memory_tag(wr_sensor sensor, wr_memory_tag tag, uint64_t* out_host_bytes,
                                      uint64_t* out_device_bytes);

#ifdef __cplusplus
}
#endif

#endif /* WR_WR_MEMORY_H */
