// The CUDA kernels' per-thread code (kernels/kernel_threads.h), run on the CPU: every thread of
// an emulated launch grid (blocks x kBlockThreads threads, as cuda_kernels.cu launches them, with
// the blocks' shared phase: emulated_launch.h), for every tile shape WarpTiles allows and every
// feature set, against the CPU backend (cpu_render, cpu_intersect) bit for bit. This checks what the tests of the
// shared traversal cannot see: which pixel or ray each thread writes, that every output is written and nothing past it,
// that a bad pose poisons only its own env, and what the intersect kernel does with the rays the CPU rejects.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_intersect.h"
#include "cpu/cpu_render.h"
#include "cpu/host_data_checks.h"
#include "cpu_render_reference.h"
#include "cuda_policy.h"
#include "deep_chain_bvh.h"
#include "emulated_launch.h"
#include "kernel_output_guards.h"
#include "kernel_test_scenes.h"
#include "float_bits.h"
#include "kernel_threads.h"
#include "legged_gym_trimesh.h"
#include "random_scenes.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/grid_mesh_builder.h"
#include "scene/heightfield.h"
#include "scene/obj_loader.h"
#include "sensor/camera_model.h"
#include "sensor/pattern_model.h"
#include "sensor/pipeline_options.h"
#include "sensor/render_call.h"

// The kernels trace with the GPU's form of the traversal (core/traversal_variant.h), which the
// CPU backend's host form must match bit for bit.
static_assert(std::is_same<wr::cuda::CudaTraversal, wr::GpuTraversal>::value,
              "the shipped kernels run the GPU's traversal");

namespace {

using namespace wr_test::kernels;
using wr_test::bits;
using wr_test::same_bits;

constexpr float kNaN = NAN;

// The plain render's output kernel (no pipeline stage, no instances) over `tiles`: the kernel the
// plain depth image of wr_sensor_render runs. Returns the overflows its threads report.
using Plain = wr::RenderFeatures<false, false>;
uint64_t emulated_plain(const wr::BvhView& bvh, const wr_camera_desc& desc, const std::vector<wr::TemplateRay>& rays,
                        const wr::cuda::WarpTiles& tiles, const std::vector<float>& poses, float* out) {
  const wr::SensorPipeline pipeline = wr::make_sensor_pipeline("test", desc, nullptr);
  wr::PipelineCall c{};
  c.body_poses = poses.data();
  c.pose_stride = 7;
  c.out = out;
  uint64_t overflows = 0;
  for (uint64_t thread = 0; thread < tiles.blocks * wr::cuda::kBlockThreads; ++thread)
    overflows += wr::cuda::output_thread<Plain, false>(thread, bvh, rays.data(), pipeline.params, c, tiles,
                                                       wr::PipelineState{}, wr::cuda::BlockInstances{nullptr, true})
                     .overflowed;
  return overflows;
}

}  // namespace

// A batch of explicit rays without instances (core/explicit_rays.h).
static wr::ExplicitRays explicit_rays(const float* origins, const float* directions, const float* tmax, uint64_t count,
                                      float* out_t, uint32_t* out_triangle) {
  wr::ExplicitRays r{};
  r.origins = origins, r.directions = directions, r.tmax = tmax, r.count = count;
  r.rays_per_env = count ? count : 1;
  r.out_t = out_t, r.out_triangle = out_triangle;
  return r;
}

TEST_CASE("an emulated depth launch equals the CPU backend bit for bit, for every tile shape") {
  const wr::Mesh mesh = small_terrain();
  const wr::Bvh bvh = gpu_bvh(mesh);

  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 37, 23, 87.0f);
  desc.cx = 17.25f;  // off centre, and partial tiles for every tile shape
  desc.depth_kind = WR_DEPTH_RANGE;
  desc.far_clip = 30.0f;
  const uint32_t num_envs = 6;
  std::vector<wr::TemplateRay> rays(size_t(desc.width) * desc.height);
  wr::build_ray_template(desc, rays.data());
  float lo[3], hi[3];
  wr_test::vertex_bounds(mesh.vertices, lo, hi);
  hi[2] += 2.0f;  // some cameras above the terrain, looking anywhere
  std::vector<float> poses = wr_test::random_poses_in_box(3, num_envs, lo, hi);
  poses[7 * 2 + 1] = kNaN;                              // env 2: a NaN position
  for (int k = 3; k < 7; ++k) poses[7 * 4 + k] = 0.0f;  // env 4: a zero quaternion

  // The CPU backend on its scalar path (the traversal the kernel runs); it writes NaN for the
  // bad envs as well (the C API rejects such poses before a CPU render, the device cannot).
  const size_t count = size_t(num_envs) * desc.width * desc.height;
  const wr_test::CpuRendered reference = wr_test::render_on_cpu(bvh.view(), desc, poses, WR_CPU_PATH_SCALAR);
  const std::vector<float>& want = reference.depth;
  const size_t per_env = size_t(desc.width) * desc.height;
  size_t hits = 0, nans = 0;
  for (size_t i = 0; i < count; ++i) {
    hits += std::isfinite(want[i]);
    nans += std::isnan(want[i]);
  }
  REQUIRE(hits > count / 4);     // the cameras see terrain: equality means something
  REQUIRE(nans == 2 * per_env);  // exactly the two bad envs

  for (uint32_t shift = 0; shift <= 5; ++shift) {
    const wr::cuda::WarpTiles tiles =
        wr::cuda::WarpTiles::make(desc.width, desc.height, num_envs, shift, wr::cuda::kBlockThreads);
    INFO("tile " << (1u << shift) << "x" << (32u >> shift) << ", " << tiles.blocks << " blocks of "
                 << wr::cuda::kBlockThreads);
    std::vector<float> got = sentinel_floats(count);
    const uint64_t overflows = emulated_plain(bvh.view(), desc, rays, tiles, poses, got.data());
    size_t unwritten = 0, different = 0;
    for (size_t i = 0; i < count; ++i) {
      if (bits(got[i]) == kSentinel) {
        ++unwritten;
      } else if (!same_bits(got[i], want[i])) {
        if (++different <= 5) UNSCOPED_INFO("pixel " << i << ": CPU " << want[i] << ", kernel thread " << got[i]);
      }
    }
    CHECK(unwritten == 0);
    CHECK(different == 0);
    CHECK(guards_touched(got, count) == 0);
    CHECK(overflows == reference.overflows);
  }
}

TEST_CASE("an emulated depth launch over a BVH deeper than the stack: each overflowing thread reports it") {
  // The kernel adds one to the sensor's counter for every thread whose output_thread reports it.
  const wr_test::DeepChainBvh chain = wr_test::deep_chain_bvh(100);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 6, 5, 20.0f);
  const uint32_t num_envs = 2;
  const std::vector<float> poses = {0, 0, 0, 1, 0, 0, 0, -2, 0.1f, 0, 1, 0, 0, 0};  // both look along +X
  std::vector<wr::TemplateRay> rays(size_t(desc.width) * desc.height);
  wr::build_ray_template(desc, rays.data());
  const wr_test::CpuRendered reference = wr_test::render_on_cpu(chain.view(), desc, poses, WR_CPU_PATH_SCALAR);
  REQUIRE(reference.overflows > 30);

  const size_t count = size_t(num_envs) * desc.width * desc.height;
  const wr::cuda::WarpTiles tiles = wr::cuda::WarpTiles::make(desc.width, desc.height, num_envs);
  std::vector<float> got = sentinel_floats(count);
  const uint64_t overflows = emulated_plain(chain.view(), desc, rays, tiles, poses, got.data());
  CHECK(overflows == reference.overflows);
  size_t different = 0;
  for (size_t i = 0; i < count; ++i) different += !same_bits(got[i], reference.depth[i]);
  CHECK(different == 0);
  CHECK(guards_touched(got, count) == 0);
  for (size_t px = 0; px < count; ++px) CHECK(got[px] == Approx(px < count / 2 ? 1.0 : 3.0));  // the nearest plane
}

TEST_CASE("an emulated intersect launch equals the CPU backend, and marks the rays the CPU rejects") {
  const wr_test::SoupScene soup = wr_test::random_soup(21, 2000, 10.0f);
  const wr::Bvh bvh = gpu_bvh(soup.vertices.data(), soup.indices.data(), soup.num_triangles());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(-6, 6), dir(-1, 1), far(0, 12);
  const uint64_t count = 1000;  // not a multiple of the block size: threads past the end exist
  std::vector<float> origins, directions, tmax;
  std::vector<bool> rejected(count, false), rejected_direction(count, false);
  for (uint64_t i = 0; i < count; ++i) {
    float o[3] = {pos(rng), pos(rng), pos(rng)}, d[3] = {dir(rng), dir(rng), dir(rng)};
    float t = i % 3 == 0 ? INFINITY : far(rng);
    switch (i % 41) {  // one ray in 41 of each kind the CPU rejects
      case 1: o[1] = kNaN; break;
      case 2: d[0] = d[1] = d[2] = 0.0f; break;
      case 3: d[2] = INFINITY; break;
      case 4: t = -1.0f; break;
      case 5: t = kNaN; break;
      default: break;
    }
    rejected[i] = i % 41 >= 1 && i % 41 <= 5;
    rejected_direction[i] = i % 41 >= 1 && i % 41 <= 3;  // still rejected when tmax is null
    origins.insert(origins.end(), o, o + 3);
    directions.insert(directions.end(), d, d + 3);
    tmax.push_back(t);
  }

  // The CPU backend on the rays it accepts, with their results put back in place (NaN and
  // kInvalidIndex where it rejects the ray). use_tmax false: every ray to +inf, as with tmax null.
  const auto cpu_reference = [&](bool use_tmax, std::vector<float>* want_t, std::vector<uint32_t>* want_id) {
    want_t->assign(count, kNaN);
    want_id->assign(count, wr::kInvalidIndex);
    std::vector<float> o, d, t;
    std::vector<uint64_t> where;
    for (uint64_t i = 0; i < count; ++i) {
      if (use_tmax ? rejected[i] : rejected_direction[i]) continue;
      o.insert(o.end(), &origins[3 * i], &origins[3 * i] + 3);
      d.insert(d.end(), &directions[3 * i], &directions[3 * i] + 3);
      t.push_back(tmax[i]);
      where.push_back(i);
    }
    const float* t_or_null = use_tmax ? t.data() : nullptr;
    std::vector<float> out_t(where.size());
    std::vector<uint32_t> out_id(where.size());
    const wr::ExplicitRays accepted =
        explicit_rays(o.data(), d.data(), t_or_null, where.size(), out_t.data(), out_id.data());
    REQUIRE_NOTHROW(wr::validate_explicit_rays("test", accepted));
    wr::ThreadPool pool(2);
    wr::cpu_intersect(pool, wr::CpuIntersectJob{wr::bvh_terrain(bvh.view()), accepted});
    for (size_t k = 0; k < where.size(); ++k) {
      (*want_t)[where[k]] = out_t[k];
      (*want_id)[where[k]] = out_id[k];
    }
  };
  std::vector<float> want_t;
  std::vector<uint32_t> want_id;
  cpu_reference(true, &want_t, &want_id);
  size_t hits = 0;
  for (uint32_t id : want_id) hits += id != wr::kInvalidIndex;
  REQUIRE(hits > count / 10);

  const uint64_t threads = (count + wr::cuda::kBlockThreads - 1) / wr::cuda::kBlockThreads * wr::cuda::kBlockThreads;
  for (const bool with_ids : {true, false}) {
    INFO((with_ids ? "with triangle ids" : "distances only (out_triangle null)"));
    std::vector<float> got_t = sentinel_floats(count);
    std::vector<uint32_t> got_id(count + kGuard, kSentinel);
    const wr::ExplicitRays rays = explicit_rays(origins.data(), directions.data(), tmax.data(), count, got_t.data(),
                                                with_ids ? got_id.data() : nullptr);
    for (uint64_t i = 0; i < threads; ++i) wr::cuda::intersect_thread(i, bvh.view(), rays);
    size_t different = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const bool ok =
          rejected[i] ? std::isnan(got_t[i]) && bits(got_t[i]) != kSentinel : same_bits(got_t[i], want_t[i]);
      const bool id_ok = !with_ids || got_id[i] == want_id[i];
      if (ok && id_ok) continue;
      if (++different <= 5)
        UNSCOPED_INFO("ray " << i << (rejected[i] ? " (rejected by the CPU)" : "") << ": CPU t " << want_t[i] << " id "
                             << want_id[i] << ", kernel thread t " << got_t[i] << " id " << got_id[i]);
    }
    CHECK(different == 0);
    CHECK(guards_touched(got_t, count) == 0);
    for (size_t i = count; i < got_id.size(); ++i) CHECK(got_id[i] == kSentinel);
    if (!with_ids)
      for (uint64_t i = 0; i < count; ++i) REQUIRE(got_id[i] == kSentinel);
  }

  // Without tmax (null) every ray the CPU accepts is traced to +inf: the bad-tmax rays count now.
  std::vector<float> want_inf_t;
  std::vector<uint32_t> want_inf_id;
  cpu_reference(false, &want_inf_t, &want_inf_id);
  std::vector<float> got_t = sentinel_floats(count);
  std::vector<uint32_t> got_id(count + kGuard, kSentinel);
  const wr::ExplicitRays to_inf =
      explicit_rays(origins.data(), directions.data(), nullptr, count, got_t.data(), got_id.data());
  for (uint64_t i = 0; i < threads; ++i) wr::cuda::intersect_thread(i, bvh.view(), to_inf);
  size_t different = 0;
  for (uint64_t i = 0; i < count; ++i) different += !same_bits(got_t[i], want_inf_t[i]) || got_id[i] != want_inf_id[i];
  CHECK(different == 0);
  CHECK(guards_touched(got_t, count) == 0);
}

// ---- the RL depth pipeline's kernels ------------------------------------------------------------

namespace {

// One pipeline sensor's inputs, rendered twice: by the CPU backend (cpu_render) and by an emulated
// launch of the render's kernels for the call's feature set, every thread run on the CPU, each with
// its own state (history rings, frame counts, the kernels' camera images).
struct PipelineRig {
  wr::Bvh bvh;
  wr_camera_desc desc;
  std::vector<wr::TemplateRay> rays;
  wr::SensorPipeline pipeline;
  uint32_t num_envs;
};

// A rig over `terrain` (its GPU tree) with a 41 x 27 pinhole camera of 87 degrees, edited by `edit`
// before its template is built; the pipeline is each case's.
template <class Edit = void (*)(wr_camera_desc&)>
PipelineRig pipeline_rig(
    const wr::Mesh& terrain, uint32_t num_envs, Edit edit = [](wr_camera_desc&) {}) {
  PipelineRig r;
  r.bvh = gpu_bvh(terrain);
  wr_camera_desc_pinhole(&r.desc, 41, 27, 87.0f);
  edit(r.desc);
  r.num_envs = num_envs;
  r.rays.resize(size_t(r.desc.width) * r.desc.height);
  wr::build_ray_template(r.desc, r.rays.data());
  return r;
}

struct PipelineOutputs {
  std::vector<uint16_t> out;  // as bytes of the dtype, two per uint16 (float32: two of them)
  std::vector<uint8_t> bad_mask;
  uint32_t bad_count = 0;
  uint64_t overflows = 0;
};

struct PipelineStateBuffers {
  std::vector<unsigned char> history;
  std::vector<uint32_t> frames;
  std::vector<float> images, samples;
  std::vector<wr::ResampleTaps> taps_x, taps_y;
  PipelineStateBuffers(const PipelineRig& r) {
    const wr::PipelineParams& p = r.pipeline.params;
    if (p.history > 1) {
      history.assign(size_t(r.num_envs) * p.history * r.pipeline.out_bytes_per_env, 0);
      frames.assign(r.num_envs, 0);
    }
    images.assign(size_t(r.num_envs) * p.win_w * p.win_h, 0.0f);
    samples.assign(size_t(r.num_envs) * p.output.crop_w * p.output.crop_h, 0.0f);
    taps_x.resize(p.output.out_w);
    taps_y.resize(p.output.out_h);
    wr::build_resample_taps(p, taps_x.data(), taps_y.data());
  }
  wr::PipelineState state() {
    return wr::PipelineState{images.data(), samples.data(), history.data(),
                             frames.data(), taps_x.data(),  taps_y.data()};
  }
};

wr::PipelineCall make_call(const PipelineRig& r, const std::vector<float>& poses, PipelineOutputs* o,
                           const std::vector<float>* intrinsics, uint64_t frame, const std::vector<uint32_t>* latency) {
  wr::PipelineCall c{};
  c.body_poses = poses.data();
  c.pose_stride = 7;
  c.intrinsics = intrinsics ? intrinsics->data() : nullptr;
  c.frame = frame;
  c.latency = latency ? latency->data() : nullptr;
  o->out.assign(r.num_envs * r.pipeline.out_bytes_per_env / 2, 0xEEEE);
  o->bad_mask.assign(r.num_envs, 9);
  c.out = o->out.data();
  c.bad_env_mask = o->bad_mask.data();
  c.bad_env_count = &o->bad_count;
  return c;
}

void cpu_pipeline(const PipelineRig& r, const wr::PipelineCall& c, PipelineStateBuffers* s, PipelineOutputs* o) {
  const wr::PipelineParams& p = r.pipeline.params;
  wr::ThreadPool pool(2);
  std::vector<float> windows(2ull * p.win_w * p.win_h), samples(2ull * p.output.crop_w * p.output.crop_h);
  std::atomic<uint64_t> overflows{0};
  wr::CpuRenderJob job;
  job.terrain = wr::bvh_terrain(r.bvh.view());
  job.rays = r.rays.data();
  job.params = &p;
  job.call = c;
  job.features = wr::render_features(r.pipeline, c);
  job.state = s->state();
  job.num_envs = r.num_envs;
  job.thread_windows = windows.data();
  job.thread_samples = samples.data();
  // The env's instances, prepared once per env on the CPU (per ray in the kernels).
  const uint32_t instances = wr::num_instances(c.instances);
  std::vector<wr::PreparedInstance> prepared(2ull * instances);
  job.thread_instances = prepared.data();
  job.num_instances = instances;
  job.stack_overflows = &overflows;
  job.path = wr::best_cpu_path();
  wr::cpu_render(pool, job);
  o->overflows = overflows.load();
}

void emulated_pipeline(const PipelineRig& r, const wr::PipelineCall& c, PipelineStateBuffers* s, PipelineOutputs* o) {
  const wr_test::EmulatedResult e =
      wr_test::emulate_render(wr::render_features(r.pipeline, c), wr::bvh_terrain(r.bvh.view()), r.rays.data(),
                              r.pipeline.params, c, s->state(), r.num_envs);
  o->overflows += e.overflows;
  o->bad_count = e.bad_envs;
}

}  // namespace

TEST_CASE("an emulated launch of the pipeline's kernels equals the CPU backend's pipeline bit for bit") {
  const wr::Mesh mesh = small_terrain();
  PipelineRig r = pipeline_rig(mesh, 5, [](wr_camera_desc& d) { d.miss_value = 2.0f; });
  float lo[3], hi[3];
  wr_test::vertex_bounds(mesh.vertices, lo, hi);
  hi[2] += 2.0f;
  std::vector<float> poses = wr_test::random_poses_in_box(5, r.num_envs, lo, hi);
  poses[7 * 3 + 4] = kNaN;  // env 3: a bad pose (the kernels and an isolating CPU make it invalid)
  const std::vector<float> intrinsics = {30, 31, 20.5f, 13.5f, 25, 25, 19, 14, 40, 38,
                                         21, 12, 33,    30,    20, 13, 28, 29, 22, 15};

  struct Case {
    const char* name;
    void (*options)(wr_sensor_options&);
    bool per_env_intrinsics;
  };
  const Case cases[] = {
      {"crop, normalise, float16, fused",
       [](wr_sensor_options& o) {
         o.crop_x = 2, o.crop_width = 37, o.normalize = 1, o.norm_b = 2, o.dtype = WR_DTYPE_FLOAT16;
       },
       false},
      {"bicubic with noise and edges, per-env intrinsics",
       [](wr_sensor_options& o) {
         o.crop_y = 1, o.out_width = 30, o.out_height = 19, o.resample = WR_RESAMPLE_BICUBIC;
         o.clip = 1, o.clip_max = 2;
         o.noise.seed = 9, o.noise.range_sigma[0] = 0.01f, o.noise.dropout_probability = 0.05f;
         o.noise.edge_threshold = 0.1f, o.noise.edge_probability = 0.5f, o.noise.env_offset = 0.02f;
         o.noise.disparity_focal_baseline = 3, o.noise.disparity_step = 0.25f;
       },
       true},
      {"area, REP 117, uint16, history",
       [](wr_sensor_options& o) {
         o.out_width = 20, o.out_height = 13, o.resample = WR_RESAMPLE_AREA, o.invalid_mode = WR_INVALID_REP117;
         o.noise.min_range = 0.5f, o.dtype = WR_DTYPE_UINT16_MM, o.history_length = 3;
       },
       false},
  };
  for (const Case& k : cases) {
    INFO(k.name);
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    k.options(o);
    o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
    r.pipeline = wr::make_sensor_pipeline("test", r.desc, &o);
    PipelineStateBuffers cpu_state(r), gpu_state(r);
    const std::vector<uint32_t> latency = {0, 1, 2, 0, 2};
    for (uint64_t frame = 0; frame < 3; ++frame) {
      const bool history = r.pipeline.params.history > 1;
      PipelineOutputs want, got;
      const wr::PipelineCall cw =
          make_call(r, poses, &want, k.per_env_intrinsics ? &intrinsics : nullptr, frame, history ? &latency : nullptr);
      const wr::PipelineCall cg =
          make_call(r, poses, &got, k.per_env_intrinsics ? &intrinsics : nullptr, frame, history ? &latency : nullptr);
      cpu_pipeline(r, cw, &cpu_state, &want);
      emulated_pipeline(r, cg, &gpu_state, &got);
      INFO("frame " << frame);
      CHECK(got.out == want.out);
      CHECK(got.bad_mask == want.bad_mask);
      CHECK(got.bad_mask == std::vector<uint8_t>{0, 0, 0, 1, 0});
      CHECK((got.bad_count == 1 && want.bad_count == 1));
      CHECK(got.overflows == want.overflows);
      size_t written = 0;
      for (uint16_t w : want.out) written += w != 0xEEEE;
      CHECK(written > want.out.size() / 2);
      // poses move between frames, so that the history holds different images
      for (size_t i = 0; i < poses.size(); i += 7) poses[i] += 0.05f;
    }
    CHECK(gpu_state.history == cpu_state.history);
  }
}

TEST_CASE("an emulated launch of the pipeline's kernels through instances equals the CPU backend bit for bit") {
  const wr::Mesh mesh = small_terrain();
  PipelineRig r = pipeline_rig(mesh, 4);
  // Two prototypes (a box, and the terrain's own mesh shrunk), 3 slots per env and a global one.
  std::vector<float> small = mesh.vertices;
  for (float& v : small) v *= 0.05f;
  const wr::Bvh protos[2] = {gpu_bvh(kBoxVertices.data(), kBoxTriangles.data(), kBoxTriangles.size() / 3),
                             gpu_bvh(small.data(), mesh.indices.data(), mesh.num_triangles())};
  const wr::BvhView views[2] = {protos[0].view(), protos[1].view()};
  const uint32_t prototype[4] = {0, 1, 0, 1}, group[4] = {0, 1, 2, 3};
  const wr::InstanceView table{views, prototype, group, 3, 1};
  float lo[3], hi[3];
  wr_test::vertex_bounds(mesh.vertices, lo, hi);
  hi[2] += 2.0f;
  const std::vector<float> poses = wr_test::random_poses_in_box(8, r.num_envs, lo, hi);
  // Each env's slots 1.5-3 m ahead of its camera (+X of the body), turned; the global one in env 0's view.
  std::vector<float> slots, global = {poses[0] + 2.0f, poses[1], poses[2], 0.9f, 0.1f, 0.3f, 0.2f};
  for (uint32_t e = 0; e < r.num_envs; ++e) {
    wr::RigidTransform body{};
    REQUIRE(wr::pose_to_transform(&poses[7 * e], wr::kQuatWXYZ, &body));
    for (uint32_t s = 0; s < 3; ++s) {
      const wr::Vec3 p = body.pos + wr::rotate(body.rot, wr::Vec3{1.5f + 0.7f * s, 0.3f * s - 0.3f, -0.2f});
      slots.insert(slots.end(), {p.x, p.y, p.z, 1.0f, 0.2f * s, 0.1f, -0.3f});
    }
  }
  slots[7 * (1 * 3 + 2) + 5] = kNaN;  // env 1, slot 2: a bad pose (the env is made invalid)
  for (const bool resampled : {false, true}) {
    INFO((resampled ? "bicubic (the camera-image kernel traces)" : "each output pixel traced alone, with ids"));
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
    o.exclude_groups = 1u << 2;
    if (resampled) o.out_width = 30, o.out_height = 19, o.resample = WR_RESAMPLE_BICUBIC;
    r.pipeline = wr::make_sensor_pipeline("test", r.desc, &o);
    PipelineStateBuffers cpu_state(r), gpu_state(r);
    PipelineOutputs want, got;
    wr::PipelineCall cw = make_call(r, poses, &want, nullptr, 0, nullptr);
    wr::PipelineCall cg = make_call(r, poses, &got, nullptr, 0, nullptr);
    const size_t pixels = size_t(r.num_envs) * r.pipeline.out_width * r.pipeline.out_height;
    std::vector<uint32_t> ids_w(pixels, 7u), ids_g(pixels, 7u);
    for (wr::PipelineCall* c : {&cw, &cg}) {
      c->instances = table;
      c->instance_poses = slots.data();
      c->global_poses = global.data();
    }
    if (!resampled) cw.channels.instance_ids = ids_w.data(), cg.channels.instance_ids = ids_g.data();
    cpu_pipeline(r, cw, &cpu_state, &want);
    emulated_pipeline(r, cg, &gpu_state, &got);
    CHECK(got.out == want.out);
    CHECK(got.bad_mask == std::vector<uint8_t>{0, 1, 0, 0});
    CHECK(want.bad_mask == got.bad_mask);
    CHECK(ids_g == ids_w);
    if (!resampled) {
      size_t seen[4] = {0, 0, 0, 0};
      for (uint32_t id : ids_w)
        if (id != wr::kInvalidIndex) ++seen[id];
      CAPTURE(seen[0], seen[1], seen[2], seen[3]);
      CHECK(seen[0] > 0);
      CHECK(seen[1] > 0);
      CHECK(seen[2] == 0);  // excluded group
    }
  }
}

namespace {

// The plain render and the pipeline's, each over a terrain alone and through instances, whose
// blocks prepare their env's instances in shared memory (a few instances) or leave each ray to
// (more than kMaxBlockInstanceBytes hold): the kernels' instantiations for the terrain `traced` (of
// any kind), each against the CPU job compiled for the same set over the BVH `bvh` of the same
// triangles (vertices `vertices`), and the CPU job over `traced` too.
void check_every_feature_set(const wr::Bvh& bvh, const std::vector<float>& vertices, const wr::TerrainView& traced) {
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 29, 19, 87.0f);
  desc.miss_value = 3.0f;
  const uint32_t num_envs = 3, slots = 2;
  std::vector<wr::TemplateRay> rays(size_t(desc.width) * desc.height);
  wr::build_ray_template(desc, rays.data());
  const wr::Bvh proto = gpu_bvh(kBoxVertices.data(), kBoxTriangles.data(), kBoxTriangles.size() / 3);
  const wr::BvhView views[1] = {proto.view()};
  float lo[3], hi[3];
  wr_test::vertex_bounds(vertices, lo, hi);
  hi[2] += 2.0f;
  const std::vector<float> poses = wr_test::random_poses_in_box(13, num_envs, lo, hi);
  std::vector<float> slot_poses;  // each env's slots 1.5 and 2.2 m ahead of its camera
  for (uint32_t e = 0; e < num_envs; ++e) {
    wr::RigidTransform body{};
    REQUIRE(wr::pose_to_transform(&poses[7 * e], wr::kQuatWXYZ, &body));
    for (uint32_t s = 0; s < slots; ++s) {
      const wr::Vec3 p = body.pos + wr::rotate(body.rot, wr::Vec3{1.5f + 0.7f * s, 0.2f * s - 0.1f, 0.0f});
      slot_poses.insert(slot_poses.end(), {p.x, p.y, p.z, 1.0f, 0.1f * s, 0.2f, 0.0f});
    }
  }
  const uint32_t shared_limit = wr::cuda::kMaxBlockInstanceBytes / uint32_t(sizeof(wr::PreparedInstance));
  for (const uint32_t globals : {1u, shared_limit + 7}) {
    // Global instances on a ring around env 0's camera, some in its view.
    std::vector<float> global_poses;
    for (uint32_t g = 0; g < globals; ++g) {
      const float a = 6.2831853f * float(g) / float(globals), r = 2.0f + float(g % 5);
      global_poses.insert(global_poses.end(),
                          {poses[0] + r * std::cos(a), poses[1] + r * std::sin(a), poses[2], 1, 0, 0, 0.3f});
    }
    std::vector<uint32_t> prototype(slots + globals, 0u), group(slots + globals, 0u);
    const wr::InstanceView table{views, prototype.data(), group.data(), slots, globals};
    for (const bool pipeline : {false, true})
      for (const bool instanced : {false, true}) {
        if (!instanced && globals > 1) continue;  // the same as with one
        const wr::RenderFeatureSet reference{pipeline, instanced};
        const wr::RenderFeatureSet features{pipeline, instanced, traced.kind};
        INFO((pipeline ? "pipeline" : "plain") << (instanced ? ", instances" : "") << ", " << globals << " globals, "
                                               << "terrain kind " << int(traced.kind));
        wr_sensor_options o;
        wr_sensor_options_init(&o);
        if (pipeline) o.normalize = 1, o.norm_b = 4, o.dtype = WR_DTYPE_FLOAT16;  // the output stage
        const wr::SensorPipeline sp = wr::make_sensor_pipeline("test", desc, &o);
        REQUIRE(sp.active == pipeline);
        const size_t pixels = size_t(num_envs) * sp.out_width * sp.out_height;
        std::vector<uint32_t> want_ids(pixels, 7u), got_ids(pixels, 7u);
        std::vector<unsigned char> want(num_envs * sp.out_bytes_per_env, 0xEE), got(want), cpu(want);
        std::vector<uint32_t> cpu_ids(pixels, 7u);
        // Each pixel's surface channels (triangle, point, normal as float bits).
        struct Surface {
          std::vector<uint32_t> triangles, points, normals;
          explicit Surface(size_t n) : triangles(n, 7u), points(3 * n, 7u), normals(3 * n, 7u) {}
          bool operator==(const Surface& o) const {
            return triangles == o.triangles && points == o.points && normals == o.normals;
          }
        };
        Surface want_surface(pixels), got_surface(pixels), cpu_surface(pixels);
        auto call = [&](void* out, uint32_t* ids, Surface* surface) {
          wr::PipelineCall c{};
          c.body_poses = poses.data();
          c.pose_stride = 7;
          c.out = out;
          if (pipeline)
            c.channels =
                wr::OutputChannels{ids, surface->triangles.data(), reinterpret_cast<float*>(surface->points.data()),
                                   reinterpret_cast<float*>(surface->normals.data())};
          if (instanced)
            c.instances = table, c.instance_poses = slot_poses.data(), c.global_poses = global_poses.data();
          return c;
        };
        const wr::PipelineCall cw = call(want.data(), want_ids.data(), &want_surface);
        const wr::PipelineCall cg = call(got.data(), got_ids.data(), &got_surface);
        const wr::PipelineCall cc = call(cpu.data(), cpu_ids.data(), &cpu_surface);
        REQUIRE(wr::render_features(sp, cw).pipeline == pipeline);
        REQUIRE(wr::render_features(sp, cw).instances == instanced);
        // The CPU job for the set, over the BVH; then over `traced`.
        wr::ThreadPool pool(2);
        std::atomic<uint64_t> overflows{0};
        std::vector<wr::PreparedInstance> prepared(2ull * (slots + globals));
        wr::CpuRenderJob job{};
        job.terrain = wr::bvh_terrain(bvh.view());
        job.rays = rays.data();
        job.params = &sp.params;
        job.call = cw;
        job.features = reference;
        job.num_envs = num_envs;
        job.thread_instances = prepared.data();
        job.num_instances = instanced ? slots + globals : 0;
        job.stack_overflows = &overflows;
        wr::cpu_render(pool, job);
        const uint64_t reference_overflows = overflows.load();
        job.terrain = traced;
        job.call = cc;
        job.features = features;
        wr::cpu_render(pool, job);
        CHECK(cpu == want);
        CHECK(cpu_ids == want_ids);
        CHECK(cpu_surface == want_surface);
        // The kernels, as launched for it: blocks that share their instances while they fit.
        const wr::cuda::RenderGrids grids = wr::cuda::render_grids(sp.params, cg, features, num_envs);
        CHECK(grids.block_instances == (instanced && globals < shared_limit ? slots + globals : 0u));
        const wr_test::EmulatedResult e =
            wr_test::emulate_render(features, traced, rays.data(), sp.params, cg, wr::PipelineState{}, num_envs);
        CHECK(got == want);
        CHECK(got_ids == want_ids);
        CHECK(got_surface == want_surface);
        if (traced.kind == wr::TerrainKind::kBvh) CHECK(e.overflows == reference_overflows);
        size_t hit_instances = 0, hit_triangles = 0;
        for (uint32_t id : want_ids) hit_instances += id != wr::kInvalidIndex && id != 7u;
        for (uint32_t id : want_surface.triangles) hit_triangles += id != wr::kInvalidIndex && id != 7u;
        if (pipeline && instanced) CHECK(hit_instances > 0);  // the instances are seen: equality means something
        if (pipeline) CHECK(hit_triangles > pixels / 4);      // and the surfaces
      }
  }
}

}  // namespace

TEST_CASE(
    "every feature set's emulated launch equals the CPU backend bit for bit, its blocks' instances shared or not") {
  const wr::Mesh mesh = small_terrain();
  const wr::Bvh bvh = gpu_bvh(mesh);
  check_every_feature_set(bvh, mesh.vertices, wr::bvh_terrain(bvh.view()));
}

TEST_CASE("the grid kinds' emulated launches and CPU renders equal the BVH's bit for bit, in every feature set") {
  // A rough height field with a base (the grid kind, its sides a BVH of their own), and the same
  // field as legged_gym's grid mesh with walls (the grid-mesh kind), each against the BVH a CUDA
  // context builds of the same triangles.
  const uint32_t nx = 40, ny = 33;
  std::vector<float> heights(size_t(nx) * ny);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (uint32_t iy = 0; iy < ny; ++iy)
    for (uint32_t ix = 0; ix < nx; ++ix)
      heights[size_t(iy) * nx + ix] = (ix / 6 + iy / 5) % 3 == 0 ? 0.4f + 0.05f * u(rng) : 0.1f * u(rng);
  wr_heightfield_desc d;
  wr_heightfield_desc_init(&d);
  d.heights = heights.data();
  d.num_x = nx, d.num_y = ny;
  d.spacing_x = 0.1f, d.spacing_y = 0.12f;
  d.origin[0] = -1.5f, d.origin[1] = -2.0f, d.origin[2] = -0.3f;
  d.base_depth = 0.2f;
  const wr::Mesh field = wr::triangulate_heightfield("test", d);
  const wr::Bvh field_bvh = gpu_bvh(field);
  wr::GridTerrainData grid;
  REQUIRE(wr::build_grid_terrain("test", d, wr::cuda::bvh_build_options(), &grid));
  wr::TerrainView traced;
  traced.kind = wr::TerrainKind::kGrid;
  traced.grid = grid.view();
  SECTION("height field") { check_every_feature_set(field_bvh, field.vertices, traced); }

  wr_tools::RawField raw{48, 37, std::vector<int16_t>(48 * 37)};
  for (size_t k = 0; k < raw.h.size(); ++k) raw.h[k] = int16_t((k / 7 + k % 37 / 4) % 3 == 0 ? 80 : rng() % 6);
  const wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(raw, 0.1, 0.005, 0.75);
  const wr::Bvh mesh_bvh = gpu_bvh(m.vertices.data(), m.indices.data(), m.indices.size() / 3);
  wr::GridMeshData mesh_grid;
  REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), m.vertices.size() / 3, m.indices.data(), m.indices.size() / 3,
                                      &mesh_grid));
  wr::TerrainView traced_mesh;
  traced_mesh.kind = wr::TerrainKind::kGridMesh;
  traced_mesh.grid_mesh = mesh_grid.view();
  SECTION("grid mesh") { check_every_feature_set(mesh_bvh, m.vertices, traced_mesh); }
}
