// Moving geometry's contract through the public C API: env isolation, exclusion masks, ties between
// coincident instances on every CPU path and thread count, bad instance poses named with env and
// slot (or isolated), the description's checks, the ledger, and the handles' lifetimes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "instances_test_support.h"

using namespace wr_test::instance_tests;
TEST_CASE("instances: moving env j's instances never changes a byte of env i's image", "[instances]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(3u, &terrain);
  LibScene lib;
  make_lib_scene(&lib, 2, ground, prototype_meshes());
  const uint32_t n = 8, j = 3;
  World w = make_world(terrain, n, 21u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  const Render before = render(lib.instanced, d, n, world_floats(w, WR_QUAT_WXYZ));
  // Env j's instances moved to where env 0's are, right in env 0's view.
  for (uint32_t s = 0; s < kSlots; ++s) w.instances[j * kSlots + s] = w.instances[s];
  const Render after = render(lib.instanced, d, n, world_floats(w, WR_QUAT_WXYZ));
  const uint64_t pixels = uint64_t(d.width) * d.height;
  uint64_t slot_pixels_env0 = 0, changed_j = 0;
  for (uint64_t k = 0; k < pixels; ++k) slot_pixels_env0 += before.ids[k] != kNone && before.ids[k] < kSlots;
  for (uint32_t e = 0; e < n; ++e) {
    INFO("env " << e);
    const uint64_t at = e * pixels;
    const bool same = std::memcmp(&before.depth[at], &after.depth[at], pixels * 4) == 0 &&
                      std::equal(&before.ids[at], &before.ids[at] + pixels, &after.ids[at]);
    if (e == j) {
      for (uint64_t k = at; k < at + pixels; ++k) changed_j += std::memcmp(&before.depth[k], &after.depth[k], 4) != 0;
    } else {
      CHECK(same);
    }
  }
  CHECK(slot_pixels_env0 > 0);  // env 0 sees its slots, where env j's now are too
  CHECK(changed_j > 0);         // and env j's own image did change
}

TEST_CASE("instances: exclusion masks hide exactly their groups", "[instances]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(5u, &terrain);
  const std::vector<Mesh> protos = prototype_meshes();
  LibScene lib;
  make_lib_scene(&lib, 2, ground, protos);
  const uint32_t n = 8;
  const World w = make_world(terrain, n, 9u);
  const wr_camera_desc d = camera(WR_DEPTH_RANGE, WR_QUAT_WXYZ);
  const Floats f = world_floats(w, WR_QUAT_WXYZ);
  // Excluding every group is the terrain alone, bit for bit (a plain scene's sensor).
  const Render all_out = render(lib.instanced, d, n, f, 0xffffffffu);
  const Render plain = render(lib.terrain, d, n, Floats{f.bodies, {}, {}});
  CHECK(std::memcmp(all_out.depth.data(), plain.depth.data(), plain.depth.size() * 4) == 0);
  for (uint32_t id : all_out.ids) REQUIRE(id == kNone);
  for (uint32_t id : plain.ids) REQUIRE(id == kNone);
  // Excluding groups 1 and 4: no pixel names an instance of theirs; instances of other groups are seen.
  const Render some_out = render(lib.instanced, d, n, f, 1u << 1 | 1u << 4);
  uint64_t seen = 0;
  for (uint32_t id : some_out.ids) {
    if (id == kNone) continue;
    const uint32_t group = id < kSlots ? kSlotGroups[id] : kGlobalGroups[id - kSlots];
    REQUIRE(group != 1u);
    REQUIRE(group != 4u);
    ++seen;
  }
  CHECK(seen > 0);
}

TEST_CASE("instances: ties go to the terrain, then the lowest instance, on every path and thread count",
          "[instances]") {
  // Terrain: a floor at z = 0. Prototype: the same floor. Slots 0 and 1 both at the identity, so
  // three coincident surfaces; a third slot, a box, lies in front of part of the view.
  Mesh floor;
  const uint32_t a = floor.add_vertex({-50, -50, 0}), b = floor.add_vertex({50, -50, 0}),
                 c = floor.add_vertex({50, 50, 0}), e = floor.add_vertex({-50, 50, 0});
  floor.triangle(a, b, c);
  floor.triangle(a, c, e);
  std::vector<Mesh> protos = {box_mesh({0.3, 0.15, 0.08}), floor, floor};
  const uint32_t slot_protos[] = {1, 2, 1, 0};
  std::vector<Render> renders;
  for (const uint32_t threads : {1u, 2u, 3u})
    for (const wr_cpu_path path : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AUTO}) {
      INFO(threads << " threads, path " << wr_cpu_path_string(path));
      for (const bool with_terrain_tie : {true, false}) {
        wr_context ctx = nullptr;
        REQUIRE_OK(wr_context_create_cpu(threads, &ctx));
        REQUIRE_OK(wr_context_set_cpu_path(ctx, path));
        Mesh far_floor = floor;
        if (!with_terrain_tie)
          for (size_t i = 2; i < far_floor.vertices.size(); i += 3) far_floor.vertices[i] = -1.0f;
        wr_scene terrain = make_mesh_scene(ctx, far_floor);
        std::vector<wr_scene> ps;
        for (const Mesh& m : protos) ps.push_back(make_mesh_scene(ctx, m));
        wr_instanced_scene_desc d;
        wr_instanced_scene_desc_init(&d);
        d.terrain = terrain, d.prototypes = ps.data(), d.num_prototypes = 3;
        d.slot_prototypes = slot_protos, d.num_slots = 4;
        wr_scene scene = nullptr;
        REQUIRE_OK(wr_scene_create_instanced(ctx, &d, &scene));
        wr_scene_release(terrain);
        for (wr_scene p : ps) wr_scene_release(p);
        const uint32_t n = 3;
        Floats f;
        for (uint32_t env = 0; env < n; ++env) {
          f.bodies.insert(f.bodies.end(), {0.1f * env, 0, 1.5f, 1, 0, 0.3f, 0});  // looking down ahead
          for (uint32_t s = 0; s < 3; ++s) f.slots.insert(f.slots.end(), {0, 0, 0, 1, 0, 0, 0});
          f.slots.insert(f.slots.end(), {2.0f, 0.0f, 0.5f, 1, 0, 0, 0});
        }
        wr_camera_desc cd = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
        const Render r = render(scene, cd, n, f);
        uint64_t terrain_px = 0, slot0_px = 0, box_px = 0, other = 0;
        for (uint32_t id : r.ids) {
          terrain_px += id == kNone;
          slot0_px += id == 0;
          box_px += id == 3;
          other += id == 1 || id == 2;
        }
        CAPTURE(terrain_px, slot0_px, box_px, other);
        CHECK(other == 0);  // slot 1 and 2 coincide with 0 (and the terrain): they never win
        CHECK(box_px > 0);
        if (with_terrain_tie) {
          CHECK(slot0_px == 0);  // the terrain keeps every tie
        } else {
          CHECK(slot0_px > 0);
        }
        renders.push_back(r);
        wr_scene_release(scene);
        wr_context_release(ctx);
      }
    }
  for (size_t i = 2; i < renders.size(); ++i) {  // the same bits on every path and thread count
    CHECK(std::memcmp(renders[i].depth.data(), renders[i % 2].depth.data(), renders[i].depth.size() * 4) == 0);
    CHECK(renders[i].ids == renders[i % 2].ids);
  }
}

TEST_CASE("instances: bad poses are named with env and slot, and nothing is written", "[instances]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(4u, &terrain);
  LibScene lib;
  make_lib_scene(&lib, 2, ground, prototype_meshes());
  const uint32_t n = 5;
  const World w = make_world(terrain, n, 2u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, nullptr, n, &sensor));
  std::vector<float> out(size_t(n) * d.width * d.height, -5.0f);
  wr_render_args a;
  wr_render_args_init(&a);
  Floats f = world_floats(w, WR_QUAT_WXYZ);
  a.body_poses = f.bodies.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.global_poses = f.globals.data();
  // Missing slot poses: named.
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_poses") != std::string::npos);
  a.instance_poses = f.slots.data();
  // A NaN in env 3's slot 4; then a zero quaternion in global 1.
  f.slots[7 * (3 * kSlots + 4) + 1] = std::nanf("");
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_poses of env 3, slot 4") != std::string::npos);
  f.slots[7 * (3 * kSlots + 4) + 1] = 0.0f;
  for (int k = 3; k < 7; ++k) f.globals[7 + k] = 0.0f;
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->global_poses of global instance 1 (instance 7)") != std::string::npos);
  for (float v : out) REQUIRE(v == -5.0f);  // nothing written by the refused calls
  // wr_sensor_render cannot take the poses: refused by name.
  CHECK(wr_sensor_render(sensor, f.bodies.data(), out.data(), nullptr) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("wr_sensor_render_ex") != std::string::npos);
  wr_sensor_release(sensor);

  // Isolating: env 2's bad slot makes env 2 NaN (ids UINT32_MAX) and is reported; the others render.
  f = world_floats(w, WR_QUAT_WXYZ);
  const Render good = render(lib.instanced, d, n, f);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  f.slots[7 * (2 * kSlots + 0) + 2] = kInf;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, &o, n, &sensor));
  std::vector<uint32_t> ids(out.size(), 0);
  std::vector<uint8_t> mask(n, 9);
  uint32_t bad = 99;
  a.body_poses = f.bodies.data(), a.instance_poses = f.slots.data(), a.global_poses = f.globals.data();
  a.instance_ids = ids.data(), a.bad_env_count = &bad, a.bad_env_mask = mask.data();
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
  CHECK(bad == 1);
  const uint64_t pixels = uint64_t(d.width) * d.height;
  for (uint32_t e = 0; e < n; ++e) {
    CHECK(mask[e] == (e == 2 ? 1 : 0));
    for (uint64_t k = e * pixels; k < (e + 1) * pixels; ++k) {
      if (e == 2) {
        REQUIRE(std::isnan(out[k]));
        REQUIRE(ids[k] == kNone);
      } else {
        INFO("env " << e << " pixel " << k - e * pixels << ": " << out[k] << " vs " << good.depth[k]);
        REQUIRE(std::memcmp(&out[k], &good.depth[k], 4) == 0);
        REQUIRE(ids[k] == good.ids[k]);
      }
    }
  }
}

TEST_CASE("instances: the scene's description is checked field by field", "[instances]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(6u, &terrain);
  LibScene lib;
  make_lib_scene(&lib, 1, ground, prototype_meshes());
  wr_context other = nullptr;
  REQUIRE_OK(wr_context_create_cpu(1, &other));
  wr_scene foreign = make_mesh_scene(other, box_mesh({1, 1, 1}));
  const auto refused = [&](wr_instanced_scene_desc d, const std::string& culprit) {
    wr_scene s = reinterpret_cast<wr_scene>(uintptr_t(0x40));
    INFO("culprit " << culprit);
    CHECK(wr_scene_create_instanced(lib.context, &d, &s) == WR_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(wr_last_error()).find(culprit) != std::string::npos);
    CHECK(s == reinterpret_cast<wr_scene>(uintptr_t(0x40)));
  };
  wr_instanced_scene_desc ok;
  wr_instanced_scene_desc_init(&ok);
  ok.terrain = lib.terrain, ok.prototypes = lib.prototypes.data(), ok.num_prototypes = 3;
  ok.slot_prototypes = kSlotPrototypes, ok.slot_groups = kSlotGroups, ok.num_slots = kSlots;
  wr_instanced_scene_desc d = ok;
  d.terrain = nullptr;
  refused(d, "desc->terrain is NULL");
  d = ok, d.terrain = lib.instanced;
  refused(d, "desc->terrain is an instanced scene");
  d = ok, d.terrain = foreign;
  refused(d, "desc->terrain belongs to another context");
  const uint32_t bad_protos[] = {0, 3};
  d = ok, d.slot_prototypes = bad_protos, d.num_slots = 2, d.slot_groups = nullptr;
  refused(d, "desc->slot_prototypes[1] = 3");
  const uint32_t bad_groups[] = {0, 32};
  d = ok, d.slot_prototypes = kSlotPrototypes, d.slot_groups = bad_groups, d.num_slots = 2;
  refused(d, "desc->slot_groups[1] = 32");
  d = ok, d.num_globals = 1, d.global_prototypes = nullptr;
  refused(d, "desc->global_prototypes is NULL");
  d = ok, d.num_slots = 1u << 16, d.num_globals = 1;
  refused(d, "desc->num_slots + desc->num_globals");
  wr_scene protos_with_foreign[] = {lib.prototypes[0], foreign};
  d = ok, d.prototypes = protos_with_foreign, d.num_prototypes = 2, d.slot_prototypes = bad_protos, d.num_slots = 1;
  refused(d, "desc->prototypes[1] belongs to another context");
  wr_scene_release(foreign);
  wr_context_release(other);

  // Counts, and what the scene's ledger holds: the table alone (the meshes are their own scenes').
  uint32_t slots = 0, globals = 0;
  REQUIRE_OK(wr_scene_instance_counts(lib.instanced, &slots, &globals));
  CHECK(slots == kSlots);
  CHECK(globals == kGlobals);
  REQUIRE_OK(wr_scene_instance_counts(lib.terrain, &slots, &globals));
  CHECK(slots + globals == 0);
  uint64_t host = 0, device = 0;
  REQUIRE_OK(wr_scene_memory_tag(lib.instanced, WR_MEMORY_INSTANCE_TABLE, &host, &device));
  CHECK(host == 3 * (sizeof(void*) * 3 + sizeof(void*)) + (kSlots + kGlobals) * 8);
  CHECK(device == 0);
  uint64_t nodes = 0;
  REQUIRE_OK(wr_scene_memory_tag(lib.instanced, WR_MEMORY_BVH_NODES, &nodes, nullptr));
  CHECK(nodes == 0);
  uint64_t tris = 0, terrain_tris = 0;
  REQUIRE_OK(wr_scene_num_triangles(lib.instanced, &tris));
  REQUIRE_OK(wr_scene_num_triangles(lib.terrain, &terrain_tris));
  CHECK(tris == terrain_tris);

  // Per env the library holds nothing for the instances: a sensor's per-env bytes are its options'.
  const wr_camera_desc cd = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  for (const uint32_t history : {0u, 3u}) {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.history_length = history;
    wr_sensor on_instanced = nullptr, on_terrain = nullptr;
    REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &cd, &o, 10, &on_instanced));
    REQUIRE_OK(wr_sensor_create_ex(lib.terrain, &cd, &o, 10, &on_terrain));
    wr_memory_stats mi{}, mt{};
    REQUIRE_OK(wr_sensor_memory(on_instanced, &mi));
    REQUIRE_OK(wr_sensor_memory(on_terrain, &mt));
    CHECK(mi.per_env_bytes == mt.per_env_bytes);
    // The only other difference: each render thread's place for the env's prepared instances.
    uint64_t scratch_i = 0, scratch_t = 0;
    REQUIRE_OK(wr_sensor_memory_tag(on_instanced, WR_MEMORY_RENDER_SCRATCH, &scratch_i, nullptr));
    REQUIRE_OK(wr_sensor_memory_tag(on_terrain, WR_MEMORY_RENDER_SCRATCH, &scratch_t, nullptr));
    CHECK(mi.host_bytes - mt.host_bytes == scratch_i - scratch_t);
    CHECK(scratch_i > scratch_t);
    CHECK((scratch_i - scratch_t) % (kSlots + kGlobals) == 0);
    wr_sensor_release(on_instanced);
    wr_sensor_release(on_terrain);
  }

  // Instance ids need an output whose pixels are each one camera pixel's.
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.out_width = 32, o.out_height = 20, o.resample = WR_RESAMPLE_AREA;
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &cd, &o, 1, &sensor));
  std::vector<float> body = {15, 15, 3, 1, 0, 0, 0}, slot_poses(7 * kSlots), global_poses(7 * kGlobals);
  for (size_t i = 0; i < slot_poses.size(); i += 7) slot_poses[i + 3] = 1.0f;
  for (size_t i = 0; i < global_poses.size(); i += 7) global_poses[i + 3] = 1.0f;
  std::vector<float> out(32 * 20);
  std::vector<uint32_t> ids(32 * 20);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = body.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.instance_poses = slot_poses.data(), a.global_poses = global_poses.data(), a.instance_ids = ids.data();
  CHECK(wr_sensor_render_ex(sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("args->instance_ids") != std::string::npos);
  a.instance_ids = nullptr;
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
}

TEST_CASE("instances: the scene outlives the caller's references to its parts", "[instances]") {
  Terrain terrain;
  const Mesh ground = terrain_mesh(8u, &terrain);
  const World w = make_world(terrain, 4, 1u);
  const wr_camera_desc d = camera(WR_DEPTH_PLANE, WR_QUAT_WXYZ);
  const Floats f = world_floats(w, WR_QUAT_WXYZ);
  LibScene lib;
  make_lib_scene(&lib, 2, ground, prototype_meshes());
  const Render want = render(lib.instanced, d, 4, f);
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(lib.instanced, &d, nullptr, 4, &sensor));
  // Everything but the sensor released: it keeps the instanced scene, which keeps its parts.
  wr_scene_release(lib.instanced), lib.instanced = nullptr;
  for (wr_scene& p : lib.prototypes) wr_scene_release(p), p = nullptr;
  wr_scene_release(lib.terrain), lib.terrain = nullptr;
  wr_context_release(lib.context), lib.context = nullptr;
  std::vector<float> out(want.depth.size());
  std::vector<uint32_t> ids(out.size());
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = f.bodies.data(), a.out = out.data(), a.out_bytes = out.size() * 4;
  a.instance_poses = f.slots.data(), a.global_poses = f.globals.data(), a.instance_ids = ids.data();
  REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
  wr_sensor_release(sensor);
  CHECK(std::memcmp(out.data(), want.depth.data(), out.size() * 4) == 0);
  CHECK(ids == want.ids);
}
