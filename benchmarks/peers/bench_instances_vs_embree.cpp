// wr-bench-instances-vs-embree: moving geometry (wr_scene_create_instanced) on warp-raycaster's
// CPU backend against Intel Embree 3's instancing, side by side, in one process, on the same
// triangles, the same camera rays and the same number of threads. A Google Benchmark program.
//
// What is compared
//  - Scene: the bundled terrain (assets/parkour_terrain.obj, read once with tinyobjloader, the
//    same arrays to both engines, as wr-bench-vs-embree) and a quadruped of 12 box links per env:
//    trunk, head, 4 thighs, 4 calves and the 2 front feet, 5 prototype meshes (one per box size)
//    built once and shared by every env. Each env's links are posed from its body pose and its own
//    joint angles (front legs reaching forward, rear legs under the trunk; fixed seed), so that
//    the front legs show in the lower corners of the image; the trunk, head and rear legs are
//    behind the camera (never hit, still traced).
//  - Rays: --envs cameras (default 256) at 106 x 60 (extreme-parkour's), the peers' camera
//    (peer_camera_desc: 87 deg horizontal FOV, pitched 30 deg down), range depth; body poses as
//    wr-bench-vs-embree's (make_poses). Embree's rays are built as wr-bench-vs-embree builds them
//    (embree_render: one task per run of 8x8 tiles of one env, split as the library splits its
//    own; pose, body * mount, ray set-up, trace and depth write inside the timed region).
//  - Contenders, each one Google Benchmark case:
//      a  warp-raycaster, terrain only: wr_sensor_render_ex on the terrain's mesh scene.
//      b  warp-raycaster, terrain + 12 instances per env: wr_sensor_render_ex on the instanced
//         scene with args.instance_poses (the (envs x 12 x 7) world poses of the links).
//      c  Embree, the same instances: one top-level scene per env (EmbreeEnvScenes: the terrain
//         as instance 0, the env's 12 links as instances 1-12), and per frame, inside the timed
//         region, every link's rtcSetGeometryTransform + rtcCommitGeometry and every env's
//         rtcCommitScene (the per-env commit is the price of moving geometry in Embree, so it is
//         counted), then the trace: rtcIntersect16 on 4x4 packets (c16, the fastest mode of
//         wr-bench-vs-embree) or rtcIntersect1 (c1). The commits run on the same thread pool as
//         the trace, one env a task; c_commit times them alone.
//      d  Embree, terrain only, rtcIntersect16: Embree's own cost of its instances is c16 / d.
//    Both engines are handed the same world poses of the links; turning them into Embree's 3x4
//    matrices is Embree's side's work, inside its timed region, as handing them over is ours.
//  - Timing: Google Benchmark, real time; with --benchmark_repetitions=N
//    --benchmark_enable_random_interleaving=true the repetitions of every case are interleaved,
//    so that load from other processes on a shared machine falls on all of them alike. The
//    ratios printed after the table are of the medians of that one run (without
//    --benchmark_repetitions, of its one time per case).
//  - Agreement, before timing: per pixel, b against c16 and c1, and a against d, as
//    wr-bench-vs-embree's (compare: both miss, or within 1e-4 relative); each must agree on at
//    least 99.9% of the pixels or the program exits 2 after the table. Where b and c differ, which
//    of them is nearer the exact depth (exact_link_depth: the links are boxes, so a double-precision
//    slab test is exact). Also the instance each pixel hit (our instance_ids against Embree's
//    instID), and how many pixels the links cover.
//  - Bytes: wr_sensor_memory of both our sensors (per_env_bytes, and what each holds in all),
//    wr_scene_memory of the instanced scene (its table) and of the prototypes; Embree's bytes of
//    the per-env top-level scenes from its memory monitor.
//
// Options: --obj, --envs, --threads, --seed (and every --benchmark_* flag).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Geometry>
#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "bench_common.h"
#include "embree_side.h"
#include "timing_and_report.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace wr_bench {
namespace {

constexpr uint32_t kWidth = 106, kHeight = 60;  // extreme-parkour's depth camera

// ---- the robot -------------------------------------------------------------------------------

// An axis-aligned box in its link's frame, as a 12-triangle mesh (a prototype).
struct Box {
  float lo[3], hi[3];
};

Mesh box_mesh(const Box& b) {
  Mesh m;
  for (int k = 0; k < 8; ++k)
    m.vertices.insert(m.vertices.end(),
                      {k & 1 ? b.hi[0] : b.lo[0], k & 2 ? b.hi[1] : b.lo[1], k & 4 ? b.hi[2] : b.lo[2]});
  // Two triangles per face; the winding does not matter to either engine (both faces are hit).
  m.indices = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
               2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
  return m;
}

enum Prototype : uint32_t { kTrunk, kHead, kThigh, kCalf, kFoot, kNumPrototypes };

// A leg segment hangs from its joint, the link frame's origin, along -Z.
constexpr float kThighLength = 0.2f, kCalfLength = 0.2f;
const Box kBoxes[kNumPrototypes] = {
    // The trunk ends just behind the camera (mounted 0.1 m ahead of the body's origin): as on a
    // real robot, it is never in view, but it is traced.
    {{-0.35f, -0.10f, -0.06f}, {0.09f, 0.10f, 0.04f}},
    {{-0.04f, -0.05f, 0.0f}, {0.04f, 0.05f, 0.08f}},              // head, on the trunk's front
    {{-0.025f, -0.025f, -kThighLength}, {0.025f, 0.025f, 0.0f}},  // thigh
    {{-0.02f, -0.02f, -kCalfLength}, {0.02f, 0.02f, 0.0f}},       // calf
    {{-0.025f, -0.025f, -0.025f}, {0.025f, 0.025f, 0.025f}},      // foot, centred on the calf's end
};

// Slots: trunk, head, (thigh, calf) of the front-left, front-right, rear-left and rear-right
// legs, then the two front feet.
const std::vector<uint32_t> kSlotPrototypes = {kTrunk, kHead, kThigh, kCalf, kThigh, kCalf,
                                               kThigh, kCalf, kThigh, kCalf, kFoot,  kFoot};
constexpr uint32_t kSlots = 12;

// (num_envs x kSlots x 7) world poses of every env's links (position, w x y z) from the body
// poses (num_envs x 7, as make_poses) and per-env joint angles drawn from `seed`.
std::vector<float> link_poses(const std::vector<float>& body_poses, uint32_t num_envs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const auto range = [&](float lo, float hi) { return lo + (hi - lo) * unit(rng); };
  std::vector<float> out;
  out.reserve(size_t(num_envs) * kSlots * 7);
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* b = &body_poses[7 * size_t(e)];
    Eigen::Isometry3f body = Eigen::Isometry3f::Identity();
    body.translate(Eigen::Vector3f(b[0], b[1], b[2]));
    body.rotate(Eigen::Quaternionf(b[3], b[4], b[5], b[6]).normalized());
    std::vector<Eigen::Isometry3f> local(kSlots, Eigen::Isometry3f::Identity());
    local[1].translate(Eigen::Vector3f(0.0f, 0.0f, 0.04f));  // head
    // Leg l: hip joint, thigh swung forward by `swing` about the body's -Y, the knee bent back by
    // `knee`. Front legs reach forward (a stride), rear legs stand under the trunk.
    const float hip_x[4] = {0.17f, 0.17f, -0.30f, -0.30f}, hip_y[4] = {0.12f, -0.12f, 0.12f, -0.12f};
    for (int l = 0; l < 4; ++l) {
      const bool front = l < 2;
      const float swing = front ? range(0.5f, 1.0f) : range(-0.3f, 0.3f);
      const float knee = range(0.8f, 1.5f);
      Eigen::Isometry3f& thigh = local[2 + 2 * l];
      thigh.translate(Eigen::Vector3f(hip_x[l], hip_y[l], -0.03f));
      thigh.rotate(Eigen::AngleAxisf(-swing, Eigen::Vector3f::UnitY()));
      Eigen::Isometry3f& calf = local[3 + 2 * l];
      calf = thigh;
      calf.translate(Eigen::Vector3f(0.0f, 0.0f, -kThighLength));
      calf.rotate(Eigen::AngleAxisf(knee, Eigen::Vector3f::UnitY()));
      if (front) {
        Eigen::Isometry3f& foot = local[10 + l];
        foot = calf;
        foot.translate(Eigen::Vector3f(0.0f, 0.0f, -kCalfLength));
      }
    }
    for (const Eigen::Isometry3f& link : local) {
      const Eigen::Isometry3f world = body * link;
      const Eigen::Quaternionf q(world.rotation());
      out.insert(out.end(), {world.translation().x(), world.translation().y(), world.translation().z(), q.w(), q.x(),
                             q.y(), q.z()});
    }
  }
  return out;
}

// ---- the shared set-up -----------------------------------------------------------------------

struct InstanceOptions {
  std::string obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  uint32_t num_envs = 256, seed = 12345;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

// Everything the cases share, built once before any is timed.
struct Setup {
  InstanceOptions opt;
  Mesh mesh;
  wr_context context = nullptr;
  wr_scene terrain = nullptr, instanced = nullptr;
  std::vector<wr_scene> prototypes;
  wr_camera_desc desc{};
  wr_sensor plain_sensor = nullptr, instanced_sensor = nullptr;
  std::vector<float> body_poses, slot_poses;
  RTCDevice device = nullptr;
  MemoryMonitor monitor;
  RTCScene embree_terrain = nullptr;
  std::vector<RTCScene> embree_prototypes;
  std::unique_ptr<EmbreeEnvScenes> env_scenes;
  int64_t env_scene_bytes = 0, prototype_bytes = 0;  // Embree's, from its memory monitor
  std::unique_ptr<Pool> pool;
  Camera cam;
  size_t pixels = 0;
  std::vector<float> depth;  // every case's output (the checks keep their own)

  explicit Setup(const InstanceOptions& o) : opt(o) {
    mesh = read_obj(opt.obj_path);
    WR_OK(wr_context_create_cpu(opt.threads, &context));
    WR_OK(wr_scene_create(context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(), mesh.num_triangles(),
                          &terrain));
    std::vector<Mesh> boxes;
    for (const Box& b : kBoxes) boxes.push_back(box_mesh(b));
    for (const Mesh& m : boxes) {
      wr_scene s = nullptr;
      WR_OK(wr_scene_create(context, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
      prototypes.push_back(s);
    }
    wr_instanced_scene_desc idesc;
    wr_instanced_scene_desc_init(&idesc);
    idesc.terrain = terrain;
    idesc.prototypes = prototypes.data();
    idesc.num_prototypes = uint32_t(prototypes.size());
    idesc.slot_prototypes = kSlotPrototypes.data();
    idesc.num_slots = kSlots;
    WR_OK(wr_scene_create_instanced(context, &idesc, &instanced));

    desc = peer_camera_desc(kWidth, kHeight, kInf);
    WR_OK(wr_sensor_create(terrain, &desc, opt.num_envs, &plain_sensor));
    WR_OK(wr_sensor_create(instanced, &desc, opt.num_envs, &instanced_sensor));
    body_poses = make_poses(terrain, opt.num_envs, opt.seed);
    slot_poses = link_poses(body_poses, opt.num_envs, opt.seed + 1);
    pixels = size_t(opt.num_envs) * kWidth * kHeight;
    depth.assign(pixels, 0.0f);

    const std::string config = "threads=" + std::to_string(opt.threads);
    device = rtcNewDevice(config.c_str());
    if (!device)
      die("rtcNewDevice(\"" + config + "\") failed: error " + std::to_string(int(rtcGetDeviceError(nullptr))));
    rtcSetDeviceErrorFunction(device, embree_error, nullptr);
    rtcSetDeviceMemoryMonitorFunction(device, memory_monitor, &monitor);
    // Embree's default build (wr-bench-vs-embree's "MEDIUM, FLAG_NONE (default)") for the
    // terrain and the prototypes, built once as ours are.
    const EmbreeConfig build{"MEDIUM, FLAG_NONE (default)", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_NONE, true};
    double commit_s = 0;
    embree_terrain = embree_scene(device, mesh, build, &commit_s);
    const int64_t before_prototypes = monitor.live.load();
    for (const Mesh& m : boxes) embree_prototypes.push_back(embree_scene(device, m, build, &commit_s));
    prototype_bytes = monitor.live.load() - before_prototypes;
    pool = std::make_unique<Pool>(opt.threads);
    const int64_t before_envs = monitor.live.load();
    env_scenes =
        std::make_unique<EmbreeEnvScenes>(device, embree_terrain, embree_prototypes, kSlotPrototypes, opt.num_envs);
    env_scenes->update(*pool, slot_poses.data());  // the first commit builds every env's BVH
    env_scene_bytes = monitor.live.load() - before_envs;
    cam = make_camera(desc);
  }

  ~Setup() {
    env_scenes.reset();
    for (RTCScene s : embree_prototypes) rtcReleaseScene(s);
    rtcReleaseScene(embree_terrain);
    rtcReleaseDevice(device);
    wr_sensor_release(plain_sensor);
    wr_sensor_release(instanced_sensor);
    wr_scene_release(instanced);
    for (wr_scene s : prototypes) wr_scene_release(s);
    wr_scene_release(terrain);
    wr_context_release(context);
  }

  // a and b: the same call, b with the links' poses (and, for the checks, the instance ids).
  void render_wr(bool instances, float* out, uint32_t* ids = nullptr) const {
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = body_poses.data();
    a.out = out;
    a.out_bytes = pixels * sizeof(float);
    a.instance_poses = instances ? slot_poses.data() : nullptr;
    a.instance_ids = ids;
    WR_OK(wr_sensor_render_ex(instances ? instanced_sensor : plain_sensor, &a));
  }
  // c: the per-frame commit, then the trace.
  void render_embree_instanced(EmbreeMode mode, float* out, uint32_t* ids = nullptr) {
    env_scenes->update(*pool, slot_poses.data());
    embree_render(*pool, env_scenes->scenes(), true, mode, cam, body_poses.data(), opt.num_envs, out, ids);
  }
  // d
  void render_embree_terrain(float* out) {
    embree_render(*pool, embree_terrain, EmbreeMode::kPacket16, cam, body_poses.data(), opt.num_envs, out);
  }
};

// ---- checks, before anything is timed ----------------------------------------------------------

struct Checks {
  bool all_agree = true;
};

// The nearest link a pixel's ray enters, in double precision from the same float inputs (body
// pose, mount, the links' poses): the links are boxes, so the exact hit is the entry of the slab
// test in the link's frame. Names which engine is nearer the exact depth where they differ (the
// terrain is not re-traced: a pixel no link takes is "terrain or miss"). NaN: no link entered.
double exact_link_depth(const Setup& s, size_t pixel, uint32_t* slot) {
  const size_t per_env = size_t(kWidth) * kHeight;
  const size_t env = pixel / per_env, u = (pixel % per_env) % kWidth, v = (pixel % per_env) / kWidth;
  const wr_camera_desc& d = s.desc;
  const float* b = &s.body_poses[7 * env];
  const Eigen::Matrix3d body = Eigen::Quaterniond(b[3], b[4], b[5], b[6]).normalized().toRotationMatrix();
  const Eigen::Matrix3d mount =
      Eigen::Quaterniond(d.mount_rotation[0], d.mount_rotation[1], d.mount_rotation[2], d.mount_rotation[3])
          .normalized()
          .toRotationMatrix();
  const Eigen::Vector3d org = Eigen::Vector3d(b[0], b[1], b[2]) +
                              body * Eigen::Vector3d(d.mount_position[0], d.mount_position[1], d.mount_position[2]);
  const Eigen::Vector3d dir =
      body * mount *
      Eigen::Vector3d(1.0, -((double(u) + 0.5) - d.cx) / d.fx, -((double(v) + 0.5) - d.cy) / d.fy).normalized();
  double best = std::nan("");
  for (uint32_t i = 0; i < kSlots; ++i) {
    const float* p = &s.slot_poses[7 * (env * kSlots + i)];
    const Eigen::Matrix3d r = Eigen::Quaterniond(p[3], p[4], p[5], p[6]).normalized().toRotationMatrix();
    const Eigen::Vector3d o = r.transpose() * (org - Eigen::Vector3d(p[0], p[1], p[2])), l = r.transpose() * dir;
    const Box& box = kBoxes[kSlotPrototypes[i]];
    double t0 = 0.0, t1 = INFINITY;
    for (int a = 0; a < 3; ++a) {
      const double ta = (box.lo[a] - o[a]) / l[a], tb = (box.hi[a] - o[a]) / l[a];
      t0 = std::max(t0, std::min(ta, tb));
      t1 = std::min(t1, std::max(ta, tb));
    }
    if (t0 <= t1 && !(t0 >= best)) best = t0, *slot = i;
  }
  return best;
}

// terrain_depth: our terrain-only render, the exact answer (up to the terrain's own agreement,
// a against d) where no link is entered.
void print_agreement(const char* what, const Agreement& a, size_t pixels, Checks* checks, const Setup& s,
                     const std::vector<float>* terrain_depth) {
  std::printf("- %s: %.4f%% of %zu pixels agree (%zu differ)\n", what, 100.0 * a.fraction, pixels, a.disagree);
  if (terrain_depth && a.disagree) {
    // Which engine is nearer the exact depth, over every pixel that differs.
    size_t ours_nearer = 0, theirs_nearer = 0;
    for (const Agreement::Pixel& p : a.worst) {
      uint32_t slot = 0;
      double exact = exact_link_depth(s, p.index, &slot);
      if (std::isnan(exact)) exact = (*terrain_depth)[p.index];
      const auto error = [exact](double x) { return x == exact ? 0.0 : std::fabs(x - exact); };  // inf == inf: 0
      ours_nearer += error(p.ours) < error(p.theirs);
      theirs_nearer += error(p.theirs) < error(p.ours);
    }
    std::printf(
        "  - of the %zu that differ, ours is nearer the exact depth at %zu, Embree at %zu (exact: a link's "
        "box entry in double precision, or the terrain where no link is entered); the worst:\n",
        a.disagree, ours_nearer, theirs_nearer);
  }
  const bool pass = a.fraction >= kMinAgree;
  checks->all_agree = checks->all_agree && pass;
  // The worst few even on a pass, to show what kind of pixel differs (an edge, a tie).
  const size_t per_env = size_t(kWidth) * kHeight;
  for (size_t i = 0; i < std::min<size_t>(a.worst.size(), pass ? 4 : 10); ++i) {
    const Agreement::Pixel& p = a.worst[i];
    uint32_t slot = 0;
    const double exact = exact_link_depth(s, p.index, &slot);
    char ref[64] = "exact: terrain or miss";
    if (!std::isnan(exact)) std::snprintf(ref, sizeof ref, "exact: %.7g (slot %u)", exact, slot);
    std::printf("  - env %zu u %zu v %zu: ours %.7g, Embree %.7g, %s\n", p.index / per_env,
                (p.index % per_env) % kWidth, (p.index % per_env) / kWidth, double(p.ours), double(p.theirs), ref);
  }
}

Checks run_checks(Setup& s) {
  Checks checks;
  const size_t n = s.pixels;
  std::vector<float> a(n), b(n), c16(n), c1(n), d(n);
  std::vector<uint32_t> ids_b(n), ids_c16(n), ids_c1(n);
  s.render_wr(false, a.data());
  s.render_wr(true, b.data(), ids_b.data());
  s.render_embree_instanced(EmbreeMode::kPacket16, c16.data(), ids_c16.data());
  s.render_embree_instanced(EmbreeMode::kSingle, c1.data(), ids_c1.data());
  s.render_embree_terrain(d.data());

  std::printf("## Checks (one render of each, before timing)\n\n");
  print_agreement("depth, b (ours, instances) against c16 (Embree, rtcIntersect16)", compare(b, c16, n), n, &checks, s,
                  &a);
  print_agreement("depth, b against c1 (Embree, rtcIntersect1)", compare(b, c1, n), n, &checks, s, &a);
  print_agreement("depth, a (ours, terrain only) against d (Embree, terrain only)", compare(a, d), n, &checks, s,
                  nullptr);
  // Embree's instID: 0 is the terrain's instance, 1 + slot a link (EmbreeEnvScenes); ours:
  // UINT32_MAX for the terrain or nothing, else the slot.
  const auto same_ids = [&](const std::vector<uint32_t>& theirs) {
    size_t same = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t t = theirs[i] == RTC_INVALID_GEOMETRY_ID || theirs[i] == 0 ? UINT32_MAX : theirs[i] - 1;
      same += t == ids_b[i];
    }
    return double(same) / double(n);
  };
  size_t on_links = 0;
  std::vector<size_t> per_slot(kSlots, 0);
  for (size_t i = 0; i < n; ++i) {
    if (ids_b[i] == UINT32_MAX) continue;
    ++on_links;
    ++per_slot[ids_b[i]];
  }
  std::printf("- instance hit, ours against Embree's instID: %.4f%% (c16), %.4f%% (c1) of the pixels agree\n",
              100.0 * same_ids(ids_c16), 100.0 * same_ids(ids_c1));
  std::printf(
      "- the links cover %.2f%% of the pixels (%zu); pixels per slot (trunk, head, FL thigh, FL calf, FR "
      "thigh, FR calf, RL thigh, RL calf, RR thigh, RR calf, FL foot, FR foot):",
      100.0 * double(on_links) / double(n), on_links);
  for (uint32_t i = 0; i < kSlots; ++i) std::printf(" %zu", per_slot[i]);
  std::printf("\n- verdict (each depth comparison >= %.1f%%): %s\n\n", 100.0 * kMinAgree,
              checks.all_agree ? "pass" : "FAILED");
  std::fflush(stdout);
  return checks;
}

// ---- bytes -------------------------------------------------------------------------------------

struct Bytes {
  uint64_t plain_per_env = 0, instanced_per_env = 0, plain_sensor = 0, instanced_sensor = 0;
  uint64_t instanced_scene = 0, prototypes = 0, terrain = 0;
};

Bytes read_bytes(const Setup& s) {
  Bytes b;
  wr_memory_stats m{};
  WR_OK(wr_sensor_memory(s.plain_sensor, &m));
  b.plain_per_env = m.per_env_bytes;
  b.plain_sensor = m.host_bytes;
  WR_OK(wr_sensor_memory(s.instanced_sensor, &m));
  b.instanced_per_env = m.per_env_bytes;
  b.instanced_sensor = m.host_bytes;
  WR_OK(wr_scene_memory(s.instanced, &m));
  b.instanced_scene = m.host_bytes;
  WR_OK(wr_scene_memory(s.terrain, &m));
  b.terrain = m.host_bytes;
  for (wr_scene p : s.prototypes) {
    WR_OK(wr_scene_memory(p, &m));
    b.prototypes += m.host_bytes;
  }
  return b;
}

// ---- the cases and their medians ---------------------------------------------------------------

// The console table, and each case's real time per iteration (ms) kept for the ratios: the
// "median" aggregate where Google Benchmark reports one, else the median of the repetitions it
// reports one by one.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  MedianReporter() : benchmark::ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = r.run_name.function_name;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        median_[name] = r.GetAdjustedRealTime();
      } else if (r.run_type == Run::RT_Iteration) {
        repetitions_[name].push_back(r.GetAdjustedRealTime() / 1e3);  // summarize() is in seconds
      }
    }
  }
  // ms per render of `name`; 0 when it did not run.
  double median_ms(const std::string& name) const {
    const auto m = median_.find(name);
    if (m != median_.end()) return m->second;
    const auto r = repetitions_.find(name);
    return r == repetitions_.end() || r->second.empty() ? 0.0 : summarize(r->second).median * 1e3;
  }

 private:
  std::map<std::string, double> median_;
  std::map<std::string, std::vector<double>> repetitions_;
};

const char* const kA = "instances/a_wr_terrain";
const char* const kB = "instances/b_wr_terrain+12_instances";
const char* const kC16 = "instances/c16_embree_commit+rtcIntersect16";
const char* const kC1 = "instances/c1_embree_commit+rtcIntersect1";
const char* const kCommit = "instances/c_commit_embree_commit_only";
const char* const kD = "instances/d_embree_terrain_rtcIntersect16";

void register_cases(Setup& s, const Bytes& bytes) {
  const double rays = double(s.pixels);
  const auto add = [&](const char* name, std::function<void()> work, bool traces, uint64_t per_env_bytes) {
    benchmark::RegisterBenchmark(name,
                                 [rays, work, traces, per_env_bytes](benchmark::State& state) {
                                   for (auto _ : state) work();
                                   if (traces)
                                     state.counters["rays/s"] =
                                         benchmark::Counter(rays, benchmark::Counter::kIsIterationInvariantRate);
                                   state.counters["per_env_bytes"] = double(per_env_bytes);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  float* out = s.depth.data();
  const uint64_t embree_per_env = uint64_t(s.env_scene_bytes) / s.opt.num_envs;
  add(
      kA, [&s, out] { s.render_wr(false, out); }, true, bytes.plain_per_env);
  add(
      kB, [&s, out] { s.render_wr(true, out); }, true, bytes.instanced_per_env);
  add(
      kC16, [&s, out] { s.render_embree_instanced(EmbreeMode::kPacket16, out); }, true, embree_per_env);
  add(
      kC1, [&s, out] { s.render_embree_instanced(EmbreeMode::kSingle, out); }, true, embree_per_env);
  add(
      kCommit, [&s] { s.env_scenes->update(*s.pool, s.slot_poses.data()); }, false, embree_per_env);
  add(
      kD, [&s, out] { s.render_embree_terrain(out); }, true, 0);
}

void print_ratios(const Setup& s, const MedianReporter& rep, const Bytes& bytes) {
  const double a = rep.median_ms(kA), b = rep.median_ms(kB), c16 = rep.median_ms(kC16), c1 = rep.median_ms(kC1);
  const double commit = rep.median_ms(kCommit), d = rep.median_ms(kD);
  const double mrays = double(s.pixels) / 1e3;  // M rays per render / ms -> M rays/s
  const auto rate = [&](double ms) { return ms > 0 ? mrays / ms : 0.0; };
  std::printf("\n## Ratios (medians of this run)\n\n");
  std::printf("| case | ms/render (median) | M rays/s |\n|---|---:|---:|\n");
  const std::pair<const char*, double> rows[] = {{kA, a}, {kB, b}, {kC16, c16}, {kC1, c1}, {kCommit, commit}, {kD, d}};
  for (const auto& r : rows)
    if (r.first == kCommit)
      std::printf("| %s | %.2f | - |\n", r.first, r.second);
    else
      std::printf("| %s | %.2f | %.2f |\n", r.first, r.second, rate(r.second));
  const auto ratio = [](double num_ms, double den_ms) { return num_ms > 0 && den_ms > 0 ? den_ms / num_ms : 0.0; };
  std::printf("\n- rays/s, b / a (ours with the instances / ours on the terrain alone; target >= 0.60): %.3f\n",
              ratio(b, a));
  std::printf("- rays/s, b / c16 (ours / Embree rtcIntersect16, its commits included): %.3f\n", ratio(b, c16));
  std::printf("- rays/s, b / c1 (ours / Embree rtcIntersect1, its commits included): %.3f\n", ratio(b, c1));
  std::printf("- Embree's commits alone: %.2f ms, %.1f%% of c16's time (rays/s of c16 without them: %.2f M)\n", commit,
              c16 > 0 ? 100.0 * commit / c16 : 0.0, rate(c16 - commit));
  std::printf(
      "- rays/s, c16 / d (Embree with its instances / Embree on the terrain alone): %.3f; a / d (ours / "
      "Embree, terrain only): %.3f\n",
      ratio(c16, d), ratio(a, d));
  std::printf(
      "- bytes: per env inside the library %llu (terrain only: %llu); the sensor in all %llu (terrain only: "
      "%llu); the instanced scene (its table) %llu; its 5 prototypes %llu; the terrain %llu. Embree's %u "
      "top-level scenes %lld (%lld per env), its prototypes %lld\n",
      (unsigned long long)bytes.instanced_per_env, (unsigned long long)bytes.plain_per_env,
      (unsigned long long)bytes.instanced_sensor, (unsigned long long)bytes.plain_sensor,
      (unsigned long long)bytes.instanced_scene, (unsigned long long)bytes.prototypes,
      (unsigned long long)bytes.terrain, s.opt.num_envs, (long long)s.env_scene_bytes,
      (long long)(s.env_scene_bytes / s.opt.num_envs), (long long)s.prototype_bytes);
}

}  // namespace
}  // namespace wr_bench

int main(int argc, char** argv) {
  using namespace wr_bench;
  set_program_name("wr-bench-instances-vs-embree");
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags out of argv
  CLI::App app{
      "wr-bench-instances-vs-embree: moving geometry, warp-raycaster's CPU backend against Embree 3's "
      "instances on the same scene, rays and threads (also takes Google Benchmark's --benchmark_* flags)",
      "wr-bench-instances-vs-embree"};
  InstanceOptions opt;
  app.add_option("--obj", opt.obj_path, "terrain (Wavefront OBJ)")->capture_default_str();
  app.add_option("--envs", opt.num_envs, "number of envs (cameras) per render")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  app.add_option("--threads", opt.threads, "threads for both engines")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--seed", opt.seed, "pose seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  Setup setup(opt);
  uint32_t wr_threads = 0;
  WR_OK(wr_context_num_threads(setup.context, &wr_threads));
  wr_cpu_path path;
  WR_OK(wr_context_cpu_path(setup.context, &path));
  const long version = long(rtcGetDeviceProperty(setup.device, RTC_DEVICE_PROPERTY_VERSION));
  std::printf("# wr-bench-instances-vs-embree\n\n");
  std::printf(
      "- CPU: %s, %u hardware threads; both engines use %u threads (wr context: %u, CPU path %s); Embree "
      "%ld.%ld.%ld\n",
      cpu_model_name().c_str(), std::thread::hardware_concurrency(), opt.threads, wr_threads, wr_cpu_path_string(path),
      version / 10000, (version / 100) % 100, version % 100);
  std::printf("- terrain: %s, %zu triangles; %u instances per env (12-triangle boxes of 5 prototypes)\n",
              opt.obj_path.c_str(), setup.mesh.num_triangles(), kSlots);
  std::printf("- cameras: %u envs at %ux%u, 87 deg horizontal FOV, pitched 30 deg down, range depth (seed %u)\n\n",
              opt.num_envs, kWidth, kHeight, opt.seed);
  std::fflush(stdout);

  const Checks checks = run_checks(setup);
  const Bytes bytes = read_bytes(setup);
  register_cases(setup, bytes);
  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_ratios(setup, reporter, bytes);
  benchmark::Shutdown();
  return checks.all_agree ? 0 : 2;
}
