// Every geom type of a MuJoCo model rendered by the library through a camera of the model, per pixel
// against mj_ray on the same rays (built in double from wr.h's pixel convention; mj_ray with the
// same geomgroup, flg_static = 1, bodyexclude = -1), static geoms (the merged terrain) and moving
// ones (instances) in two envs in different states:
//   - meshes, boxes, planes, heightfields: within 1e-4 relative on >= 99.9% of pixels;
//   - spheres, capsules, cylinders, ellipsoids: every point the library hits lies within the
//     tolerance of a true surface, never in front of mj_ray's hit, and, where the ray meets the
//     surface at a cosine of at least 0.3, within 2 tolerance / cosine behind it along the ray;
//   - their tessellations alone: the Hausdorff distance to the true surface, both ways, within it;
//   - geomgroup, transparent geoms and contype/conaffinity 0 as mj_ray has them;
//   - a static hfield merged into the terrain: the triangles of wr_scene_create_heightfield.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"
#include "shape_distance.h"

using namespace wr_mujoco_test;

namespace {

const double kCamPos[3] = {0.3, -3.2, 2.4};
const double kCamTarget[3] = {0.0, 0.2, 0.3};

// The curved primitives' camera is nearer, so that they fill more of its image.
const double kNearCamPos[3] = {0.1, -2.1, 1.4};
const double kNearCamTarget[3] = {0.0, 0.4, 0.45};

std::string camera_xml(const double* pos = kCamPos, const double* target = kCamTarget) {
  return "<camera name=\"cam\" " + look_at(pos, target) + " resolution=\"160 120\" fovy=\"55\"/>";
}

// A model: assets, static geoms in the world body, moving bodies (with free joints), the camera.
std::string model(const std::string& assets, const std::string& statics, const std::string& movers,
                  const double* cam_pos = kCamPos, const double* cam_target = kCamTarget) {
  return "<mujoco><asset>" + assets + "</asset><worldbody>" + camera_xml(cam_pos, cam_target) + statics + movers +
         "</worldbody></mujoco>";
}

struct Rendered {
  Model m;
  std::vector<Data> ds;
  wr_mujoco::Scene scene;
  wr_mujoco::Camera cam;
  WrImages img;
};

Rendered render_model(const std::string& xml, const wr_mujoco::SceneOptions& opts, unsigned seed, wr_context ctx) {
  Model m = load(xml);
  std::vector<Data> ds;
  for (const auto& q : two_states(m.get(), seed)) ds.push_back(forward(m.get(), q));
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(ctx, m.get(), opts);
  wr_mujoco::CameraOptions co;
  co.depth_kind = WR_DEPTH_RANGE;  // mj_ray's distance along a unit direction
  wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "cam", co);
  WrImages img = render(scene, cam, {ds[0].get(), ds[1].get()});
  return Rendered{std::move(m), std::move(ds), std::move(scene), std::move(cam), std::move(img)};
}

// type >= 0: the geom type under test, which must fill at least 3% of each env's image.
void check_exact(const std::string& what, int type, const std::string& xml, unsigned seed,
                 const wr_mujoco::SceneOptions& opts = {}) {
  Context c;
  Rendered r = render_model(xml, opts, seed, c.ctx);
  REQUIRE(r.scene.num_slots() > 0);
  const size_t hw = size_t(r.cam.desc.width) * r.cam.desc.height;
  for (size_t e = 0; e < r.ds.size(); ++e) {
    const MjImage mj = mj_image(r.m.get(), r.ds[e].get(), r.cam, opts.geomgroup.data(), -1);
    require_exact_agreement((what + ", env " + std::to_string(e)).c_str(), r.img.depth.data() + e * hw, mj);
    if (type >= 0) {
      size_t of_type = 0, static_of_type = 0;
      for (size_t k = 0; k < hw; ++k)
        if (mj.t[k] >= 0 && r.m->geom_type[mj.geom[k]] == type) {
          of_type++;
          static_of_type += r.m->body_weldid[r.m->geom_bodyid[mj.geom[k]]] == 0;
        }
      std::printf("[wr_mujoco] %s, env %zu: %zu pixels on geoms of the type (%zu static, %zu moving)\n", what.c_str(),
                  e, of_type, static_of_type, of_type - static_of_type);
      CHECK(of_type >= hw * 3 / 100);
      CHECK(static_of_type > 0);
    }
    // Moving geoms hit by both are the same geom (the slot's), where the depths agree.
    size_t moving_hits = 0, same_geom = 0;
    for (size_t k = 0; k < hw; ++k) {
      const uint32_t id = r.img.ids[e * hw + k];
      if (id == UINT32_MAX || mj.t[k] < 0) continue;
      if (std::fabs(r.img.depth[e * hw + k] - mj.t[k]) > 1e-4 * mj.t[k]) continue;
      moving_hits++;
      same_geom += r.scene.slot_geom(id) == mj.geom[k];
    }
    INFO(what << ", env " << e << ": " << same_geom << " of " << moving_hits << " instance pixels name mj_ray's geom");
    CHECK(moving_hits > 0);
    CHECK(same_geom == moving_hits);
  }
}

// A closed, non-convex mesh: a star of 8 points (radii 0.5 and 0.2 alternating) and two apexes.
std::string star_mesh_asset() {
  std::string v = "0 0 0.35  0 0 -0.35";
  for (int k = 0; k < 8; ++k) {
    const double a = k * 3.14159265358979323846 / 4, r = k % 2 ? 0.2 : 0.5;
    v += "  " + std::to_string(r * std::cos(a)) + " " + std::to_string(r * std::sin(a)) + " 0";
  }
  std::string f;
  for (int k = 0; k < 8; ++k) {
    const int a = 2 + k, b = 2 + (k + 1) % 8;
    f += " " + std::to_string(a) + " " + std::to_string(b) + " 0 " + std::to_string(b) + " " + std::to_string(a) + " 1";
  }
  return "<mesh name=\"star\" scale=\"1.8 2.3 1.6\" vertex=\"" + v + "\" face=\"" + f + "\"/>";
}

const char* kFloorBox = "<geom name=\"floor\" type=\"box\" size=\"4 4 0.05\" pos=\"0 0 -0.05\"/>";

}  // namespace

TEST_CASE("mesh geoms, static and moving, agree with mj_ray", "[mujoco][mesh]") {
  const std::string xml =
      model(star_mesh_asset(),
            std::string(kFloorBox) +
                "<geom name=\"s0\" type=\"mesh\" mesh=\"star\" pos=\"-0.9 0.1 0.4\" euler=\"20 30 40\"/>"
                "<geom name=\"s1\" type=\"mesh\" mesh=\"star\" pos=\"1.0 0.6 0.3\" euler=\"-10 5 70\"/>",
            "<body name=\"mover\" pos=\"0 0.2 0.7\"><freejoint/>"
            "<geom name=\"m0\" type=\"mesh\" mesh=\"star\" euler=\"90 0 0\"/></body>");
  check_exact("mesh", mjGEOM_MESH, xml, 1);
}

TEST_CASE("box geoms, static and moving, agree with mj_ray", "[mujoco][box]") {
  const std::string xml =
      model("",
            std::string(kFloorBox) +
                "<geom type=\"box\" size=\"0.3 0.2 0.4\" pos=\"-0.9 0.3 0.4\" euler=\"10 20 30\"/>"
                "<geom type=\"box\" size=\"0.5 0.1 0.2\" pos=\"0.9 0.8 0.3\" quat=\"0.9 0.1 0.3 0.2\"/>",
            "<body name=\"a\" pos=\"0 0 0.8\"><freejoint/><geom type=\"box\" size=\"0.2 0.3 0.1\"/></body>"
            "<body name=\"b\" pos=\"0.5 -0.5 0.5\"><freejoint/>"
            "<geom type=\"box\" size=\"0.1 0.1 0.25\" pos=\"0.1 0 0\" euler=\"0 30 0\"/></body>");
  check_exact("box", mjGEOM_BOX, xml, 2);
}

TEST_CASE("plane geoms (infinite and bounded) agree with mj_ray where the camera sees them from above",
          "[mujoco][plane]") {
  // An infinite floor plane and a bounded, tilted one above it (mj_ray bounds a plane by its size
  // where positive); the moving box gives the instance comparison.
  const std::string xml =
      model("",
            "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
            "<geom name=\"tile\" type=\"plane\" size=\"0.6 0.4 0.1\" pos=\"-0.3 0.4 0.5\" euler=\"15 -10 25\"/>",
            "<body name=\"a\" pos=\"0.6 0 0.4\"><freejoint/><geom type=\"box\" size=\"0.2 0.2 0.2\"/></body>");
  check_exact("plane", mjGEOM_PLANE, xml, 3);

  // The infinite plane is a finite quad: by default of half-extent zfar * extent, or as asked.
  Model m = load(xml);
  Context c;
  wr_mujoco::SceneOptions opts;
  opts.plane_half_extent = 7.5;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get(), opts);
  float lo[3], hi[3];
  REQUIRE_OK(wr_scene_bounds(scene.handle(), lo, hi));
  CHECK(lo[0] == Approx(-7.5));
  CHECK(hi[1] == Approx(7.5));
  const wr_mujoco::Mesh floor = wr_mujoco::geom_mesh(m.get(), mj_name2id(m.get(), mjOBJ_GEOM, "floor"));
  const double expected = double(m->vis.map.zfar) * m->stat.extent;
  double extent = 0;
  for (double v : floor.vertices) extent = std::max(extent, std::fabs(v));
  CHECK(extent == Approx(expected));
}

TEST_CASE("hfield geoms, static (turned, with their base) and moving, agree with mj_ray", "[mujoco][hfield]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::string elevation;
  for (int i = 0; i < 11 * 14; ++i) elevation += std::to_string(u(rng)) + " ";
  std::string small;
  for (int i = 0; i < 5 * 4; ++i) small += std::to_string(u(rng)) + " ";
  const std::string assets =
      "<hfield name=\"ground\" nrow=\"11\" ncol=\"14\" size=\"1.6 1.2 0.5 0.2\" elevation=\"" + elevation +
      "\"/><hfield name=\"bump\" nrow=\"5\" ncol=\"4\" size=\"0.3 0.4 0.2 0.1\" elevation=\"" + small + "\"/>";
  const std::string xml =
      model(assets,
            std::string(kFloorBox) +
                "<geom name=\"ground\" type=\"hfield\" hfield=\"ground\" pos=\"0 0.3 0.1\" euler=\"0 0 20\"/>",
            "<body name=\"mover\" pos=\"0.4 -0.4 0.9\"><freejoint/>"
            "<geom type=\"hfield\" hfield=\"bump\"/></body>");
  check_exact("hfield", mjGEOM_HFIELD, xml, 4);
}

TEST_CASE("a static hfield merged into the terrain has the triangles of wr_scene_create_heightfield",
          "[mujoco][hfield]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::string elevation;
  for (int i = 0; i < 9 * 7; ++i) elevation += std::to_string(u(rng)) + " ";
  const std::string xml =
      "<mujoco><asset><hfield name=\"h\" nrow=\"9\" ncol=\"7\" size=\"1.5 1.0 0.8 0.3\" elevation=\"" + elevation +
      "\"/></asset><worldbody><geom type=\"hfield\" hfield=\"h\" pos=\"0.5 -0.2 0.1\"/>" + "</worldbody></mujoco>";
  Model m = load(xml);
  Context c;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  REQUIRE(scene.num_slots() == 0);
  // wr.h's parameterisation of MuJoCo's hfield, made by the library itself.
  wr_heightfield_desc hd;
  wr_heightfield_desc_init(&hd);
  const mjtNum* size = m->hfield_size;
  hd.heights = m->hfield_data;
  hd.num_x = static_cast<uint32_t>(m->hfield_ncol[0]);
  hd.num_y = static_cast<uint32_t>(m->hfield_nrow[0]);
  hd.layout = WR_HEIGHTFIELD_X_FASTEST;
  hd.spacing_x = static_cast<float>(2 * size[0] / (hd.num_x - 1));
  hd.spacing_y = static_cast<float>(2 * size[1] / (hd.num_y - 1));
  hd.z_scale = static_cast<float>(size[2]);
  hd.origin[0] = static_cast<float>(0.5 - size[0]);
  hd.origin[1] = static_cast<float>(-0.2 - size[1]);
  hd.origin[2] = 0.1f;
  hd.base_depth = static_cast<float>(size[3]);
  wr_scene reference = nullptr;
  REQUIRE_OK(wr_scene_create_heightfield(c.ctx, &hd, &reference));
  uint64_t n_ours = 0, n_ref = 0;
  REQUIRE_OK(wr_scene_num_triangles(scene.handle(), &n_ours));
  REQUIRE_OK(wr_scene_num_triangles(reference, &n_ref));
  CHECK(n_ours == n_ref);
  // Rays from every side onto the solid: surface, walls, base and misses.
  const size_t n = 4000;
  std::vector<float> o(3 * n), d(3 * n), t_ours(n), t_ref(n);
  std::uniform_real_distribution<double> sx(-1.2, 2.2), sy(-1.4, 1.0), sz(-0.25, 0.95), ang(0, 6.283185307179586);
  for (size_t i = 0; i < n; ++i) {
    const double a = ang(rng), dz = u(rng) - 0.6;
    const double dir[3] = {std::cos(a), std::sin(a), dz};
    const double target[3] = {sx(rng), sy(rng), sz(rng)};
    for (int k = 0; k < 3; ++k) {
      d[3 * i + k] = static_cast<float>(dir[k]);
      o[3 * i + k] = static_cast<float>(target[k] - 4.0 * dir[k]);
    }
  }
  REQUIRE_OK(wr_scene_intersect(scene.handle(), o.data(), d.data(), nullptr, n, t_ours.data(), nullptr, nullptr));
  REQUIRE_OK(wr_scene_intersect(reference, o.data(), d.data(), nullptr, n, t_ref.data(), nullptr, nullptr));
  wr_scene_release(reference);
  size_t hits = 0, agree = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(t_ref[i])) hits++;
    const bool same =
        std::isfinite(t_ref[i]) ? std::fabs(t_ours[i] - t_ref[i]) <= 1e-5f * t_ref[i] : !std::isfinite(t_ours[i]);
    agree += same;
  }
  std::printf("[wr_mujoco] merged static hfield vs wr_scene_create_heightfield: %zu of %zu rays agree (%zu hits)\n",
              agree, n, hits);
  CHECK(hits > n / 4);
  CHECK(agree >= n - n / 1000);
}

// ---- curved primitives ----

namespace {

struct CurvedCase {
  const char* type;
  const char* statics;
  const char* movers;
};

// Every point the library hits is within the tolerance of a true surface (the floor box's included)
// and never in front of mj_ray's hit: the triangles are inscribed. Where mj_ray meets a smooth
// part of a surface (its four neighbours hit the same geom with normals within 18 degrees: no
// silhouette, rim or seam) at a cosine of at least 0.3, the library hits too, within
// 2 tolerance / cosine behind along the ray. Near silhouettes and rims a ray can pass through the
// shell between the surface and its triangles, so there only the share is asserted: at least 99%
// of every pixel mj_ray hits is within 2 tolerance along the normal.
void check_curved(const CurvedCase& cc, double tol, unsigned seed) {
  wr_mujoco::SceneOptions opts;
  opts.tolerance = tol;
  Context c;
  Rendered r = render_model(model("", std::string(kFloorBox) + cc.statics, cc.movers, kNearCamPos, kNearCamTarget),
                            opts, seed, c.ctx);
  const mjModel* m = r.m.get();
  const uint32_t W = r.cam.desc.width, H = r.cam.desc.height;
  const size_t hw = size_t(W) * H;
  const double slack = 2e-5;  // float vertices, rays and t
  for (size_t e = 0; e < r.ds.size(); ++e) {
    const mjData* d = r.ds[e].get();
    const MjImage mj = mj_image(m, d, r.cam, nullptr, -1);
    const auto smooth = [&](uint32_t u, uint32_t v) {
      if (u == 0 || v == 0 || u + 1 == W || v + 1 == H) return false;
      const size_t k = size_t(v) * W + u;
      for (const size_t n : {k - 1, k + 1, k - W, k + W}) {
        if (mj.t[n] < 0 || mj.geom[n] != mj.geom[k]) return false;
        double dot = 0;
        for (int i = 0; i < 3; ++i) dot += mj.normal[3 * n + i] * mj.normal[3 * k + i];
        if (dot < 0.95) return false;
      }
      return true;
    };
    size_t wr_hits = 0, off_surface = 0, in_front = 0, wr_only = 0, steep = 0, steep_ok = 0, mj_hits = 0, close = 0,
           curved_hits = 0;
    double worst_surface = 0, worst_along = 0;
    for (uint32_t v = 0; v < H; ++v)
      for (uint32_t u = 0; u < W; ++u) {
        const size_t k = size_t(v) * W + u;
        const float t = r.img.depth[e * hw + k];
        const bool wr_hit = std::isfinite(t), mj_hit = mj.t[k] >= 0;
        const Ray ray = pixel_ray(r.cam.desc, d->cam_xpos + 3 * r.cam.id, d->cam_xmat + 9 * r.cam.id, u, v);
        if (wr_hit) {
          wr_hits++;
          const double p[3] = {ray.origin[0] + t * ray.dir[0], ray.origin[1] + t * ray.dir[1],
                               ray.origin[2] + t * ray.dir[2]};
          double nearest = 1e300;
          for (int g = 0; g < m->ngeom; ++g) {
            double local[3];
            to_local(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, p, local);
            nearest = std::min(nearest, surface_distance(m->geom_type[g], m->geom_size + 3 * g, local));
          }
          worst_surface = std::max(worst_surface, nearest);
          off_surface += nearest > tol + slack;
          if (!mj_hit) {
            wr_only++;
          } else if (t < mj.t[k] - slack * (1 + mj.t[k])) {
            in_front++;
          }
        }
        if (!mj_hit) continue;
        mj_hits++;
        if (m->geom_type[mj.geom[k]] != mjGEOM_BOX) curved_hits++;
        const double along = wr_hit ? (double(t) - mj.t[k]) * mj.cosine[k] : 1e300;  // along the normal
        close += along <= 2 * tol + slack;
        if (mj.cosine[k] >= 0.3 && smooth(u, v)) {
          steep++;
          worst_along = std::max(worst_along, along);
          steep_ok += along <= 2 * tol + slack;
        }
      }
    std::printf(
        "[wr_mujoco] %s, tolerance %g, env %zu: %zu library hits (%zu pixels on curved geoms per mj_ray), worst "
        "distance to the true surface %.3g (%.3f tolerances); %zu of %zu smooth steep pixels within 2 tol / cos "
        "(worst (t - t_mj) cos = %.3f tolerances); %.3f%% of mj_ray's hits within 2 tol along the normal\n",
        cc.type, tol, e, wr_hits, curved_hits, worst_surface, worst_surface / tol, steep_ok, steep, worst_along / tol,
        100.0 * close / std::max<size_t>(mj_hits, 1));
    INFO(cc.type << " tolerance " << tol << " env " << e);
    CHECK(curved_hits > hw / 16);
    CHECK(off_surface == 0);
    CHECK(in_front == 0);
    CHECK(wr_only == 0);
    CHECK(steep_ok == steep);
    CHECK(close >= mj_hits - mj_hits / 100);
  }
}

const CurvedCase kCurved[] = {
    {"sphere",
     "<geom type=\"sphere\" size=\"0.45\" pos=\"-0.8 0.3 0.5\"/><geom type=\"sphere\" size=\"0.2\" pos=\"0.9 0.9 "
     "0.3\"/>",
     "<body pos=\"0.2 -0.3 0.8\"><freejoint/><geom type=\"sphere\" size=\"0.3\" pos=\"0.1 0 0\"/></body>"},
    {"capsule",
     "<geom type=\"capsule\" size=\"0.25 0.4\" pos=\"-0.7 0.3 0.5\" euler=\"60 20 0\"/>"
     "<geom type=\"capsule\" fromto=\"0.4 1 0.3 1.1 0.6 0.7\" size=\"0.2\"/>",
     "<body pos=\"0.2 -0.3 0.8\"><freejoint/><geom type=\"capsule\" size=\"0.18 0.3\" euler=\"0 80 0\"/></body>"},
    {"cylinder",
     "<geom type=\"cylinder\" size=\"0.3 0.25\" pos=\"-0.8 0.3 0.5\" euler=\"40 10 0\"/>"
     "<geom type=\"cylinder\" size=\"0.5 0.05\" pos=\"0.8 0.8 0.3\"/>",
     "<body pos=\"0.2 -0.3 0.8\"><freejoint/><geom type=\"cylinder\" size=\"0.15 0.35\" euler=\"0 70 20\"/></body>"},
    {"ellipsoid",
     "<geom type=\"ellipsoid\" size=\"0.5 0.25 0.35\" pos=\"-0.8 0.3 0.5\" euler=\"30 10 50\"/>"
     "<geom type=\"ellipsoid\" size=\"0.1 0.4 0.2\" pos=\"0.8 0.8 0.3\"/>",
     "<body pos=\"0.2 -0.3 0.8\"><freejoint/><geom type=\"ellipsoid\" size=\"0.35 0.15 0.2\" euler=\"10 70 "
     "20\"/></body>"},
};

}  // namespace

TEST_CASE("sphere, capsule, cylinder and ellipsoid geoms agree with mj_ray within the tessellation tolerance",
          "[mujoco][curved]") {
  unsigned seed = 20;
  for (const CurvedCase& cc : kCurved)
    for (double tol : {1e-2, 1e-3}) {
      SECTION(std::string(cc.type) + " at tolerance " + std::to_string(tol)) { check_curved(cc, tol, seed); }
      seed++;
    }
}

TEST_CASE("the tessellation of each curved primitive is within its tolerance of the true surface, both ways",
          "[mujoco][curved][tessellation]") {
  const std::string xml =
      "<mujoco><worldbody><geom type=\"sphere\" size=\"0.4\"/><geom type=\"capsule\" size=\"0.15 0.5\"/>"
      "<geom type=\"cylinder\" size=\"0.6 0.1\"/><geom type=\"ellipsoid\" size=\"0.7 0.2 0.35\"/>"
      "</worldbody></mujoco>";
  Model m = load(xml);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int g = 0; g < m->ngeom; ++g) {
    const int type = m->geom_type[g];
    const double* size = m->geom_size + 3 * g;
    size_t previous_triangles = 0;
    for (double tol : {3e-2, 1e-2, 2e-3}) {
      wr_mujoco::SceneOptions opts;
      opts.tolerance = tol;
      const wr_mujoco::Mesh mesh = wr_mujoco::geom_mesh(m.get(), g, opts);
      const double deviation = wr_mujoco::geom_mesh_deviation(m.get(), g, opts);
      const size_t triangles = mesh.indices.size() / 3;
      INFO("geom " << g << " (type " << type << ") tolerance " << tol << ": " << triangles << " triangles, bound "
                   << deviation);
      CHECK(deviation <= tol);
      CHECK(deviation > 0);
      CHECK(triangles > previous_triangles);  // a smaller tolerance, a finer mesh
      previous_triangles = triangles;
      // Every vertex on the true surface (inscribed).
      double worst_vertex = 0;
      for (size_t i = 0; i < mesh.vertices.size(); i += 3)
        worst_vertex = std::max(worst_vertex, surface_distance(type, size, &mesh.vertices[i]));
      CHECK(worst_vertex < 1e-12);
      // Points of the triangles near the true surface ...
      double worst_face = 0;
      for (size_t f = 0; f < triangles; ++f)
        for (int s = 0; s < 6; ++s) {
          double a = u(rng), b = u(rng);
          if (a + b > 1) {
            a = 1 - a;
            b = 1 - b;
          }
          double p[3];
          for (int k = 0; k < 3; ++k) {
            const double* v0 = &mesh.vertices[3 * mesh.indices[3 * f]];
            const double* v1 = &mesh.vertices[3 * mesh.indices[3 * f + 1]];
            const double* v2 = &mesh.vertices[3 * mesh.indices[3 * f + 2]];
            p[k] = v0[k] + a * (v1[k] - v0[k]) + b * (v2[k] - v0[k]);
          }
          worst_face = std::max(worst_face, surface_distance(type, size, p));
        }
      CHECK(worst_face <= deviation * (1 + 1e-9));
      // ... and points of the true surface near the triangles (brute force, nearest triangle).
      double worst_surface = 0;
      const int samples = tol < 5e-3 ? 150 : 400;
      for (int s = 0; s < samples; ++s) {
        double p[3];
        const double phi = 6.283185307179586 * u(rng), z = 2 * u(rng) - 1, rho = std::sqrt(1 - z * z);
        const double dir[3] = {rho * std::cos(phi), rho * std::sin(phi), z};
        if (type == mjGEOM_SPHERE || type == mjGEOM_ELLIPSOID) {
          // A unit direction scaled by the radii lies on the ellipsoid: sum (p_k / size_k)^2 = 1.
          for (int k = 0; k < 3; ++k) p[k] = dir[k] * (type == mjGEOM_SPHERE ? size[0] : size[k]);
        } else if (type == mjGEOM_CAPSULE) {
          const bool side = u(rng) < 0.5;
          const double zc = side ? (2 * u(rng) - 1) * size[1] : (dir[2] > 0 ? size[1] : -size[1]);
          const double n[3] = {side ? std::cos(phi) : dir[0], side ? std::sin(phi) : dir[1], side ? 0.0 : dir[2]};
          for (int k = 0; k < 3; ++k) p[k] = size[0] * n[k];
          p[2] += zc;
        } else {  // cylinder: side or a cap (a disk)
          const double pick = u(rng);
          if (pick < 0.5) {
            p[0] = size[0] * std::cos(phi);
            p[1] = size[0] * std::sin(phi);
            p[2] = (2 * u(rng) - 1) * size[1];
          } else {
            const double rr = size[0] * std::sqrt(u(rng));
            p[0] = rr * std::cos(phi);
            p[1] = rr * std::sin(phi);
            p[2] = pick < 0.75 ? size[1] : -size[1];
          }
        }
        double nearest = 1e300;
        for (size_t f = 0; f < triangles; ++f)
          nearest = std::min(nearest, point_triangle_distance(p, &mesh.vertices[3 * mesh.indices[3 * f]],
                                                              &mesh.vertices[3 * mesh.indices[3 * f + 1]],
                                                              &mesh.vertices[3 * mesh.indices[3 * f + 2]]));
        worst_surface = std::max(worst_surface, nearest);
      }
      CHECK(worst_surface <= deviation * (1 + 1e-9));
      std::printf(
          "[wr_mujoco] tessellation of geom %d (type %d) at tolerance %g: %zu triangles, bound %.3g, worst face "
          "point %.3g, worst surface point %.3g\n",
          g, type, tol, triangles, deviation, worst_face, worst_surface);
    }
  }
}

TEST_CASE("geomgroup, transparent geoms and contype/conaffinity 0 are as mj_ray has them", "[mujoco][groups]") {
  // Group 2 is switched off: its static box and its moving box vanish; the transparent geoms
  // (rgba alpha 0, and a material of alpha 0) are never seen; contype = conaffinity = 0 is.
  const std::string xml =
      "<mujoco><asset><material name=\"clear\" rgba=\"1 1 1 0\"/></asset><worldbody>" + camera_xml() + kFloorBox +
      "<geom type=\"box\" size=\"0.3 0.3 0.3\" pos=\"-0.8 0.3 0.3\" group=\"2\"/>"
      "<geom type=\"box\" size=\"0.3 0.3 0.3\" pos=\"0.8 0.3 0.3\" contype=\"0\" conaffinity=\"0\" group=\"1\"/>"
      "<geom type=\"box\" size=\"0.4 0.4 0.4\" pos=\"0 0.5 0.4\" rgba=\"1 0 0 0\"/>"
      "<geom type=\"box\" size=\"0.4 0.4 0.4\" pos=\"0 -0.8 0.4\" material=\"clear\"/>"
      "<body pos=\"0.3 -0.3 0.9\"><freejoint/><geom type=\"box\" size=\"0.2 0.2 0.2\" group=\"2\"/>"
      "<geom type=\"box\" size=\"0.1 0.1 0.3\" pos=\"0.4 0 0\" group=\"7\"/></body>"
      "</worldbody></mujoco>";
  wr_mujoco::SceneOptions opts;
  opts.geomgroup = {1, 1, 0, 1, 1, 1};
  Model m = load(xml);
  Context c;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get(), opts);
  CHECK(scene.num_static_geoms() == 2);  // the floor and the contype-0 box
  REQUIRE(scene.num_slots() == 1);       // group 7 counts as group 5 (mj_ray clamps), which is on
  check_exact("geomgroup", -1, xml, 9, opts);

  wr_mujoco::Scene all = wr_mujoco::Scene::build(c.ctx, m.get());
  CHECK(all.num_static_geoms() == 3);
  CHECK(all.num_slots() == 2);
  check_exact("all groups", -1, xml, 9);
}
