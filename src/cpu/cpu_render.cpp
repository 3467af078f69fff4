#include "cpu/cpu_render.h"

namespace wr {
namespace {

struct Run {
  const CpuRenderJob* job;
  CpuRenderTasks tasks;
  // The area of the camera image a task's tiles cover: the crop, each output pixel its own camera
  // pixel's; or, where the output reads other pixels (p.camera_image), the traced window.
  uint32_t area_x, area_y, area_w, area_h;
  std::atomic<uint32_t> bad_envs{0};
};

// A run over a terrain of the kind Terrain: its SIMD packets (null: pixel by pixel).
template <class Terrain>
struct RunOf {
  Run* run;
  PacketTilesFn<Terrain> packets;
};

// Tile t (a camera's, or a pattern's as a one-row camera) over the run's terrain of the kind
// Terrain: in SIMD packets where the run has them for that kind, else pixel by pixel.
template <class Terrain>
uint64_t trace_tile_of(const RunOf<Terrain>& run, const PacketTile& t) {
  const typename Terrain::View& terrain = view_of(Terrain{}, run.run->job->terrain);
  return run.packets ? run.packets(t, terrain) : trace_tile_pixels<Terrain>(t, terrain);
}

// Pixels [u0, u1) x [v0, v1) (at most a tile) of env `env`'s camera image traced into `image`, whose
// first element is pixel (image_u0, image_v0), `image_stride` wide, with the depth parameters `dp`
// (the camera stage's: camera_stage_params). `camera`: the env's frame (its ray source's env stage);
// `instances`: the env's (null: none); `ids` (or null): the instance each pixel hit, and `hits`
// (or null) each pixel's scene hit, both laid out as image. The terrain is of the kind
// F::Terrain. Where the ray source's rays are a camera's tile (as_camera_tile: a camera's, or a
// pattern of one origin whose directions turn with the frame) and no hit is asked for, the tile
// goes to the packets where the run has them (trace_tile_of), with per-env intrinsics the tile's
// rays made here from the env's own (make_template_ray: the bits of a sensor built with them); else
// each pixel goes through the camera stage (trace_pixel), the same bits.
// Pixels [u0, u1) x [v0, v1)'s template rays from intrinsics k, rows of kCpuTileSize (the bits
// make_template_ray gives a sensor built with k). Flattened, so that make_template_ray (double
// arithmetic, called from several places) is inlined into the loop, as a tile of per-env
// intrinsics wants it.
[[gnu::flatten]] void make_tile_rays(TemplateRay* rays, uint32_t u0, uint32_t v0, uint32_t u1, uint32_t v1,
                                     const Intrinsics& k, bool plane_depth) {
  for (uint32_t v = v0; v < v1; ++v)
    for (uint32_t u = u0; u < u1; ++u)
      rays[(v - v0) * kCpuTileSize + (u - u0)] = make_template_ray(u, v, k, plane_depth);
}

// The tile as a camera's, in the run's packets (or its kind's pixel by pixel).
template <class F>
uint64_t trace_camera_tile(const RunOf<typename F::Terrain>& typed, const RigidTransform& camera, const Intrinsics& k,
                           const DepthParams& dp, const EnvInstances* instances, uint32_t u0, uint32_t v0, uint32_t u1,
                           uint32_t v1, float* image, uint32_t* ids, uint32_t image_u0, uint32_t image_v0,
                           uint32_t image_stride) {
  const CpuRenderJob& job = *typed.run->job;
  const PipelineParams& p = *job.params;
  TemplateRay own[kCpuTileSize * kCpuTileSize];
  PacketTile t{BvhView{}, u0,       v0,       u1,           v1,     job.rays, 0,         0,  p.cam_w,
               image,     image_u0, image_v0, image_stride, camera, &dp,      instances, ids};
  t.pinhole = F::RaySource::kPinhole;  // (a pattern's neighbours are not a pinhole's: no culling by the corners)
  if (F::pipeline && job.call.intrinsics) {
    make_tile_rays(own, u0, v0, u1, v1, k, p.plane_depth);  // (source_ray's, with the env's own intrinsics)
    t.rays = own;
    t.rays_u0 = u0;
    t.rays_v0 = v0;
    t.rays_stride = kCpuTileSize;
  }
  return trace_tile_of<typename F::Terrain>(typed, t);  // (the BVH's packets set t.bvh)
}

template <class F>
uint64_t trace(const RunOf<typename F::Terrain>& typed, uint32_t env, const RigidTransform& camera, const Intrinsics& k,
               const DepthParams& dp, const EnvInstances* instances, uint32_t u0, uint32_t v0, uint32_t u1, uint32_t v1,
               float* image, uint32_t* ids, SceneHit* hits, uint32_t image_u0, uint32_t image_v0,
               uint32_t image_stride) {
  using Terrain = typename F::Terrain;
  const CpuRenderJob& job = *typed.run->job;
  const PipelineParams& p = *job.params;
  if (!hits && F::RaySource::as_camera_tile(p))
    return trace_camera_tile<F>(typed, camera, k, dp, instances, u0, v0, u1, v1, image, ids, image_u0, image_v0,
                                image_stride);
  uint64_t overflows = 0;
  const typename Terrain::View& terrain = view_of(Terrain{}, job.terrain);
  for (uint32_t v = v0; v < v1; ++v)
    for (uint32_t u = u0; u < u1; ++u) {
      bool overflowed;
      const uint64_t at = uint64_t(v - image_v0) * image_stride + (u - image_u0);
      const PixelRecord r =
          trace_pixel<HostTraversal, F>(terrain, job.rays, job.call, instances, env, u, v, camera, k, p, &overflowed);
      image[at] = r.value;
      if (ids) ids[at] = r.hit.instance;
      if (hits) hits[at] = r.hit;
      overflows += overflowed;
    }
  return overflows;
}

// Tile `tile` of the run's area: pixels [*u0, *u1) x [*v0, *v1).
void tile_bounds(const Run& run, uint32_t tile, uint32_t* u0, uint32_t* v0, uint32_t* u1, uint32_t* v1) {
  const uint32_t w = run.tasks.tile_w, h = run.tasks.tile_h;
  *u0 = run.area_x + (tile % run.tasks.tiles_x) * w;
  *v0 = run.area_y + (tile / run.tasks.tiles_x) * h;
  *u1 = *u0 + w < run.area_x + run.area_w ? *u0 + w : run.area_x + run.area_w;
  *v1 = *v0 + h < run.area_y + run.area_h ? *v0 + h : run.area_y + run.area_h;
}

// Output pixel i of env `env` (whose output starts at `to`) is invalid: NaN (the plain render), or
// NaN through the output stage (its dtype, the history), and a bad env's channels.
template <class F>
void emit_invalid(const CpuRenderJob& job, const EnvOutput& to, uint32_t i) {
  const PipelineCall& c = job.call;
  if constexpr (F::pipeline) {
    emit_output(*job.params, c, job.state, to, i, quiet_nan_());
    using Terrain = typename F::Terrain;
    emit_pixel_channels<F>(c.channels, to.out_at + i, view_of(Terrain{}, job.terrain), nullptr, job.rays, c,
                           *job.params, 0, 0, 0, nullptr);
  } else {
    static_cast<float*>(c.out)[to.out_at + i] = quiet_nan_();
  }
}

// An env whose output reads other pixels (p.camera_image, a whole env per task): the crop's
// samples first (from the traced window where edge dropout reads neighbours), then each output
// pixel from them.
template <class F>
uint64_t render_camera_image(const RunOf<typename F::Terrain>& typed, uint32_t env, unsigned thread,
                             const RigidTransform& camera, const Intrinsics& k, const EnvInstances* instances,
                             const EnvOutput& to) {
  const Run& run = *typed.run;
  const CpuRenderJob& job = *run.job;
  const PipelineParams& p = *job.params;
  const PipelineCall& c = job.call;
  const OutputParams& o = p.output;
  const float offset = env_offset(p.noise, env, c.frame);
  uint64_t overflows = 0;
  float* samples = job.thread_samples + uint64_t(thread) * o.crop_w * o.crop_h;
  float* window = p.noise.edges ? job.thread_windows + uint64_t(thread) * p.win_w * p.win_h : nullptr;
  float depth[kCpuTileSize * kCpuTileSize];
  for (uint32_t tile = 0; tile < run.tasks.tiles_per_env; ++tile) {
    uint32_t u0, v0, u1, v1;
    tile_bounds(run, tile, &u0, &v0, &u1, &v1);
    if (window) {
      overflows += trace<F>(typed, env, camera, k, p.depth, instances, u0, v0, u1, v1, window, nullptr, nullptr,
                            p.win_x, p.win_y, p.win_w);
      continue;
    }
    // the window is the crop
    overflows += trace<F>(typed, env, camera, k, p.depth, instances, u0, v0, u1, v1, depth, nullptr, nullptr, u0, v0,
                          kCpuTileSize);
    for (uint32_t v = v0; v < v1; ++v)
      for (uint32_t u = u0; u < u1; ++u)
        samples[(v - o.crop_y) * o.crop_w + (u - o.crop_x)] =
            camera_sample(OnePixel{depth[(v - v0) * kCpuTileSize + (u - u0)]}, u, v, p, env, c.frame, offset);
  }
  if (window) {
    const WindowImage clean{window, p.win_x, p.win_y, p.win_w};
    for (uint32_t j = 0; j < o.crop_h; ++j)
      for (uint32_t i = 0; i < o.crop_w; ++i)
        samples[j * o.crop_w + i] = camera_sample(clean, o.crop_x + i, o.crop_y + j, p, env, c.frame, offset);
  }
  for (uint32_t y = 0; y < o.out_h; ++y)
    for (uint32_t x = 0; x < o.out_w; ++x)
      emit_output(p, c, job.state, to, y * o.out_w + x, output_from_samples(samples, x, y, p, job.state));
  return overflows;
}

// One task: a run of consecutive tiles of one env, so one core walks the part of the BVH that env
// sees; its env stage (the camera, the instances) once per task, not per tile.
template <class F>
void render_run(void* context, uint32_t task, unsigned thread) {
  const RunOf<typename F::Terrain>& typed = *static_cast<const RunOf<typename F::Terrain>*>(context);
  Run& run = *typed.run;
  const CpuRenderJob& job = *run.job;
  const PipelineParams& p = *job.params;
  const PipelineCall& c = job.call;
  const uint32_t env = task / run.tasks.tasks_per_env;
  const uint32_t first = task % run.tasks.tasks_per_env * run.tasks.tiles_per_task;
  const uint32_t end = first + run.tasks.tiles_per_task;
  const uint32_t last = end < run.tasks.tiles_per_env ? end : run.tasks.tiles_per_env;
  if constexpr (F::pipeline)
    if (!env_updated(c, env)) return;
  RigidTransform camera{};
  Intrinsics k{};
  const bool valid = env_instances_valid<F>(c, p, env) && env_camera<F>(c, env, p, &camera, &k);
  if constexpr (F::pipeline) {
    if (first == 0) {  // the env's first task reports it
      if (c.bad_env_mask) c.bad_env_mask[env] = valid ? 0 : 1;
      if (!valid) run.bad_envs.fetch_add(1, std::memory_order_relaxed);
    }
  }
  const EnvOutput to = env_output(p, c, job.state, env);
  const OutputParams& o = p.output;
  if (!valid) {  // (isolated, or a plain render's internal caller: the C API checked the host data)
    if (p.camera_image) {
      for (uint32_t i = 0; i < o.out_w * o.out_h; ++i) emit_invalid<F>(job, to, i);
      return;
    }
    for (uint32_t tile = first; tile < last; ++tile) {
      uint32_t u0, v0, u1, v1;
      tile_bounds(run, tile, &u0, &v0, &u1, &v1);
      for (uint32_t v = v0; v < v1; ++v)
        for (uint32_t u = u0; u < u1; ++u) emit_invalid<F>(job, to, (v - o.crop_y) * o.out_w + (u - o.crop_x));
    }
    return;
  }
  // The env's instances, prepared once for all the run's rays (in the thread's own place); those
  // wholly behind its camera left out (a pinhole's: a pattern's rays go every way).
  EnvInstances seen{};
  const EnvInstances* instances = nullptr;
  if constexpr (F::instances) {
    seen = env_instances(c, p, env);
    PreparedInstance* prepared = job.thread_instances + uint64_t(thread) * job.num_instances;
    for (uint32_t i = 0; i < job.num_instances; ++i) {
      prepared[i] = prepare_instance(seen, i);
      if (F::RaySource::kPinhole && prepared[i].prototype != kInvalidIndex && behind_camera(prepared[i], camera))
        prepared[i].prototype = kInvalidIndex;
    }
    seen.prepared = prepared;
    instances = &seen;
  }
  uint64_t overflows = 0;
  if (F::pipeline && p.camera_image) {
    overflows = render_camera_image<F>(typed, env, thread, camera, k, instances, to);
  } else {
    const float offset = F::pipeline ? env_offset(p.noise, env, c.frame) : 0.0f;
    for (uint32_t tile = first; tile < last; ++tile) {
      uint32_t u0, v0, u1, v1;
      tile_bounds(run, tile, &u0, &v0, &u1, &v1);
      if constexpr (!F::pipeline) {
        // The value is the output (float32, the camera's image): traced straight into it.
        float* image = static_cast<float*>(c.out) + to.out_at;
        overflows += trace<F>(typed, env, camera, k, p.plain, instances, u0, v0, u1, v1, image, nullptr, nullptr,
                              o.crop_x, o.crop_y, o.out_w);
      } else {
        // Each output pixel from its own camera pixel, and its channels from that pixel's hit
        // (only the instance where no channel needs the surface: the packets keep no more).
        const typename F::Terrain::View& terrain = view_of(typename F::Terrain{}, job.terrain);
        const OutputChannels& ch = c.channels;
        const bool surface = wants_surface(ch);
        float depth[kCpuTileSize * kCpuTileSize];
        uint32_t ids[kCpuTileSize * kCpuTileSize];
        SceneHit hits[kCpuTileSize * kCpuTileSize];
        overflows +=
            trace<F>(typed, env, camera, k, p.depth, instances, u0, v0, u1, v1, depth,
                     ch.instance_ids && instances ? ids : nullptr, surface ? hits : nullptr, u0, v0, kCpuTileSize);
        for (uint32_t v = v0; v < v1; ++v)
          for (uint32_t u = u0; u < u1; ++u) {
            const uint32_t x = u - o.crop_x, y = v - o.crop_y;
            emit_output(p, c, job.state, to, y * o.out_w + x,
                        output_from_pixel(depth[(v - v0) * kCpuTileSize + (u - u0)], x, y, p, env, c.frame, offset));
          }
        // (a loop of its own, so that a render without channels runs the output stage's loop alone)
        if (any_channel(ch))
          for (uint32_t v = v0; v < v1; ++v)
            for (uint32_t u = u0; u < u1; ++u) {
              const uint32_t j = (v - v0) * kCpuTileSize + (u - u0);
              SceneHit instance_only{};  // (a packet's: its instance alone)
              instance_only.instance = instances ? ids[j] : kInvalidIndex;
              emit_pixel_channels<F>(ch, to.out_at + (v - o.crop_y) * o.out_w + (u - o.crop_x), terrain, instances,
                                     job.rays, c, p, env, u, v, surface ? &hits[j] : &instance_only);
            }
      }
    }
  }
  if (overflows) job.stack_overflows->fetch_add(overflows, std::memory_order_relaxed);
}

}  // namespace

template <class Terrain>
uint64_t trace_tile_pixels(const PacketTile& tile, const typename Terrain::View& terrain) {
  uint64_t overflows = 0;
  for (uint32_t v = tile.v0; v < tile.v1; ++v) {
    const TemplateRay* rays = &tile_ray(tile, tile.u0, v);
    float* image = &tile_depth(tile, tile.u0, v);
    for (uint32_t i = 0; i < tile.u1 - tile.u0; ++i) {
      bool overflowed;
      uint32_t instance;
      image[i] = render_pixel<HostTraversal, Terrain>(terrain, tile.instances, rays[i], tile.camera, *tile.params,
                                                      &overflowed, &instance);
      set_tile_id(tile, tile.u0 + i, v, instance);
      overflows += overflowed;
    }
  }
  return overflows;
}

#define WR_TRACE_TILE_PIXELS(e, Kind, member) \
  template uint64_t trace_tile_pixels<Kind>(const PacketTile&, const Kind::View&);
WR_TERRAIN_KINDS(WR_TRACE_TILE_PIXELS)
#undef WR_TRACE_TILE_PIXELS

CpuRenderTasks cpu_render_tasks(uint32_t width, uint32_t height, uint32_t num_envs, unsigned num_threads,
                                bool whole_envs) {
  CpuRenderTasks t;
  t.tile_w = height == 1 ? kCpuTileSize * kCpuTileSize : kCpuTileSize;
  t.tile_h = height == 1 ? 1 : kCpuTileSize;
  t.tiles_x = (width + t.tile_w - 1) / t.tile_w;
  t.tiles_per_env = t.tiles_x * ((height + t.tile_h - 1) / t.tile_h);
  // Tasks as large as still gives every thread 16 of them, at most a whole env.
  const uint64_t tiles = uint64_t(t.tiles_per_env) * num_envs, min_tasks = 16ull * num_threads;
  const uint64_t per_task = tiles / min_tasks;
  t.tiles_per_task = per_task < 1 ? 1 : per_task > t.tiles_per_env ? t.tiles_per_env : uint32_t(per_task);
  if (whole_envs) t.tiles_per_task = t.tiles_per_env;
  t.tasks_per_env = (t.tiles_per_env + t.tiles_per_task - 1) / t.tiles_per_task;
  t.num_tasks = uint64_t(t.tasks_per_env) * num_envs;
  return t;
}

void cpu_render(ThreadPool& pool, const CpuRenderJob& job) {
  const PipelineParams& p = *job.params;
  const bool image = job.features.pipeline && p.camera_image;
  Run run;
  run.job = &job;
  run.area_x = image ? p.win_x : p.output.crop_x;
  run.area_y = image ? p.win_y : p.output.crop_y;
  run.area_w = image ? p.win_w : p.output.crop_w;
  run.area_h = image ? p.win_h : p.output.crop_h;
  run.tasks = cpu_render_tasks(run.area_w, run.area_h, job.num_envs, pool.num_threads(), image);
  with_features(job.features, [&](auto features) {
    using F = decltype(features);
    const RunOf<typename F::Terrain> typed{&run, packet_tiles<typename F::Terrain>(job.path)};
    pool.run(static_cast<uint32_t>(run.tasks.num_tasks), render_run<F>,
             const_cast<RunOf<typename F::Terrain>*>(&typed));
  });
  if (!job.features.pipeline) return;
  // Every task of an env has read its frame count: each updated env's count goes on after all.
  for (uint32_t env = 0; env < job.num_envs; ++env)
    if (env_updated(job.call, env)) advance_history(p, job.state, env);
  if (job.call.bad_env_count) *job.call.bad_env_count = run.bad_envs.load();
}

}  // namespace wr
