/*
 * warp-raycaster public C API (prefix wr_). The only ABI of libwr.
 *
 * Renders depth images for N parallel simulated robots from one shared BVH
 * (one per scene) and one shared camera ray template (one per sensor). Each
 * environment contributes only its body pose (7 floats) and its output image.
 *
 * Conventions
 *  - World frame: right-handed, +Z up, metres.
 *  - Camera frame: +X is the optical axis (forward), +Y left, +Z up.
 *  - Pixel (u, v): u is the column, left to right; v is the row, top to
 *    bottom. The ray of pixel (u, v) passes through the pixel centre:
 *        d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)
 *  - A body pose is 7 floats: position x, y, z, then a quaternion in the
 *    sensor's quat_order (w, x, y, z by default; x, y, z, w for IsaacGym root
 *    states). Quaternions are normalised before use.
 *    camera_in_world = body_in_world * mount, where the mount is the camera's
 *    pose in the body frame (same layout and quaternion order).
 *  - Depth buffer layout: [num_envs][height][width] float32, row-major.
 *  - WR_DEPTH_PLANE reports the distance along the optical axis (the z-depth
 *    of a pinhole camera, REP 118). WR_DEPTH_RANGE reports the Euclidean
 *    distance from the camera origin to the hit. They differ off-axis.
 *  - near_clip / far_clip bound the REPORTED value: a pixel whose nearest
 *    hit reports a value outside [near_clip, far_clip], or that hits nothing,
 *    holds miss_value. Geometry whose reported value would be below near_clip
 *    does not occlude (it is clipped away, as by a near plane).
 *  - Both faces of every triangle are hit. Zero-area triangles are never hit.
 *  - Every float or uint32 array argument must be aligned to 4 bytes (any
 *    array from malloc, cudaMalloc, NumPy or PyTorch is); one that is not fails
 *    with WR_ERROR_INVALID_ARGUMENT naming it. (On a GPU a misaligned load
 *    would be a fault that breaks the whole CUDA context.)
 *
 * Errors and ownership
 *  - Every fallible call returns a wr_status. On failure, wr_last_error()
 *    returns a message naming the argument, file and line, or env index at
 *    fault, and every object is left exactly as it was before the call.
 *  - The library never aborts and never prints.
 *  - Handles are reference counted: a sensor keeps its scene alive, a scene
 *    keeps its context alive, so releasing in any order is safe. Releasing
 *    NULL does nothing.
 *  - Threads: different sensors may render from different threads at once;
 *    one sensor renders from one thread at a time.
 *  - CUDA streams and graphs: wr_sensor_render and wr_scene_intersect on a
 *    CUDA context only enqueue one kernel on the caller's stream; they never
 *    allocate, copy or synchronise, so they may be captured into a CUDA graph
 *    (cudaStreamBeginCapture, any capture mode) and replayed. Every other call
 *    that touches the device is NOT capture-safe: wr_context_create,
 *    wr_scene_create, wr_scene_load_obj and wr_sensor_create (they allocate,
 *    upload and wait for their uploads), the releases (cudaFree) and
 *    wr_sensor_stack_overflows (cudaDeviceSynchronize). Made while any thread
 *    captures in cudaStreamCaptureModeGlobal (the default), they fail with
 *    WR_ERROR_DEVICE and can invalidate that other thread's capture; make them
 *    before capturing or after it ends. Calls that only read the host side
 *    (wr_sensor_desc, the memory queries, wr_scene_bounds, ...) are safe at any
 *    time. On a CPU context nothing is enqueued: render runs to completion.
 */
#ifndef WR_WR_H
#define WR_WR_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define WR_API
#elif defined(WR_BUILDING_LIBRARY)
#define WR_API __attribute__((visibility("default")))
#else
#define WR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ---------------------------------------------------- */

typedef enum wr_status {
  WR_SUCCESS = 0,
  WR_ERROR_INVALID_ARGUMENT = 1, /* null handle/pointer, zero size, index out of range, non-finite value */
  WR_ERROR_IO = 2,               /* file missing or unreadable */
  WR_ERROR_PARSE = 3,            /* file readable but malformed */
  WR_ERROR_OUT_OF_MEMORY = 4,    /* host or device allocation failed */
  WR_ERROR_UNSUPPORTED = 5,      /* e.g. CUDA asked for but not built in, or no CUDA device present */
  WR_ERROR_DEVICE = 6,           /* a CUDA runtime error */
  WR_ERROR_INTERNAL = 7          /* a bug in the library; please report it with the message */
} wr_status;

/* Static string naming a status, e.g. "WR_ERROR_IO"; "WR_STATUS_UNKNOWN" for a
   value outside the enum. Never NULL. */
WR_API const char* wr_status_string(wr_status status);

/* Message of the last failed call on the calling thread: the function, the culprit, and the
   status name, e.g. "wr_scene_create: indices[3] (triangle 1, corner 0) = 9 is out of range:
   num_vertices is 4 [WR_ERROR_INVALID_ARGUMENT]".
   Empty string when no call on this thread has failed yet. Never NULL. The
   pointer stays valid until the next failing call on this thread. */
WR_API const char* wr_last_error(void);

/* ---- Enums ------------------------------------------------------------------ */

typedef enum wr_device { WR_DEVICE_CPU = 0, WR_DEVICE_CUDA = 1 } wr_device;
typedef enum wr_depth_kind { WR_DEPTH_PLANE = 0, WR_DEPTH_RANGE = 1 } wr_depth_kind;
typedef enum wr_quat_order { WR_QUAT_WXYZ = 0, WR_QUAT_XYZW = 1 } wr_quat_order;

/* ---- Handles ------------------------------------------------------------------ */

typedef struct wr_context_* wr_context; /* a device (CPU thread pool or one CUDA GPU) and its allocator */
typedef struct wr_scene_* wr_scene;     /* an immutable triangle mesh and its BVH, shared by every sensor and env */
typedef struct wr_sensor_* wr_sensor;   /* a camera model and its shared ray template, for num_envs envs */

/* ---- Context ------------------------------------------------------------------ */

/* Creates a context on `device`. ordinal: CUDA device index; ignored for the
   CPU. A CPU context runs a thread pool with one thread per hardware thread.
   WR_ERROR_UNSUPPORTED when CUDA is asked for and the library was built
   without it, or no usable CUDA device or driver is present (the message
   says which, and the minimum driver this build needs). Calls on a CUDA
   context make its device's primary context the calling thread's current one
   while they run and put back exactly what was current before returning
   (nothing, on a thread that had no current context). */
WR_API wr_status wr_context_create(wr_device device, int ordinal, wr_context* out);

/* Creates a CPU context whose thread pool has num_threads threads (the calling
   thread counts as one); 0 means one per hardware thread; at most 4096. Depth images are
   bit-identical whatever the thread count. */
WR_API wr_status wr_context_create_cpu(uint32_t num_threads, wr_context* out);

/* Number of threads a context renders with (1 for a CUDA context's host
   side). */
WR_API wr_status wr_context_num_threads(wr_context context, uint32_t* out);

/* How a CPU context's sensors trace their rays. Every path gives bit-identical
   depth; they differ only in speed. (wr_scene_intersect traces one ray at a
   time whatever the path.) */
typedef enum wr_cpu_path {
  WR_CPU_PATH_AUTO = 0,   /* the fastest path this CPU runs (the default) */
  WR_CPU_PATH_SCALAR = 1, /* one ray at a time: the traversal the CUDA kernel runs, any CPU */
  WR_CPU_PATH_AVX2 = 2,   /* 4x4 pixel packets sharing the camera's origin, AVX2 */
  WR_CPU_PATH_AVX512 = 3  /* the same packets, AVX-512 (x86-64-v4: F, VL, DQ, BW) */
} wr_cpu_path;

/* Chooses the path of a CPU context. WR_ERROR_UNSUPPORTED when this CPU (or a
   build for another architecture) cannot run it; WR_ERROR_INVALID_ARGUMENT for
   a CUDA context or a value outside wr_cpu_path. Renders already running on
   the context finish with the path they started with. */
WR_API wr_status wr_context_set_cpu_path(wr_context context, wr_cpu_path path);

/* The path a CPU context's sensors trace with now, WR_CPU_PATH_AUTO resolved
   (never WR_CPU_PATH_AUTO). WR_ERROR_INVALID_ARGUMENT for a CUDA context. */
WR_API wr_status wr_context_cpu_path(wr_context context, wr_cpu_path* out);

/* "auto", "scalar", "avx2" or "avx512"; "unknown" for any other value. */
WR_API const char* wr_cpu_path_string(wr_cpu_path path);

/* Drops the caller's reference. NULL does nothing. */
WR_API void wr_context_release(wr_context context);

/* ---- Scene -------------------------------------------------------------------- */

/* Builds a scene (mesh + BVH) from arrays. The data is copied; the caller keeps
   ownership.
     vertices: (num_vertices x 3) float, x y z in metres, all finite.
     indices:  (num_triangles x 3) uint32, each < num_vertices. Winding does not
               matter: both faces are hit. Zero-area triangles are accepted and
               never hit. At most 2^31 - 1 triangles (refused before the arrays are read).
   WR_ERROR_INVALID_ARGUMENT names the first bad triangle or vertex. */
WR_API wr_status wr_scene_create(wr_context context, const float* vertices, uint64_t num_vertices,
                                 const uint32_t* indices, uint64_t num_triangles, wr_scene* out);

/* Loads a Wavefront OBJ file: every shape merged into one mesh, polygons
   triangulated, normals/texcoords/materials ignored. WR_ERROR_IO names a
   missing or unreadable file; WR_ERROR_PARSE names the file and line of
   malformed content (bad number, non-finite vertex, index out of range). */
WR_API wr_status wr_scene_load_obj(wr_context context, const char* path, wr_scene* out);

/* Number of triangles of a scene (as given, degenerate ones included). */
WR_API wr_status wr_scene_num_triangles(wr_scene scene, uint64_t* out);

/* Seconds the scene's BVH took to build (validation and file parsing excluded). */
WR_API wr_status wr_scene_build_seconds(wr_scene scene, double* out);

/* Axis-aligned bounds of the corners of the scene's triangles (vertices no triangle uses
   are not counted): out_min (3), out_max (3). */
WR_API wr_status wr_scene_bounds(wr_scene scene, float* out_min, float* out_max);

/* Drops the caller's reference. NULL does nothing. */
WR_API void wr_scene_release(wr_scene scene);

/* ---- Sensor ------------------------------------------------------------------- */

typedef struct wr_camera_desc {
  uint32_t width, height;          /* pixels, each >= 1 and below 2^31 */
  float fx, fy, cx, cy;            /* pinhole intrinsics in pixels; fx, fy > 0; cx, cy finite */
  float near_clip, far_clip;       /* metres, 0 <= near_clip < far_clip (far may be +inf) */
  float miss_value;                /* written where nothing valid is hit (any value, +inf and NaN included) */
  wr_depth_kind depth_kind;
  wr_quat_order quat_order;        /* of body poses and of mount_rotation */
  float mount_position[3];         /* camera position in the body frame, metres */
  float mount_rotation[4];         /* camera orientation in the body frame, quaternion in quat_order */
} wr_camera_desc;

/* Fills desc for a pinhole camera with square pixels:
   fx = fy = (width / 2) / tan(hfov / 2), cx = width / 2, cy = height / 2,
   near_clip = 0, far_clip = +infinity, miss_value = +infinity (REP 117: no
   return), WR_DEPTH_PLANE, WR_QUAT_WXYZ, identity mount. A NULL desc does
   nothing. */
WR_API void wr_camera_desc_pinhole(wr_camera_desc* desc, uint32_t width, uint32_t height, float hfov_degrees);

/* Creates a sensor of num_envs (>= 1) cameras that share `desc` and the
   scene; num_envs x height x width must be below 2^32 (WR_ERROR_INVALID_ARGUMENT
   names the three otherwise, before anything is allocated). Builds the ray template (height x width directions, shared by every
   env) and allocates everything render will ever need: render never
   allocates. On a CUDA context it also launches the kernel once over no pixel,
   so that the driver's one-time first-launch work (loading the kernel, sizing
   local memory) is done here and not in the first render. The sensor keeps
   the scene alive. */
WR_API wr_status wr_sensor_create(wr_scene scene, const wr_camera_desc* desc, uint32_t num_envs, wr_sensor* out);

/* Renders every env.
     body_poses: (num_envs x 7) float, see Conventions.
     depth_out:  (num_envs x height x width) float, written whole.
   On a CPU context both are host pointers and the call returns when the work
   is done; stream is ignored. On a CUDA context both are device pointers and
   the work is enqueued on stream (a cudaStream_t, NULL = default stream); it
   may return before the work is done. A non-finite pose (or a zero
   quaternion) fails with WR_ERROR_INVALID_ARGUMENT naming the env where the
   check is free (host data), writing nothing; on the device that env's image
   is filled with NaN instead. Capture-safe on a CUDA context (see CUDA streams
   and graphs above). */
WR_API wr_status wr_sensor_render(wr_sensor sensor, const float* body_poses, float* depth_out, void* stream);

/* The sensor's camera description (as given to wr_sensor_create) and env count.
   Either output may be NULL (not both). */
WR_API wr_status wr_sensor_desc(wr_sensor sensor, wr_camera_desc* out_desc, uint32_t* out_num_envs);

/* How many rays of this sensor, since creation, overflowed the fixed
   traversal stack. Such rays are finished by a slower stackless walk and
   are still exact; a non-zero count only means the BVH is unusually deep.
   On a CUDA context this synchronises with the device to read the counter, so
   it must not be called while a stream capture is under way (see above). */
WR_API wr_status wr_sensor_stack_overflows(wr_sensor sensor, uint64_t* out);

/* Drops the caller's reference. NULL does nothing. */
WR_API void wr_sensor_release(wr_sensor sensor);

/* ---- Memory accounting ----------------------------------------------------- */

/* Bytes an object holds, as recorded by the library's one allocator (every host and
   device allocation goes through it, tagged). Caller-owned buffers (poses, depth) are
   never counted. */
typedef struct wr_memory_stats {
  uint64_t host_bytes;     /* host memory the object holds now */
  uint64_t device_bytes;   /* device memory the object holds now */
  uint64_t shared_bytes;   /* the part that does not grow with num_envs (BVH, triangles, template) */
  uint64_t per_env_bytes;  /* what each env adds inside the library (caller-owned poses/outputs excluded) */
} wr_memory_stats;

/* A scene's own memory: BVH nodes, triangles in leaf order, parent links, the object
   itself; on a CUDA context both the host copy and the device copy. */
WR_API wr_status wr_scene_memory(wr_scene scene, wr_memory_stats* out);

/* A sensor's own memory, its scene's excluded: the ray template (host, and device on a
   CUDA context), counters and the object itself. */
WR_API wr_status wr_sensor_memory(wr_sensor sensor, wr_memory_stats* out);

/* What the bytes of wr_memory_stats are, one kind of allocation at a time. */
typedef enum wr_memory_tag {
  WR_MEMORY_OBJECTS = 0,        /* the handle and object structs themselves */
  WR_MEMORY_BVH_NODES = 1,      /* BVH nodes, 32 bytes each */
  WR_MEMORY_BVH_TRIANGLES = 2,  /* triangles, as leaf blocks: 12 bytes per distinct corner of a
                                   leaf and 8 per triangle (corner indices, id) */
  WR_MEMORY_BVH_PARENTS = 3,    /* a parent index per node (exact stack-overflow fallback) */
  WR_MEMORY_RAY_TEMPLATE = 4,   /* a direction per pixel, shared by every env */
  WR_MEMORY_COUNTERS = 5,       /* small device counters */
  WR_MEMORY_BUILD_SCRATCH = 6,  /* BVH build working arrays: 0 once the scene exists */
  WR_MEMORY_TAG_COUNT = 7
} wr_memory_tag;

/* Static name of a tag, e.g. "bvh_nodes"; "unknown" outside the enum. Never NULL. */
WR_API const char* wr_memory_tag_string(wr_memory_tag tag);

/* Host and device bytes of one tag in a scene's or a sensor's memory (either output may be
   NULL, not both). The tags' bytes add up to wr_scene_memory / wr_sensor_memory. */
WR_API wr_status wr_scene_memory_tag(wr_scene scene, wr_memory_tag tag, uint64_t* out_host_bytes,
                                     uint64_t* out_device_bytes);
WR_API wr_status wr_sensor_memory_tag(wr_sensor sensor, wr_memory_tag tag, uint64_t* out_host_bytes,
                                      uint64_t* out_device_bytes);

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

#ifdef __cplusplus
}
#endif
#endif /* WR_WR_H */
