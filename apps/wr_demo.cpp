// wr-demo: renders the depth images of a batch of parkour robots over a terrain mesh and
// reports scene size, BVH build time, render time, rays/s and memory.
//
// Written only against the public API (<wr/wr.hpp> over <wr/wr.h>), as a user would. The camera
// imitates extreme-parkour's (Cheng et al., "Extreme Parkour with Legged Robots", ICRA 2024):
// 106 x 60 pixels, 87 degrees horizontal FOV, mounted 0.27 m ahead of the base and pitched down.
// Outputs: a 4x4 contact sheet PNG of 16 images (the most varied) and the whole (N x H x W) float32
// tensor as .npy. --self-occlusion gives each robot a body of moving boxes (an instanced scene,
// through the C API: wr.hpp does not wrap instances) that its camera sees its own legs of.
// --height-scan and --lidar render a pattern sensor instead (wr.h, "Ray patterns"): IsaacLab's
// height scanner (heights.npy [N, 187]) or a 16-channel LiDAR (distances.npy [N, 28800]).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include <wr/wr.hpp>

#include "contact_sheet.h"
#include "npy.h"
#include "pattern_demo.h"
#include "quadruped.h"
#include "render_timing.h"
#include "splitmix64.h"

namespace {

namespace fs = std::filesystem;
using wr_demo::Clock;
using wr_demo::ms_since;
using wr_demo::time_renders;
using wr_demo::Timing;
constexpr float kPi = 3.14159265358979f;

/// An error of the demo's own (bad option value, unwritable output): exit code 2 like a bad file.
struct DemoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads "VmRSS" and "VmHWM" (peak RSS) of this process from /proc/self/status, in MiB;
/// {-1, -1} where /proc is not available.
struct Rss {
  double current = -1, peak = -1;
};
Rss read_rss() {
  Rss r;
  std::ifstream in("/proc/self/status");
  std::string key;
  double kib = 0;
  while (in >> key) {
    if (key == "VmRSS:" && in >> kib) r.current = kib / 1024.0;
    if (key == "VmHWM:" && in >> kib) r.peak = kib / 1024.0;
  }
  return r;
}
void print_rss(const char* when, const Rss& r) {
  std::printf("  memory %-28s RSS %8.1f MiB, peak %8.1f MiB\n", when, r.current, r.peak);
}

/// Quaternion (w, x, y, z) of a rotation by `angle` radians about the unit axis (ax, ay, az).
void axis_angle_wxyz(float ax, float ay, float az, float angle, float* q) {
  const float s = std::sin(angle / 2);
  q[0] = std::cos(angle / 2), q[1] = ax * s, q[2] = ay * s, q[3] = az * s;
}

/// A ground probe for n envs: a 1x1 sensor whose optical axis (+X) is turned to -Z (a +90
/// degree pitch about +Y), WR_DEPTH_RANGE, so that its one pixel measures the drop to the ground.
wr::Sensor make_ground_probe(const wr::Scene& scene, uint32_t n) {
  wr_camera_desc desc = wr::pinhole(1, 1, 60.0f);  // the one centre ray is the optical axis
  desc.depth_kind = WR_DEPTH_RANGE;
  axis_angle_wxyz(0, 1, 0, kPi / 2, desc.mount_rotation);
  return wr::Sensor(scene, desc, n);
}

/// Ground height under each (x, y) of `xy` ((n x 2) floats), found by the library itself: the
/// probe's n envs start at z = start_z above the scene and look down. Returns n heights; NaN
/// where the ray hits nothing.
std::vector<float> probe_ground(wr::Sensor& probe, const std::vector<float>& xy, float start_z) {
  const uint32_t n = uint32_t(xy.size() / 2);
  std::vector<float> poses(size_t(n) * 7), depth(n);  // (n x 7), (n x 1 x 1)
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[size_t(i) * 7];
    p[0] = xy[2 * i], p[1] = xy[2 * i + 1], p[2] = start_z;
    p[3] = 1, p[4] = p[5] = p[6] = 0;
  }
  probe.render(poses.data(), depth.data());
  std::vector<float> ground(n);
  for (uint32_t i = 0; i < n; ++i)
    ground[i] = std::isfinite(depth[i]) ? start_z - depth[i] : std::numeric_limits<float>::quiet_NaN();
  return ground;
}

/// Body poses ((n x 7) floats, position + quaternion w x y z) of n robots standing on the
/// terrain: a grid over the inner 80% of the scene's x-y bounds, jittered by up to a quarter
/// cell, random yaw, base 0.3-0.4 m above the highest ground under the robot's footprint. The
/// footprint is probed at the base, its four corners (a quadruped's body, about 0.4 x 0.24 m),
/// the camera and 0.25 m ahead of the camera, so that neither the body nor the camera ends up
/// inside a step, a hurdle or a box, or a few centimetres in front of one.
std::vector<float> place_robots(const wr::Scene& scene, uint32_t n, float camera_ahead, uint32_t* misses) {
  const wr::Scene::Bounds b = scene.bounds();
  const uint32_t cols = uint32_t(std::ceil(std::sqrt(double(n))));
  const uint32_t rows = (n + cols - 1) / cols;
  const float x0 = b.min[0] + 0.1f * (b.max[0] - b.min[0]), y0 = b.min[1] + 0.1f * (b.max[1] - b.min[1]);
  const float cell_x = 0.8f * (b.max[0] - b.min[0]) / cols, cell_y = 0.8f * (b.max[1] - b.min[1]) / rows;
  wr_tools::SplitMix64 rng{2024};
  std::vector<float> poses(size_t(n) * 7);  // (n x 7); the z are filled in below
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[size_t(i) * 7];
    p[0] = x0 + (float(i % cols) + 0.5f + rng.uniform(-0.25f, 0.25f)) * cell_x;
    p[1] = y0 + (float(i / cols) + 0.5f + rng.uniform(-0.25f, 0.25f)) * cell_y;
    axis_angle_wxyz(0, 0, 1, rng.uniform(-kPi, kPi), p + 3);
  }
  // Footprint probe points in the body frame: (forward, left) metres. (7 x 2)
  const float footprint[7][2] = {{0, 0},          {0.2f, 0.12f},     {0.2f, -0.12f},           {-0.2f, 0.12f},
                                 {-0.2f, -0.12f}, {camera_ahead, 0}, {camera_ahead + 0.25f, 0}};
  const float start_z = b.max[2] + 1.0f;
  wr::Sensor probe = make_ground_probe(scene, n);
  std::vector<float> ground(n, std::numeric_limits<float>::quiet_NaN()), xy(size_t(n) * 2);  // (n), (n x 2)
  for (const auto& f : footprint) {
    for (uint32_t i = 0; i < n; ++i) {
      const float* p = &poses[size_t(i) * 7];
      const float yaw = 2 * std::atan2(p[6], p[3]);  // the quaternion is a pure yaw
      xy[2 * i] = p[0] + f[0] * std::cos(yaw) - f[1] * std::sin(yaw);
      xy[2 * i + 1] = p[1] + f[0] * std::sin(yaw) + f[1] * std::cos(yaw);
    }
    const std::vector<float> g = probe_ground(probe, xy, start_z);
    for (uint32_t i = 0; i < n; ++i) ground[i] = std::fmax(ground[i], g[i]);  // fmax ignores a NaN (a miss)
  }
  *misses = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (std::isnan(ground[i])) ground[i] = b.min[2], ++*misses;  // nothing below: stand on the lowest level
    poses[size_t(i) * 7 + 2] = ground[i] + rng.uniform(0.3f, 0.4f);
  }
  return poses;
}

using wr_demo::write_npy;  // tools/common/npy.h

/// Parses "WxH" (e.g. "106x60") into width and height, both >= 1.
void parse_resolution(const std::string& s, uint32_t* width, uint32_t* height) {
  unsigned long w = 0, h = 0;
  char x = 0, rest = 0;
  if (std::sscanf(s.c_str(), "%lu%c%lu%c", &w, &x, &h, &rest) != 3 || (x != 'x' && x != 'X') || w == 0 || h == 0 ||
      w > 1u << 16 || h > 1u << 16)
    throw DemoError("--resolution: expected WxH with positive integers (e.g. 106x60), got '" + s + "'");
  *width = uint32_t(w), *height = uint32_t(h);
}

std::string default_terrain() {
#ifdef WR_DEFAULT_TERRAIN
  if (fs::exists(WR_DEFAULT_TERRAIN)) return WR_DEFAULT_TERRAIN;
#endif
  return "assets/parkour_terrain.obj";  // relative to the working directory
}

struct Options {
  std::string obj = default_terrain();
  uint32_t envs = 64, width = 106, height = 60, threads = 0, repeats = 10;
  std::string resolution, depth_kind = "plane", out = "demo_out", preset = "none", dtype = "f32", noise = "none";
  float hfov = 87.0f, pitch = 30.0f, far_clip = std::numeric_limits<float>::infinity();
  bool self_occlusion = false;
  bool height_scan = false, lidar = false;
};

// --self-occlusion's camera pitch unless --pitch is given: steep enough that the front legs, which
// hang below the camera, are at the bottom of the image.
constexpr float kSelfOcclusionPitch = 60.0f;

// extreme-parkour's depth pipeline (Cheng et al., ICRA 2024; its legged_robot_config.py, class
// depth): 106 x 60 at 87 degrees, mount [0.27, 0, 0.03] pitched by U[-5, 5] degrees per env, crop
// [:-2, 4:-4] (98 x 58), clip to [0, 2] m with misses at the far clip (IsaacGym's -inf clipped),
// bicubic resize to 87 x 58, (d - 0) / (2 - 0) - 0.5, no clamp, buffer_len 2 fed its previous frame.
constexpr float kParkourFar = 2.0f;
wr_sensor_options parkour_options() {
  wr_sensor_options o = wr::sensor_options();
  o.crop_x = 4, o.crop_y = 0, o.crop_width = 98, o.crop_height = 58;
  o.out_width = 87, o.out_height = 58, o.resample = WR_RESAMPLE_BICUBIC;
  o.clip = 1, o.clip_min = 0.0f, o.clip_max = kParkourFar;
  o.normalize = 1, o.norm_a = 0.0f, o.norm_b = kParkourFar, o.norm_c = -0.5f;
  o.history_length = 2;
  return o;
}

// A stereo depth camera's error (an active stereo pair like Intel's D435: 5 cm baseline, 420 px
// focal length at its native resolution, disparity in 1/16 px): a too-close band, disparity
// quantisation, error growing with the square of depth, dropout, and edges that fail to match.
void stereo_noise(wr_noise_desc* n) {
  n->seed = 1;
  n->min_range = 0.1f;
  n->disparity_focal_baseline = 420.0f * 0.05f;
  n->disparity_step = 1.0f / 16.0f;
  n->range_sigma[0] = 0.001f, n->range_sigma[2] = 0.005f;
  n->dropout_probability = 0.01f;
  n->edge_threshold = 0.05f, n->edge_probability = 0.3f;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(float(m), -24);
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : (sign ? -1.0f : 1.0f) * INFINITY;
  const uint32_t bits = sign | ((e + 112u) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// ---- --self-occlusion: a robot body of instances that the camera sees its own legs of ----------

/// C API handles, released when they go (wr.hpp does not wrap instanced scenes yet).
using SceneHandle = std::unique_ptr<std::remove_pointer_t<wr_scene>, decltype(&wr_scene_release)>;
using SensorHandle = std::unique_ptr<std::remove_pointer_t<wr_sensor>, decltype(&wr_sensor_release)>;

void check(wr_status status) {
  if (status != WR_SUCCESS) throw wr::Error(status, wr_last_error());
}

SensorHandle make_sensor(wr_scene scene, const wr_camera_desc& desc, const wr_sensor_options& options, uint32_t n) {
  wr_sensor s = nullptr;
  check(wr_sensor_create_ex(scene, &desc, &options, n, &s));
  return SensorHandle(s, &wr_sensor_release);
}

wr::Scene scene_from_mesh(const wr::Context& ctx, const wr_tools::TriangleMesh& m) {
  return wr::Scene::from_arrays(ctx, m.vertices.data(), m.vertices.size() / 3, m.indices.data(), m.indices.size() / 3);
}

/// The demo's robots (body poses `poses`, (n x 7)) each with a quadruped body of 9 boxes over
/// `terrain`: the trunk at the body pose, four legs trotting at each env's own phase. The camera
/// `desc` sits inside the trunk; it excludes the trunk's group and sees the legs. Writes the
/// contact sheet, depth.npy and instance_ids.npy; 1 when no env sees a leg (or one sees its trunk).
int run_self_occlusion(const Options& opt, const wr::Context& ctx, const wr::Scene& terrain, const wr_camera_desc& desc,
                       const std::vector<float>& poses, uint32_t probe_misses, double load_ms) {
  using wr_demo::kQuadrupedSlots;
  const uint32_t n = opt.envs, width = desc.width, height = desc.height;
  if (desc.quat_order != WR_QUAT_WXYZ) throw DemoError("--self-occlusion poses its boxes in w x y z order");

  // The prototypes, each built once with its BVH: one box per distinct size (the trunk; the
  // thighs and shanks share one). Then the instanced scene: 9 slots per env over the terrain.
  const wr_demo::QuadrupedShape shape;
  Clock::time_point t0 = Clock::now();
  const wr::Scene trunk = scene_from_mesh(ctx, wr_demo::box_mesh(shape.trunk[0], shape.trunk[1], shape.trunk[2]));
  const wr::Scene segment =
      scene_from_mesh(ctx, wr_demo::box_mesh(shape.segment[0], shape.segment[1], shape.segment[2]));
  wr_scene prototypes[2];
  prototypes[wr_demo::kTrunkPrototype] = trunk.get(), prototypes[wr_demo::kSegmentPrototype] = segment.get();
  uint32_t slot_prototypes[kQuadrupedSlots], slot_groups[kQuadrupedSlots];
  wr_demo::quadruped_slots(slot_prototypes, slot_groups);
  wr_instanced_scene_desc sd;
  wr_instanced_scene_desc_init(&sd);
  sd.terrain = terrain.get();
  sd.prototypes = prototypes, sd.num_prototypes = 2;
  sd.slot_prototypes = slot_prototypes, sd.slot_groups = slot_groups, sd.num_slots = kQuadrupedSlots;
  wr_scene raw_scene = nullptr;
  check(wr_scene_create_instanced(ctx.get(), &sd, &raw_scene));
  const SceneHandle scene(raw_scene, &wr_scene_release);
  const double build_ms = ms_since(t0);

  // The body camera excludes the trunk it sits in; the same camera seeing every group shows why.
  wr_sensor_options o = wr::sensor_options();
  o.exclude_groups = 1u << wr_demo::kTrunkGroup;
  const SensorHandle camera = make_sensor(scene.get(), desc, o, n);
  const SensorHandle unexcluded = make_sensor(scene.get(), desc, wr::sensor_options(), n);

  // Each env's body: (n x 9 x 7) world poses, the legs at a gait phase of the env's own.
  std::vector<float> instance_poses(size_t(n) * kQuadrupedSlots * 7);
  wr_tools::SplitMix64 gait{11};
  for (uint32_t e = 0; e < n; ++e)
    wr_demo::quadruped_poses(shape, &poses[size_t(e) * 7], gait.uniform(0.0f, 2 * kPi),
                             &instance_poses[size_t(e) * kQuadrupedSlots * 7]);

  const size_t pixels = size_t(n) * height * width;
  std::vector<float> depth(pixels), unexcluded_depth(pixels);  // (n x height x width) metres
  std::vector<uint32_t> ids(pixels), unexcluded_ids(pixels);   // (n x height x width) slot, or UINT32_MAX
  wr_render_args args;
  wr_render_args_init(&args);
  args.body_poses = poses.data();
  args.out = depth.data(), args.out_bytes = pixels * sizeof(float);
  args.instance_poses = instance_poses.data();
  args.instance_ids = ids.data();
  const Timing t = time_renders(opt.repeats, [&] { check(wr_sensor_render_ex(camera.get(), &args)); });
  wr_render_args all = args;
  all.out = unexcluded_depth.data(), all.instance_ids = unexcluded_ids.data();
  check(wr_sensor_render_ex(unexcluded.get(), &all));

  // What each env sees of itself.
  size_t leg_pixels = 0, trunk_pixels = 0, unexcluded_trunk = 0, hits = 0;
  uint32_t envs_with_legs = 0;
  float dmin = std::numeric_limits<float>::infinity(), dmax = 0;
  for (uint32_t e = 0; e < n; ++e) {
    size_t env_legs = 0;
    for (size_t i = size_t(e) * height * width; i < size_t(e + 1) * height * width; ++i) {
      const uint32_t id = ids[i];
      if (id < kQuadrupedSlots && slot_groups[id] == wr_demo::kLegGroup) ++env_legs;
      if (id < kQuadrupedSlots && slot_groups[id] == wr_demo::kTrunkGroup) ++trunk_pixels;
      if (unexcluded_ids[i] < kQuadrupedSlots && slot_groups[unexcluded_ids[i]] == wr_demo::kTrunkGroup)
        ++unexcluded_trunk;
      if (std::isfinite(depth[i])) ++hits, dmin = std::min(dmin, depth[i]), dmax = std::max(dmax, depth[i]);
    }
    leg_pixels += env_legs;
    envs_with_legs += env_legs != 0;
  }

  const fs::path png = fs::path(opt.out) / "depth_contact_sheet.png";
  const fs::path npy = fs::path(opt.out) / "depth.npy";
  const fs::path ids_npy = fs::path(opt.out) / "instance_ids.npy";
  const std::vector<uint32_t> tiles = wr_demo::varied_envs(depth, n, height, width);
  const wr_demo::DisplayRange shown = wr_demo::percentile_range(depth, tiles, size_t(height) * width, true);
  wr_demo::write_contact_sheet(png, depth, tiles, height, width, 3, shown);
  write_npy(npy, depth, n, height, width);
  write_npy(ids_npy, ids.data(), ids.size() * sizeof(uint32_t), "<u4", n, height, width);

  const double rays = double(pixels);
  std::printf(
      "wr-demo --self-occlusion: %u robots of %u boxes (a trunk and four trotting two-segment legs), "
      "%ux%u depth camera inside the trunk (%.1f deg HFOV, pitched %d deg down, %s depth), "
      "%u CPU threads (%s path)\n",
      n, kQuadrupedSlots, width, height, double(opt.hfov), int(opt.pitch),
      desc.depth_kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE", ctx.num_threads(),
      wr_cpu_path_string(ctx.cpu_path()));
  std::printf("  terrain    %s: %llu triangles, BVH %.2f ms; %.2f ms with OBJ parsing and validation\n",
              opt.obj.c_str(), (unsigned long long)terrain.num_triangles(), terrain.build_seconds() * 1e3, load_ms);
  std::printf(
      "  body       prototypes: trunk box %.2fx%.2fx%.2f m, leg segment box %.2fx%.2fx%.2f m; %u slots per "
      "env (slot 0 the trunk, group %u; 1-8 thigh and shank of FL, FR, RL, RR, group %u); %.2f ms to build\n",
      double(shape.trunk[0]), double(shape.trunk[1]), double(shape.trunk[2]), double(shape.segment[0]),
      double(shape.segment[1]), double(shape.segment[2]), kQuadrupedSlots, wr_demo::kTrunkGroup, wr_demo::kLegGroup,
      build_ms);
  std::printf(
      "  render     best %.3f ms, mean %.3f ms over %u renders after 1 warm-up (depth and instance ids, "
      "exclude_groups = 0x%x); %.3g rays/s (best)\n",
      t.best_ms, t.mean_ms, opt.repeats, o.exclude_groups, rays / (t.best_ms * 1e-3));
  std::printf("  legs       %.2f%% of pixels hit a leg instance; %u of %u robots see their own legs\n",
              100.0 * double(leg_pixels) / rays, envs_with_legs, n);
  std::printf(
      "  trunk      %llu pixels see the excluded trunk; without exclude_groups it would fill %.1f%% of "
      "the pixels (the camera is inside it)\n",
      (unsigned long long)trunk_pixels, 100.0 * double(unexcluded_trunk) / rays);
  std::printf(
      "  hits       %.1f%% of pixels, depth %.3f - %.3f m; %llu stack overflows\n", 100.0 * double(hits) / rays,
      double(hits ? dmin : 0.0f), double(dmax), (unsigned long long)[&] {
        uint64_t overflows = 0;
        check(wr_sensor_stack_overflows(camera.get(), &overflows));
        return overflows;
      }());
  if (probe_misses) std::printf("  warning    %u robots found no ground below them\n", probe_misses);
  std::printf(
      "  wrote      %s (%u of %u images, the most varied; turbo colour map %s %.2f - %.2f m; grey = miss, magenta = "
      "invalid)\n",
      png.string().c_str(), std::min<uint32_t>(n, 16), n, shown.log_scale ? "log" : "linear", double(shown.near),
      double(shown.far));
  std::printf("  wrote      %s (float32 [%u, %u, %u], +inf = miss)\n", npy.string().c_str(), n, height, width);
  std::printf("  wrote      %s (uint32 [%u, %u, %u], the slot hit, 4294967295 = terrain or miss)\n",
              ids_npy.string().c_str(), n, height, width);
  if (envs_with_legs == 0) {
    std::fprintf(stderr, "wr-demo: error: no robot sees its own legs (pitch the camera further down: --pitch)\n");
    return 1;
  }
  if (trunk_pixels != 0) {
    std::fprintf(stderr, "wr-demo: error: the camera sees the trunk although it excludes its group\n");
    return 1;
  }
  return 0;
}

int run(const Options& opt) {
  const bool parkour = opt.preset == "extreme-parkour";
  uint32_t width = parkour ? 106 : opt.width, height = parkour ? 60 : opt.height;
  if (!opt.resolution.empty()) {
    if (parkour) throw DemoError("--resolution: the extreme-parkour preset renders 106x60");
    parse_resolution(opt.resolution, &width, &height);
  }
  if ((opt.height_scan || opt.lidar) && (parkour || opt.self_occlusion || opt.dtype != "f32" || opt.noise != "none"))
    throw DemoError(
        "--height-scan and --lidar render a pattern sensor: they take no --preset, --self-occlusion, "
        "--dtype or --noise");
  if (opt.self_occlusion && (parkour || opt.dtype != "f32" || opt.noise != "none"))
    throw DemoError(
        "--self-occlusion renders the float32 camera images and their instance ids: it takes no "
        "--preset, --dtype or --noise");
  const uint32_t n = opt.envs;
  fs::create_directories(opt.out);  // first, so that a bad --out fails before the long part

  const Rss rss_start = read_rss();
  wr::Context ctx = wr::Context::cpu(opt.threads);
  Clock::time_point t0 = Clock::now();
  wr::Scene scene = wr::Scene::load_obj(ctx, opt.obj);
  const double load_ms = ms_since(t0);
  const Rss rss_scene = read_rss();
  const wr::Scene::Bounds b = scene.bounds();

  // The camera: body frame +X forward; mount ahead of the base and up, pitched down (a positive
  // pitch turns +X towards -Z).
  wr_camera_desc desc = wr::pinhole(width, height, parkour ? 87.0f : opt.hfov);
  desc.depth_kind = opt.depth_kind == "range" && !parkour ? WR_DEPTH_RANGE : WR_DEPTH_PLANE;
  desc.far_clip = opt.far_clip;
  desc.mount_position[0] = 0.27f, desc.mount_position[2] = parkour ? 0.03f : 0.05f;
  wr::set_mount_angles(desc, parkour ? 0.0f : opt.pitch, 0.0f, 0.0f);
  // Each env's own mount (extreme-parkour draws the camera's pitch per env), (n x 7).
  std::vector<float> mounts;
  wr_tools::SplitMix64 angles{7};
  for (uint32_t e = 0; e < n; ++e) {
    wr_camera_desc m = desc;
    wr::set_mount_angles(m, parkour ? angles.uniform(-5.0f, 5.0f) : opt.pitch, 0.0f, 0.0f);
    mounts.insert(mounts.end(), m.mount_position, m.mount_position + 3);
    mounts.insert(mounts.end(), m.mount_rotation, m.mount_rotation + 4);
  }
  uint32_t probe_misses = 0;
  const std::vector<float> poses = place_robots(scene, n, desc.mount_position[0], &probe_misses);  // (n x 7)
  if (opt.self_occlusion) return run_self_occlusion(opt, ctx, scene, desc, poses, probe_misses, load_ms);
  if (opt.height_scan || opt.lidar)
    return wr_demo::run_pattern_demo({opt.obj, opt.envs, opt.repeats, opt.out, opt.height_scan}, ctx, scene, poses,
                                     load_ms);

  // The plain camera images (n x height x width), +inf where nothing is hit: what every pipeline
  // starts from, and what extreme-parkour's own torch code is checked against.
  wr::Sensor camera(scene, desc, n);
  std::vector<float> depth(camera.depth_size());
  wr_render_args plain = wr::render_args(poses.data(), depth.data(), depth.size() * sizeof(float));
  plain.mounts = mounts.data();
  const Timing plain_time = time_renders(opt.repeats, [&] { camera.render(plain); });
  const double best_ms = plain_time.best_ms, mean_ms = plain_time.mean_ms;
  const double rays = double(n) * width * height;

  // The policy's view through the pipeline, where asked for.
  const bool pipeline = parkour || opt.dtype != "f32" || opt.noise != "none";
  wr_sensor_options o = parkour ? parkour_options() : wr::sensor_options();
  o.dtype = opt.dtype == "f16" ? WR_DTYPE_FLOAT16 : opt.dtype == "u16" ? WR_DTYPE_UINT16_MM : WR_DTYPE_FLOAT32;
  if (opt.noise == "stereo") stereo_noise(&o.noise);
  wr_camera_desc policy_desc = desc;
  if (parkour) policy_desc.miss_value = kParkourFar;
  wr::Sensor policy(scene, policy_desc, o, n);
  const wr::Sensor::OutputShape shape = policy.output_shape();
  std::vector<unsigned char> out(size_t(n) * shape.bytes_per_env);
  const std::vector<uint32_t> latency(n, parkour ? 1u : 0u);  // extreme-parkour feeds the previous frame
  wr_render_args args = wr::render_args(poses.data(), out.data(), out.size());
  args.mounts = mounts.data();
  args.latency = latency.data();
  double policy_best_ms = 1e300;
  if (pipeline)  // the warm-up fills each env's history with its frame
    policy_best_ms = time_renders(opt.repeats, [&] { policy.render(args); }).best_ms;

  // What the contact sheet shows, in metres: the plain images, or the policy's values mapped back.
  const uint32_t sw = pipeline ? shape.width : width, sh = pipeline ? shape.height : height;
  std::vector<float> metres(size_t(n) * sw * sh);
  for (size_t i = 0; i < metres.size(); ++i) {
    float v = depth[i];
    if (pipeline) {
      if (shape.dtype == WR_DTYPE_FLOAT16)
        v = half_to_float(reinterpret_cast<const uint16_t*>(out.data())[i]);
      else if (shape.dtype == WR_DTYPE_UINT16_MM) {
        const uint16_t mm = reinterpret_cast<const uint16_t*>(out.data())[i];
        v = mm ? mm / 1000.0f : INFINITY;
      } else
        v = reinterpret_cast<const float*>(out.data())[i];
      if (o.normalize) v = (v - o.norm_c) * (o.norm_b - o.norm_a) + o.norm_a;
    }
    metres[i] = v;
  }
  size_t hits = 0;
  float dmin = std::numeric_limits<float>::infinity(), dmax = 0;
  for (float d : depth)
    if (std::isfinite(d)) ++hits, dmin = std::min(dmin, d), dmax = std::max(dmax, d);

  const fs::path png = fs::path(opt.out) / "depth_contact_sheet.png";
  const fs::path npy = fs::path(opt.out) / "depth.npy";
  const std::vector<uint32_t> tiles = wr_demo::varied_envs(metres, n, sh, sw);
  wr_demo::DisplayRange shown = wr_demo::percentile_range(metres, tiles, size_t(sw) * sh, !parkour);
  if (parkour) shown.near = 0.0f, shown.far = kParkourFar;
  wr_demo::write_contact_sheet(png, metres, tiles, sh, sw, parkour ? 4 : 3, shown);
  const char* descr = shape.dtype == WR_DTYPE_FLOAT16 ? "<f2" : shape.dtype == WR_DTYPE_UINT16_MM ? "<u2" : "<f4";
  if (pipeline)
    write_npy(npy, out.data(), out.size(), descr, n, shape.height, shape.width);
  else
    write_npy(npy, depth, n, height, width);
  const fs::path camera_npy = fs::path(opt.out) / "camera.npy";
  if (pipeline) write_npy(camera_npy, depth, n, height, width);

  std::printf(
      "wr-demo: %u robots, %ux%u depth camera (%.1f deg HFOV, pitched %s, %s depth), "
      "far clip %g m, %u CPU threads (%s path)%s\n",
      n, width, height, double(parkour ? 87.0f : opt.hfov),
      parkour ? "U[-5, 5] deg per env" : (std::to_string(int(opt.pitch)) + " deg down").c_str(),
      desc.depth_kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE", double(opt.far_clip), ctx.num_threads(),
      wr_cpu_path_string(ctx.cpu_path()), parkour ? ", preset extreme-parkour" : "");
  std::printf("  scene      %s\n", opt.obj.c_str());
  std::printf("  triangles  %llu, bounds [%.2f %.2f %.2f] - [%.2f %.2f %.2f] m\n",
              (unsigned long long)scene.num_triangles(), double(b.min[0]), double(b.min[1]), double(b.min[2]),
              double(b.max[0]), double(b.max[1]), double(b.max[2]));
  std::printf("  BVH build  %.2f ms (binned SAH, %u threads); %.2f ms with OBJ parsing and validation\n",
              scene.build_seconds() * 1e3, ctx.num_threads(), load_ms);
  std::printf("  render     best %.3f ms, mean %.3f ms over %u renders after 1 warm-up\n", best_ms, mean_ms,
              opt.repeats);
  std::printf("  rays/s     %.3g (best), %.3g (mean); %.0f rays per render\n", rays / (best_ms * 1e-3),
              rays / (mean_ms * 1e-3), rays);
  if (pipeline)
    std::printf("  pipeline   best %.3f ms per render into %ux%u %s (%.2fx the plain render)%s\n", policy_best_ms,
                shape.width, shape.height, opt.dtype.c_str(), policy_best_ms / best_ms,
                opt.noise == "stereo" ? ", stereo noise" : "");
  std::printf("  hits       %.1f%% of pixels, depth %.3f - %.3f m; %llu stack overflows\n",
              100.0 * double(hits) / double(depth.size()), double(hits ? dmin : 0.0f), double(dmax),
              (unsigned long long)camera.stack_overflows());
  if (probe_misses) std::printf("  warning    %u robots found no ground below them\n", probe_misses);
  print_rss("at start", rss_start);
  print_rss("after loading the scene", rss_scene);
  print_rss("at the end", read_rss());
  wr_memory_stats scene_mem{}, sensor_mem{}, policy_mem{};  // what the library itself accounts for
  if (wr_scene_memory(scene.get(), &scene_mem) == WR_SUCCESS &&
      wr_sensor_memory(camera.get(), &sensor_mem) == WR_SUCCESS &&
      wr_sensor_memory(policy.get(), &policy_mem) == WR_SUCCESS) {
    uint64_t nodes = 0, tris = 0, parents = 0;
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_NODES, &nodes, nullptr);
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_TRIANGLES, &tris, nullptr);
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_PARENTS, &parents, nullptr);
    std::printf(
        "  memory library: scene %.1f MiB (%.1f bytes/triangle: nodes %.1f, triangles %.1f, parents %.1f MiB), "
        "sensor %.3f MiB (ray template), %llu bytes per env",
        scene_mem.host_bytes / 1048576.0, double(scene_mem.host_bytes) / double(scene.num_triangles()),
        nodes / 1048576.0, tris / 1048576.0, parents / 1048576.0, sensor_mem.host_bytes / 1048576.0,
        (unsigned long long)(scene_mem.per_env_bytes + sensor_mem.per_env_bytes));
    if (pipeline)
      std::printf("; the pipeline's sensor %llu bytes per env (its history)",
                  (unsigned long long)policy_mem.per_env_bytes);
    std::printf("\n");
  }
  std::printf(
      "  wrote      %s (%u of %u images, the most varied; turbo colour map %s %.2f - %.2f m; grey = miss, magenta = "
      "invalid)\n",
      png.string().c_str(), std::min<uint32_t>(n, 16), n, shown.log_scale ? "log" : "linear", double(shown.near),
      double(shown.far));
  if (pipeline) {
    std::printf("  wrote      %s (%s [%u, %u, %u], what the policy reads)\n", npy.string().c_str(), descr, n,
                shape.height, shape.width);
    std::printf("  wrote      %s (float32 [%u, %u, %u], the camera images, +inf = miss)\n", camera_npy.string().c_str(),
                n, height, width);
  } else {
    std::printf("  wrote      %s (float32 [%u, %u, %u], +inf = miss)\n", npy.string().c_str(), n, height, width);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"wr-demo: depth images of a batch of parkour robots over a terrain mesh, with timings"};
  app.add_option("--obj", opt.obj, "terrain mesh (Wavefront OBJ)")->capture_default_str();
  app.add_option("-n,--envs", opt.envs, "number of robots")->capture_default_str()->check(CLI::Range(1u, 1u << 24));
  auto* w = app.add_option("--width", opt.width, "image width, pixels")
                ->capture_default_str()
                ->check(CLI::Range(1u, 1u << 16));
  auto* h = app.add_option("--height", opt.height, "image height, pixels")
                ->capture_default_str()
                ->check(CLI::Range(1u, 1u << 16));
  app.add_option("--resolution", opt.resolution, "image size as WxH, e.g. 106x60")->excludes(w)->excludes(h);
  app.add_option("--depth-kind", opt.depth_kind, "plane (z-depth, REP 118) or range (Euclidean)")
      ->capture_default_str()
      ->check(CLI::IsMember({"plane", "range"}));
  app.add_option("--hfov", opt.hfov, "horizontal field of view, degrees")
      ->capture_default_str()
      ->check(CLI::Range(1.0f, 179.9f));
  app.add_option("--pitch", opt.pitch, "camera pitch below the horizon, degrees")
      ->capture_default_str()
      ->check(CLI::Range(-90.0f, 90.0f));
  app.add_option("--far-clip", opt.far_clip, "far clip, metres (default: none, +inf)")
      ->check([](const std::string& s) {  // validators run before conversion: parse here, never throw
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        const bool ok = end != s.c_str() && *end == '\0' && v > 0;
        return ok ? std::string() : "must be a number > 0 (metres), got '" + s + "'";
      });
  app.add_option("--threads", opt.threads, "CPU render threads (0 = one per hardware thread)")->capture_default_str();
  app.add_option("--repeats", opt.repeats, "timed renders after the warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  app.add_option("-o,--out", opt.out, "output directory (created if missing)")->capture_default_str();
  app.add_option("--preset", opt.preset,
                 "extreme-parkour: its camera (106x60, 87 deg, per-env pitch) and depth pipeline (crop, clip to "
                 "[0, 2] m, bicubic to 87x58, normalise, the previous frame); depth.npy is then what its policy "
                 "reads, camera.npy the camera images")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "extreme-parkour"}));
  app.add_option("--dtype", opt.dtype, "output dtype: f32, f16 (IEEE half) or u16 (millimetres, 0 = invalid)")
      ->capture_default_str()
      ->check(CLI::IsMember({"f32", "f16", "u16"}));
  app.add_option("--noise", opt.noise,
                 "stereo: a stereo camera's noise (quantised disparity, error growing with "
                 "depth squared, dropout, edges)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "stereo"}));
  app.add_flag("--self-occlusion", opt.self_occlusion,
               "give each robot a body of moving boxes (a trunk, four trotting two-segment legs) that its camera, "
               "inside the trunk and excluding it, sees its own legs of; also writes instance_ids.npy (uint32, "
               "UINT32_MAX = terrain or miss); the pitch is then 60 deg unless --pitch is given; fails if no "
               "robot sees a leg");
  auto* scan = app.add_flag("--height-scan", opt.height_scan,
                            "render IsaacLab's height scan instead of the cameras (a 1.6 x 1.0 m grid at 0.1 m below "
                            "each base, yaw-aligned, from 20 m up): heights.npy [N, 187], sensor z - hit z - 0.5 "
                            "clipped to [-1, 1]");
  app.add_flag("--lidar", opt.lidar,
               "render a 16-channel LiDAR instead of the cameras (+-15 deg, 0.2 deg over 360 deg, IsaacLab's "
               "LidarPatternCfg): distances.npy [N, 28800]")
      ->excludes(scan);
  try {
    app.parse(argc, argv);
    if (opt.self_occlusion && app.count("--pitch") == 0) opt.pitch = kSelfOcclusionPitch;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "wr-demo: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  try {
    return run(opt);
  } catch (const wr::Error& e) {
    std::fprintf(stderr, "wr-demo: error: %s\n", e.what());  // the message names its wr_status
  } catch (const std::exception& e) {                        // DemoError, std::filesystem::filesystem_error
    std::fprintf(stderr, "wr-demo: error: %s\n", e.what());
  }
  return 2;
}
