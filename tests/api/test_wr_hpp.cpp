// Tests of the C++ RAII wrapper include/wr/wr.hpp, rendering for real through libwr.so.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.hpp>

namespace {

// A 100 m square floor at z = 0.5: (4 x 3) vertices, (2 x 3) indices.
const float kFloorVertices[] = {-50, -50, 0.5f, 50, -50, 0.5f, 50, 50, 0.5f, -50, 50, 0.5f};
const uint32_t kFloorIndices[] = {0, 1, 2, 0, 2, 3};

// Camera +X (optical axis) turned onto world -Z: +90 degrees about +Y, as (w, x, y, z).
const float kC = 0.70710678f;
// (2 x 7) poses: env 0 at height 3.5 (3 m above the floor), env 1 at height 1.5 (1 m above).
const float kPosesDown[] = {0, 0, 3.5f, kC, 0, kC, 0, 1, -2, 1.5f, kC, 0, kC, 0};

wr::Scene floor_scene(const wr::Context& ctx) {
  return wr::Scene::from_arrays(ctx, kFloorVertices, 4, kFloorIndices, 2);
}

}  // namespace

static_assert(!std::is_copy_constructible<wr::Context>::value && !std::is_copy_assignable<wr::Context>::value,
              "handles are move-only: the C API has no retain");
static_assert(!std::is_copy_constructible<wr::Scene>::value && !std::is_copy_assignable<wr::Scene>::value, "");
static_assert(!std::is_copy_constructible<wr::Sensor>::value && !std::is_copy_assignable<wr::Sensor>::value, "");
static_assert(std::is_nothrow_move_constructible<wr::Context>::value &&
                  std::is_nothrow_move_assignable<wr::Context>::value,
              "");
static_assert(std::is_nothrow_move_constructible<wr::Scene>::value, "");
static_assert(std::is_nothrow_move_constructible<wr::Sensor>::value, "");
static_assert(std::is_base_of<std::runtime_error, wr::Error>::value, "");

TEST_CASE("wr.hpp: a camera looking straight down sees a plane at its known height", "[wr_hpp]") {
  wr::Context ctx = wr::Context::cpu(2);
  CHECK(ctx.num_threads() == 2);
  CHECK(ctx.cpu_path() != WR_CPU_PATH_AUTO);  // resolved to the path in use
  ctx.set_cpu_path(WR_CPU_PATH_SCALAR);
  CHECK(ctx.cpu_path() == WR_CPU_PATH_SCALAR);
  ctx.set_cpu_path(WR_CPU_PATH_AUTO);
  const wr::Scene scene = floor_scene(ctx);
  CHECK(scene.num_triangles() == 2);
  const wr::Scene::Bounds b = scene.bounds();
  CHECK((b.min[0] == -50 && b.min[1] == -50 && b.min[2] == 0.5f));
  CHECK((b.max[0] == 50 && b.max[1] == 50 && b.max[2] == 0.5f));

  // 33 x 33 pixels, 90 degrees: fx = fy = 16.5 and pixel (16, 16)'s ray is the optical axis.
  wr_camera_desc desc = wr::pinhole(33, 33, 90.0f);
  CHECK(desc.fx == Approx(16.5f));
  wr::Sensor plane(scene, desc, 2);
  desc.depth_kind = WR_DEPTH_RANGE;
  wr::Sensor range(scene, desc, 2);
  CHECK(plane.num_envs() == 2);
  CHECK(plane.desc().depth_kind == WR_DEPTH_PLANE);
  CHECK(range.desc().depth_kind == WR_DEPTH_RANGE);
  CHECK(plane.desc().width == 33);
  REQUIRE(plane.depth_size() == 2u * 33 * 33);

  std::vector<float> p(plane.depth_size(), -1.0f), r(range.depth_size(), -1.0f);
  plane.render(kPosesDown, p.data());
  range.render(kPosesDown, r.data());
  const std::size_t centre = 16 * 33 + 16, image = 33 * 33;
  CHECK(p[centre] == Approx(3.0f).epsilon(1e-5));
  CHECK(r[centre] == Approx(3.0f).epsilon(1e-5));
  CHECK(p[image + centre] == Approx(1.0f).epsilon(1e-5));
  CHECK(r[image + centre] == Approx(1.0f).epsilon(1e-5));
  // Plane depth of a plane parallel to the image is the height everywhere; range grows
  // off-axis: pixel (0, 0) looks along (1, 16 / 16.5, 16 / 16.5) in the camera frame.
  for (std::size_t i = 0; i < image; ++i) REQUIRE(p[i] == Approx(3.0f).epsilon(1e-5));
  const double k = 16.0 / 16.5;
  CHECK(r[0] == Approx(3.0 * std::sqrt(1.0 + 2.0 * k * k)).epsilon(1e-5));
  CHECK(plane.stack_overflows() == 0);
  CHECK(scene.memory().host_bytes > 0);
  CHECK(plane.memory().host_bytes > 0);

  // Explicit rays: down from z = 3.5 with a direction of length 2 (t counts |direction|), and up.
  const float origins[] = {1, 2, 3.5f, 1, 2, 3.5f}, directions[] = {0, 0, -2, 0, 0, 1};
  float t[2] = {-1, -1};
  uint32_t tri[2] = {7, 7};
  scene.intersect(origins, directions, nullptr, 2, t, tri);
  CHECK(t[0] == Approx(1.5f).epsilon(1e-6));
  CHECK(tri[0] <= 1u);
  CHECK(t[1] == std::numeric_limits<float>::infinity());
  CHECK(tri[1] == UINT32_MAX);
  CHECK_THROWS_AS(scene.intersect(origins, directions, nullptr, 0, t), wr::Error);
}

TEST_CASE("wr.hpp: handles move, and the C objects outlive their wrappers", "[wr_hpp]") {
  wr::Context a = wr::Context::cpu(1);
  const wr_context raw = a.get();
  REQUIRE(raw != nullptr);
  wr::Context b = std::move(a);
  CHECK(a.get() == nullptr);
  CHECK(b.get() == raw);
  CHECK(b.num_threads() == 1);

  // A moved-from handle is NULL to the C API, which rejects it: wr::Error, not a crash.
  try {
    (void)a.num_threads();
    FAIL("a moved-from Context did not throw");
  } catch (const wr::Error& e) {
    CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("context") != std::string::npos);
  }

  wr::Scene s1 = floor_scene(b);
  wr::Scene s2 = wr::Scene::from_arrays(b, kFloorVertices, 4, kFloorIndices, 1);
  const wr_scene raw1 = s1.get();
  s2 = std::move(s1);  // releases s2's old scene, takes s1's
  CHECK(s1.get() == nullptr);
  CHECK(s2.get() == raw1);
  CHECK(s2.num_triangles() == 2);
  CHECK_THROWS_AS(s1.num_triangles(), wr::Error);

  // adopt takes over a reference made through the C API: the wrapper releases it (LeakSanitizer
  // and the context's ledger would see it otherwise), and NULL is refused by name.
  wr_scene made = nullptr;
  REQUIRE(wr_scene_create(b.get(), kFloorVertices, 4, kFloorIndices, 2, &made) == WR_SUCCESS);
  wr::Scene adopted = wr::Scene::adopt(made);
  CHECK(adopted.get() == made);
  CHECK(adopted.num_triangles() == 2);
  try {
    (void)wr::Scene::adopt(nullptr);
    FAIL("adopt(NULL) did not throw");
  } catch (const wr::Error& e) {
    CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("adopt") != std::string::npos);
  }

  std::vector<float> before(33 * 33 * 2), after(33 * 33 * 2);
  wr::Sensor sensor = [&] {
    // Context and scene wrappers die here; the sensor keeps the C objects alive.
    wr::Context ctx = wr::Context::cpu(2);
    wr::Scene scene = floor_scene(ctx);
    wr::Sensor s(scene, wr::pinhole(33, 33, 90.0f), 2);
    s.render(kPosesDown, before.data());
    return s;
  }();
  wr::Sensor moved = std::move(sensor);
  CHECK(sensor.get() == nullptr);
  moved.render(kPosesDown, after.data());
  CHECK(after == before);
  CHECK(after[16 * 33 + 16] == Approx(3.0f).epsilon(1e-5));
  CHECK_THROWS_AS(sensor.render(kPosesDown, after.data()), wr::Error);
}

TEST_CASE("wr.hpp: failing calls throw wr::Error with the status and wr_last_error()", "[wr_hpp]") {
  const wr::Context ctx = wr::Context::cpu(1);
  const wr::Scene scene = floor_scene(ctx);

  wr_camera_desc bad = wr::pinhole(8, 8, 90.0f);
  bad.width = 0;
  try {
    wr::Sensor s(scene, bad, 1);
    FAIL("a zero-width sensor was created");
  } catch (const wr::Error& e) {
    CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
    const std::string what = e.what();
    CHECK(what.rfind("wr_sensor_create:", 0) == 0);
    CHECK(what.find("desc->width") != std::string::npos);
    CHECK(what == wr_last_error());
  }

  const std::string missing = "/nonexistent/wr_test_wr_hpp/floor.obj";
  try {
    (void)wr::Scene::load_obj(ctx, missing);
    FAIL("a missing file was loaded");
  } catch (const std::exception& e) {  // wr::Error is a std::runtime_error
    const auto* err = dynamic_cast<const wr::Error*>(&e);
    REQUIRE(err != nullptr);
    CHECK(err->status() == WR_ERROR_IO);
    CHECK(std::string(e.what()).find(missing) != std::string::npos);
  }

  wr::Sensor sensor(scene, wr::pinhole(8, 8, 90.0f), 2);
  float poses[14];
  std::copy(kPosesDown, kPosesDown + 14, poses);
  poses[7 + 2] = std::nanf("");  // env 1's z
  std::vector<float> out(sensor.depth_size(), -7.0f);
  try {
    sensor.render(poses, out.data());
    FAIL("a NaN pose rendered");
  } catch (const wr::Error& e) {
    CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("env 1") != std::string::npos);
  }
  CHECK(std::all_of(out.begin(), out.end(), [](float x) { return x == -7.0f; }));

  // CUDA either works or says why not.
  try {
    const wr::Context gpu = wr::Context::cuda(0);
    WARN("a CUDA device is present: Context::cuda(0) succeeded, its failure path is not checked here");
  } catch (const wr::Error& e) {
    CHECK(e.status() == WR_ERROR_UNSUPPORTED);
  }
}

TEST_CASE("wr.hpp: an instanced scene: a box posed per env over the floor, and explicit rays", "[wr_hpp]") {
  const wr::Context ctx = wr::Context::cpu(2);
  const wr::Scene floor = floor_scene(ctx);
  // A 0.2 m cube centred on its origin (8 corners, 12 triangles).
  const float cube[] = {-0.1f, -0.1f, -0.1f, 0.1f, -0.1f, -0.1f, 0.1f, 0.1f, -0.1f, -0.1f, 0.1f, -0.1f,
                        -0.1f, -0.1f, 0.1f,  0.1f, -0.1f, 0.1f,  0.1f, 0.1f, 0.1f,  -0.1f, 0.1f, 0.1f};
  const uint32_t cube_tris[] = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 0, 4, 5, 0, 5, 1,
                                1, 5, 6, 1, 6, 2, 2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};
  const wr::Scene box = wr::Scene::from_arrays(ctx, cube, 8, cube_tris, 12);
  const wr_scene prototypes[] = {box.get()};
  const uint32_t slot_prototypes[] = {0};
  wr_instanced_scene_desc d;
  wr_instanced_scene_desc_init(&d);
  d.terrain = floor.get(), d.prototypes = prototypes, d.num_prototypes = 1;
  d.slot_prototypes = slot_prototypes, d.num_slots = 1;
  const wr::Scene scene = wr::Scene::instanced(ctx, d);
  CHECK(scene.instance_counts() == std::array<uint32_t, 2>{1, 0});
  CHECK(scene.num_triangles() == 2);  // the terrain's
  wr::Sensor sensor(scene, wr::pinhole(33, 33, 90.0f), 2);
  // Env 0's box right under its camera, its top at z = 2.1 (1.4 m below the camera at 3.5); env 1's
  // box far away: env 1 sees the floor 1 m below.
  const float boxes[] = {0, 0, 2.0f, 1, 0, 0, 0, 30, 30, 0.6f, 1, 0, 0, 0};
  std::vector<float> depth(sensor.depth_size(), -1.0f);
  std::vector<uint32_t> ids(depth.size(), 7u);
  wr_render_args args = wr::render_args(kPosesDown, depth.data(), depth.size() * sizeof(float));
  args.instance_poses = boxes;
  args.instance_ids = ids.data();
  sensor.render(args);
  const std::size_t centre = 16 * 33 + 16, image = 33 * 33;
  CHECK(depth[centre] == Approx(1.4f).epsilon(1e-5));
  CHECK(ids[centre] == 0u);
  CHECK(depth[image + centre] == Approx(1.0f).epsilon(1e-5));
  CHECK(ids[image + centre] == UINT32_MAX);
  // The plain render cannot take the box's pose: it throws, naming the call that can.
  CHECK_THROWS_WITH(sensor.render(kPosesDown, depth.data()), Catch::Contains("wr_sensor_render_ex"));

  // Explicit rays of env 0 (down onto its box) and env 1 (down onto the floor).
  const float origins[] = {0, 0, 3.5f, 1, -2, 1.5f}, directions[] = {0, 0, -1, 0, 0, -1};
  float t[2] = {-1, -1};
  uint32_t tri[2] = {7, 7}, inst[2] = {7, 7};
  wr_intersect_args ia;
  wr_intersect_args_init(&ia);
  ia.origins = origins, ia.directions = directions, ia.count = 2, ia.num_envs = 2;
  ia.instance_poses = boxes, ia.out_t = t, ia.out_triangle = tri, ia.out_instance = inst;
  scene.intersect(ia);
  CHECK(t[0] == Approx(1.4f).epsilon(1e-6));
  CHECK(inst[0] == 0u);
  CHECK(tri[0] < 12u);
  CHECK(t[1] == Approx(1.0f).epsilon(1e-6));
  CHECK(inst[1] == UINT32_MAX);
}

TEST_CASE("wr.hpp: a height scan from a pattern over the floor, and its world rays", "[wr_hpp]") {
  const wr::Context ctx = wr::Context::cpu(1);
  const wr::Scene scene = floor_scene(ctx);
  wr_pattern_desc pd = wr::pattern_desc(WR_PATTERN_GRID);
  pd.grid_size[0] = 1.6, pd.grid_size[1] = 1.0;
  const wr::Pattern pattern(pd);
  CHECK(pattern.num_rays() == 187);
  wr_ray_sensor_desc d = wr::ray_sensor_desc();
  d.alignment = WR_ALIGN_YAW;
  d.offset_position[2] = 20.0f;
  d.value = WR_RAY_HEIGHT;
  d.height_offset = 0.5f;
  wr::Sensor scan(scene, pattern, d, wr::sensor_options(), 2);
  CHECK(scan.output_shape().width == 187);
  CHECK(scan.output_shape().height == 1);
  // Bodies at 1.5 and 3.5 over the floor at 0.5: heights 0.5 and 2.5.
  const float poses[] = {0, 0, 1.5f, 1, 0, 0, 0, 1, 2, 3.5f, 1, 0, 0, 0};
  std::vector<float> out(2 * 187);
  scan.render(poses, out.data());
  CHECK(out[0] == 0.5f);
  CHECK(out[187 + 186] == 2.5f);
  std::vector<float> starts(3 * 187), dirs(3 * 187);
  scan.world_rays(poses, nullptr, 0, 0, starts.data(), dirs.data());
  CHECK(starts[0] == -0.8f);
  CHECK(starts[2] == 21.5f);
  CHECK(dirs[2] == -1.0f);
  CHECK_THROWS_AS(wr::Sensor(scene, pattern, d, wr::sensor_options(), 0), wr::Error);
}
