// Pattern sensors (wr_patterns.h) through the C API: the refusals, each naming its culprit
// and writing nothing; scanning (a window of the pattern per frame, phase 0 or hashed per env);
// several frames per env, each row bit for bit a one-frame sensor on that frame's body and mount.
// The patterns' formulas, the alignment rules and the hits have their own files beside this one
// (one program).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "c_api_world.h"
#include "pattern_test_support.h"

using namespace wr_test::c_api;
using namespace wr_test::patterns;

TEST_CASE("bad patterns, descs, options and renders are refused by name, nothing written") {
  Handles h;
  REQUIRE(wr_context_create_cpu(1, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 8.0f, 0.0f);
  wr_pattern p = nullptr;
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.kind = WR_PATTERN_TABLE;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->table_count",
              "no ray");
  const float dirs[] = {0, 0, -1, 0, 0, 0};
  pd.table_count = 2;
  pd.table_directions = dirs;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->table_directions[1]",
              "zero");
  // A start near the largest float would overflow when turned into the world: lengths are bounded.
  const float starts[] = {0.2f, -3.4e38f, 0.4f, 0, 0, 0};
  const float good_dirs[] = {0, 0, -1, 1, 0, 0};
  pd.table_directions = good_dirs;
  pd.table_starts = starts;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->table_starts[0][1]",
              "1e18");
  pd = grid_desc(3e18, 1.0, 1e18);
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->grid_size[0]", "1e18");
  pd = lidar_desc(0, -15, 15, -180, 180, 0.2);
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->channels");
  pd = lidar_desc(1, 0, 0, 0, 360, 0.0);
  pd.horizontal_count = 1;  // the one azimuth is the 360-degree duplicate
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "no ray");
  pd = grid_desc(1.0, 1.0, 0.0);
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->grid_resolution");
  pd = grid_desc(1.0, 1.0, 0.1);
  pd.grid_direction[2] = 0.0f;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->grid_direction");
  CHECK(p == nullptr);

  const Pattern scan(grid_desc(0.2, 0.2, 0.1));
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  wr_sensor s = nullptr;
  d.max_distance = 0.0f;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->max_distance");
  wr_ray_sensor_desc_init(&d);
  d.offset_position[2] = 1e30f;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->offset_position[2]", "1e18");
  wr_ray_sensor_desc_init(&d);
  d.alignment = bad_enum<wr_ray_alignment>(7);
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->alignment");
  wr_ray_sensor_desc_init(&d);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.crop_width = 2;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->crop_x");
  wr_sensor_options_init(&o);
  o.noise.range_sigma[0] = 0.01f;
  d.value = WR_RAY_HEIGHT;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->noise", "heights");
  wr_sensor_options_init(&o);
  o.dtype = WR_DTYPE_UINT16_MM;  // heights are often negative: millimetres of depth would read 0
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->dtype", "heights");
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, nullptr, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "pattern");
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 0, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "num_envs");
  CHECK(s == nullptr);

  // Renders: a NaN pose names its env; intrinsics are a camera's; nothing is written.
  d.value = WR_RAY_DISTANCE;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 2, &h.sensor) == WR_SUCCESS);
  std::vector<float> poses = {0, 0, 1, 1, 0, 0, 0, 0, 0, kNaN, 1, 0, 0, 0};
  std::vector<float> out(2 * 9, 5.0f);
  EXPECT_FAIL(wr_sensor_render(h.sensor, poses.data(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_render", "env 1");
  CHECK(out == std::vector<float>(2 * 9, 5.0f));
  poses[9] = 1.0f;
  const std::vector<float> k = {1, 1, 0, 0, 1, 1, 0, 0};
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out.data();
  a.out_bytes = out.size() * 4;
  a.intrinsics = k.data();
  EXPECT_FAIL(wr_sensor_render_ex(h.sensor, &a), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->intrinsics",
              "pattern");
  CHECK(out == std::vector<float>(2 * 9, 5.0f));
  EXPECT_FAIL(wr_sensor_world_rays(h.sensor, &poses[7], nullptr, 1, 0, nullptr, out.data()), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_world_rays", "starts");
  REQUIRE(wr_sensor_render(h.sensor, poses.data(), out.data(), nullptr) == WR_SUCCESS);
  CHECK(out[0] == 1.0f);
}

TEST_CASE("a scanning sensor reads the window (frame x rays_per_frame + phase) mod length, wrap included",
          "[backend]") {
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 30.0f, 0.0f);
  // 50 rays fanning down at different slants: each ray's distance tells which ray it was.
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.kind = WR_PATTERN_ROSETTE;
  pd.rosette_fov = 60.0;
  pd.rosette_count = 50;
  pd.rosette_revolutions[0] = 0.137, pd.rosette_revolutions[1] = -0.071;
  const Pattern rosette(pd);
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.mount_rotation[0] = std::cos(0.6), d.mount_rotation[2] = std::sin(0.6);  // looking 69 degrees down
  const uint32_t num_envs = 9, length = 50, window = 17;
  std::vector<float> poses;
  for (uint32_t e = 0; e < num_envs; ++e)
    poses.insert(poses.end(), {float(e) - 4.0f, 0.5f * e - 2.0f, 2.0f + 0.1f * e, 1, 0, 0, 0});
  wr_sensor full = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, rosette.p, &d, nullptr, num_envs, &full) == WR_SUCCESS);
  std::vector<float> all(num_envs * length);
  REQUIRE(wr_test::render_on_backend(full, poses.data(), poses.size(), all.data(), all.size()) == WR_SUCCESS);
  size_t finite = 0;
  for (float v : all) finite += std::isfinite(v);
  REQUIRE(finite == all.size());  // every ray hits the plane: a window's values tell its rays

  // Renders frame `frame` of a scanning sensor of n envs (the first n poses): (n x window).
  auto scan = [&](wr_scan_phase phase, uint32_t n, uint64_t frame) {
    wr_ray_sensor_desc s = d;
    s.rays_per_frame = window;
    s.scan_phase = phase;
    s.scan_seed = 0x1234567890ull;
    wr_sensor sensor = nullptr;
    REQUIRE(wr_sensor_create_pattern(h.scene, rosette.p, &s, nullptr, n, &sensor) == WR_SUCCESS);
    uint32_t w = 0;
    REQUIRE(wr_sensor_output_shape(sensor, &w, nullptr, nullptr, nullptr) == WR_SUCCESS);
    CHECK(w == window);
    std::vector<float> out(size_t(n) * window);
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = poses.data();
    a.out = out.data();
    a.out_bytes = out.size() * sizeof(float);
    a.frame = frame;
    REQUIRE(wr_test::render_ex_on_backend(sensor, a) == WR_SUCCESS);
    // Its world rays say the same: ray u of the last env in this frame is the whole pattern's ray
    // (start + u) mod length, bit for bit.
    std::vector<float> o(3 * window), dir(3 * window), full_o(3 * length), full_dir(3 * length);
    const float* last = poses.data() + 7 * (n - 1);
    REQUIRE(wr_sensor_world_rays(sensor, last, nullptr, n - 1, frame, o.data(), dir.data()) == WR_SUCCESS);
    REQUIRE(wr_sensor_world_rays(full, last, nullptr, n - 1, frame, full_o.data(), full_dir.data()) == WR_SUCCESS);
    for (uint32_t u = 0; u < window; ++u) {
      if (phase == WR_SCAN_PHASE_ZERO) {
        const uint64_t r = ((frame % length) * window + u) % length;
        CHECK(std::memcmp(&full_dir[3 * r], &dir[3 * u], 3 * sizeof(float)) == 0);
        CHECK(std::memcmp(&full_o[3 * r], &o[3 * u], 3 * sizeof(float)) == 0);
      } else {  // the full pattern's rays of this ray's value: one of them has its direction
        const float v = out[size_t(n - 1) * window + u];
        uint32_t matches = 0;
        for (uint32_t r = 0; r < length; ++r)
          if (same_bits(all[size_t(n - 1) * length + r], v))
            matches += std::memcmp(&full_dir[3 * r], &dir[3 * u], 3 * sizeof(float)) == 0;
        CHECK(matches >= 1u);
      }
    }
    wr_sensor_release(sensor);
    return out;
  };
  // Phase 0: every env in step, frame k at (17 k) mod 50; frames 0 .. 6 wrap around twice.
  for (uint64_t frame = 0; frame < 7; ++frame) {
    const std::vector<float> got = scan(WR_SCAN_PHASE_ZERO, num_envs, frame);
    for (uint32_t e = 0; e < num_envs; ++e)
      for (uint32_t u = 0; u < window; ++u) {
        INFO("frame " << frame << ", env " << e << ", ray " << u);
        CHECK(same_bits(got[e * window + u], all[e * length + (frame * window + u) % length]));
      }
  }
  // A frame number past 2^32 still reads the window its formula says.
  const uint64_t big = (1ull << 40) + 3;
  const std::vector<float> far = scan(WR_SCAN_PHASE_ZERO, 1, big);
  for (uint32_t u = 0; u < window; ++u) CHECK(same_bits(far[u], all[((big % length) * window + u) % length]));
  // Hashed phases: each env its own window start, the same for 4 and for 9 envs.
  std::vector<uint32_t> phase(num_envs, length);
  for (const uint32_t n : {num_envs, 4u}) {
    const std::vector<float> got = scan(WR_SCAN_PHASE_HASHED, n, 5);
    for (uint32_t e = 0; e < n; ++e) {
      uint32_t found = length;
      for (uint32_t p = 0; p < length && found == length; ++p) {
        bool all_same = true;
        for (uint32_t u = 0; u < window; ++u)
          all_same = all_same && same_bits(got[e * window + u], all[e * length + (5 * window + p + u) % length]);
        if (all_same) found = p;
      }
      INFO("env " << e << " of " << n);
      REQUIRE(found < length);
      if (phase[e] == length) phase[e] = found;
      CHECK(phase[e] == found);
    }
  }
  std::sort(phase.begin(), phase.end());
  CHECK(std::unique(phase.begin(), phase.end()) - phase.begin() > 3);  // the envs are not in step

  wr_sensor_release(full);
  wr_ray_sensor_desc s = d;
  s.rays_per_frame = length + 1;
  wr_sensor bad = nullptr;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, rosette.p, &s, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->rays_per_frame", "longer than the pattern");
}

TEST_CASE("several frames per env: row f is a one-frame sensor on frame f's body and mount, bit for bit", "[backend]") {
  // mjlab's per-foot scans: one pattern, a frame per foot. The envs' rigid-body states (N x 4 x 13,
  // x y z, w x y z, velocities), frames on bodies 1, 2 and 3, each under its own mount; and the same
  // poses packed (N x 3 x 7) with the default offsets.
  const std::string path =
      std::string(std::getenv("WR_SOURCE_DIR") ? std::getenv("WR_SOURCE_DIR") : ".") + "/assets/parkour_small.obj";
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  REQUIRE(wr_scene_load_obj(h.context, path.c_str(), &h.scene) == WR_SUCCESS);
  float lo[3], hi[3];
  REQUIRE(wr_scene_bounds(h.scene, lo, hi) == WR_SUCCESS);
  const uint32_t num_envs = 6, bodies = 4, frames = 3;
  const std::vector<float> base = body_poses(num_envs * bodies, lo, hi, 8);
  std::vector<float> states(size_t(num_envs) * bodies * 13, 0.5f), packed;
  for (uint32_t i = 0; i < num_envs * bodies; ++i) std::copy_n(&base[7 * i], 7, &states[13 * i]);
  for (uint32_t e = 0; e < num_envs; ++e)
    for (uint32_t f = 0; f < frames; ++f)
      packed.insert(packed.end(), &states[13 * (e * bodies + 1 + f)], &states[13 * (e * bodies + 1 + f)] + 7);
  const Pattern scan(grid_desc(0.4, 0.4, 0.1));
  const uint32_t rays = scan.size();
  const uint32_t offsets[frames] = {13, 26, 39};
  const float mounts[7 * frames] = {0.1f, 0.05f, 0, 1, 0, 0,     0, 0.1f, -0.05f, 0, 0.9f,
                                    0.1f, 0,     0, 0, 0, 0.02f, 0, 0,    0,      0};
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.alignment = WR_ALIGN_YAW;
  d.yaw_rule = WR_YAW_MJLAB;
  d.offset_position[2] = 10.0f;
  d.value = WR_RAY_HEIGHT;
  d.miss_value = -7.0f;
  d.num_frames = frames;
  d.frame_pose_offsets = offsets;
  d.frame_mounts = mounts;
  wr_sensor multi = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, num_envs, &multi) == WR_SUCCESS);
  uint32_t w = 0, hgt = 0;
  REQUIRE(wr_sensor_output_shape(multi, &w, &hgt, nullptr, nullptr) == WR_SUCCESS);
  CHECK((w == rays && hgt == frames));
  std::vector<float> got(size_t(num_envs) * frames * rays, 9.0f);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = states.data();
  a.pose_stride = bodies * 13;
  a.out = got.data();
  a.out_bytes = got.size() * sizeof(float);
  // Each env's record is read up to its last frame's pose (offset 39 + 7 floats).
  REQUIRE(wr_test::render_ex_on_backend(multi, a, 0, 0, offsets[frames - 1] + 7) == WR_SUCCESS);
  // Packed poses with the default offsets (7 f) and stride (7 x 3) give the same bits.
  wr_ray_sensor_desc dp = d;
  dp.frame_pose_offsets = nullptr;
  wr_sensor multi_packed = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &dp, nullptr, num_envs, &multi_packed) == WR_SUCCESS);
  std::vector<float> got_packed(got.size(), 9.0f);
  REQUIRE(wr_test::render_on_backend(multi_packed, packed.data(), packed.size(), got_packed.data(),
                                     got_packed.size()) == WR_SUCCESS);
  size_t hits = 0;
  for (uint32_t f = 0; f < frames; ++f) {
    // The one-frame sensor on frame f's body (pose_offset into the same states) and mount.
    wr_ray_sensor_desc one = d;
    one.num_frames = 0, one.frame_pose_offsets = nullptr, one.frame_mounts = nullptr;
    std::copy_n(&mounts[7 * f], 3, one.mount_position);
    std::copy_n(&mounts[7 * f + 3], 4, one.mount_rotation);
    wr_sensor single = nullptr;
    REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &one, nullptr, num_envs, &single) == WR_SUCCESS);
    std::vector<float> want(size_t(num_envs) * rays);
    wr_render_args b = a;
    b.pose_offset = offsets[f];
    b.out = want.data();
    b.out_bytes = want.size() * sizeof(float);
    REQUIRE(wr_test::render_ex_on_backend(single, b) == WR_SUCCESS);
    for (uint32_t e = 0; e < num_envs; ++e) {
      for (uint32_t r = 0; r < rays; ++r) {
        INFO("env " << e << ", frame " << f << ", ray " << r);
        const size_t at = (size_t(e) * frames + f) * rays + r;
        CHECK(same_bits(got[at], want[size_t(e) * rays + r]));
        CHECK(same_bits(got_packed[at], got[at]));
        hits += got[at] != -7.0f;
      }
      // Its world rays are frame f's rows of the multi-frame sensor's.
      std::vector<float> so(3 * rays), sd(3 * rays), mo(3 * frames * rays), md(3 * frames * rays);
      REQUIRE(wr_sensor_world_rays(single, &states[13 * (e * bodies) + offsets[f]], nullptr, e, 0, so.data(),
                                   sd.data()) == WR_SUCCESS);
      REQUIRE(wr_sensor_world_rays(multi, &states[13 * (e * bodies)], nullptr, e, 0, mo.data(), md.data()) ==
              WR_SUCCESS);
      CHECK(std::memcmp(so.data(), &mo[3 * f * rays], so.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(sd.data(), &md[3 * f * rays], sd.size() * sizeof(float)) == 0);
    }
    wr_sensor_release(single);
  }
  CHECK(hits > size_t(num_envs) * frames * rays / 2);
  // A bad pose of frame 2 is named with its frame; per-env mounts are the frames'; a short stride.
  if (!cuda_under_test()) {
    // A bad pose of a frame: its world rays are refused before anything is written.
    std::vector<float> starts(3 * frames * rays, 5.0f), dirs(starts);
    std::vector<float> record(&states[13 * (1 * bodies)], &states[13 * (1 * bodies)] + 13 * bodies);
    record[39 + 4] = kNaN;
    EXPECT_FAIL(wr_sensor_world_rays(multi, record.data(), nullptr, 1, 0, starts.data(), dirs.data()),
                WR_ERROR_INVALID_ARGUMENT, "wr_sensor_world_rays", "body_pose of frame 2");
    CHECK(std::all_of(starts.begin(), starts.end(), [](float v) { return v == 5.0f; }));
    states[13 * (1 * bodies + 3) + 2] = kNaN;
    std::fill(got.begin(), got.end(), 9.0f);
    EXPECT_FAIL(wr_sensor_render_ex(multi, &a), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex",
                "args->body_poses of env 1, frame 2");
    CHECK(std::all_of(got.begin(), got.end(), [](float v) { return v == 9.0f; }));
  }
  std::vector<float> m(7ull * num_envs, 0.0f);
  wr_render_args c = a;
  c.mounts = m.data();
  EXPECT_FAIL(wr_sensor_render_ex(multi, &c), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->mounts",
              "frames");
  c = a;
  c.pose_stride = 40;
  EXPECT_FAIL(wr_sensor_render_ex(multi, &c), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->pose_offset",
              "46");
  wr_sensor_release(multi);
  wr_sensor_release(multi_packed);
  wr_ray_sensor_desc too_many = d;
  too_many.num_frames = 9;
  wr_sensor bad = nullptr;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &too_many, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->num_frames");
  // Frame arrays describe several frames: with one they would be read and not used.
  for (const uint32_t one : {0u, 1u}) {
    wr_ray_sensor_desc single = d;
    single.num_frames = one;
    single.frame_mounts = nullptr;
    EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &single, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_create_pattern", "desc->frame_pose_offsets", "num_frames");
    single.frame_pose_offsets = nullptr;
    single.frame_mounts = mounts;
    EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &single, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_create_pattern", "desc->frame_mounts", "num_frames");
  }
  CHECK(bad == nullptr);
}
