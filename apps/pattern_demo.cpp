#include "pattern_demo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "contact_sheet.h"
#include "npy.h"
#include "pattern_pictures.h"
#include "render_timing.h"

namespace wr_demo {

namespace fs = std::filesystem;

namespace {

// The height scan's picture: the first four envs' scans from above (pattern_pictures.h), the
// ground under each read by a dense straight-down grid of its own (0.01 m over 3 x 3 m around the
// robot, from 20 m up: the ground's z is 20 - distance) and each ray's hit from the scan's own
// render with hit points (world frame).
void write_scan_picture(const fs::path& png, const wr::Scene& scene, wr::Sensor& scan, const wr_render_args& args,
                        const std::vector<float>& poses, const std::vector<float>& values, uint32_t n, uint32_t rays) {
  const uint32_t shown = std::min<uint32_t>(n, 4);
  const int size = 300;
  const float across = 3.0f, step = across / float(size);
  // The scan's hits: one more render of the same poses, its hit points kept.
  std::vector<float> hits(size_t(n) * rays * 3), again(values.size());
  wr_render_args with_hits = args;
  with_hits.out = again.data();
  with_hits.hit_points = hits.data();
  scan.render(with_hits);
  // The ground: a grid of size x size rays, at pixel centres, straight down from 20 m above z = 0.
  wr_pattern_desc gd = wr::pattern_desc(WR_PATTERN_GRID);
  gd.grid_size[0] = gd.grid_size[1] = double(across - step);
  gd.grid_resolution = double(step);
  wr_ray_sensor_desc d = wr::ray_sensor_desc();
  d.alignment = WR_ALIGN_WORLD;
  d.offset_position[2] = 20.0f;
  const wr::Pattern ground_pattern(gd);
  if (ground_pattern.num_rays() != uint32_t(size * size)) throw std::runtime_error("the ground grid's ray count");
  wr::Sensor ground(scene, ground_pattern, d, wr::sensor_options(), shown);
  std::vector<float> at(size_t(shown) * 7, 0.0f), distance(size_t(shown) * size * size);
  for (uint32_t e = 0; e < shown; ++e) at[e * 7] = poses[e * 7], at[e * 7 + 1] = poses[e * 7 + 1], at[e * 7 + 3] = 1.0f;
  ground.render(at.data(), distance.data());
  std::vector<ScanPanel> panels;
  for (uint32_t e = 0; e < shown; ++e) {
    ScanPanel p{e, poses[e * 7] - across / 2, poses[e * 7 + 1] + across / 2, step, size, {}, {}, {}};
    // The grid's rays run along x, then y, from its -x -y corner (WR_GRID_XY): image rows go down in y.
    p.ground_z.resize(size_t(size) * size);
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x) {
        const float t = distance[(size_t(e) * size + size_t(size - 1 - y)) * size + size_t(x)];
        p.ground_z[size_t(y) * size + x] = std::isfinite(t) ? 20.0f - t : std::numeric_limits<float>::quiet_NaN();
      }
    for (uint32_t r = 0; r < rays; ++r) {
      p.hit_xy.push_back(hits[(size_t(e) * rays + r) * 3]);
      p.hit_xy.push_back(hits[(size_t(e) * rays + r) * 3 + 1]);
      p.values.push_back(values[size_t(e) * rays + r]);
    }
    panels.push_back(std::move(p));
  }
  write_height_scan_picture(png, panels, DisplayRange{-1.0f, 1.0f, false});
}

}  // namespace

// --height-scan / --lidar: one pattern sensor over the robots (poses, n x 7), timed, its values
// written as .npy [n, num_rays] and drawn (height_scan.png, lidar_range_image.png). The height scan
// is IsaacLab's locomotion default (RayCasterCfg(offset=(0, 0, 20), ray_alignment="yaw",
// GridPatternCfg(resolution=0.1, size=[1.6, 1.0])) read by height_scan(offset=0.5), clipped to
// [-1, 1], -1 where nothing is hit); the LiDAR IsaacLab's LidarPatternCfg(channels=16,
// vertical_fov_range=(-15, 15), horizontal_fov_range=(-180, 180), horizontal_res=0.2) 0.2 m ahead
// of and 0.1 m above the base, distances up to 100 m (+inf beyond). Fails if no ray hits.
int run_pattern_demo(const PatternDemo& opt, const wr::Context& ctx, const wr::Scene& scene,
                     const std::vector<float>& poses, double load_ms) {
  const uint32_t n = opt.envs;
  wr_pattern_desc pd = wr::pattern_desc(opt.height_scan ? WR_PATTERN_GRID : WR_PATTERN_SPHERICAL);
  wr_ray_sensor_desc d = wr::ray_sensor_desc();
  wr_sensor_options o = wr::sensor_options();
  if (opt.height_scan) {
    pd.grid_size[0] = 1.6, pd.grid_size[1] = 1.0, pd.grid_resolution = 0.1;
    d.alignment = WR_ALIGN_YAW;
    d.offset_position[2] = 20.0f;
    d.value = WR_RAY_HEIGHT;
    d.height_offset = 0.5f;
    d.miss_value = -1.0f;
    o.clip = 1, o.clip_min = -1.0f, o.clip_max = 1.0f;
  } else {
    pd.channels = 16;
    pd.vertical_fov[0] = -15, pd.vertical_fov[1] = 15;
    pd.horizontal_fov[0] = -180, pd.horizontal_fov[1] = 180;
    pd.horizontal_resolution = 0.2;
    d.mount_position[0] = 0.2f, d.mount_position[2] = 0.1f;
    d.max_distance = 100.0f;
  }
  const wr::Pattern pattern(pd);
  wr::Sensor sensor(scene, pattern, d, o, n);
  const uint32_t rays = pattern.num_rays();
  std::vector<float> values(size_t(n) * rays);
  const wr_render_args args = wr::render_args(poses.data(), values.data(), values.size() * sizeof(float));
  const Timing t = time_renders(opt.repeats, [&] { sensor.render(args); });
  size_t hits = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : values)
    if (opt.height_scan ? v != -1.0f : std::isfinite(v)) ++hits, lo = std::min(lo, v), hi = std::max(hi, v);
  const fs::path npy = fs::path(opt.out) / (opt.height_scan ? "heights.npy" : "distances.npy");
  write_npy(npy, values.data(), values.size() * sizeof(float), "<f4", std::vector<uint64_t>{n, rays});
  const fs::path png = fs::path(opt.out) / (opt.height_scan ? "height_scan.png" : "lidar_range_image.png");
  if (opt.height_scan) {
    write_scan_picture(png, scene, sensor, args, poses, values, n, rays);
  } else {
    std::vector<uint32_t> envs(std::min<uint32_t>(n, 4));
    for (uint32_t e = 0; e < envs.size(); ++e) envs[e] = e;
    write_lidar_picture(png, values, envs, pd.channels, rays / pd.channels, 6, 2,
                        percentile_range(values, envs, rays, true));
  }
  const wr_memory_stats m = sensor.memory();
  std::printf("wr-demo: %u robots, %s, %u rays each, %u CPU threads (%s path)\n", n,
              opt.height_scan ? "IsaacLab's height scan (1.6 x 1.0 m at 0.1 m, yaw-aligned, 20 m lift)"
                              : "a 16-channel LiDAR (+-15 deg, 0.2 deg over 360 deg)",
              rays, ctx.num_threads(), wr_cpu_path_string(ctx.cpu_path()));
  std::printf("  scene      %s, %llu triangles, %.2f ms to load and build\n", opt.obj.c_str(),
              (unsigned long long)scene.num_triangles(), load_ms);
  std::printf("  render     best %.3f ms, mean %.3f ms over %u renders after 1 warm-up; %.3g rays/s (best)\n",
              t.best_ms, t.mean_ms, opt.repeats, double(n) * rays / (t.best_ms * 1e-3));
  std::printf("  hits       %.1f%% of rays, %s %.3f - %.3f m\n", 100.0 * double(hits) / double(values.size()),
              opt.height_scan ? "heights" : "distances", double(hits ? lo : 0.0f), double(hits ? hi : 0.0f));
  std::printf("  memory     sensor %.3f MiB (the pattern, shared), %llu bytes per env inside the library\n",
              m.host_bytes / 1048576.0, (unsigned long long)m.per_env_bytes);
  std::printf("  wrote      %s (float32 [%u, %u]%s)\n", npy.string().c_str(), n, rays,
              opt.height_scan ? ", sensor z - hit z - 0.5 clipped to [-1, 1], -1 = miss" : ", metres, +inf = miss");
  std::printf("  wrote      %s (%s)\n", png.string().c_str(),
              opt.height_scan ? "the first robots' scans from above, over the ground they read"
                              : "the first robots' range images, a row per channel");
  if (hits == 0) throw std::runtime_error("no ray hit the terrain: are the robots over it?");
  return 0;
}

}  // namespace wr_demo
