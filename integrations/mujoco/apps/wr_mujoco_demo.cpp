// wr-mujoco-demo: N MuJoCo simulations of one quadruped on the parkour terrain, stepped together
// in an mjBatch, every robot's head depth camera rendered at every step in ONE wr_sensor_render_ex
// call, through wr_mujoco (the MJCF model becomes the scene: the static terrain mesh as the
// terrain, the robot's geoms as each env's instances, the MJCF camera as the sensor).
//
// Per step: the controls of a trot (each robot at its own gait phase) go into the batch's state
// rows, mjb_step advances every simulation by one mj_step (and computes positions), and the
// cameras' and geoms' poses come straight from the batch's outputs (mjb_output, no mjData per
// env), converted by wr_mujoco into the library's poses. The robots start spread over the terrain
// (one per cell of a grid, at a random position and yaw on level ground there, the legs where the
// trot puts them).
//
// Outputs in --out: depth_contact_sheet.png (16 robots' images of the last frame, the most varied),
// depth.npy (float32 [N, H, W], the last frame, plane depth in metres, +inf = no hit) and
// instance_ids.npy (uint32 [N, H, W], the slot each pixel hit, UINT32_MAX for the terrain or none).
// --check compares every pixel of the first frame with mj_ray on the same simulation state (the
// batch's state of each simulation copied into an mjData by mjb_getData, mj_forward), the rays
// built in double from wr.h's pixel convention, with the geomgroup the scene was built with,
// flg_static = 1 and bodyexclude = the camera's body; its last line is the agreement, and it exits
// 1 below 99.9%. --multiray traces the same pixels through mj_multiRay (one call per env from
// the camera's origin) on as many threads as the library's context, and prints both times.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <mujoco/mjbatch.h>
#include <mujoco/mujoco.h>
#include <wr/wr.hpp>

#include "contact_sheet.h"
#include "npy.h"
#include "render_timing.h"
#include "splitmix64.h"
#include "wr_mujoco.h"

namespace {

namespace fs = std::filesystem;
using wr_demo::Clock;
using wr_demo::ms_since;  // the demos' timing (tools/common/render_timing.h)
constexpr double kPi = 3.14159265358979323846;

/// An error of the demo's own (a model without what the demo drives): exit code 2.
struct DemoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Times of every step, in ms: their mean, median and best.
struct Times {
  std::vector<double> ms;
  void add(double t) { ms.push_back(t); }
  double mean() const {
    double sum = 0;
    for (double t : ms) sum += t;
    return ms.empty() ? 0.0 : sum / double(ms.size());
  }
  double median() const {
    if (ms.empty()) return 0.0;
    std::vector<double> v = ms;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
  double best() const { return ms.empty() ? 0.0 : *std::min_element(ms.begin(), ms.end()); }
};

std::string default_model() {
#ifdef WR_DEFAULT_MODEL
  if (fs::exists(WR_DEFAULT_MODEL)) return WR_DEFAULT_MODEL;
#endif
  return "assets/mujoco/quadruped_parkour.xml";  // relative to the working directory
}

struct Options {
  std::string model = default_model(), camera = "head", out = "demo_out/mujoco", cpu_path = "auto";
  uint32_t envs = 64, steps = 100, threads = 0, repeats = 3;
  uint64_t seed = 1;
  bool check = false, multiray = false;
};

// What the depth camera sees: MuJoCo's default visible groups 0-2 (the terrain mesh, the robot);
// the contact-only geometry of the model (the terrain's height field and boxes, the feet) is in
// group 3. The scene, mj_ray and mj_multiRay all take this geomgroup.
constexpr mjtByte kGeomGroup[mjNGROUP] = {1, 1, 1, 0, 0, 0};
// --check's tolerance and acceptance.
constexpr double kRelTolerance = 1e-4;
constexpr double kRequiredAgreement = 0.999;

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
struct BatchDeleter {
  void operator()(mjBatch* b) const { mjb_deleteBatch(b); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;
using BatchPtr = std::unique_ptr<mjBatch, BatchDeleter>;
using SensorHandle = std::unique_ptr<std::remove_pointer_t<wr_sensor>, decltype(&wr_sensor_release)>;

void check(wr_status status) {
  if (status != WR_SUCCESS) throw wr::Error(status, wr_last_error());
}

/// Runs fn(i, worker) for i in [0, n) on `threads` threads (the caller's among them), i split
/// round-robin; worker in [0, threads).
template <class Fn>
void parallel_for(uint32_t n, uint32_t threads, Fn&& fn) {
  threads = std::max(1u, std::min(threads, n));
  std::vector<std::thread> pool;
  for (uint32_t w = 1; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (uint32_t i = w; i < n; i += threads) fn(i, w);
    });
  for (uint32_t i = 0; i < n; i += threads) fn(i, 0u);
  for (std::thread& t : pool) t.join();
}

// ---- The robot: its actuators and a trot -----------------------------------------------------

/// The actuators of the model's four legs (names <leg>_hip, <leg>_knee) and its standing pose
/// (keyframe "stand": the joint targets the trot swings around).
struct Robot {
  int key = -1;         // keyframe "stand"
  int hip[4], knee[4];  // actuator ids; legs FL, FR, RL, RR
  double hip0[4], knee0[4];
  double stand_height = 0;  // trunk height above the lowest point of the feet in the standing pose
};

Robot find_robot(const mjModel* m) {
  Robot r;
  r.key = mj_name2id(m, mjOBJ_KEY, "stand");
  if (r.key < 0) throw DemoError("the model has no keyframe \"stand\"");
  if (m->nq < 7 || m->jnt_type[0] != mjJNT_FREE) throw DemoError("the model's first joint is not a free joint");
  const char* legs[4] = {"FL", "FR", "RL", "RR"};
  for (int l = 0; l < 4; ++l) {
    const std::string hip = std::string(legs[l]) + "_hip", knee = std::string(legs[l]) + "_knee";
    r.hip[l] = mj_name2id(m, mjOBJ_ACTUATOR, hip.c_str());
    r.knee[l] = mj_name2id(m, mjOBJ_ACTUATOR, knee.c_str());
    if (r.hip[l] < 0 || r.knee[l] < 0) throw DemoError("the model has no actuator " + hip + " or " + knee);
    if (m->actuator_trntype[r.hip[l]] != mjTRN_JOINT || m->actuator_trntype[r.knee[l]] != mjTRN_JOINT)
      throw DemoError("actuator " + hip + " or " + knee + " does not drive a joint");
    r.hip0[l] = m->key_ctrl[size_t(r.key) * m->nu + r.hip[l]];
    r.knee0[l] = m->key_ctrl[size_t(r.key) * m->nu + r.knee[l]];
  }
  // The standing height: the trunk's z minus the lowest point of any moving geom in the keyframe.
  DataPtr d(mj_makeData(m));
  mj_resetDataKeyframe(m, d.get(), r.key);
  mj_kinematics(m, d.get());
  double lowest = std::numeric_limits<double>::infinity();
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->body_weldid[m->geom_bodyid[g]] == 0) continue;
    const mjtNum* R = d->geom_xmat + 9 * g;
    const mjtNum* s = m->geom_size + 3 * g;
    double below = m->geom_rbound[g];
    if (m->geom_type[g] == mjGEOM_SPHERE) below = s[0];
    if (m->geom_type[g] == mjGEOM_BOX) below = std::fabs(R[6]) * s[0] + std::fabs(R[7]) * s[1] + std::fabs(R[8]) * s[2];
    lowest = std::min(lowest, d->geom_xpos[3 * g + 2] - below);
  }
  r.stand_height = d->qpos[2] - lowest;
  return r;
}

// The trot: diagonal legs (FL and RR, FR and RL) in phase, the pairs half a cycle apart, a cycle
// of 0.4 s. s = sin(phase): while s > 0 a leg swings forward (the hip angle decreases: a positive
// hip angle swings the foot backward) and its knee bends to lift the foot; while s < 0 it pushes
// back. The front thighs swing up to 0.7 rad past the standing -0.6 rad, nearly level, where the
// head camera (30 degrees down) sees their knees at the bottom corners of its image.
constexpr double kGaitPeriod = 0.4;
void trot(const Robot& r, double t, double phase, mjtNum* ctrl) {
  for (int l = 0; l < 4; ++l) {
    const bool front = l < 2;
    const double s = std::sin(2 * kPi * t / kGaitPeriod + phase + (l == 0 || l == 3 ? 0.0 : kPi));
    ctrl[r.hip[l]] = r.hip0[l] - (s > 0 ? (front ? 0.7 : 0.3) : 0.15) * s;
    ctrl[r.knee[l]] = r.knee0[l] + (front ? 0.8 : -0.8) * std::max(s, 0.0);
  }
}

// ---- Where the robots start ------------------------------------------------------------------

/// (n x 4): x, y, z, yaw of n robots spread over the terrain, each on a patch of level ground:
/// robot i tries up to 200 random positions (uniform in cell i of a grid over the inner 80% of the
/// terrain's x-y bounds) and yaws, and keeps the first whose contact surface (geom group 3: what
/// the feet touch) varies by at most 3 cm over a 6 x 3 grid of probes from 0.5 m behind the trunk's
/// centre to 1 m ahead of it and 0.4 m to either side, found by mj_ray straight down (else the most
/// level one it tried, counted in *uneven). z: the standing height over the highest probe, plus
/// 2 cm. (A robot dropped across a stair edge or a hurdle tumbles; one on level ground trots on.)
std::vector<double> place_robots(const mjModel* m, const Robot& robot, const float bmin[3], const float bmax[3],
                                 uint32_t n, uint64_t seed, uint32_t* uneven) {
  DataPtr d(mj_makeData(m));
  mj_resetDataKeyframe(m, d.get(), robot.key);
  d->qpos[2] = double(bmax[2]) + 100.0;  // the template robot far above everything the probes pass
  mj_forward(m, d.get());
  const mjtByte contact_group[mjNGROUP] = {0, 0, 0, 1, 0, 0};
  const uint32_t cols = uint32_t(std::ceil(std::sqrt(double(n)))), rows = (n + cols - 1) / cols;
  const double x0 = bmin[0] + 0.1 * (bmax[0] - bmin[0]), y0 = bmin[1] + 0.1 * (bmax[1] - bmin[1]);
  const double cell_x = 0.8 * (bmax[0] - bmin[0]) / cols, cell_y = 0.8 * (bmax[1] - bmin[1]) / rows;
  constexpr int kTries = 200;
  constexpr double kLevel = 0.03;
  const double top = double(bmax[2]) + 1.0;
  wr_tools::SplitMix64 rng{seed};
  std::vector<double> out(size_t(n) * 4);
  *uneven = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double best_spread = std::numeric_limits<double>::infinity();
    for (int attempt = 0; attempt < kTries && best_spread > kLevel; ++attempt) {
      const double x = x0 + (double(i % cols) + rng.uniform(0.0, 1.0)) * cell_x;
      const double y = y0 + (double(i / cols) + rng.uniform(0.0, 1.0)) * cell_y;
      const double yaw = rng.uniform(-kPi, kPi), c = std::cos(yaw), s = std::sin(yaw);
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 3; ++b) {
          const double fx = -0.5 + 0.3 * a, fy = -0.4 + 0.4 * b;
          const mjtNum from[3] = {x + fx * c - fy * s, y + fx * s + fy * c, top}, down[3] = {0, 0, -1};
          int geom = -1;
          const mjtNum t = mj_ray(m, d.get(), from, down, contact_group, 1, -1, &geom, nullptr);
          const double z = t >= 0 ? top - t : double(bmin[2]);  // nothing below: the lowest level
          lo = std::min(lo, z), hi = std::max(hi, z);
        }
      if (hi - lo < best_spread) {
        best_spread = hi - lo;
        double* p = &out[size_t(i) * 4];
        p[0] = x, p[1] = y, p[2] = hi + robot.stand_height + 0.02, p[3] = yaw;
      }
    }
    *uneven += best_spread > kLevel;
  }
  return out;
}

// ---- The camera's rays in double, as wr.h states them -----------------------------------------

/// Unit directions of every pixel in the library's camera frame (+X forward, +Y left, +Z up):
/// normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy), (H*W x 3) row-major.
std::vector<double> camera_rays(const wr_camera_desc& desc) {
  std::vector<double> c(size_t(desc.width) * desc.height * 3);
  for (uint32_t v = 0; v < desc.height; ++v)
    for (uint32_t u = 0; u < desc.width; ++u) {
      double* r = &c[(size_t(v) * desc.width + u) * 3];
      r[0] = 1.0, r[1] = -((u + 0.5) - double(desc.cx)) / double(desc.fx),
      r[2] = -((v + 0.5) - double(desc.cy)) / double(desc.fy);
      const double len = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      for (int k = 0; k < 3; ++k) r[k] /= len;
    }
  return c;
}

/// A camera-frame direction in the world: the library's axes are MuJoCo's camera axes
/// forward = -cam_z, left = -cam_x, up = +cam_y (the columns of cam_xmat).
inline void to_world(const mjtNum* xmat, const double* c, mjtNum* out) {
  for (int i = 0; i < 3; ++i) out[i] = -xmat[3 * i + 2] * c[0] - xmat[3 * i + 0] * c[1] + xmat[3 * i + 1] * c[2];
}

/// Plane depth (as WR_DEPTH_PLANE) from a distance along a unit ray whose forward component is c0;
/// +inf for MuJoCo's miss (-1).
inline double plane_depth(mjtNum t, double c0) { return t >= 0 ? t * c0 : std::numeric_limits<double>::infinity(); }

/// One pixel agrees: both miss, or both hit within kRelTolerance of MuJoCo's depth.
inline bool agrees(float wr_depth, double mj_depth) {
  if (!std::isfinite(mj_depth) || !std::isfinite(wr_depth)) return !std::isfinite(mj_depth) && !std::isfinite(wr_depth);
  return std::fabs(double(wr_depth) - mj_depth) <= kRelTolerance * std::fabs(mj_depth);
}

/// Each simulation's state (mjb_getData) in an mjData of its own, positions computed (mj_forward).
std::vector<DataPtr> batch_data(const mjModel* m, mjBatch* b, uint32_t n, uint32_t threads) {
  std::vector<DataPtr> ds(n);
  for (uint32_t e = 0; e < n; ++e) ds[e].reset(mj_makeData(m));
  parallel_for(n, threads, [&](uint32_t e, uint32_t) {
    mjb_getData(b, int(e), ds[e].get());
    mj_forward(m, ds[e].get());
  });
  return ds;
}

// ---- --check: every pixel against mj_ray -------------------------------------------------------

struct Mismatch {
  uint32_t env, u, v;
  float wr;
  double mj;
  int geom;
  double local[3];  // mj_ray's hit in the frame of the geom it hit (0 for a miss)
};

struct CheckResult {
  size_t pixels = 0, agree = 0, both_miss = 0, both_hit = 0, mj_robot = 0, wr_only = 0, mj_only = 0;
  double max_rel = 0;           // the largest relative difference among pixels both hit
  double max_rel_agreeing = 0;  // ... among those that agree
  double max_pose = 0;          // the largest |camera position| difference, mjb_output vs mj_forward
  std::vector<Mismatch> worst;
};

CheckResult check_against_mj_ray(const mjModel* m, const std::vector<DataPtr>& ds, const wr_mujoco::BatchOutputs& out,
                                 const wr_mujoco::Camera& cam, const std::vector<float>& depth, uint32_t threads) {
  const uint32_t n = uint32_t(ds.size()), W = cam.desc.width, H = cam.desc.height;
  const std::vector<double> rays = camera_rays(cam.desc);
  std::vector<CheckResult> part(std::max(1u, std::min(threads, n)));
  parallel_for(n, threads, [&](uint32_t e, uint32_t w) {
    CheckResult& r = part[w];
    const mjData* d = ds[e].get();
    const mjtNum* p = d->cam_xpos + 3 * cam.id;
    const mjtNum* R = d->cam_xmat + 9 * cam.id;
    for (int k = 0; k < 3; ++k)
      r.max_pose = std::max(r.max_pose, std::fabs(p[k] - out.cam_xpos[(size_t(e) * m->ncam + cam.id) * 3 + k]));
    for (uint32_t v = 0; v < H; ++v)
      for (uint32_t u = 0; u < W; ++u) {
        const size_t k = size_t(v) * W + u;
        const double* c = &rays[3 * k];
        mjtNum dir[3];
        to_world(R, c, dir);
        int geom = -1;
        const double mj = plane_depth(mj_ray(m, d, p, dir, kGeomGroup, 1, cam.body, &geom, nullptr), c[0]);
        const float got = depth[size_t(e) * W * H + k];
        ++r.pixels;
        const bool hit_mj = std::isfinite(mj), hit_wr = std::isfinite(got);
        if (hit_mj && m->body_weldid[m->geom_bodyid[geom]] != 0) ++r.mj_robot;
        if (!hit_mj && !hit_wr) ++r.both_miss;
        if (hit_mj && hit_wr) ++r.both_hit, r.max_rel = std::max(r.max_rel, std::fabs(double(got) - mj) / mj);
        if (hit_wr && !hit_mj) ++r.wr_only;
        if (hit_mj && !hit_wr) ++r.mj_only;
        if (agrees(got, mj)) {
          ++r.agree;
          if (hit_mj) r.max_rel_agreeing = std::max(r.max_rel_agreeing, std::fabs(double(got) - mj) / mj);
        } else if (r.worst.size() < 8) {
          Mismatch x{e, u, v, got, mj, geom, {0, 0, 0}};
          if (hit_mj) {
            const mjtNum* gp = d->geom_xpos + 3 * geom;
            const mjtNum* gR = d->geom_xmat + 9 * geom;
            const double t = mj / c[0],
                         h[3] = {p[0] + t * dir[0] - gp[0], p[1] + t * dir[1] - gp[1], p[2] + t * dir[2] - gp[2]};
            for (int i = 0; i < 3; ++i) x.local[i] = gR[i] * h[0] + gR[3 + i] * h[1] + gR[6 + i] * h[2];
          }
          r.worst.push_back(x);
        }
      }
  });
  CheckResult all;
  for (const CheckResult& r : part) {
    all.pixels += r.pixels, all.agree += r.agree, all.both_miss += r.both_miss, all.both_hit += r.both_hit;
    all.mj_robot += r.mj_robot, all.wr_only += r.wr_only, all.mj_only += r.mj_only;
    all.max_rel = std::max(all.max_rel, r.max_rel), all.max_pose = std::max(all.max_pose, r.max_pose);
    all.max_rel_agreeing = std::max(all.max_rel_agreeing, r.max_rel_agreeing);
    all.worst.insert(all.worst.end(), r.worst.begin(), r.worst.end());
  }
  return all;
}

// ---- --multiray: the same pixels through mj_multiRay -------------------------------------------

/// Plane depth of every pixel of every env (n x H x W) through mj_multiRay: per env one call from
/// the camera's origin with its H*W world directions (built here from the camera-frame rays, as the
/// library builds its rays from the template), envs spread over `threads` threads.
void multiray_render(const mjModel* m, std::vector<DataPtr>& ds, const wr_mujoco::Camera& cam,
                     const std::vector<double>& rays, uint32_t threads, std::vector<float>& depth) {
  const uint32_t n = uint32_t(ds.size());
  const int nray = int(cam.desc.width * cam.desc.height);
  struct Scratch {
    std::vector<mjtNum> dirs, dist;
    std::vector<int> geom;
  };
  std::vector<Scratch> scratch(std::max(1u, std::min(threads, n)));
  for (Scratch& s : scratch) s.dirs.resize(3 * size_t(nray)), s.dist.resize(nray), s.geom.resize(nray);
  parallel_for(n, threads, [&](uint32_t e, uint32_t w) {
    Scratch& s = scratch[w];
    mjData* d = ds[e].get();
    const mjtNum* R = d->cam_xmat + 9 * cam.id;
    for (int k = 0; k < nray; ++k) to_world(R, &rays[3 * size_t(k)], &s.dirs[3 * size_t(k)]);
    mj_multiRay(m, d, d->cam_xpos + 3 * cam.id, s.dirs.data(), kGeomGroup, 1, cam.body, s.geom.data(), s.dist.data(),
                nullptr, nray, mjMAXVAL);
    for (int k = 0; k < nray; ++k) depth[size_t(e) * nray + k] = float(plane_depth(s.dist[k], rays[3 * size_t(k)]));
  });
}

// ---- The demo ------------------------------------------------------------------------------------

int run(const Options& opt) {
  const uint32_t n = opt.envs;
  fs::create_directories(opt.out);  // first, so that a bad --out fails before the long part

  // The model.
  char error[1024] = "";
  Clock::time_point t0 = Clock::now();
  ModelPtr model(mj_loadXML(opt.model.c_str(), nullptr, error, sizeof error));
  if (!model) throw DemoError("cannot load " + opt.model + ": " + error);
  const double load_ms = ms_since(t0);
  const mjModel* m = model.get();
  const Robot robot = find_robot(m);

  // The scene and the camera, through wr_mujoco.
  wr::Context ctx = wr::Context::cpu(opt.threads);
  if (opt.cpu_path != "auto")
    ctx.set_cpu_path(opt.cpu_path == "scalar" ? WR_CPU_PATH_SCALAR
                     : opt.cpu_path == "avx2" ? WR_CPU_PATH_AVX2
                                              : WR_CPU_PATH_AVX512);
  const uint32_t threads = ctx.num_threads();
  wr_mujoco::SceneOptions so;
  std::copy(kGeomGroup, kGeomGroup + mjNGROUP, so.geomgroup.begin());
  t0 = Clock::now();
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(ctx.get(), m, so);
  const double scene_ms = ms_since(t0);
  wr_mujoco::CameraOptions co;
  co.exclude_own_body = true;  // the camera sits inside the head box of its body, the trunk
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m, scene, opt.camera.c_str(), co);
  const uint32_t W = cam.desc.width, H = cam.desc.height, S = scene.num_slots();
  const wr_sensor_options so_sensor = cam.sensor_options();
  wr_sensor raw_sensor = nullptr;
  check(wr_sensor_create_ex(scene.handle(), &cam.desc, &so_sensor, n, &raw_sensor));
  const SensorHandle sensor(raw_sensor, &wr_sensor_release);
  float bmin[3], bmax[3];
  check(wr_scene_bounds(scene.handle(), bmin, bmax));

  // The simulations: one mjData per thread (the state rows are the simulations'), as many threads
  // as the library's context.
  mjBatchConfig config;
  mjb_defaultConfig(&config);
  config.nthread = int(threads);
  BatchPtr batch(mjb_makeBatch(m, int(n), &config, error, sizeof error));
  if (!batch) throw DemoError(std::string("mjb_makeBatch: ") + error);
  mjBatch* b = batch.get();
  const wr_mujoco::BatchOutputs outputs = wr_mujoco::request_batch_outputs(b);  // before the first call
  const int nstate = mjb_nstate(b);
  int qsize = 0, csize = 0;
  mjtNum* qpos = mjb_stateComponent(b, mjSTATE_QPOS, &qsize);
  mjtNum* ctrl = mjb_stateComponent(b, mjSTATE_CTRL, &csize);
  if (!qpos || !ctrl || qsize != m->nq || csize != m->nu)
    throw DemoError("mjb_stateComponent: unexpected state layout");
  const std::vector<int> keys(n, robot.key);
  if (mjb_reset(b, nullptr, 0, keys.data(), mjSTAGE_NONE) != 0)
    throw DemoError(std::string("mjb_reset: ") + mjb_error(b, 0));
  uint32_t uneven = 0;
  const std::vector<double> start = place_robots(m, robot, bmin, bmax, n, opt.seed, &uneven);
  wr_tools::SplitMix64 phases{opt.seed + 1};
  std::vector<double> phase(n);
  for (uint32_t e = 0; e < n; ++e) {
    mjtNum* q = qpos + size_t(e) * nstate;
    const double* s = &start[size_t(e) * 4];
    q[0] = s[0], q[1] = s[1], q[2] = s[2];
    q[3] = std::cos(s[3] / 2), q[4] = 0, q[5] = 0, q[6] = std::sin(s[3] / 2);  // a yaw
    phase[e] = phases.uniform(0.0, 2 * kPi);
    // The legs start where the trot puts them at t = 0, so that already the first frame (--check's)
    // has robots with a front leg raised in view.
    std::vector<mjtNum> target(m->nu);
    trot(robot, 0.0, phase[e], target.data());
    for (int l = 0; l < 4; ++l)
      for (int a : {robot.hip[l], robot.knee[l]}) q[m->jnt_qposadr[m->actuator_trnid[2 * a]]] = target[a];
  }
  if (mjb_forward(b, nullptr, 0, mjSTAGE_POS) != 0) throw DemoError(std::string("mjb_forward: ") + mjb_error(b, 0));

  std::printf(
      "wr-mujoco-demo: %u MuJoCo simulations of %s in one mjBatch, %ux%u head camera \"%s\" "
      "(%.1f deg HFOV) rendered for all in one call per step, %u threads (MuJoCo and wr, %s path)\n",
      n, fs::path(opt.model).filename().string().c_str(), W, H, cam.name.c_str(),
      2 * std::atan(0.5 * W / double(cam.desc.fx)) * 180 / kPi, threads, wr_cpu_path_string(ctx.cpu_path()));
  std::printf(
      "  model      %s: loaded and compiled in %.0f ms; %lld geoms, %lld bodies, nq %lld, nu %lld, timestep %g s\n",
      opt.model.c_str(), load_ms, (long long)m->ngeom, (long long)m->nbody, (long long)m->nq, (long long)m->nu,
      m->opt.timestep);
  std::printf(
      "  scene      wr_mujoco: %u static geoms merged into the terrain (%llu triangles), %u moving geoms as "
      "each env's slots (%u prototypes), geomgroup 1 1 1 0 0 0; %.0f ms\n",
      scene.num_static_geoms(), (unsigned long long)scene.num_terrain_triangles(), S, scene.num_prototypes(), scene_ms);
  std::printf("  camera     body %d (\"%s\"), fx %.3f, exclude_own_body (exclude_groups 0x%x)\n", cam.body,
              mj_id2name(m, mjOBJ_BODY, cam.body), double(cam.desc.fx), cam.exclude_groups);
  if (uneven) std::printf("  warning    %u robots found no level patch to start on\n", uneven);

  // The loop.
  const size_t pixels = size_t(n) * W * H;
  std::vector<float> poses(size_t(n) * 7), inst(size_t(n) * std::max(S, 1u) * 7), depth(pixels);
  wr_render_args args;
  wr_render_args_init(&args);
  args.body_poses = poses.data();
  args.instance_poses = S ? inst.data() : nullptr;
  args.global_poses = scene.global_poses();
  args.out = depth.data(), args.out_bytes = pixels * sizeof(float);
  const auto render = [&] {
    cam.fill_pose_batch(outputs, poses.data());
    if (S) scene.fill_instance_poses_batch(outputs, inst.data());
    check(wr_sensor_render_ex(sensor.get(), &args));
  };
  Times step_times, pose_times, render_times, sensor_times;  // ms per step
  uint32_t failed_steps = 0;
  int check_status = 0;
  std::string check_line;
  for (uint32_t s = 0; s < opt.steps; ++s) {
    const double t = s * m->opt.timestep;
    for (uint32_t e = 0; e < n; ++e) trot(robot, t, phase[e], ctrl + size_t(e) * nstate);
    t0 = Clock::now();
    const int failed = mjb_step(b, nullptr, 0, 1, mjSTAGE_POS);
    const double step_ms = ms_since(t0);
    if (failed) {
      ++failed_steps;
      for (uint32_t e = 0; e < n; ++e)
        if (mjb_status(b)[e])
          std::fprintf(stderr, "wr-mujoco-demo: step %u, simulation %u: %s\n", s, e, mjb_error(b, int(e)));
    }
    t0 = Clock::now();
    cam.fill_pose_batch(outputs, poses.data());
    if (S) scene.fill_instance_poses_batch(outputs, inst.data());
    const double pose_ms = ms_since(t0);
    t0 = Clock::now();
    check(wr_sensor_render_ex(sensor.get(), &args));
    const double render_ms = ms_since(t0);
    step_times.add(step_ms), pose_times.add(pose_ms), render_times.add(render_ms);
    sensor_times.add(pose_ms + render_ms);

    if (s == 0 && (opt.check || opt.multiray)) {
      std::vector<DataPtr> ds = batch_data(m, b, n, threads);
      if (opt.multiray) {
        const std::vector<double> rays = camera_rays(cam.desc);
        std::vector<float> mr(pixels);
        const std::vector<float> first = depth;
        double mr_best = 1e300, wr_best = 1e300;
        for (uint32_t r = 0; r < opt.repeats; ++r) {
          Clock::time_point t1 = Clock::now();
          multiray_render(m, ds, cam, rays, threads, mr);
          mr_best = std::min(mr_best, ms_since(t1));
          t1 = Clock::now();
          render();
          wr_best = std::min(wr_best, ms_since(t1));
        }
        size_t same = 0;
        for (size_t i = 0; i < pixels; ++i) same += agrees(depth[i], double(mr[i]));
        std::printf("  multiRay   the first frame's %zu pixels (%u envs x %u rays), best of %u, %u threads each:\n",
                    pixels, n, W * H, opt.repeats, threads);
        std::printf("             mj_multiRay (one call per env, the envs over %u threads)   %9.3f ms\n", threads,
                    mr_best);
        std::printf("             wr_mujoco poses + wr_sensor_render_ex (one call)            %9.3f ms\n", wr_best);
        std::printf("             wr is %.1fx faster; the two agree on %.3f%% of the pixels (within %g relative)\n",
                    mr_best / wr_best, 100.0 * double(same) / double(pixels), kRelTolerance);
        if (first != depth) throw DemoError("re-rendering the first frame changed its depth");
      }
      if (opt.check) {
        const CheckResult r = check_against_mj_ray(m, ds, outputs, cam, depth, threads);
        const double agreement = double(r.agree) / double(r.pixels);
        std::printf(
            "  check      first frame vs mj_ray (geomgroup 1 1 1 0 0 0, flg_static 1, bodyexclude %d), rays "
            "in double from wr.h's pixel convention:\n",
            cam.body);
        std::printf(
            "             both hit %zu (%zu of them the robot's own legs in mj_ray), both miss %zu, only wr "
            "hits %zu, only mj_ray hits %zu; the largest relative difference where both hit %.3g (%.3g "
            "where they agree); camera positions mjb_output vs mj_forward differ by %.3g m\n",
            r.both_hit, r.mj_robot, r.both_miss, r.wr_only, r.mj_only, r.max_rel, r.max_rel_agreeing, r.max_pose);
        for (size_t i = 0; i < r.worst.size() && i < 8; ++i) {
          const Mismatch& x = r.worst[i];
          const char* name = x.geom >= 0 ? mj_id2name(m, mjOBJ_GEOM, x.geom) : nullptr;
          std::printf(
              "             disagree: env %u pixel (%u, %u): wr %.7g, mj_ray %.7g (geom %d %s, size %.6g %.6g "
              "%.6g, hit at %.9g %.9g %.9g in its frame)\n",
              x.env, x.u, x.v, double(x.wr), x.mj, x.geom, name ? name : "",
              x.geom >= 0 ? m->geom_size[3 * x.geom] : 0.0, x.geom >= 0 ? m->geom_size[3 * x.geom + 1] : 0.0,
              x.geom >= 0 ? m->geom_size[3 * x.geom + 2] : 0.0, x.local[0], x.local[1], x.local[2]);
        }
        char line[256];
        std::snprintf(line, sizeof line, "agreement with mj_ray: %.4f%% of %zu pixels (N=%u; %zu disagree)",
                      100.0 * agreement, r.pixels, n, r.pixels - r.agree);
        check_line = line;
        if (agreement < kRequiredAgreement) check_status = 1;
      }
    }
  }

  // The last frame: what each robot sees of itself (instance ids, one more render of it).
  std::vector<uint32_t> ids(pixels);
  wr_render_args with_ids = args;
  std::vector<float> depth_again(pixels);
  with_ids.out = depth_again.data(), with_ids.instance_ids = ids.data();
  check(wr_sensor_render_ex(sensor.get(), &with_ids));
  size_t leg_pixels = 0, own_body = 0, hits = 0;
  uint32_t robots_with_legs = 0;
  float dmin = std::numeric_limits<float>::infinity(), dmax = 0;
  for (uint32_t e = 0; e < n; ++e) {
    size_t legs = 0;
    for (size_t i = size_t(e) * W * H; i < size_t(e + 1) * W * H; ++i) {
      if (ids[i] < S) (scene.slots()[ids[i]].body == cam.body ? own_body : legs) += 1;
      if (std::isfinite(depth[i])) ++hits, dmin = std::min(dmin, depth[i]), dmax = std::max(dmax, depth[i]);
    }
    leg_pixels += legs, robots_with_legs += legs != 0;
  }
  double lowest_trunk = std::numeric_limits<double>::infinity();
  uint32_t upright = 0;
  for (uint32_t e = 0; e < n; ++e) {
    const mjtNum* q = qpos + size_t(e) * nstate;
    lowest_trunk = std::min(lowest_trunk, q[2]);
    upright += 1 - 2 * (q[4] * q[4] + q[5] * q[5]) > 0.5;  // the trunk's z axis within 60 degrees of up
  }

  const fs::path png = fs::path(opt.out) / "depth_contact_sheet.png";
  const fs::path npy = fs::path(opt.out) / "depth.npy";
  const std::vector<uint32_t> tiles = wr_demo::varied_envs(depth, n, H, W);
  const wr_demo::DisplayRange shown = wr_demo::percentile_range(depth, tiles, size_t(W) * H, true);
  wr_demo::write_contact_sheet(png, depth, tiles, H, W, 3, shown);
  wr_demo::write_npy(npy, depth, n, H, W);
  const fs::path ids_npy = fs::path(opt.out) / "instance_ids.npy";
  wr_demo::write_npy(ids_npy, ids.data(), ids.size() * sizeof(uint32_t), "<u4", n, H, W);

  const double rays = double(pixels);
  std::printf("  steps      %u of %g s (%.2f s simulated)%s\n", opt.steps, m->opt.timestep, opt.steps * m->opt.timestep,
              failed_steps ? (", " + std::to_string(failed_steps) + " with failed simulations").c_str() : "");
  std::printf(
      "  MuJoCo     mjb_step (1 step of %u simulations, then their positions): mean %.3f ms per step, "
      "median %.3f, best %.3f (%.1f us per simulation, mean)\n",
      n, step_times.mean(), step_times.median(), step_times.best(), 1e3 * step_times.mean() / n);
  std::printf(
      "  sensor     wr_mujoco poses from mjb_output + one wr_sensor_render_ex of all %u cameras: mean %.3f ms "
      "per step, median %.3f, best %.3f (poses %.3f ms, render %.3f ms, means); %.3g rays/s (median)\n",
      n, sensor_times.mean(), sensor_times.median(), sensor_times.best(), pose_times.mean(), render_times.mean(),
      rays / (sensor_times.median() * 1e-3));
  std::printf(
      "  last frame %.1f%% of pixels hit, depth %.3f - %.3f m; %.2f%% of pixels show the robot's own legs, %u "
      "of %u robots see a leg; %zu pixels show the excluded trunk or head; %u of %u trunks upright, the "
      "lowest at z = %.2f m\n",
      100.0 * double(hits) / rays, double(hits ? dmin : 0.0f), double(dmax), 100.0 * double(leg_pixels) / rays,
      robots_with_legs, n, own_body, upright, n, lowest_trunk);
  std::printf(
      "  wrote      %s (%u of %u robots, the most varied views, last frame, turbo colour map log %.2f - %.2f m; grey = "
      "miss)\n",
      png.string().c_str(), std::min<uint32_t>(n, 16), n, double(shown.near), double(shown.far));
  std::printf("  wrote      %s (float32 [%u, %u, %u], plane depth, +inf = miss)\n", npy.string().c_str(), n, H, W);
  std::printf("  wrote      %s (uint32 [%u, %u, %u], the slot hit, 4294967295 = terrain or miss; slots:",
              ids_npy.string().c_str(), n, H, W);
  for (uint32_t i = 0; i < S; ++i) {
    const char* name = mj_id2name(m, mjOBJ_GEOM, scene.slot_geom(i));
    std::printf(" %u %s", i, name ? name : "(unnamed)");
  }
  std::printf(")\n");
  if (own_body) std::fprintf(stderr, "wr-mujoco-demo: error: a camera sees its own body although it excludes it\n");
  if (!check_line.empty()) std::printf("%s\n", check_line.c_str());  // --check's line: the last
  return own_body ? 1 : check_status;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{
      "wr-mujoco-demo: N MuJoCo simulations (one mjBatch) of a quadruped on the parkour terrain, every "
      "robot's head depth camera rendered in one warp-raycaster call per step"};
  app.add_option("--model", opt.model,
                 "MJCF model (a free-joint robot with actuators <leg>_hip, <leg>_knee for "
                 "FL FR RL RR, a keyframe \"stand\" and the camera)")
      ->capture_default_str();
  app.add_option("--camera", opt.camera, "the model's camera to render")->capture_default_str();
  app.add_option("-n,--envs", opt.envs, "number of simulations (robots)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  app.add_option("--steps", opt.steps, "simulation steps, each rendered")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--threads", opt.threads, "threads of MuJoCo's batch and of the library (0 = one per hardware thread)")
      ->capture_default_str();
  app.add_option("--cpu-path", opt.cpu_path,
                 "how the library traces: auto (the fastest this CPU runs), scalar, avx2, avx512")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx512"}));
  app.add_option("--seed", opt.seed, "start positions, yaws and gait phases")->capture_default_str();
  app.add_option("--repeats", opt.repeats, "--multiray: timed runs of each, the best reported")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  app.add_option("-o,--out", opt.out, "output directory (created if missing)")->capture_default_str();
  app.add_flag("--check", opt.check,
               "compare every pixel of the first frame with mj_ray on the same simulation state; the last line is the "
               "agreement; exit 1 below 99.9%");
  app.add_flag("--multiray", opt.multiray,
               "time mj_multiRay (one call per env, the envs over the same threads) against the library on the first "
               "frame");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "wr-mujoco-demo: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {  // wr::Error, wr_mujoco::Error, DemoError, filesystem errors
    std::fprintf(stderr, "wr-mujoco-demo: error: %s\n", e.what());
  }
  return 2;
}
