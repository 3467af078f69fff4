// SceneOptions::terrain = WR_TERRAIN_GRID: a model's static hfield traced through the grid kind, the
// other static geoms beside it as one global instance, against mj_ray per pixel and per ray, and
// against the same model as one BVH (WR_TERRAIN_BVH) on the same rays:
//   - cameras over the hfield, its walls and base, a static box beside it and moving geoms (a box and
//     an hfield prototype) in two envs: >= 99.9% of pixels within 1e-4 relative of mj_ray;
//   - the largest of two static hfields is the grid, the other one goes with the static geoms;
//   - explicit rays from every side: the grid scene and the BVH scene within 1e-5 relative;
//   - what cannot be a grid (no static hfield seen, a turned one, a bad option) is a named Error.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"

using namespace wr_mujoco_test;

namespace {

// n random samples in [0, 1) as an MJCF elevation list.
std::string elevation(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::string s;
  for (int i = 0; i < n; ++i) s += std::to_string(u(rng)) + " ";
  return s;
}

const double kCamPos[3] = {-0.1, -2.2, 2.6};
const double kCamTarget[3] = {0.1, 0.2, 0.0};

// The ground (12 x 15 samples, moved, with its base), a small static hfield, a static box, a moving
// box and a moving hfield; ground_euler turns the ground.
std::string grid_model(const std::string& ground_euler = "0 0 0") {
  return "<mujoco><asset><hfield name=\"ground\" nrow=\"12\" ncol=\"15\" size=\"1.7 1.3 0.5 0.2\" elevation=\"" +
         elevation(12 * 15, 3) + "\"/><hfield name=\"patch\" nrow=\"4\" ncol=\"5\" size=\"0.3 0.25 0.3 0.1\" " +
         "elevation=\"" + elevation(4 * 5, 4) + "\"/><hfield name=\"bump\" nrow=\"5\" ncol=\"4\" " +
         "size=\"0.3 0.4 0.2 0.1\" elevation=\"" + elevation(5 * 4, 5) + "\"/></asset><worldbody>" +
         "<camera name=\"cam\" " + look_at(kCamPos, kCamTarget) + " resolution=\"160 120\" fovy=\"60\"/>" +
         "<geom name=\"ground\" type=\"hfield\" hfield=\"ground\" pos=\"0.2 0.3 0.05\" euler=\"" + ground_euler +
         "\"/><geom name=\"patch\" type=\"hfield\" hfield=\"patch\" pos=\"-1.0 -0.6 0.6\"/>" +
         "<geom name=\"post\" type=\"box\" size=\"0.15 0.15 0.5\" pos=\"1.1 -0.4 0.5\" euler=\"0 0 30\"/>" +
         "<body name=\"crate\" pos=\"-0.3 -0.5 0.9\"><freejoint/><geom type=\"box\" size=\"0.2 0.15 0.1\"/></body>" +
         "<body name=\"mover\" pos=\"0.5 -0.6 1.0\"><freejoint/><geom type=\"hfield\" hfield=\"bump\"/></body>" +
         "</worldbody></mujoco>";
}

wr_mujoco::SceneOptions grid_options() {
  wr_mujoco::SceneOptions o;
  o.terrain = WR_TERRAIN_GRID;
  return o;
}

}  // namespace

TEST_CASE("a static hfield as the grid terrain agrees with mj_ray, beside static and moving geoms",
          "[mujoco][hfield][grid]") {
  Model m = load(grid_model());
  std::vector<Data> ds;
  for (const auto& q : two_states(m.get(), 9)) ds.push_back(forward(m.get(), q));
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get(), grid_options());
  const int ground = mj_name2id(m.get(), mjOBJ_GEOM, "ground");
  CHECK(scene.grid_geom() == ground);  // the larger of the two static hfields
  CHECK(scene.num_static_geoms() == 3);
  CHECK(scene.num_slots() == 2);
  REQUIRE(scene.num_globals() == 1);
  const float* g = scene.global_poses();
  REQUIRE(g != nullptr);
  CHECK((g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 1 && g[4] == 0 && g[5] == 0 && g[6] == 0));
  wr_terrain_kind kind = WR_TERRAIN_AUTO;
  REQUIRE_OK(wr_scene_terrain_kind(scene.handle(), &kind));
  CHECK(kind == WR_TERRAIN_GRID);

  wr_mujoco::CameraOptions co;
  co.depth_kind = WR_DEPTH_RANGE;  // mj_ray's distance along a unit direction
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "cam", co);
  const WrImages img = render(scene, cam, {ds[0].get(), ds[1].get()});
  const size_t hw = size_t(cam.desc.width) * cam.desc.height;
  for (size_t e = 0; e < ds.size(); ++e) {
    const MjImage mj = mj_image(m.get(), ds[e].get(), cam, nullptr, -1);
    require_exact_agreement(("grid terrain, env " + std::to_string(e)).c_str(), img.depth.data() + e * hw, mj);
    // Every kind of geom is in the picture, and hits name their instance: a slot's geom, the global
    // instance (id num_slots) for the static geoms beside the grid, no instance for the grid.
    size_t on_ground = 0, on_statics = 0, on_slots = 0, named = 0, agreeing = 0;
    for (size_t k = 0; k < hw; ++k) {
      if (mj.t[k] < 0 || std::fabs(img.depth[e * hw + k] - mj.t[k]) > 1e-4 * mj.t[k]) continue;
      agreeing++;
      const int geom = mj.geom[k];
      const uint32_t id = img.ids[e * hw + k];
      const bool is_static = m->body_weldid[m->geom_bodyid[geom]] == 0;
      if (geom == ground) {
        on_ground++;
        named += id == UINT32_MAX;
      } else if (is_static) {
        on_statics++;
        named += id == scene.num_slots();
      } else {
        on_slots++;
        named += id < scene.num_slots() && scene.slot_geom(id) == geom;
      }
    }
    std::printf("[wr_mujoco] grid terrain, env %zu: %zu pixels on the grid, %zu on static geoms, %zu on slots\n", e,
                on_ground, on_statics, on_slots);
    INFO("env " << e << ": " << on_ground << " pixels on the grid, " << on_statics << " on static geoms, " << on_slots
                << " on slots; " << named << " of " << agreeing << " name their instance");
    CHECK(on_ground > hw / 4);
    CHECK(on_statics > 0);
    CHECK(on_slots > 0);
    CHECK(named == agreeing);
  }
}

TEST_CASE("a lone static hfield as the grid: the scene is the grid, and traces as the BVH of the same model",
          "[mujoco][hfield][grid]") {
  const std::string xml =
      "<mujoco><asset><hfield name=\"h\" nrow=\"9\" ncol=\"7\" size=\"1.5 1.0 0.8 0.3\" "
      "elevation=\"" +
      elevation(9 * 7, 11) +
      "\"/></asset><worldbody><geom type=\"hfield\" hfield=\"h\" pos=\"0.5 -0.2 0.1\"/>"
      "</worldbody></mujoco>";
  Model m = load(xml);
  Context c;
  const wr_mujoco::Scene grid = wr_mujoco::Scene::build(c.ctx, m.get(), grid_options());
  const wr_mujoco::Scene bvh = wr_mujoco::Scene::build(c.ctx, m.get());
  CHECK(grid.num_slots() == 0);
  CHECK(grid.num_globals() == 0);
  CHECK(grid.global_poses() == nullptr);
  CHECK(bvh.grid_geom() == -1);
  CHECK(grid.num_terrain_triangles() == bvh.num_terrain_triangles());
  wr_terrain_kind kind = WR_TERRAIN_AUTO;
  REQUIRE_OK(wr_scene_terrain_kind(grid.handle(), &kind));
  CHECK(kind == WR_TERRAIN_GRID);
  wr_memory_stats mg, mb;
  REQUIRE_OK(wr_scene_memory(grid.handle(), &mg));
  REQUIRE_OK(wr_scene_memory(bvh.handle(), &mb));
  CHECK(mg.host_bytes < mb.host_bytes);

  // Rays from every side onto the solid (surface, walls, base, misses); mj_ray on the same rays.
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0), sx(-1.2, 2.2), sy(-1.4, 1.0), sz(-0.25, 0.95),
      ang(0, 6.283185307179586);
  const size_t n = 4000;
  std::vector<float> o(3 * n), d(3 * n), t_grid(n), t_bvh(n);
  std::vector<double> t_mj(n);
  Data data = forward(m.get());
  for (size_t i = 0; i < n; ++i) {
    const double a = ang(rng), dz = u(rng) - 0.6;
    const double norm = std::sqrt(1.0 + dz * dz);
    const double dir[3] = {std::cos(a) / norm, std::sin(a) / norm, dz / norm};
    const double target[3] = {sx(rng), sy(rng), sz(rng)};
    mjtNum org[3], vec[3];
    for (int k = 0; k < 3; ++k) {
      d[3 * i + k] = static_cast<float>(dir[k]);
      o[3 * i + k] = static_cast<float>(target[k] - 4.0 * dir[k]);
      org[k] = o[3 * i + k], vec[k] = d[3 * i + k];
    }
    int geomid = -1;
    t_mj[i] = mj_ray(m.get(), data.get(), org, vec, nullptr, 1, -1, &geomid, nullptr);
  }
  REQUIRE_OK(wr_scene_intersect(grid.handle(), o.data(), d.data(), nullptr, n, t_grid.data(), nullptr, nullptr));
  REQUIRE_OK(wr_scene_intersect(bvh.handle(), o.data(), d.data(), nullptr, n, t_bvh.data(), nullptr, nullptr));
  size_t hits = 0, same_as_bvh = 0, same_as_mj = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool hit = std::isfinite(t_bvh[i]);
    hits += hit;
    same_as_bvh += hit ? std::fabs(t_grid[i] - t_bvh[i]) <= 1e-5f * t_bvh[i] : !std::isfinite(t_grid[i]);
    // mj_ray's direction is the float one divided by its length, so its t is along a unit direction.
    const double len = std::sqrt(double(d[3 * i]) * d[3 * i] + double(d[3 * i + 1]) * d[3 * i + 1] +
                                 double(d[3 * i + 2]) * d[3 * i + 2]);
    same_as_mj += t_mj[i] >= 0 ? std::isfinite(t_grid[i]) && std::fabs(t_grid[i] * len - t_mj[i]) <= 1e-4 * t_mj[i]
                               : !std::isfinite(t_grid[i]);
  }
  std::printf("[wr_mujoco] lone hfield, grid vs BVH: %zu of %zu rays agree, vs mj_ray %zu (%zu hits)\n", same_as_bvh, n,
              same_as_mj, hits);
  CHECK(hits > n / 4);
  CHECK(same_as_bvh >= n - n / 1000);
  CHECK(same_as_mj >= n - n / 1000);
}

TEST_CASE("what cannot be a grid terrain is a named error", "[mujoco][hfield][grid][errors]") {
  Context c;
  {
    Model m = load(grid_model("0 0 15"));
    REQUIRE_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), grid_options()),
                        Catch::Contains("Scene::build") && Catch::Contains("'ground'") && Catch::Contains("turned") &&
                            Catch::Contains("WR_TERRAIN_BVH"));
    // The same model as one BVH is fine.
    CHECK_NOTHROW(wr_mujoco::Scene::build(c.ctx, m.get()));
  }
  {
    Model m = load("<mujoco><worldbody><geom type=\"plane\" size=\"3 3 1\"/></worldbody></mujoco>");
    REQUIRE_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), grid_options()),
                        Catch::Contains("options.terrain = WR_TERRAIN_GRID") && Catch::Contains("no static hfield"));
  }
  {
    // An hfield that is not seen (its group off) is not the grid either.
    Model m = load(grid_model());
    wr_mujoco::SceneOptions o = grid_options();
    o.geomgroup[0] = 0;
    REQUIRE_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), o), Catch::Contains("no static hfield"));
    o = {};
    const int bad = 7;  // a C caller's int, as the library's C API takes one
    std::memcpy(&o.terrain, &bad, sizeof bad);
    REQUIRE_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), o), Catch::Contains("options.terrain = 7"));
  }
}
