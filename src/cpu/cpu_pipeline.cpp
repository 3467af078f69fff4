#include "cpu/cpu_pipeline.h"

#include "cpu/cpu_render.h"

namespace wr {
namespace {

struct Run {
  const CpuPipelineJob* job;
  PacketTileFn packet_fn;  // nullptr: scalar
  std::atomic<uint32_t> bad_envs{0};
};

// Traces pixels [u0, u1) x [v0, v1) (at most a tile) of env's camera image into `image`, whose
// first element is pixel (image_u0, image_v0), `image_stride` wide. With per-env intrinsics the
// tile's rays are made here from the env's own (make_template_ray: the bits of a sensor built with
// them). `instances`: the env's (null: none); `ids` (or null): the instance each pixel hit, laid out
// as image.
uint64_t trace(const Run& run, const RigidTransform& camera, const Intrinsics& k, const EnvInstances* instances,
               uint32_t u0, uint32_t v0, uint32_t u1, uint32_t v1, float* image, uint32_t* ids, uint32_t image_u0,
               uint32_t image_v0, uint32_t image_stride) {
  const CpuPipelineJob& job = *run.job;
  const PipelineParams& p = *job.params;
  TemplateRay own[kCpuTileSize * kCpuTileSize];
  PacketTile t{job.bvh, u0,       v0,       u1,           v1,     job.rays,  0,   0, p.cam_w, image,
               image_u0, image_v0, image_stride, camera, &p.depth, instances, ids};
  if (job.call.intrinsics) {
    for (uint32_t v = v0; v < v1; ++v)
      for (uint32_t u = u0; u < u1; ++u) own[(v - v0) * kCpuTileSize + (u - u0)] = make_template_ray(u, v, k, p.plane_depth);
    t.rays = own;
    t.rays_u0 = u0;
    t.rays_v0 = v0;
    t.rays_stride = kCpuTileSize;
  }
  return trace_tile(t, run.packet_fn);
}

void render_env(void* context, uint32_t env, unsigned thread) {
  Run& run = *static_cast<Run*>(context);
  const CpuPipelineJob& job = *run.job;
  const PipelineParams& p = *job.params;
  const PipelineCall& c = job.call;
  if (!env_updated(c, env)) return;
  const OutputParams& o = p.output;
  const uint32_t out_pixels = o.out_w * o.out_h;
  RigidTransform camera;
  Intrinsics k;
  const bool valid = env_camera(c, env, p, &camera, &k);
  const EnvOutput to = env_output(p, c, job.state, env);
  if (c.bad_env_mask) c.bad_env_mask[env] = valid ? 0 : 1;
  if (!valid) {  // isolated (the host data was checked): the env's output is invalid
    run.bad_envs.fetch_add(1, std::memory_order_relaxed);
    for (uint32_t i = 0; i < out_pixels; ++i) {
      emit_output(p, c, job.state, to, i, quiet_nan_());
      if (c.instance_ids) c.instance_ids[to.out_at + i] = kInvalidIndex;
    }
    advance_history(p, job.state, env);
    return;
  }
  const float offset = env_offset(p.noise, env, c.frame);
  // The env's instances, prepared once for all its rays (in the thread's own place); those wholly
  // behind its camera left out.
  EnvInstances seen = env_instances(c, p, env);
  const EnvInstances* instances = nullptr;
  if (num_instances(seen.view) != 0) {
    PreparedInstance* prepared = job.thread_instances + uint64_t(thread) * job.num_instances;
    for (uint32_t i = 0; i < job.num_instances; ++i) {
      prepared[i] = prepare_instance(seen, i);
      if (prepared[i].prototype != kInvalidIndex && behind_camera(prepared[i], camera))
        prepared[i].prototype = kInvalidIndex;
    }
    seen.prepared = prepared;
    instances = &seen;
  }
  uint64_t overflows = 0;
  if (p.camera_image) {
    // The crop's samples first (from the traced window where edge dropout reads neighbours), then
    // each output pixel from them.
    const uint64_t t = thread;
    float* samples = job.thread_samples + t * o.crop_w * o.crop_h;
    float* window = p.noise.edges ? job.thread_windows + t * p.win_w * p.win_h : nullptr;
    float depth[kCpuTileSize * kCpuTileSize];
    for (uint32_t v0 = p.win_y; v0 < p.win_y + p.win_h; v0 += kCpuTileSize)
      for (uint32_t u0 = p.win_x; u0 < p.win_x + p.win_w; u0 += kCpuTileSize) {
        const uint32_t u1 = u0 + kCpuTileSize < p.win_x + p.win_w ? u0 + kCpuTileSize : p.win_x + p.win_w;
        const uint32_t v1 = v0 + kCpuTileSize < p.win_y + p.win_h ? v0 + kCpuTileSize : p.win_y + p.win_h;
        if (window) {
          overflows += trace(run, camera, k, instances, u0, v0, u1, v1, window, nullptr, p.win_x, p.win_y, p.win_w);
          continue;
        }
        // the window is the crop
        overflows += trace(run, camera, k, instances, u0, v0, u1, v1, depth, nullptr, u0, v0, kCpuTileSize);
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
  } else {
    // Tile by tile: each output pixel from its own camera pixel.
    float depth[kCpuTileSize * kCpuTileSize];
    uint32_t ids[kCpuTileSize * kCpuTileSize];
    for (uint32_t v0 = o.crop_y; v0 < o.crop_y + o.crop_h; v0 += kCpuTileSize)
      for (uint32_t u0 = o.crop_x; u0 < o.crop_x + o.crop_w; u0 += kCpuTileSize) {
        const uint32_t u1 = u0 + kCpuTileSize < o.crop_x + o.crop_w ? u0 + kCpuTileSize : o.crop_x + o.crop_w;
        const uint32_t v1 = v0 + kCpuTileSize < o.crop_y + o.crop_h ? v0 + kCpuTileSize : o.crop_y + o.crop_h;
        overflows += trace(run, camera, k, instances, u0, v0, u1, v1, depth, c.instance_ids ? ids : nullptr, u0, v0,
                           kCpuTileSize);
        for (uint32_t v = v0; v < v1; ++v)
          for (uint32_t u = u0; u < u1; ++u) {
            const uint32_t x = u - o.crop_x, y = v - o.crop_y;
            const float d = depth[(v - v0) * kCpuTileSize + (u - u0)];
            emit_output(p, c, job.state, to, y * o.out_w + x, output_from_pixel(d, x, y, p, env, c.frame, offset));
            if (c.instance_ids)
              c.instance_ids[to.out_at + y * o.out_w + x] = instances ? ids[(v - v0) * kCpuTileSize + (u - u0)]
                                                                      : kInvalidIndex;
          }
      }
  }
  advance_history(p, job.state, env);
  if (overflows) job.stack_overflows->fetch_add(overflows, std::memory_order_relaxed);
}

}  // namespace

void cpu_render_pipeline(ThreadPool& pool, const CpuPipelineJob& job) {
  Run run;
  run.job = &job;
  run.packet_fn = packet_tile_fn(job.simd);
  pool.run(job.num_envs, render_env, &run);
  if (job.call.bad_env_count) *job.call.bad_env_count = run.bad_envs.load();
}

}  // namespace wr
