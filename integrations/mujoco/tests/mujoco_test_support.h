// What the MuJoCo integration's tests share: models from MJCF strings, the library's rays built in
// double from wr.h's pixel convention, mj_ray on the same rays, and renders through the library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "api_test_support.h"  // REQUIRE_OK (tests/support/, the library's test support)
#include "wr_mujoco.h"

namespace wr_mujoco_test {

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using Model = std::unique_ptr<mjModel, ModelDeleter>;
using Data = std::unique_ptr<mjData, DataDeleter>;

// An mjModel from an MJCF string (mjSpec: mj_parseXMLString, then mj_compile).
inline Model load(const std::string& xml) {
  char error[1024] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, error, sizeof error);
  INFO("MJCF parse error: " << error);
  REQUIRE(spec != nullptr);
  mjModel* m = mj_compile(spec, nullptr);
  INFO("MJCF compile error: " << mjs_getError(spec));
  mj_deleteSpec(spec);
  REQUIRE(m != nullptr);
  return Model(m);
}

inline Data forward(const mjModel* m, const std::vector<double>& qpos = {}) {
  Data d(mj_makeData(m));
  REQUIRE(d != nullptr);
  for (size_t i = 0; i < qpos.size() && i < static_cast<size_t>(m->nq); ++i) d->qpos[i] = qpos[i];
  mj_forward(m, d.get());
  return d;
}

// qpos of two envs: the movers at qpos0 (env 0) and moved and turned (env 1).
inline std::vector<std::vector<double>> two_states(const mjModel* m, unsigned seed) {
  std::vector<double> q0(m->qpos0, m->qpos0 + m->nq), q1 = q0;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> shift(-0.3, 0.3), angle(-1.0, 1.0);
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] != mjJNT_FREE) continue;
    double* q = q1.data() + m->jnt_qposadr[j];
    for (int i = 0; i < 3; ++i) q[i] += shift(rng);
    double quat[4] = {1, angle(rng), angle(rng), angle(rng)};
    const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    for (int i = 0; i < 4; ++i) q[3 + i] = quat[i] / n;
  }
  return {q0, q1};
}

struct Context {
  wr_context ctx = nullptr;
  Context() { REQUIRE_OK(wr_context_create_cpu(2, &ctx)); }
  ~Context() { wr_context_release(ctx); }
};

// MJCF xyaxes for a camera at `pos` looking at `target` with world +z up: camera x right, y up
// (MuJoCo looks along the camera's -z).
inline std::string look_at(const double pos[3], const double target[3]) {
  double f[3] = {target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]};
  const double fn = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (double& v : f) v /= fn;
  double x[3] = {f[1], -f[0], 0.0};  // f x (0, 0, 1)
  const double xn = std::sqrt(x[0] * x[0] + x[1] * x[1]);
  for (double& v : x) v /= xn;
  const double y[3] = {x[1] * f[2] - x[2] * f[1], x[2] * f[0] - x[0] * f[2], x[0] * f[1] - x[1] * f[0]};  // x cross f
  char buf[256];
  std::snprintf(buf, sizeof buf, "pos=\"%.9g %.9g %.9g\" xyaxes=\"%.9g %.9g %.9g %.9g %.9g %.9g\"", pos[0], pos[1],
                pos[2], x[0], x[1], x[2], y[0], y[1], y[2]);
  return buf;
}

// The world ray of pixel (u, v) of a camera, in double, exactly as wr.h states it:
// d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy) in the library's camera frame,
// whose axes in the world are forward = -cam_z, left = -cam_x, up = +cam_y of cam_xmat.
struct Ray {
  double origin[3], dir[3];
  double forward_cos;  // d . forward: the plane depth is the range times this
};
inline Ray pixel_ray(const wr_camera_desc& desc, const mjtNum* cam_xpos, const mjtNum* cam_xmat, uint32_t u,
                     uint32_t v) {
  double c[3] = {1.0, -((u + 0.5) - double(desc.cx)) / double(desc.fx),
                 -((v + 0.5) - double(desc.cy)) / double(desc.fy)};
  const double n = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  for (double& x : c) x /= n;
  Ray r;
  for (int i = 0; i < 3; ++i) {
    const double fwd = -cam_xmat[3 * i + 2], left = -cam_xmat[3 * i + 0], up = cam_xmat[3 * i + 1];
    r.origin[i] = cam_xpos[i];
    r.dir[i] = fwd * c[0] + left * c[1] + up * c[2];
  }
  r.forward_cos = c[0];
  return r;
}

// mj_ray on one env's image: t (or -1), the geom hit and its normal per pixel.
struct MjImage {
  std::vector<double> t;
  std::vector<int> geom;
  std::vector<double> cosine;  // |d . normal| at the hit, 0 for a miss
  std::vector<double> normal;  // (3 per pixel) mj_ray's surface normal, 0 for a miss
};
inline MjImage mj_image(const mjModel* m, const mjData* d, const wr_mujoco::Camera& cam, const mjtByte* geomgroup,
                        int bodyexclude) {
  MjImage img;
  const uint32_t W = cam.desc.width, H = cam.desc.height;
  img.t.resize(size_t(W) * H);
  img.geom.resize(img.t.size());
  img.cosine.resize(img.t.size());
  img.normal.resize(3 * img.t.size());
  for (uint32_t v = 0; v < H; ++v)
    for (uint32_t u = 0; u < W; ++u) {
      const Ray r = pixel_ray(cam.desc, d->cam_xpos + 3 * cam.id, d->cam_xmat + 9 * cam.id, u, v);
      int geomid = -1;
      mjtNum normal[3] = {0, 0, 0};
      const size_t k = size_t(v) * W + u;
      img.t[k] = mj_ray(m, d, r.origin, r.dir, geomgroup, 1, bodyexclude, &geomid, normal);
      img.geom[k] = geomid;
      img.cosine[k] =
          img.t[k] >= 0 ? std::fabs(r.dir[0] * normal[0] + r.dir[1] * normal[1] + r.dir[2] * normal[2]) : 0.0;
      for (int i = 0; i < 3; ++i) img.normal[3 * k + i] = normal[i];
    }
  return img;
}

// The library's images of envs posed by ds (one env per mjData), range depth unless the camera
// says otherwise, with the instance each pixel hit.
struct WrImages {
  std::vector<float> depth;
  std::vector<uint32_t> ids;
};
inline WrImages render(const wr_mujoco::Scene& scene, const wr_mujoco::Camera& cam,
                       const std::vector<const mjData*>& ds) {
  const uint32_t N = static_cast<uint32_t>(ds.size());
  wr_sensor_options opts = cam.sensor_options();
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(scene.handle(), &cam.desc, &opts, N, &sensor));
  std::vector<float> poses(7 * size_t(N)), inst(7 * size_t(N) * scene.num_slots());
  for (uint32_t e = 0; e < N; ++e) {
    cam.fill_pose(ds[e], poses.data() + 7 * e);
    if (scene.num_slots()) scene.fill_instance_poses(ds[e], inst.data() + 7 * size_t(e) * scene.num_slots());
  }
  const size_t pixels = size_t(N) * cam.desc.width * cam.desc.height;
  WrImages out;
  out.depth.assign(pixels, 0.0f);
  out.ids.assign(pixels, 0u);
  wr_render_args args;
  wr_render_args_init(&args);
  args.body_poses = poses.data();
  args.instance_poses = scene.num_slots() ? inst.data() : nullptr;
  args.global_poses = scene.global_poses();
  args.instance_ids = scene.num_slots() ? out.ids.data() : nullptr;
  args.out = out.depth.data();
  args.out_bytes = pixels * sizeof(float);
  const wr_status s = wr_sensor_render_ex(sensor, &args);
  INFO("wr_sensor_render_ex: " << wr_status_string(s) << " " << wr_last_error());
  wr_sensor_release(sensor);
  REQUIRE(s == WR_SUCCESS);
  if (!scene.num_slots()) std::fill(out.ids.begin(), out.ids.end(), UINT32_MAX);
  return out;
}

// Per-pixel agreement of one env's library depth (range) with mj_ray's t.
struct Agreement {
  size_t pixels = 0, both_hit = 0, both_miss = 0, within = 0, hit_miss = 0;
  double max_rel = 0;  // over pixels both hit
  double fraction() const { return pixels ? double(within + both_miss) / double(pixels) : 0.0; }
};
inline Agreement compare_exact(const float* wr_depth, const MjImage& mj, double rel_tol = 1e-4) {
  Agreement a;
  a.pixels = mj.t.size();
  for (size_t k = 0; k < a.pixels; ++k) {
    const bool wr_hit = std::isfinite(wr_depth[k]), mj_hit = mj.t[k] >= 0;
    if (!wr_hit && !mj_hit) {
      a.both_miss++;
    } else if (wr_hit && mj_hit) {
      a.both_hit++;
      const double rel = std::fabs(double(wr_depth[k]) - mj.t[k]) / mj.t[k];
      a.max_rel = std::max(a.max_rel, rel);
      if (rel <= rel_tol) a.within++;
    } else {
      a.hit_miss++;
    }
  }
  return a;
}

inline void report(const char* what, const Agreement& a) {
  std::printf(
      "[wr_mujoco] %s: %zu pixels, %zu both hit, %zu both miss, %zu hit/miss disagree, %.4f%% within 1e-4 "
      "relative, max relative %.3g\n",
      what, a.pixels, a.both_hit, a.both_miss, a.hit_miss, 100.0 * a.fraction(), a.max_rel);
}

// Exact shapes: >= 99.9% of pixels agree (both miss, or both hit within 1e-4 relative), and the
// comparison is not of misses alone.
inline void require_exact_agreement(const char* what, const float* wr_depth, const MjImage& mj) {
  const Agreement a = compare_exact(wr_depth, mj);
  report(what, a);
  INFO(what << ": " << a.within << " of " << a.both_hit << " hits within 1e-4, " << a.hit_miss
            << " hit/miss disagreements, max relative " << a.max_rel);
  CHECK(a.both_hit > a.pixels / 4);
  CHECK(a.fraction() >= 0.999);
}

}  // namespace wr_mujoco_test
