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
 *  - One sensor's renders on a CUDA context must not overlap on the device:
 *    enqueue them on one stream (or order the streams with events). A render
 *    writes the sensor's own state (the pipeline's history rings and images),
 *    so two renders of one sensor running at once on two streams race, and the
 *    library cannot tell without a synchronising query, which render never
 *    makes. Different sensors may render on different streams at once.
 *  - CUDA streams and graphs: wr_sensor_render, wr_sensor_render_ex and
 *    wr_scene_intersect on a CUDA context only enqueue their kernels (one to
 *    four, by the options in use) on the caller's stream; they never
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

#include "wr/wr_version.h" /* WR_VERSION_MAJOR, _MINOR, _PATCH, WR_VERSION_STRING: this header's */

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

/* ---- Version ---------------------------------------------------------------
   Semantic versioning: a program built against one version runs with a libwr of the same major
   version and a minor version at least its own. Before 1.0 the minor version counts as the
   major one (0.2 changed wr_camera_desc: it now starts with struct_size; 0.3 added the terrain
   kinds: wr_heightfield_desc.terrain, wr_scene_create_grid_mesh, the grid's memory tags, so
   WR_MEMORY_TAG_COUNT grew from 11 to 13; 0.4 the ray patterns, wr_patterns.h; 0.5 a pattern
   sensor's hit details: wr_render_args.triangle_ids, hit_points, hit_normals and
   wr_ray_sensor_desc.hit_frame; 0.6 poses from rotation matrices, wr_poses.h's wr_gather_poses;
   0.7 a camera's hit details, wr_camera_desc.hit_frame, and wr_sensor_world_rays for cameras).
   CHANGELOG.md has every version.
   Structs that may grow start with struct_size (set by the function that fills them): fields
   past a caller's struct_size count as 0, so a new option arrives as a field of a struct, not
   as a new function. */

/* One number for a version, to compare with < and >=: major x 10^6 + minor x 10^3 + patch. */
#define WR_MAKE_VERSION(major, minor, patch) ((uint32_t)(major)*1000000u + (uint32_t)(minor)*1000u + (uint32_t)(patch))
/* The version of this header (and of the libwr it came with). */
#define WR_VERSION WR_MAKE_VERSION(WR_VERSION_MAJOR, WR_VERSION_MINOR, WR_VERSION_PATCH)

/* The version of the libwr loaded at run time, as WR_MAKE_VERSION makes it; a program can
   compare it with WR_VERSION, the header's, e.g. refuse a library older than its header. */
WR_API uint32_t wr_version(void);

/* The same as a static string, "major.minor.patch" (WR_VERSION_STRING of the library's
   build). Never NULL. */
WR_API const char* wr_version_string(void);

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
typedef struct wr_scene_*
    wr_scene; /* an immutable triangle mesh (as a BVH or a grid), shared by every sensor and env */
typedef struct wr_sensor_* wr_sensor; /* a camera model and its shared ray template, for num_envs envs */

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

/* A height field: a grid of samples, triangulated as MuJoCo triangulates its hfield (so depth
   matches mj_ray and MuJoCo's collisions), optionally closed into a solid as MuJoCo's is.
   Sample (ix, iy), 0 <= ix < num_x, 0 <= iy < num_y, is the vertex
       (origin[0] + ix spacing_x,  origin[1] + iy spacing_y,  origin[2] + z_scale heights[k])
   with k = iy num_x + ix (WR_HEIGHTFIELD_X_FASTEST: MuJoCo's hfield_data, row r = iy, column
   c = ix) or k = ix num_y + iy (WR_HEIGHTFIELD_Y_FASTEST: IsaacGym / legged_gym's
   height_field_raw[i, j] at x = i horizontal_scale, y = j horizontal_scale, after
   astype(float32); z_scale = vertical_scale). Cell (ix, iy) is split along the diagonal from
   sample (ix, iy) to (ix + 1, iy + 1): triangle 2c + 0 is (ix, iy), (ix + 1, iy + 1), (ix + 1, iy)
   and 2c + 1 is (ix, iy), (ix + 1, iy + 1), (ix, iy + 1), with c = iy (num_x - 1) + ix (the
   triangle ids of wr_scene_intersect). legged_gym's convert_heightfield_to_trimesh splits
   along the same diagonal; with a slope_threshold it also moves vertices to make vertical
   walls, which a height field cannot say: pass its vertices and triangles to
   wr_scene_create_grid_mesh (traced through their grid) or wr_scene_create instead.
   base_depth > 0 closes the surface into a solid down to z = origin[2] - base_depth (a solid
   where every sample lies above that, as MuJoCo's samples in [0, 1] do): a vertical wall under
   each border edge and a bottom of two triangles (ids after the surface's; MuJoCo:
   origin = (-size[0], -size[1], 0) in the geom's frame, spacing 2 size[0] / (ncol - 1) and
   2 size[1] / (nrow - 1), z_scale = size[2], base_depth = size[3]).
   terrain: how the scene holds and traces the triangles (wr_terrain_kind, below). */
typedef enum wr_heightfield_layout {
  WR_HEIGHTFIELD_X_FASTEST = 0, /* heights[iy num_x + ix] */
  WR_HEIGHTFIELD_Y_FASTEST = 1  /* heights[ix num_y + iy] */
} wr_heightfield_layout;

/* How a scene holds its triangles and traces them. Every kind gives the same hits, bit for bit
   (t, triangle id, instance id: the kinds are tested against each other ray by ray), on every
   backend; they differ in memory and speed (benchmarks/results/grid-terrain-*.md).
     WR_TERRAIN_BVH   a bounding volume hierarchy over the triangles: any mesh; about 69 bytes per
                      height-field sample. The CPU traces cameras through it in SIMD packets.
     WR_TERRAIN_GRID  the grid itself, traced through a min-max pyramid over its cells (Tevs, Ihrke,
                      Seidel 2008): a height field in under 7 bytes per sample (a base's walls and
                      bottom in a small BVH of their own), a grid-topology mesh in under 21;
                      vertical rays (height scans) look their cell up directly, several times faster
                      than the BVH; on the CPU camera rays go in SIMD packets too (a height field's
                      about as fast as the BVH's, a grid mesh's and LiDAR rows slower:
                      benchmarks/results/grid-scenes-*.md; on the scalar path, a CPU without AVX2,
                      a height field's ray by ray faster than the BVH's: grid-ray-walk-*.md), on a
                      GPU one by one (several times slower than the BVH's,
                      benchmarks/results/gpu-*.md). On CUDA its kernels, as the BVH's, keep within
                      CUDA's default stack per thread (a test checks every kernel's frame when it
                      compiles), so the driver reserves no more for them than for any kernel. A
                      field whose columns or rows float cannot tell apart (an origin far from 0
                      against a small spacing) or with more than 2^23 cells along a side has no
                      grid.
     WR_TERRAIN_AUTO  (0, the default) the BVH today: the grid's camera and LiDAR rays are
                      slower on a GPU, and on the CPU no faster. Choose WR_TERRAIN_GRID where
                      memory or height scans matter most. */
typedef enum wr_terrain_kind { WR_TERRAIN_AUTO = 0, WR_TERRAIN_BVH = 1, WR_TERRAIN_GRID = 2 } wr_terrain_kind;

typedef struct wr_heightfield_desc {
  uint32_t struct_size;  /* sizeof(wr_heightfield_desc) */
  const float* heights;  /* (num_x x num_y) samples, all finite, in `layout` */
  uint32_t num_x, num_y; /* samples along x and y, each >= 2 */
  wr_heightfield_layout layout;
  float spacing_x, spacing_y; /* metres between samples, finite and > 0 */
  float z_scale;              /* metres per height unit, finite */
  float origin[3];            /* the position of sample (0, 0) at height 0, finite */
  float base_depth;           /* 0: the surface only; > 0 (finite): the solid down to origin[2] - base_depth */
  wr_terrain_kind terrain;    /* WR_TERRAIN_AUTO (0, the BVH today) or WR_TERRAIN_BVH, WR_TERRAIN_GRID */
} wr_heightfield_desc;

/* Sets struct_size, spacing 1, z_scale 1, everything else 0 (terrain WR_TERRAIN_AUTO). A NULL
   desc does nothing. */
WR_API void wr_heightfield_desc_init(wr_heightfield_desc* desc);

/* A scene from a height field (above); the heights are copied. WR_ERROR_INVALID_ARGUMENT names
   the field at fault ("desc->num_x ...") or the first non-finite sample with its (ix, iy). At
   most 2^31 - 1 triangles (2 (num_x - 1)(num_y - 1), and with a base 4 (num_x + num_y - 2) + 2
   more). */
WR_API wr_status wr_scene_create_heightfield(wr_context context, const wr_heightfield_desc* desc, wr_scene* out);

/* A scene from a grid-topology mesh, traced through its grid (WR_TERRAIN_GRID): the vertices and
   triangles legged_gym's and IsaacLab's convert_heightfield_to_trimesh return, unchanged, slope
   threshold or not (the vertices it moves to make vertical walls are taken as they are):
     vertices: (rows x cols x 3) float, vertex (r, c) at r cols + c (legged_gym: r along x,
               c along y);
     indices:  2 (rows - 1)(cols - 1) triangles, cell (r, c)'s two at 2 (r (cols - 1) + c):
               (v(r, c), v(r + 1, c + 1), v(r, c + 1)) and (v(r, c), v(r + 1, c), v(r + 1, c + 1)).
   The same checks as wr_scene_create, then WR_ERROR_INVALID_ARGUMENT naming the first triangle
   out of that layout (wr_scene_create takes any mesh, as a BVH). Hits, ids and bounds are those
   of wr_scene_create on the same arrays, bit for bit, in about an eighth of its memory where few
   vertices are moved (legged_gym's terrains). */
WR_API wr_status wr_scene_create_grid_mesh(wr_context context, const float* vertices, uint64_t num_vertices,
                                           const uint32_t* indices, uint64_t num_triangles, wr_scene* out);

/* The kind of a scene's terrain (an instanced scene's: its terrain's), never WR_TERRAIN_AUTO:
   what WR_TERRAIN_AUTO chose. */
WR_API wr_status wr_scene_terrain_kind(wr_scene scene, wr_terrain_kind* out);

/* "auto", "bvh" or "grid"; "unknown" for any other value. */
WR_API const char* wr_terrain_kind_string(wr_terrain_kind kind);

/* Number of triangles of a scene (as given, degenerate ones included). */
WR_API wr_status wr_scene_num_triangles(wr_scene scene, uint64_t* out);

/* Seconds the scene's BVH or grid took to build (validation and file parsing excluded). */
WR_API wr_status wr_scene_build_seconds(wr_scene scene, double* out);

/* Axis-aligned bounds of the corners of the scene's triangles (vertices no triangle uses
   are not counted): out_min (3), out_max (3). */
WR_API wr_status wr_scene_bounds(wr_scene scene, float* out_min, float* out_max);

/* Drops the caller's reference. NULL does nothing. */
WR_API void wr_scene_release(wr_scene scene);

/* ---- Moving geometry: instances over the terrain ---------------------------------
   An instanced scene is a terrain (a mesh scene, static) and prototype meshes (mesh scenes, each
   in its own frame with its BVH built once), shared by every env, and a table of instances: each
   env has num_slots instances (slot i of every env is a copy of the same prototype, posed per env
   at every render: a robot's links), and every env sees the num_globals global instances (posed
   once per render: shared moving obstacles). Env e sees the terrain, its own slots and the
   globals, never another env's slots. Each instance has a group (0-31) that a camera may exclude
   (wr_sensor_options.exclude_groups). Instance ids: env slots 0 .. num_slots - 1, then the
   globals num_slots ...
   The nearest hit wins; on a tie the terrain, then the lowest instance id, then the lowest
   triangle id (on every backend, CPU path and thread count). Per env the library holds nothing
   for the instances: their poses are the caller's. Render with wr_sensor_render_ex and
   args->instance_poses / global_poses; explicit rays with wr_scene_intersect_ex. */
typedef struct wr_instanced_scene_desc {
  uint32_t struct_size;       /* sizeof(wr_instanced_scene_desc) */
  wr_scene terrain;           /* the static geometry: a mesh scene of the same context, of any terrain kind */
  const wr_scene* prototypes; /* (num_prototypes) mesh scenes of the same context, each a BVH (WR_TERRAIN_BVH) */
  uint32_t num_prototypes;
  const uint32_t* slot_prototypes;   /* (num_slots) the prototype of each env's slot */
  const uint32_t* slot_groups;       /* (num_slots) each slot's group, < 32; or NULL: all 0 */
  uint32_t num_slots;                /* instances per env */
  const uint32_t* global_prototypes; /* (num_globals) the prototype of each global instance */
  const uint32_t* global_groups;     /* (num_globals) their groups; or NULL: all 0 */
  uint32_t num_globals;              /* num_slots + num_globals at most 65536 */
} wr_instanced_scene_desc;

/* Zeroes desc and sets struct_size. A NULL desc does nothing. */
WR_API void wr_instanced_scene_desc_init(wr_instanced_scene_desc* desc);

/* Creates an instanced scene; it keeps the terrain and the prototypes alive (release yours when you
   like). The tables are copied. WR_ERROR_INVALID_ARGUMENT names the field at fault
   ("desc->slot_prototypes[3] ..."): a NULL or instanced terrain or prototype, one of another
   context, a prototype that is a grid (prototypes are traced in their own frame through their
   BVH), a prototype index or group out of range. wr_scene_num_triangles, _bounds and
   _build_seconds of it report its terrain's; wr_scene_memory its own table (the terrain's and the
   prototypes' bytes are theirs). wr_sensor_render and wr_scene_intersect on a scene with
   instances fail naming the calls that take their poses. */
WR_API wr_status wr_scene_create_instanced(wr_context context, const wr_instanced_scene_desc* desc, wr_scene* out);

/* An instanced scene's instance counts (0 and 0 for a mesh scene). Either output may be NULL. */
WR_API wr_status wr_scene_instance_counts(wr_scene scene, uint32_t* out_num_slots, uint32_t* out_num_globals);

/* ---- Sensor ------------------------------------------------------------------- */

/* The frame of a sensor's hit points and normals (wr_render_args.hit_points, hit_normals): the
   world's, or the sensor's own: a camera's (at the camera, +X forward, +Y left, +Z up: the body
   pose times the mount), a pattern sensor's aligned frame (wr_ray_sensor_desc.hit_frame).
   WR_HIT_FRAME_PATTERN is the same value, the name a pattern sensor had for it (0.5). */
typedef enum wr_hit_frame {
  WR_HIT_FRAME_WORLD = 0,
  WR_HIT_FRAME_SENSOR = 1,
  WR_HIT_FRAME_PATTERN = WR_HIT_FRAME_SENSOR
} wr_hit_frame;

typedef struct wr_camera_desc {
  uint32_t struct_size;      /* sizeof(wr_camera_desc), set by wr_camera_desc_pinhole */
  uint32_t width, height;    /* pixels, each >= 1 and below 2^31 */
  float fx, fy, cx, cy;      /* pinhole intrinsics in pixels; fx, fy > 0; cx, cy finite */
  float near_clip, far_clip; /* metres, 0 <= near_clip < far_clip (far may be +inf) */
  float miss_value;          /* written where nothing valid is hit (any value, +inf and NaN included) */
  wr_depth_kind depth_kind;
  wr_quat_order quat_order; /* of body poses and of mount_rotation */
  float mount_position[3];  /* camera position in the body frame, metres */
  float mount_rotation[4];  /* camera orientation in the body frame, quaternion in quat_order;
                               all four 0: the identity, whatever the quat_order */
  wr_hit_frame hit_frame;   /* of wr_render_args.hit_points and hit_normals: WR_HIT_FRAME_WORLD (0) or
                               WR_HIT_FRAME_SENSOR, the camera's frame (0.7) */
} wr_camera_desc;

/* Fills desc for a pinhole camera with square pixels:
   fx = fy = (width / 2) / tan(hfov / 2), cx = width / 2, cy = height / 2,
   near_clip = 0, far_clip = +infinity, miss_value = +infinity (REP 117: no
   return), WR_DEPTH_PLANE, WR_QUAT_WXYZ, identity mount (mount_rotation all
   0, so that setting quat_order to WR_QUAT_XYZW afterwards, as IsaacGym users
   do, still gives an upright camera), and struct_size: start every desc here (a desc
   filled by hand sets struct_size = sizeof(wr_camera_desc) itself; fields past a
   caller's struct_size count as 0). WR_ERROR_INVALID_ARGUMENT, desc untouched,
   for a NULL desc, a zero width or height, or hfov_degrees outside [1, 180)
   (a value below 1 is most likely radians). */
WR_API wr_status wr_camera_desc_pinhole(wr_camera_desc* desc, uint32_t width, uint32_t height, float hfov_degrees);

/* Sets desc's mount rotation from angles in degrees, written as a quaternion in desc->quat_order
   (set the order first): rotation = Rz(yaw) * Ry(pitch) * Rx(roll), so the optical axis is
   pitched by pitch_deg about the body's +Y (positive looks down, as extreme-parkour's camera
   angle and IsaacGym's Quat.from_euler_zyx(0, pitch, 0)) and then turned by yaw_deg about the
   body's +Z (positive looks left), and roll_deg turns the camera about its own optical axis
   (right-handed: positive takes the camera's +Y, its left, towards its +Z, up).
   WR_ERROR_INVALID_ARGUMENT, desc untouched, for a NULL desc or a non-finite angle. */
WR_API wr_status wr_camera_desc_set_mount_angles(wr_camera_desc* desc, float pitch_deg, float yaw_deg, float roll_deg);

/* Creates a sensor of num_envs (>= 1) cameras that share `desc` and the
   scene; num_envs x height x width must be below 2^32 (WR_ERROR_INVALID_ARGUMENT
   names the three otherwise, before anything is allocated). Builds the ray template
   (height x width directions, shared by every env) and allocates everything render
   will ever need: render never allocates. On a CUDA context it also launches every
   kernel its renders can use once over no pixel, so that the driver's one-time
   first-launch work (loading the kernel, sizing local memory) is done here and not in
   the first render. The sensor keeps the scene alive. */
WR_API wr_status wr_sensor_create(wr_scene scene, const wr_camera_desc* desc, uint32_t num_envs, wr_sensor* out);

/* Renders every env: wr_sensor_render_ex with only body_poses and depth_out set (and
   stream), so the two give the same bytes.
     body_poses: (num_envs x 7) float, see Conventions.
     depth_out:  (num_envs x height x width) float, written whole (a sensor made with
                 options: its output, wr_sensor_output_shape).
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
   Either output may be NULL (not both). out_desc->struct_size says how much the
   caller's struct holds (set it to sizeof(wr_camera_desc), or pass a desc that
   wr_camera_desc_pinhole filled): the fields that fit are written, struct_size kept. */
WR_API wr_status wr_sensor_desc(wr_sensor sensor, wr_camera_desc* out_desc, uint32_t* out_num_envs);

/* How many rays of this sensor, since creation, overflowed the fixed
   traversal stack. Such rays are finished by a slower stackless walk and
   are still exact; a non-zero count only means the BVH is unusually deep.
   On a CUDA context this synchronises with the device to read the counter, so
   it must not be called while a stream capture is under way (see above). */
WR_API wr_status wr_sensor_stack_overflows(wr_sensor sensor, uint64_t* out);

/* Drops the caller's reference. NULL does nothing. */
WR_API void wr_sensor_release(wr_sensor sensor);

/* ---- The RL depth pipeline: randomised cameras, policy-ready output, noise, latency ----------
   Every stage is opt-in and its zero-initialised fields mean "off": a sensor made with all
   options off renders exactly what wr_sensor_render renders. Per env the library holds only what
   the options imply (a history ring, and on a CUDA context with resampling or edge dropout the
   camera-resolution image of each env); wr_sensor_memory reports it as per_env_bytes. The
   structs carry their size (struct_size, set by the _init functions) so that they can grow:
   fields past a caller's struct_size count as 0.

   What one pixel goes through, in order:
     1. its ray from the shared template and the env's camera: body pose (pose_stride and
        pose_offset read simulator state in place) x mount (the desc's, or the env's own), the
        desc's intrinsics or the env's own; the trace; the depth kind and the desc's near/far
        (nearer geometry does not occlude, nothing in range: no return);
     2. noise (wr_noise_desc, in the order listed there), keyed by (seed, env, frame, pixel)
        through Philox4x32-10: the same bits on every backend, thread count and CPU path;
     3. the output stage (wr_sensor_options): crop, invalid pixels (the miss value, or REP 117's
        sentinels), clip, resampling (area or bicubic, as torch's interpolate), normalisation,
        clamp, dtype;
     4. the env's history: with history_length T, the frame goes into the env's ring of T frames,
        and the output holds the frame latency[env] renders (of that env) ago. */

typedef enum wr_resample {
  WR_RESAMPLE_NONE = 0,   /* the crop as it is (out_width, out_height must be 0 or the crop's) */
  WR_RESAMPLE_AREA = 1,   /* box average: torch.nn.functional.interpolate(mode="area") */
  WR_RESAMPLE_BICUBIC = 2 /* interpolate(mode="bicubic", align_corners=False): Keys' cubic, a = -0.75,
                             sample indices clamped at the borders, no antialiasing */
} wr_resample;

typedef enum wr_invalid_mode {
  WR_INVALID_MISS_VALUE = 0, /* every pixel without a valid depth holds desc.miss_value (as wr_sensor_render) */
  WR_INVALID_REP117 = 1      /* REP 117: -inf nearer than noise.min_range, +inf no return, NaN invalid
                                (dropped out); sentinels are neither clipped nor mapped, and resampling
                                propagates them as IEEE arithmetic does (as torch does) */
} wr_invalid_mode;

typedef enum wr_dtype {
  WR_DTYPE_FLOAT32 = 0,
  WR_DTYPE_FLOAT16 = 1,  /* IEEE binary16, rounded to nearest even */
  WR_DTYPE_UINT16_MM = 2 /* REP 118: round(1000 x value) millimetres, 0 where the value is not finite or
                            rounds to <= 0, 65535 at and beyond 65.535 m */
} wr_dtype;

typedef enum wr_bad_pose_mode {
  WR_BAD_POSE_FAIL = 0,   /* the contract of wr_sensor_render: on host data a bad pose (or per-env
                             intrinsics or mount) fails the call naming the env and writes nothing; on
                             device data that env's output is invalid */
  WR_BAD_POSE_ISOLATE = 1 /* on either backend: a bad env's output is invalid (NaN; 0 for
                             WR_DTYPE_UINT16_MM), every other env is rendered, and the bad envs are
                             reported (wr_render_args.bad_env_count, bad_env_mask) */
} wr_bad_pose_mode;

/* Noise models, each off at 0. Applied to a pixel with a return, in this order. */
typedef struct wr_noise_desc {
  uint64_t seed;                  /* Philox key */
  float min_range;                /* metres: a depth below it is invalid (too close: -inf in REP 117) */
  float edge_threshold;           /* metres: a pixel whose clean depth differs from a 4-neighbour's by
                                     more (a neighbour without a return counts as infinitely far) ... */
  float edge_probability;         /* ... is invalid with this probability (stereo fails at depth steps) */
  float dropout_probability;      /* any pixel is invalid with this probability */
  float range_sigma[3];           /* Gaussian, sigma(d) = a + b d + c d^2 metres */
  float disparity_focal_baseline; /* f (pixels) x B (metres): disparity f B / d is quantised ... */
  float disparity_step;           /* ... to multiples of this many pixels (> 0 when the above is set) */
  float env_offset;               /* metres: every pixel of an env's frame moves by one offset, uniform in
                                     [-env_offset, env_offset] per env and frame (extreme-parkour's dis_noise) */
} wr_noise_desc;

typedef struct wr_sensor_options {
  uint32_t struct_size;             /* sizeof(wr_sensor_options) */
  uint32_t crop_x, crop_y;          /* top-left camera pixel of the crop */
  uint32_t crop_width, crop_height; /* 0: to the image's right / bottom edge */
  uint32_t out_width, out_height;   /* the output image; 0: the crop's */
  wr_resample resample;
  wr_invalid_mode invalid_mode;
  uint32_t clip; /* nonzero: finite depths clamped to [clip_min, clip_max] */
  float clip_min, clip_max;
  uint32_t normalize; /* nonzero: value = (value - norm_a) / (norm_b - norm_a) + norm_c */
  float norm_a, norm_b, norm_c;
  uint32_t clamp; /* nonzero: after normalisation, values clamped to [clamp_min, clamp_max] */
  float clamp_min, clamp_max;
  wr_dtype dtype;
  uint32_t history_length; /* frames kept per env (0 and 1: none; latency must then be 0) */
  wr_bad_pose_mode bad_pose_mode;
  wr_noise_desc noise;
  uint32_t exclude_groups; /* instanced scenes: bit g set, this camera does not see instances of
                              group g (a head camera its head link, a terrain-only camera the
                              whole robot) */
} wr_sensor_options;

/* Every option off; struct_size set. A NULL options does nothing. */
WR_API void wr_sensor_options_init(wr_sensor_options* options);

/* As wr_sensor_create, with the pipeline's options (NULL: all off). Every option is checked and
   named on failure ("wr_sensor_create_ex: options->crop_width ..."); the output, like the
   camera, has sides below 2^31 and num_envs x out_height x out_width below 2^32 pixels. Everything render needs is
   allocated here (the history rings, the camera images a resampled output is made from). */
WR_API wr_status wr_sensor_create_ex(wr_scene scene, const wr_camera_desc* desc, const wr_sensor_options* options,
                                     uint32_t num_envs, wr_sensor* out);

/* The shape of one env's output: width, height, dtype, and bytes (width x height x the dtype's
   size). Any output may be NULL. */
WR_API wr_status wr_sensor_output_shape(wr_sensor sensor, uint32_t* out_width, uint32_t* out_height,
                                        wr_dtype* out_dtype, uint64_t* out_bytes_per_env);

typedef struct wr_render_args {
  uint32_t struct_size;       /* sizeof(wr_render_args) */
  const float* body_poses;    /* env e's pose is the 7 floats at body_poses + e x pose_stride + pose_offset */
  uint32_t pose_stride;       /* floats from one env's record to the next; 0: 7. IsaacGym root states
                                 (N x 13, xyzw): 13; rigid-body states (N x B x 13), body b: 13 B */
  uint32_t pose_offset;       /* floats before the pose in an env's record (body b: 13 b); +7 <= stride */
  const float* intrinsics;    /* (num_envs x 4) fx, fy, cx, cy per env, or NULL: the desc's */
  const float* mounts;        /* (num_envs x 7) each env's mount (position, quaternion in quat_order), or
                                 NULL: the desc's */
  uint64_t frame;             /* the frame number of the noise (replaying a frame reproduces it) */
  const uint32_t* latency;    /* (num_envs) frames ago, each < max(history_length, 1); NULL: 0 */
  const uint8_t* update_mask; /* (num_envs) 0: the env is not rendered, its output and history are left
                                 untouched; NULL: every env */
  const uint8_t* reset_mask;  /* (num_envs) nonzero: the env's whole history becomes this frame (an env's
                                 first rendered frame always does); NULL: none */
  void* out;                  /* (num_envs x out_height x out_width) of the dtype */
  uint64_t out_bytes;         /* the size of out: at least num_envs x wr_sensor_output_shape's bytes */
  uint32_t* bad_env_count;    /* set to the number of rendered envs whose pose, mount or intrinsics were
                                 bad (on CUDA a device pointer, written by the stream; on the host only
                                 an isolating sensor gets that far with one); or NULL */
  uint8_t* bad_env_mask;      /* (num_envs) 1 for such an env, 0 for another rendered env (an env the
                                 update mask leaves out keeps its entry); or NULL */
  void* stream;               /* cudaStream_t on a CUDA context */
  /* Instanced scenes (wr_scene_create_instanced): */
  const float* instance_poses; /* (num_envs x num_slots x 7) each env's instances in the world (position,
                                  quaternion in quat_order); needed when the scene has slots */
  const float* global_poses;   /* (num_globals x 7) the global instances; needed when it has any */
  uint32_t* instance_ids;      /* (num_envs x out_height x out_width) the instance each pixel's ray hit
                                  (UINT32_MAX: the terrain or nothing; before noise); or NULL. Only for an
                                  output each of whose pixels is one camera pixel's: no resampling, no
                                  edge dropout, history_length <= 1 */
  /* Each output pixel's hit (a camera's pixel, a pattern sensor's ray: 0.7 for cameras, 0.5 for
     patterns), as its render traced it (the hit of its value, before noise): for an output each of
     whose pixels is one camera pixel's (no resampling, no edge dropout) and history_length <= 1;
     each NULL or an array of the context's memory: */
  uint32_t* triangle_ids; /* (num_envs x out_height x out_width) the triangle hit within its mesh (the
                             terrain's or the instance's prototype's, as wr_scene_intersect_ex's
                             out_triangle), UINT32_MAX for a miss */
  float* hit_points;      /* (num_envs x out_height x out_width x 3) where the ray hit, start + t dir,
                             in the desc's hit_frame; +inf for a miss */
  float* hit_normals;     /* (num_envs x out_height x out_width x 3) the unit normal of the triangle
                             hit (its corners' cross product, the instance's rotation applied), turned
                             to face the ray (dot(normal, dir) <= 0), in the desc's hit_frame; 0 for a
                             miss. A bad env's pixels (isolated) get UINT32_MAX and NaN. */
} wr_render_args;

/* Zeroes args and sets struct_size. A NULL args does nothing. */
WR_API void wr_render_args_init(wr_render_args* args);

/* Renders every env (whose update_mask allows) through the pipeline into args->out. Arrays are host
   memory on a CPU context and device memory on a CUDA context, like the poses. On the host every
   array is checked before anything is written (a bad value names its env); on the device the
   checks that need the data (a pose, intrinsics, mount or latency out of range) make that env's
   output invalid. As wr_sensor_render: allocates nothing, synchronises nothing, capture-safe; a
   captured render replays with the frame number it was captured with (its noise repeats): to vary
   the noise in a graph, update the kernel nodes' parameters or capture one graph per frame phase. */
WR_API wr_status wr_sensor_render_ex(wr_sensor sensor, const wr_render_args* args);

#ifdef __cplusplus
}
#endif

/* The bytes scenes and sensors hold, by kind (part of this API). */
#include "wr/wr_memory.h"
/* Explicit rays through a scene: probes, custom patterns (part of this API). */
#include "wr/wr_intersect.h"
/* Height scanners and LiDARs: ray patterns and the sensors that trace them (part of this API). */
#include "wr/wr_patterns.h"
/* Poses from rotation matrices, on the host or the context's device (part of this API). */
#include "wr/wr_poses.h"

#endif /* WR_WR_H */
