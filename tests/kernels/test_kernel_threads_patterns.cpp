// A pattern sensor's kernels (kernels/kernel_threads.h over the pattern sets of
// core/render_features.h), every thread of an emulated launch run on the CPU, against the CPU
// backend's job bit for bit (values, instance ids and each ray's hit details): IsaacLab's height scan
// under three feet of each env (three frames) and a scanning LiDAR on a mount, over a BVH and a
// height field's grid, alone and through instances.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <vector>

#include "cpu/cpu_render.h"
#include "emulated_launch.h"
#include "kernel_test_scenes.h"
#include "kernel_threads.h"
#include "random_scenes.h"
#include "scene/grid_builder.h"
#include "scene/heightfield.h"
#include "sensor/pattern_model.h"
#include "sensor/render_call.h"

using namespace wr_test::kernels;

namespace {
constexpr float kNaN = NAN;
}  // namespace

TEST_CASE("a pattern sensor's emulated launches equal the CPU backend bit for bit, on every terrain kind") {
  // IsaacLab's height scan (yaw-aligned, 20 m lift) under three feet of each env (three frames) and
  // a small scanning LiDAR on a mount, over the bundled
  // terrain's BVH, a height field's grid and its BVH, alone and through instances (slots beside each
  // body; the second, the robot's own, excluded), its output float16 heights or distances.
  const wr::Mesh mesh = small_terrain();
  const wr::Bvh bvh = gpu_bvh(mesh);
  const uint32_t nx = 40, ny = 33;
  std::vector<float> heights(size_t(nx) * ny);
  for (uint32_t k = 0; k < heights.size(); ++k) heights[k] = (k / 7 + k % nx / 5) % 3 == 0 ? 0.3f : 0.02f * (k % 5);
  wr_heightfield_desc hd;
  wr_heightfield_desc_init(&hd);
  hd.heights = heights.data();
  hd.num_x = nx, hd.num_y = ny;
  hd.spacing_x = hd.spacing_y = 0.1f;
  wr::GridTerrainData grid;
  REQUIRE(wr::build_grid_terrain("test", hd, wr::cuda::bvh_build_options(), &grid));
  const wr::Mesh field = wr::triangulate_heightfield("test", hd);
  const wr::Bvh field_bvh = gpu_bvh(field);
  wr::TerrainView grid_view;
  grid_view.kind = wr::TerrainKind::kGrid;
  grid_view.grid = grid.view();
  const wr::Bvh proto = gpu_bvh(kBoxVertices.data(), kBoxTriangles.data(), kBoxTriangles.size() / 3);
  const wr::BvhView views[1] = {proto.view()};
  const uint32_t num_envs = 5, slots = 2;
  std::vector<uint32_t> prototype(slots, 0u), group = {0u, 1u};
  const wr::InstanceView table{views, prototype.data(), group.data(), slots, 0};

  wr_pattern_desc scan_desc;
  wr_pattern_desc_init(&scan_desc);
  scan_desc.grid_size[0] = 1.6, scan_desc.grid_size[1] = 1.0;
  wr_pattern_desc lidar_desc;
  wr_pattern_desc_init(&lidar_desc);
  lidar_desc.kind = WR_PATTERN_SPHERICAL;
  lidar_desc.channels = 5;
  lidar_desc.vertical_fov[0] = -30, lidar_desc.vertical_fov[1] = 10;
  lidar_desc.horizontal_fov[0] = -180, lidar_desc.horizontal_fov[1] = 180;
  lidar_desc.horizontal_resolution = 7.5;
  struct Case {
    const char* name;
    wr::TerrainView traced;
    const wr::Bvh* reference;
    const wr::Mesh* terrain;
  };
  const Case cases[] = {{"bundled terrain", wr::bvh_terrain(bvh.view()), &bvh, &mesh},
                        {"height field grid", grid_view, &field_bvh, &field}};
  for (const Case& k : cases)
    for (const bool height : {true, false})
      for (const bool instanced : {false, true}) {
        INFO(k.name << (height ? ", height scan" : ", lidar") << (instanced ? ", instances" : ""));
        const wr::RayPattern pattern = wr::make_ray_pattern("test", height ? scan_desc : lidar_desc);
        wr_ray_sensor_desc d;
        wr_ray_sensor_desc_init(&d);
        // the height scan: three frames per env on the env's body, each under its own mount (a
        // scan under each of three feet), rows of the output
        const uint32_t offsets[3] = {0, 0, 0};
        const float feet[21] = {0.3f, 0.2f, 0, 1, 0, 0, 0, 0.3f, -0.2f, 0, 1, 0, 0, 0, -0.3f, 0, 0, 0.9f, 0, 0, 0.1f};
        if (height) {
          d.alignment = WR_ALIGN_YAW;
          d.offset_position[2] = 20.0f;
          d.value = WR_RAY_HEIGHT;
          d.height_offset = 0.5f;
          d.miss_value = -1.0f;
          d.num_frames = 3;
          d.frame_pose_offsets = offsets;
          d.frame_mounts = feet;
        } else {  // scanning: a third of the pattern per frame, each env from its own phase
          d.mount_position[0] = 0.2f;
          d.max_distance = 12.0f;
          d.rays_per_frame = pattern.num_rays() / 3;
          d.scan_phase = WR_SCAN_PHASE_HASHED;
          d.scan_seed = 99;
        }
        wr_sensor_options o;
        wr_sensor_options_init(&o);
        o.dtype = WR_DTYPE_FLOAT16;
        o.exclude_groups = 1u << 1;
        wr_camera_desc camera;
        const wr::SensorPipeline sp = wr::make_pattern_pipeline("test", d, pattern, &o, &camera);
        std::vector<wr::TemplateRay> rays(2ull * pattern.num_rays());
        wr::build_pattern_template(pattern, d, rays.data());
        float lo[3], hi[3];
        wr_test::vertex_bounds(k.terrain->vertices, lo, hi);
        hi[2] += 1.0f;
        std::vector<float> poses = wr_test::random_poses_in_box(17, num_envs, lo, hi);
        poses[7 + 3] = kNaN;  // env 1 is bad: isolated, NaN
        std::vector<float> slot_poses;
        for (uint32_t e = 0; e < num_envs; ++e) {
          const float* b = &poses[7ull * e];
          slot_poses.insert(slot_poses.end(), {b[0] + 0.5f, b[1], b[2] - 0.4f, 1, 0, 0, 0});
          slot_poses.insert(slot_poses.end(), {b[0], b[1], b[2], 1, 0, 0, 0});  // its own, excluded
        }
        const size_t values = size_t(num_envs) * sp.out_width * sp.out_height;
        CHECK(sp.out_height == (height ? 3u : 1u));
        std::vector<uint16_t> want(values, 0xEEEE), got(want), cpu(want);
        std::vector<uint32_t> want_ids(values, 7u), got_ids(want_ids), cpu_ids(want_ids);
        // Each ray's hit details (triangle, point, normal as float bits: a bad env's are NaN).
        struct Details {
          std::vector<uint32_t> triangles, points, normals;
          explicit Details(size_t n) : triangles(n, 7u), points(3 * n, 7u), normals(3 * n, 7u) {}
          bool operator==(const Details& o) const {
            return triangles == o.triangles && points == o.points && normals == o.normals;
          }
        };
        Details want_hits(values), got_hits(values), cpu_hits(values);
        std::vector<uint8_t> mask(num_envs, 9);
        auto call = [&](uint16_t* out, uint32_t* ids, Details* hits) {
          wr::PipelineCall c{};
          c.body_poses = poses.data();
          c.pose_stride = 7;
          c.out = out;
          c.channels.instance_ids = ids;
          c.channels.triangle_ids = hits->triangles.data();
          c.channels.hit_points = reinterpret_cast<float*>(hits->points.data());
          c.channels.hit_normals = reinterpret_cast<float*>(hits->normals.data());
          c.bad_env_mask = mask.data();
          c.frame = 7;
          if (instanced) c.instances = table, c.instance_poses = slot_poses.data();
          return c;
        };
        wr::PipelineParams params = sp.params;
        params.isolate = true;
        const wr::PipelineCall cw = call(want.data(), want_ids.data(), &want_hits);
        const wr::PipelineCall cc = call(cpu.data(), cpu_ids.data(), &cpu_hits);
        const wr::PipelineCall cg = call(got.data(), got_ids.data(), &got_hits);
        const wr::RenderFeatureSet reference{true, instanced, wr::TerrainKind::kBvh, true};
        const wr::RenderFeatureSet features = wr::render_features(sp, cg, k.traced.kind);
        REQUIRE(features.pattern);
        REQUIRE(features.pipeline);
        wr::ThreadPool pool(2);
        std::atomic<uint64_t> overflows{0};
        std::vector<wr::PreparedInstance> prepared(2ull * slots);
        wr::CpuRenderJob job{};
        job.terrain = wr::bvh_terrain(k.reference->view());
        job.rays = rays.data();
        job.params = &params;
        job.call = cw;
        job.features = reference;
        job.num_envs = num_envs;
        job.thread_instances = prepared.data();
        job.num_instances = instanced ? slots : 0;
        job.stack_overflows = &overflows;
        wr::cpu_render(pool, job);
        job.terrain = k.traced;
        job.call = cc;
        job.features = features;
        wr::cpu_render(pool, job);
        CHECK(cpu == want);
        CHECK(cpu_ids == want_ids);
        CHECK(cpu_hits == want_hits);
        wr_test::emulate_render(features, k.traced, rays.data(), params, cg, wr::PipelineState{}, num_envs);
        CHECK(got == want);
        CHECK(got_ids == want_ids);
        CHECK(got_hits == want_hits);
        CHECK(mask == std::vector<uint8_t>{0, 1, 0, 0, 0});
        size_t hits = 0, seen = 0;
        for (size_t i = 0; i < values; ++i) {
          hits += want[i] != wr::float_to_half(height ? -1.0f : INFINITY) && i / (values / num_envs) != 1;
          seen += want_ids[i] == 0u;
        }
        CHECK(hits > values / 5);  // many rays hit: equality means something
        size_t with_triangle = 0;
        for (uint32_t t : want_hits.triangles) with_triangle += t != wr::kInvalidIndex;
        CHECK(with_triangle >= hits);  // every ray that hit has its triangle
        if (instanced && !height) CHECK(seen > 0);
        for (uint32_t id : want_ids) CHECK(id != 1u);  // the robot's own slot is never seen
      }
}
