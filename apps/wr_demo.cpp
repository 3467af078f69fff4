// wr-demo: renders the depth images of a batch of parkour robots over a terrain mesh and
// reports scene size, BVH build time, render time, rays/s and memory.
//
// Written only against the public API (<wr/wr.hpp> over <wr/wr.h>), as a user would. The camera
// imitates extreme-parkour's (Cheng et al., "Extreme Parkour with Legged Robots", ICRA 2024):
// 106 x 60 pixels, 87 degrees horizontal FOV, mounted 0.27 m ahead of the base and pitched down.
// Outputs: a 4x4 contact sheet PNG of the first 16 images and the whole (N x H x W) float32
// tensor as .npy.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <wr/wr.hpp>

#include "splitmix64.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr float kPi = 3.14159265358979f;

/// An error of the demo's own (bad option value, unwritable output): exit code 2 like a bad file.
struct DemoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Reads "VmRSS" and "VmHWM" (peak RSS) of this process from /proc/self/status, in MiB;
/// {-1, -1} where /proc is not available.
struct Rss {
  double current = -1, peak = -1;
};
Rss read_rss() {
  Rss r;
  std::ifstream in("/proc/self/status");
  std::string key;
  double kib = 0;
  while (in >> key) {
    if (key == "VmRSS:" && in >> kib) r.current = kib / 1024.0;
    if (key == "VmHWM:" && in >> kib) r.peak = kib / 1024.0;
  }
  return r;
}
void print_rss(const char* when, const Rss& r) {
  std::printf("  memory %-28s RSS %8.1f MiB, peak %8.1f MiB\n", when, r.current, r.peak);
}


/// Quaternion (w, x, y, z) of a rotation by `angle` radians about the unit axis (ax, ay, az).
void axis_angle_wxyz(float ax, float ay, float az, float angle, float* q) {
  const float s = std::sin(angle / 2);
  q[0] = std::cos(angle / 2), q[1] = ax * s, q[2] = ay * s, q[3] = az * s;
}

/// A ground probe for n envs: a 1x1 sensor whose optical axis (+X) is turned to -Z (a +90
/// degree pitch about +Y), WR_DEPTH_RANGE, so that its one pixel measures the drop to the ground.
wr::Sensor make_ground_probe(const wr::Scene& scene, uint32_t n) {
  wr_camera_desc desc = wr::pinhole(1, 1, 60.0f);  // the one centre ray is the optical axis
  desc.depth_kind = WR_DEPTH_RANGE;
  axis_angle_wxyz(0, 1, 0, kPi / 2, desc.mount_rotation);
  return wr::Sensor(scene, desc, n);
}

/// Ground height under each (x, y) of `xy` ((n x 2) floats), found by the library itself: the
/// probe's n envs start at z = start_z above the scene and look down. Returns n heights; NaN
/// where the ray hits nothing.
std::vector<float> probe_ground(wr::Sensor& probe, const std::vector<float>& xy, float start_z) {
  const uint32_t n = uint32_t(xy.size() / 2);
  std::vector<float> poses(size_t(n) * 7), depth(n);  // (n x 7), (n x 1 x 1)
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[size_t(i) * 7];
    p[0] = xy[2 * i], p[1] = xy[2 * i + 1], p[2] = start_z;
    p[3] = 1, p[4] = p[5] = p[6] = 0;
  }
  probe.render(poses.data(), depth.data());
  std::vector<float> ground(n);
  for (uint32_t i = 0; i < n; ++i)
    ground[i] = std::isfinite(depth[i]) ? start_z - depth[i] : std::numeric_limits<float>::quiet_NaN();
  return ground;
}

/// Body poses ((n x 7) floats, position + quaternion w x y z) of n robots standing on the
/// terrain: a grid over the inner 80% of the scene's x-y bounds, jittered by up to a quarter
/// cell, random yaw, base 0.3-0.4 m above the highest ground under the robot's footprint. The
/// footprint is probed at the base, its four corners (a quadruped's body, about 0.4 x 0.24 m),
/// the camera and 0.25 m ahead of the camera, so that neither the body nor the camera ends up
/// inside a step, a hurdle or a box, or a few centimetres in front of one.
std::vector<float> place_robots(const wr::Scene& scene, uint32_t n, float camera_ahead, uint32_t* misses) {
  const wr::Scene::Bounds b = scene.bounds();
  const uint32_t cols = uint32_t(std::ceil(std::sqrt(double(n))));
  const uint32_t rows = (n + cols - 1) / cols;
  const float x0 = b.min[0] + 0.1f * (b.max[0] - b.min[0]), y0 = b.min[1] + 0.1f * (b.max[1] - b.min[1]);
  const float cell_x = 0.8f * (b.max[0] - b.min[0]) / cols, cell_y = 0.8f * (b.max[1] - b.min[1]) / rows;
  wr_tools::SplitMix64 rng{2024};
  std::vector<float> poses(size_t(n) * 7);  // (n x 7); the z are filled in below
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[size_t(i) * 7];
    p[0] = x0 + (float(i % cols) + 0.5f + rng.uniform(-0.25f, 0.25f)) * cell_x;
    p[1] = y0 + (float(i / cols) + 0.5f + rng.uniform(-0.25f, 0.25f)) * cell_y;
    axis_angle_wxyz(0, 0, 1, rng.uniform(-kPi, kPi), p + 3);
  }
  // Footprint probe points in the body frame: (forward, left) metres. (7 x 2)
  const float footprint[7][2] = {{0, 0},          {0.2f, 0.12f},       {0.2f, -0.12f},          {-0.2f, 0.12f},
                                 {-0.2f, -0.12f}, {camera_ahead, 0}, {camera_ahead + 0.25f, 0}};
  const float start_z = b.max[2] + 1.0f;
  wr::Sensor probe = make_ground_probe(scene, n);
  std::vector<float> ground(n, std::numeric_limits<float>::quiet_NaN()), xy(size_t(n) * 2);  // (n), (n x 2)
  for (const auto& f : footprint) {
    for (uint32_t i = 0; i < n; ++i) {
      const float* p = &poses[size_t(i) * 7];
      const float yaw = 2 * std::atan2(p[6], p[3]);  // the quaternion is a pure yaw
      xy[2 * i] = p[0] + f[0] * std::cos(yaw) - f[1] * std::sin(yaw);
      xy[2 * i + 1] = p[1] + f[0] * std::sin(yaw) + f[1] * std::cos(yaw);
    }
    const std::vector<float> g = probe_ground(probe, xy, start_z);
    for (uint32_t i = 0; i < n; ++i) ground[i] = std::fmax(ground[i], g[i]);  // fmax ignores a NaN (a miss)
  }
  *misses = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (std::isnan(ground[i])) ground[i] = b.min[2], ++*misses;  // nothing below: stand on the lowest level
    poses[size_t(i) * 7 + 2] = ground[i] + rng.uniform(0.3f, 0.4f);
  }
  return poses;
}

/// Writes `depth` ((n x h x w) float32, little-endian host) as a NumPy .npy file, format 1.0:
/// magic, version, header length (uint16 LE), then the header dict padded with spaces and a
/// final '\n' so that the data starts at a multiple of 64 bytes.
void write_npy(const fs::path& path, const std::vector<float>& depth, uint32_t n, uint32_t h, uint32_t w) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ", " +
                     std::to_string(h) + ", " + std::to_string(w) + "), }";
  const size_t preamble = 10;  // 6 magic + 2 version + 2 header length
  dict.append(63 - (preamble + dict.size()) % 64, ' ');
  dict.push_back('\n');
  const uint16_t len = uint16_t(dict.size());
  std::ofstream out(path, std::ios::binary);
  const char head[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, char(len & 0xFF), char(len >> 8)};
  out.write(head, sizeof head);
  out.write(dict.data(), std::streamsize(dict.size()));
  out.write(reinterpret_cast<const char*>(depth.data()), std::streamsize(depth.size() * sizeof(float)));
  if (!out) throw DemoError("cannot write " + path.string());
}

/// Depths (metres) the contact sheet shows white (near) and black (far).
struct DisplayRange {
  float near = 0.1f, far = 1.0f;
};

/// Writes a 4x4 contact sheet of the first min(n, 16) depth images ((n x h x w) floats) as an
/// RGB PNG, each pixel scaled up `scale` times. Grey is logarithmic in depth, white at
/// range.near metres and nearer, black at range.far and beyond: a robot's view spans 0.3 m to
/// tens of metres, and a linear scale would wash out the nearby steps. Misses (+inf, or out of
/// [near_clip, far_clip]) are dark blue, NaN magenta. Tiles are 2 px apart.
void write_contact_sheet(const fs::path& path, const std::vector<float>& depth, uint32_t n, uint32_t h,
                         uint32_t w, int scale, DisplayRange range) {
  const float log_near = std::log(range.near), log_span = std::log(range.far) - log_near;
  const int gap = 2, tw = int(w) * scale, th = int(h) * scale;
  const int sw = 4 * tw + 5 * gap, sh = 4 * th + 5 * gap;
  std::vector<uint8_t> rgb(size_t(sw) * sh * 3, 64);  // (sh x sw x 3), grey background
  for (uint32_t e = 0; e < std::min<uint32_t>(n, 16); ++e) {
    const int ox = gap + int(e % 4) * (tw + gap), oy = gap + int(e / 4) * (th + gap);
    for (int y = 0; y < th; ++y)
      for (int x = 0; x < tw; ++x) {
        const float d = depth[(size_t(e) * h + size_t(y / scale)) * w + size_t(x / scale)];
        uint8_t* px = &rgb[(size_t(oy + y) * sw + size_t(ox + x)) * 3];
        if (std::isnan(d)) {
          px[0] = 255, px[1] = 0, px[2] = 255;
        } else if (!std::isfinite(d)) {
          px[0] = 20, px[1] = 30, px[2] = 110;
        } else {
          const float t = std::clamp(1.0f - (std::log(std::max(d, 1e-6f)) - log_near) / log_span, 0.0f, 1.0f);
          px[0] = px[1] = px[2] = uint8_t(std::lround(255.0f * t));
        }
      }
  }
  if (!stbi_write_png(path.string().c_str(), sw, sh, 3, rgb.data(), sw * 3))
    throw DemoError("cannot write " + path.string());
}

/// Depths shown white and black on the contact sheet: the 1st and 99th percentiles of the
/// finite depths among the first `count` floats of `depth`, so that a few very near or very far
/// hits do not squeeze the rest into a few grey levels.
DisplayRange display_range(const std::vector<float>& depth, size_t count) {
  std::vector<float> finite;
  std::copy_if(depth.begin(), depth.begin() + std::ptrdiff_t(count), std::back_inserter(finite),
               [](float d) { return std::isfinite(d) && d > 0; });
  if (finite.empty()) return {};
  auto lo = finite.begin() + std::ptrdiff_t(finite.size() / 100);
  std::nth_element(finite.begin(), lo, finite.end());
  const float near = *lo;
  auto hi = finite.begin() + std::ptrdiff_t(finite.size() * 99 / 100);
  std::nth_element(finite.begin(), hi, finite.end());
  return {near, std::max(*hi, near * 1.01f)};
}

/// Parses "WxH" (e.g. "106x60") into width and height, both >= 1.
void parse_resolution(const std::string& s, uint32_t* width, uint32_t* height) {
  unsigned long w = 0, h = 0;
  char x = 0, rest = 0;
  if (std::sscanf(s.c_str(), "%lu%c%lu%c", &w, &x, &h, &rest) != 3 || (x != 'x' && x != 'X') || w == 0 ||
      h == 0 || w > 1u << 16 || h > 1u << 16)
    throw DemoError("--resolution: expected WxH with positive integers (e.g. 106x60), got '" + s + "'");
  *width = uint32_t(w), *height = uint32_t(h);
}

std::string default_terrain() {
#ifdef WR_DEFAULT_TERRAIN
  if (fs::exists(WR_DEFAULT_TERRAIN)) return WR_DEFAULT_TERRAIN;
#endif
  return "assets/parkour_terrain.obj";  // relative to the working directory
}

struct Options {
  std::string obj = default_terrain();
  uint32_t envs = 64, width = 106, height = 60, threads = 0, repeats = 10;
  std::string resolution, depth_kind = "plane", out = "demo_out";
  float hfov = 87.0f, pitch = 30.0f, far_clip = std::numeric_limits<float>::infinity();
};

int run(const Options& opt) {
  uint32_t width = opt.width, height = opt.height;
  if (!opt.resolution.empty()) parse_resolution(opt.resolution, &width, &height);
  const uint32_t n = opt.envs;
  fs::create_directories(opt.out);  // first, so that a bad --out fails before the long part

  const Rss rss_start = read_rss();
  wr::Context ctx = wr::Context::cpu(opt.threads);
  Clock::time_point t0 = Clock::now();
  wr::Scene scene = wr::Scene::load_obj(ctx, opt.obj);
  const double load_ms = ms_since(t0);
  const Rss rss_scene = read_rss();
  const wr::Scene::Bounds b = scene.bounds();

  // The camera: body frame +X forward; mount 0.27 m ahead and 0.05 m up, pitched down (a
  // positive rotation about +Y turns +X towards -Z).
  wr_camera_desc desc = wr::pinhole(width, height, opt.hfov);
  desc.depth_kind = opt.depth_kind == "range" ? WR_DEPTH_RANGE : WR_DEPTH_PLANE;
  desc.far_clip = opt.far_clip;
  desc.mount_position[0] = 0.27f, desc.mount_position[2] = 0.05f;
  axis_angle_wxyz(0, 1, 0, opt.pitch * kPi / 180.0f, desc.mount_rotation);
  uint32_t probe_misses = 0;
  const std::vector<float> poses = place_robots(scene, n, desc.mount_position[0], &probe_misses);  // (n x 7)
  wr::Sensor sensor(scene, desc, n);
  const Rss rss_sensor = read_rss();

  std::vector<float> depth(sensor.depth_size());  // (n x height x width)
  sensor.render(poses.data(), depth.data());      // warm-up: page in the BVH and the output
  double best_ms = 1e300, sum_ms = 0;
  for (uint32_t r = 0; r < opt.repeats; ++r) {
    t0 = Clock::now();
    sensor.render(poses.data(), depth.data());
    const double ms = ms_since(t0);
    best_ms = std::min(best_ms, ms), sum_ms += ms;
  }
  const double mean_ms = sum_ms / opt.repeats;
  const double rays = double(n) * width * height;

  // Statistics of what the cameras see, to tell at a glance whether the robots look at terrain.
  size_t hits = 0;
  float dmin = std::numeric_limits<float>::infinity(), dmax = 0;
  for (float d : depth)
    if (std::isfinite(d)) ++hits, dmin = std::min(dmin, d), dmax = std::max(dmax, d);

  const fs::path png = fs::path(opt.out) / "depth_contact_sheet.png";
  const fs::path npy = fs::path(opt.out) / "depth.npy";
  const DisplayRange shown = display_range(depth, size_t(std::min<uint32_t>(n, 16)) * height * width);
  write_contact_sheet(png, depth, n, height, width, 3, shown);
  write_npy(npy, depth, n, height, width);

  std::printf("wr-demo: %u robots, %ux%u depth camera (%.1f deg HFOV, pitched %.0f deg down, %s depth), "
              "far clip %g m, %u CPU threads (%s path)\n",
              n, width, height, double(opt.hfov), double(opt.pitch),
              desc.depth_kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE", double(opt.far_clip),
              ctx.num_threads(), wr_cpu_path_string(ctx.cpu_path()));
  std::printf("  scene      %s\n", opt.obj.c_str());
  std::printf("  triangles  %llu, bounds [%.2f %.2f %.2f] - [%.2f %.2f %.2f] m\n",
              (unsigned long long)scene.num_triangles(), double(b.min[0]), double(b.min[1]), double(b.min[2]),
              double(b.max[0]), double(b.max[1]), double(b.max[2]));
  std::printf("  BVH build  %.2f ms (binned SAH, %u threads); %.2f ms with OBJ parsing and validation\n",
              scene.build_seconds() * 1e3, ctx.num_threads(), load_ms);
  std::printf("  render     best %.3f ms, mean %.3f ms over %u renders after 1 warm-up\n", best_ms, mean_ms,
              opt.repeats);
  std::printf("  rays/s     %.3g (best), %.3g (mean); %.0f rays per render\n", rays / (best_ms * 1e-3),
              rays / (mean_ms * 1e-3), rays);
  std::printf("  hits       %.1f%% of pixels, depth %.3f - %.3f m; %llu stack overflows\n",
              100.0 * double(hits) / double(depth.size()), double(hits ? dmin : 0.0f), double(dmax),
              (unsigned long long)sensor.stack_overflows());
  if (probe_misses) std::printf("  warning    %u robots found no ground below them\n", probe_misses);
  print_rss("at start", rss_start);
  print_rss("after loading the scene", rss_scene);
  print_rss("after creating the sensor", rss_sensor);
  print_rss("at the end", read_rss());
  wr_memory_stats scene_mem{}, sensor_mem{};  // what the library itself accounts for
  if (wr_scene_memory(scene.get(), &scene_mem) == WR_SUCCESS &&
      wr_sensor_memory(sensor.get(), &sensor_mem) == WR_SUCCESS) {
    uint64_t nodes = 0, tris = 0, parents = 0;
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_NODES, &nodes, nullptr);
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_TRIANGLES, &tris, nullptr);
    wr_scene_memory_tag(scene.get(), WR_MEMORY_BVH_PARENTS, &parents, nullptr);
    std::printf("  memory library: scene %.1f MiB (%.1f bytes/triangle: nodes %.1f, triangles %.1f, parents %.1f MiB), "
                "sensor %.3f MiB (ray template), %llu bytes per env\n",
                scene_mem.host_bytes / 1048576.0, double(scene_mem.host_bytes) / double(scene.num_triangles()),
                nodes / 1048576.0, tris / 1048576.0, parents / 1048576.0, sensor_mem.host_bytes / 1048576.0,
                (unsigned long long)(scene_mem.per_env_bytes + sensor_mem.per_env_bytes));
  }
  std::printf("  wrote      %s (first %u of %u images, log grey: white <= %.2f m, black >= %.2f m, blue = miss)\n",
              png.string().c_str(), std::min<uint32_t>(n, 16), n, double(shown.near), double(shown.far));
  std::printf("  wrote      %s (float32 [%u, %u, %u], +inf = miss)\n", npy.string().c_str(), n, height, width);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"wr-demo: depth images of a batch of parkour robots over a terrain mesh, with timings"};
  app.add_option("--obj", opt.obj, "terrain mesh (Wavefront OBJ)")->capture_default_str();
  app.add_option("-n,--envs", opt.envs, "number of robots")->capture_default_str()
      ->check(CLI::Range(1u, 1u << 24));
  auto* w = app.add_option("--width", opt.width, "image width, pixels")->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  auto* h = app.add_option("--height", opt.height, "image height, pixels")->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  app.add_option("--resolution", opt.resolution, "image size as WxH, e.g. 106x60")->excludes(w)->excludes(h);
  app.add_option("--depth-kind", opt.depth_kind, "plane (z-depth, REP 118) or range (Euclidean)")
      ->capture_default_str()->check(CLI::IsMember({"plane", "range"}));
  app.add_option("--hfov", opt.hfov, "horizontal field of view, degrees")->capture_default_str()
      ->check(CLI::Range(0.01f, 179.0f));
  app.add_option("--pitch", opt.pitch, "camera pitch below the horizon, degrees")->capture_default_str()
      ->check(CLI::Range(-90.0f, 90.0f));
  app.add_option("--far-clip", opt.far_clip, "far clip, metres (default: none, +inf)")
      ->check([](const std::string& s) {  // validators run before conversion: parse here, never throw
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        const bool ok = end != s.c_str() && *end == '\0' && v > 0;
        return ok ? std::string() : "must be a number > 0 (metres), got '" + s + "'";
      });
  app.add_option("--threads", opt.threads, "CPU render threads (0 = one per hardware thread)")
      ->capture_default_str();
  app.add_option("--repeats", opt.repeats, "timed renders after the warm-up")->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  app.add_option("-o,--out", opt.out, "output directory (created if missing)")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "wr-demo: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  try {
    return run(opt);
  } catch (const wr::Error& e) {
    std::fprintf(stderr, "wr-demo: error: %s\n", e.what());  // the message names its wr_status
  } catch (const std::exception& e) {  // DemoError, std::filesystem::filesystem_error
    std::fprintf(stderr, "wr-demo: error: %s\n", e.what());
  }
  return 2;
}
