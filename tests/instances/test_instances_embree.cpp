// Moving geometry (wr_scene_create_instanced, core/instances.h) against Embree 3's own instancing:
// depth and instance ids per pixel on random scenes (overlapping instances, instances cutting the
// terrain, cameras inside an instance's box, both quaternion orders and depth kinds, exclusion
// masks, global instances; the scalar path's bits), and explicit rays (wr_scene_intersect_ex).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "instances_test_support.h"

using namespace wr_test::instance_tests;

TEST_CASE("instances: depth and instance ids match Embree's instancing pixel by pixel", "[instances][embree]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(20261201u, &terrain);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, ground, protos);
  EmbreeWorld embree(ground, protos, kSlots + kGlobals);
  REQUIRE(embree.ok());
  const uint32_t n = 16;
  const World w = make_world(terrain, n, 5u);
  Agreement total;
  for (const wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE})
    for (const uint32_t exclude : {0u, 1u << 1 | 1u << 4}) {
      INFO("depth kind " << kind << ", exclude_groups " << exclude);
      Render first;
      for (const wr_quat_order order : {WR_QUAT_WXYZ, WR_QUAT_XYZW}) {
        const wr_camera_desc d = camera(kind, order);
        const Floats f = world_floats(w, order);
        const Render r = render(lib.instanced, d, n, f, exclude);
        Agreement a;
        compare_with_embree(w, f, d, r, embree, exclude, &a);
        INFO("first disagreement: " << a.first_bad);
        CAPTURE(a.pixels, a.agree, a.hits, a.instance_hits);
        CHECK(a.agree * 10000 >= a.pixels * 9998);
        total.pixels += a.pixels, total.agree += a.agree, total.hits += a.hits;
        total.instance_hits += a.instance_hits, total.inside_hits += a.inside_hits;
        if (order == WR_QUAT_WXYZ) {
          first = r;
          // The scalar path (one ray at a time, the CUDA kernel's traversal) gives the same bits
          // as the packet path this context picked.
          REQUIRE_OK(wr_context_set_cpu_path(lib.context, WR_CPU_PATH_SCALAR));
          const Render scalar = render(lib.instanced, d, n, f, exclude);
          REQUIRE_OK(wr_context_set_cpu_path(lib.context, WR_CPU_PATH_AUTO));
          CHECK(std::memcmp(scalar.depth.data(), r.depth.data(), r.depth.size() * 4) == 0);
          CHECK(scalar.ids == r.ids);
        } else {  // the same physical poses in the other order: the same bits
          CHECK(std::memcmp(first.depth.data(), r.depth.data(), r.depth.size() * 4) == 0);
          CHECK(first.ids == r.ids);
        }
      }
    }
  // The test is about instances: many pixels see them, and cameras inside a box see its inside.
  CAPTURE(total.pixels, total.hits, total.instance_hits, total.inside_hits);
  CHECK(total.instance_hits * 10 >= total.pixels);
  CHECK(total.inside_hits > 0);
  CHECK(total.agree * 10000 >= total.pixels * 9998);
}

TEST_CASE("instances: explicit rays see each env's instances, as Embree does", "[instances][embree]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(7u, &terrain);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, ground, protos);
  EmbreeWorld embree(ground, protos, kSlots + kGlobals);
  const uint32_t n = 6, per_env = 500;
  const World w = make_world(terrain, n, 11u);
  const Floats f = world_floats(w, WR_QUAT_XYZW);
  Rng rng(3u);
  std::vector<float> o, d, tmax;
  for (uint32_t e = 0; e < n; ++e)
    for (uint32_t r = 0; r < per_env; ++r) {
      const Vector3d org = w.cameras[e].translation();
      const Vector3d dir = w.cameras[e].linear() * Vector3d(1.0, rng.uniform(-1, 1), rng.uniform(-1, 0.3)) * 1.7;
      for (int k = 0; k < 3; ++k) o.push_back(float(org[k])), d.push_back(float(dir[k]));
      tmax.push_back(r % 7 == 0 ? 1.0f : kInf);
    }
  const uint64_t count = o.size() / 3;
  std::vector<float> t(count, -1.0f);
  std::vector<uint32_t> tri(count, 7u), inst(count, 7u);
  wr_intersect_args a;
  wr_intersect_args_init(&a);
  a.origins = o.data(), a.directions = d.data(), a.tmax = tmax.data(), a.count = count, a.num_envs = n;
  a.instance_poses = f.slots.data(), a.global_poses = f.globals.data(), a.quat_order = WR_QUAT_XYZW;
  a.out_t = t.data(), a.out_triangle = tri.data(), a.out_instance = inst.data();
  REQUIRE_OK(wr_scene_intersect_ex(lib.instanced, &a));
  for (uint32_t g = 0; g < kGlobals; ++g) {
    const Isometry3d p = as_read(&f.globals[7 * g], WR_QUAT_XYZW);
    embree.pose(kSlots + g, &p);
  }
  uint64_t agree = 0, instance_hits = 0;
  std::string first_bad;
  for (uint32_t e = 0; e < n; ++e) {
    for (uint32_t s = 0; s < kSlots; ++s) {
      const Isometry3d p = as_read(&f.slots[7ull * (e * kSlots + s)], WR_QUAT_XYZW);
      embree.pose(s, &p);
    }
    embree.commit();
    for (uint32_t r = 0; r < per_env; ++r) {
      const uint64_t i = uint64_t(e) * per_env + r;
      const EmbreeWorld::Hit h = embree.trace(Eigen::Vector3f(o[3 * i], o[3 * i + 1], o[3 * i + 2]),
                                              Eigen::Vector3f(d[3 * i], d[3 * i + 1], d[3 * i + 2]), 0.0f, tmax[i]);
      bool ok;
      if (std::isnan(h.t))
        ok = std::isinf(t[i]) && tri[i] == kNone && inst[i] == kNone;
      else
        ok = std::abs(t[i] - h.t) <= 1e-4 * std::max(1.0, h.t) && inst[i] == h.instance && tri[i] == h.triangle;
      instance_hits += !std::isnan(h.t) && h.instance != kNone;
      agree += ok;
      if (!ok && first_bad.empty())
        first_bad = "ray " + std::to_string(i) + ": library t " + std::to_string(t[i]) + " instance " +
                    std::to_string(inst[i]) + " triangle " + std::to_string(tri[i]) + "; Embree " +
                    std::to_string(h.t) + " " + std::to_string(h.instance) + " " + std::to_string(h.triangle);
    }
  }
  INFO("first disagreement: " << first_bad);
  CAPTURE(count, agree, instance_hits);
  CHECK(instance_hits * 20 >= count);
  CHECK(agree * 10000 >= count * 9998);

  // wr_scene_intersect cannot take the poses: it refuses an instanced scene by name.
  CHECK(wr_scene_intersect(lib.instanced, o.data(), d.data(), nullptr, 1, t.data(), nullptr, nullptr) ==
        WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("wr_scene_intersect_ex") != std::string::npos);
}
