// Google Benchmark suite of the RL depth pipeline on the CPU backend, through the public C API:
// what each stage costs against the plain depth render of the same cameras (the same scene,
// poses, threads, in one process), and what each option holds per env.
//   build/benchmarks/wr-bench-pipeline [--benchmark_repetitions=3 --benchmark_enable_random_interleaving=true]
// Each case reports ms per render, rays/s of the camera and per_env_bytes (wr_sensor_memory);
// the ratios against "plain" are the figures (benchmarks/results/pipeline-*.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <wr/wr.h>

#include "splitmix64.h"

namespace {

const char* kTerrain = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
constexpr uint32_t kEnvs = 256, kW = 106, kH = 60;

void check(wr_status s) {
  if (s != WR_SUCCESS) throw std::runtime_error(wr_last_error());
}

struct Fixture {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  std::vector<float> poses;        // (kEnvs x 7) robots' bases 0.35 m over the terrain's ground, random yaw
  std::vector<float> root_states;  // (kEnvs x 13) the same, as IsaacGym root states
  Fixture() {
    check(wr_context_create(WR_DEVICE_CPU, 0, &context));
    check(wr_scene_load_obj(context, kTerrain, &scene));
    float lo[3], hi[3];
    check(wr_scene_bounds(scene, lo, hi));
    // The ground under each robot, probed with explicit rays: a base 0.35 m above it.
    wr_tools::SplitMix64 rng{5};
    std::vector<float> o, d, t(kEnvs);
    for (uint32_t e = 0; e < kEnvs; ++e) {
      o.insert(o.end(), {rng.uniform(lo[0] + 2, hi[0] - 2), rng.uniform(lo[1] + 2, hi[1] - 2), hi[2] + 1});
      d.insert(d.end(), {0, 0, -1});
    }
    check(wr_scene_intersect(scene, o.data(), d.data(), nullptr, kEnvs, t.data(), nullptr, nullptr));
    for (uint32_t e = 0; e < kEnvs; ++e) {
      const float yaw = rng.uniform(-3.14159f, 3.14159f);
      const float z = std::isfinite(t[e]) ? o[3 * e + 2] - t[e] + 0.35f : 0.5f;
      const float pose[7] = {o[3 * e], o[3 * e + 1], z, std::cos(yaw / 2), 0, 0, std::sin(yaw / 2)};
      poses.insert(poses.end(), pose, pose + 7);
      root_states.insert(root_states.end(), pose, pose + 7);
      root_states.insert(root_states.end(), 6, 0.0f);
    }
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

wr_camera_desc camera() {
  wr_camera_desc d;
  check(wr_camera_desc_pinhole(&d, kW, kH, 87.0f));
  d.mount_position[0] = 0.27f, d.mount_position[2] = 0.03f;
  check(wr_camera_desc_set_mount_angles(&d, 15.0f, 0, 0));
  return d;
}

// extreme-parkour's pipeline (wr-demo --preset extreme-parkour): crop [:-2, 4:-4], clip [0, 2],
// bicubic to 87 x 58, (d - 0) / 2 - 0.5, history 2 fed the previous frame.
void parkour(wr_sensor_options& o, wr_camera_desc& d) {
  o.crop_x = 4, o.crop_width = 98, o.crop_height = 58, o.out_width = 87, o.out_height = 58;
  o.resample = WR_RESAMPLE_BICUBIC, o.clip = 1, o.clip_max = 2, o.normalize = 1, o.norm_b = 2, o.norm_c = -0.5f;
  o.history_length = 2;
  d.miss_value = 2.0f;
}

void stereo(wr_sensor_options& o) {
  o.noise.seed = 1, o.noise.min_range = 0.1f, o.noise.disparity_focal_baseline = 21.0f;
  o.noise.disparity_step = 1.0f / 16, o.noise.range_sigma[0] = 0.001f, o.noise.range_sigma[2] = 0.005f;
  o.noise.dropout_probability = 0.01f, o.noise.edge_threshold = 0.05f, o.noise.edge_probability = 0.3f;
}

struct Case {
  const char* name;
  std::function<void(wr_sensor_options&, wr_camera_desc&)> options;
  // what the render passes: per-env intrinsics, mounts, latency 1, root states (stride 13)
  bool intrinsics, mounts, latency, root_states;
};

void run_case(benchmark::State& state, const Case& c, bool plain_call) {
  Fixture& f = fixture();
  wr_camera_desc desc = camera();
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  if (c.options) c.options(o, desc);
  wr_sensor sensor;
  check(wr_sensor_create_ex(f.scene, &desc, &o, kEnvs, &sensor));
  uint64_t bytes = 0;
  check(wr_sensor_output_shape(sensor, nullptr, nullptr, nullptr, &bytes));
  std::vector<unsigned char> out(kEnvs * bytes);
  std::vector<float> k, mounts;
  std::vector<uint32_t> latency(kEnvs, 1);
  wr_tools::SplitMix64 rng{9};
  for (uint32_t e = 0; e < kEnvs; ++e) {
    const float f87 = desc.fx * rng.uniform(0.97f, 1.03f);  // Robot Parkour Learning: hfov 85-88 degrees
    k.insert(k.end(), {f87, f87, desc.cx, desc.cy});
    wr_camera_desc m = desc;
    check(wr_camera_desc_set_mount_angles(&m, rng.uniform(10.0f, 20.0f), 0, 0));
    mounts.insert(mounts.end(), m.mount_position, m.mount_position + 3);
    mounts.insert(mounts.end(), m.mount_rotation, m.mount_rotation + 4);
  }
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = c.root_states ? f.root_states.data() : f.poses.data();
  a.pose_stride = c.root_states ? 13 : 0;
  a.intrinsics = c.intrinsics ? k.data() : nullptr;
  a.mounts = c.mounts ? mounts.data() : nullptr;
  a.latency = c.latency ? latency.data() : nullptr;
  a.out = out.data();
  a.out_bytes = out.size();
  uint64_t frame = 0;
  for (auto _ : state) {
    if (plain_call) {
      check(wr_sensor_render(sensor, f.poses.data(), reinterpret_cast<float*>(out.data()), nullptr));
    } else {
      a.frame = frame++;
      check(wr_sensor_render_ex(sensor, &a));
    }
  }
  wr_memory_stats m{};
  check(wr_sensor_memory(sensor, &m));
  state.counters["rays/s"] = benchmark::Counter(double(kEnvs) * kW * kH, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["per_env_bytes"] = double(m.per_env_bytes);
  wr_sensor_release(sensor);
}

const Case kCases[] = {
    {"crop", [](wr_sensor_options& o, wr_camera_desc&) { o.crop_x = 4, o.crop_width = 98, o.crop_height = 58; }, false,
     false, false, false},
    {"clip+normalise",
     [](wr_sensor_options& o, wr_camera_desc&) {
       o.clip = 1, o.clip_max = 2, o.normalize = 1, o.norm_b = 2, o.norm_c = -0.5f;
     },
     false, false, false, false},
    {"bicubic 87x58",
     [](wr_sensor_options& o, wr_camera_desc&) {
       o.out_width = 87, o.out_height = 58, o.resample = WR_RESAMPLE_BICUBIC;
     },
     false, false, false, false},
    {"area 53x30",
     [](wr_sensor_options& o, wr_camera_desc&) { o.out_width = 53, o.out_height = 30, o.resample = WR_RESAMPLE_AREA; },
     false, false, false, false},
    {"float16", [](wr_sensor_options& o, wr_camera_desc&) { o.dtype = WR_DTYPE_FLOAT16; }, false, false, false, false},
    {"uint16 mm", [](wr_sensor_options& o, wr_camera_desc&) { o.dtype = WR_DTYPE_UINT16_MM; }, false, false, false,
     false},
    {"history 2, latency 1", [](wr_sensor_options& o, wr_camera_desc&) { o.history_length = 2; }, false, false, true,
     false},
    {"per-env intrinsics", nullptr, true, false, false, false},
    {"per-env mounts", nullptr, false, true, false, false},
    {"root states (stride 13)", nullptr, false, false, false, true},
    {"Gaussian noise", [](wr_sensor_options& o, wr_camera_desc&) { o.noise.seed = 1, o.noise.range_sigma[2] = 0.005f; },
     false, false, false, false},
    {"stereo noise (all models)", [](wr_sensor_options& o, wr_camera_desc&) { stereo(o); }, false, false, false, false},
    {"extreme-parkour", [](wr_sensor_options& o, wr_camera_desc& d) { parkour(o, d); }, false, true, true, false},
    {"extreme-parkour + stereo noise",
     [](wr_sensor_options& o, wr_camera_desc& d) {
       parkour(o, d);
       stereo(o);
     },
     false, true, true, false},
};

int register_cases() {
  benchmark::RegisterBenchmark("pipeline/plain",
                               [](benchmark::State& s) {
                                 run_case(s, Case{"plain", nullptr, false, false, false, false}, true);
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (const Case& c : kCases)
    benchmark::RegisterBenchmark((std::string("pipeline/") + c.name).c_str(),
                                 [&c](benchmark::State& s) { run_case(s, c, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return 0;
}
const int kRegistered = register_cases();

}  // namespace

BENCHMARK_MAIN();
