// See timing_and_report.h.
#include "timing_and_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>
#include <utility>

namespace wr_bench {
namespace {

// The Embree build configurations compared with ours; the first is Embree's default.
const EmbreeConfig kEmbreeConfigs[] = {
    {"MEDIUM, FLAG_NONE (default)", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_NONE, true},
    {"HIGH, FLAG_NONE", RTC_BUILD_QUALITY_HIGH, RTC_SCENE_FLAG_NONE, true},
    {"MEDIUM, FLAG_ROBUST", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_ROBUST, true},
    {"LOW, FLAG_NONE", RTC_BUILD_QUALITY_LOW, RTC_SCENE_FLAG_NONE, false},
    {"MEDIUM, FLAG_COMPACT", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_COMPACT, false},
};

}  // namespace

// ---- agreement --------------------------------------------------------------------------------

Agreement compare(const std::vector<float>& ours, const std::vector<float>& theirs, size_t max_worst) {
  Agreement a;
  std::vector<Agreement::Pixel> bad;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double x = ours[i], y = theirs[i];
    const bool miss_x = !std::isfinite(x), miss_y = !std::isfinite(y);
    if (miss_x && miss_y) continue;
    const double err = miss_x != miss_y ? double(kInf) : std::fabs(x - y);
    if (err <= kRelTol * std::max(1.0, std::fabs(y))) continue;
    bad.push_back({i, ours[i], theirs[i], err});
  }
  a.disagree = bad.size();
  a.fraction = 1.0 - double(bad.size()) / double(ours.size());
  std::sort(bad.begin(), bad.end(),
            [](const Agreement::Pixel& p, const Agreement::Pixel& q) { return p.error > q.error; });
  bad.resize(std::min(bad.size(), max_worst));
  a.worst = bad;
  return a;
}

// ---- header -----------------------------------------------------------------------------------

std::string cpu_model_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

void print_header(const Options& opt, const Mesh& mesh, double read_s, uint32_t wr_threads, const char* wr_path,
                  long embree_version, const std::string& device_config) {
  const std::string& obj_path = opt.obj_path;
  const uint32_t num_envs = opt.num_envs, seed = opt.seed;
  const unsigned threads = opt.threads;
  const int reps = opt.reps;
  const float far_clip = opt.far_clip;
  const std::string cpu_model = cpu_model_name();

  std::printf("# wr-bench-vs-embree\n\n");
  std::printf(
      "- CPU: %s, %u hardware threads; both engines use %u threads (wr context: %u threads, CPU path %s "
      "by default)\n",
      cpu_model.c_str(), std::thread::hardware_concurrency(), threads, wr_threads, wr_path);
  std::printf("- Embree %ld.%ld.%ld, device config \"%s\"\n", embree_version / 10000, (embree_version / 100) % 100,
              embree_version % 100, device_config.c_str());
  std::printf("- scene: %s: %zu vertices, %zu triangles (tinyobjloader read %.2f s; the same arrays go to both)\n",
              obj_path.c_str(), mesh.num_vertices(), mesh.num_triangles(), read_s);
  char far_text[32] = "none";
  if (std::isfinite(far_clip)) std::snprintf(far_text, sizeof far_text, "%g m", double(far_clip));
  std::printf(
      "- cameras: %u envs, 87 deg horizontal FOV, mount pitched 30 deg down, bodies 0.35-0.65 m above the "
      "ground, random yaw, +-5 deg pitch jitter (seed %u); range depth, far clip %s\n",
      num_envs, seed, far_text);
  std::printf(
      "- Embree rays: camera-frame directions precomputed once per resolution (as wr_sensor_create does "
      "ours); pose, body * mount, world rays, trace and depth write are timed for both. Embree work: tasks "
      "of 8x8 tiles of one env, split as the library splits its own, on a %u-thread pool (FTZ/DAZ set, as "
      "Embree asks)\n",
      threads);
  std::printf(
      "- timing: median of %d after 1 warm-up, std::chrono::steady_clock; repetitions interleaved "
      "round-robin across engines and modes\n\n",
      reps);
  std::fflush(stdout);
}

// ---- builds -----------------------------------------------------------------------------------

Builds time_builds(const Options& opt, const Mesh& mesh, wr_context context, RTCDevice device, MemoryMonitor& monitor) {
  const int reps = opt.reps;
  Builds result;
  std::vector<RenderScene>& embree_scenes = result.embree_scenes;
  std::vector<BuildRow>& builds = result.rows;
  wr_scene& scene = result.scene;
  // Repetition r == 0 is the warm-up (it also starts Embree's TBB threads); the repetitions go
  // round-robin over ours and every Embree configuration. The last build of each is kept: ours
  // and the traced Embree ones render below; memory is read from it.
  constexpr size_t kNumEmbreeConfigs = sizeof kEmbreeConfigs / sizeof kEmbreeConfigs[0];
  builds.push_back(BuildRow{"warp-raycaster", "wr_scene_create (binned SAH)", {}, {}, 0, 0});
  for (const EmbreeConfig& cfg : kEmbreeConfigs) builds.push_back(BuildRow{"Embree", cfg.name, {}, {}, 0, 0});
  std::vector<std::vector<double>> totals(builds.size()), commits(builds.size());
  for (int r = 0; r <= reps; ++r) {
    {
      wr_scene s = nullptr;
      const auto t0 = Clock::now();
      WR_OK(wr_scene_create(context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                            mesh.num_triangles(), &s));
      const double dt = seconds_since(t0);
      if (r > 0) totals[0].push_back(dt);
      if (r == reps) {
        scene = s;
      } else {
        wr_scene_release(s);
      }
    }
    for (size_t k = 0; k < kNumEmbreeConfigs; ++k) {
      const EmbreeConfig& cfg = kEmbreeConfigs[k];
      BuildRow& row = builds[k + 1];
      const int64_t before = monitor.live.load();
      monitor.reset_peak();
      double commit_s = 0;
      const auto t0 = Clock::now();
      RTCScene s = embree_scene(device, mesh, cfg, &commit_s);
      const double dt = seconds_since(t0);
      if (r > 0) totals[k + 1].push_back(dt), commits[k + 1].push_back(commit_s);
      if (r == reps) {
        row.live_bytes = monitor.live.load() - before;
        row.peak_bytes = monitor.peak.load() - before;
      }
      if (r == reps && cfg.render) {
        embree_scenes.push_back({cfg.name, s});
      } else {
        rtcReleaseScene(s);
      }
    }
  }
  for (size_t k = 0; k < builds.size(); ++k) {
    builds[k].total = summarize(totals[k]);
    if (k > 0) builds[k].commit = summarize(commits[k]);
  }
  {
    wr_memory_stats mem{};
    WR_OK(wr_scene_memory(scene, &mem));
    builds[0].live_bytes = int64_t(mem.host_bytes);
  }
  return result;
}

void print_builds(const Builds& result, const Mesh& mesh) {
  const std::vector<BuildRow>& builds = result.rows;
  const double tris = double(mesh.num_triangles());
  std::printf("## BVH build and memory (%zu triangles)\n\n", mesh.num_triangles());
  std::printf(
      "| engine | build | build ms (median) | min | max | commit ms (Embree) | bytes/triangle (live) | "
      "MiB live | MiB peak while building |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const BuildRow& b : builds) {
    const bool embree = b.engine == "Embree";
    char commit[32] = "-", peak[32] = "-";
    if (embree) {
      std::snprintf(commit, sizeof commit, "%.1f", b.commit.median * 1e3);
      std::snprintf(peak, sizeof peak, "%.1f", double(b.peak_bytes) / (1 << 20));
    }
    std::printf("| %s | %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %s |\n", b.engine.c_str(), b.config.c_str(),
                b.total.median * 1e3, b.total.min * 1e3, b.total.max * 1e3, commit, double(b.live_bytes) / tris,
                double(b.live_bytes) / (1 << 20), peak);
  }
  std::printf(
      "\nOurs: wr_scene_memory().host_bytes (BVH nodes, leaf blocks of shared corners, parent links). Embree: "
      "bytes its memory monitor reports live after the build, its own vertex + index buffers included "
      "(%.1f bytes/triangle of them); peak = most bytes live at once while building.\n\n",
      double(mesh.vertices.size() * sizeof(float) + mesh.indices.size() * sizeof(uint32_t)) / tris);
  std::fflush(stdout);
}

// ---- renders ----------------------------------------------------------------------------------

Renders time_renders(const Options& opt, const Builds& built, wr_context context) {
  const uint32_t num_envs = opt.num_envs, seed = opt.seed;
  const unsigned threads = opt.threads;
  const int reps = opt.reps;
  const float far_clip = opt.far_clip;
  const wr_scene scene = built.scene;
  const std::vector<RenderScene>& embree_scenes = built.embree_scenes;
  const auto& resolutions = opt.sizes;
  Renders result;
  std::vector<RenderRow>& renders = result.rows;
  bool& all_agree = result.all_agree;
  std::vector<std::string>& failures = result.failures;
  const std::vector<float> poses = make_poses(scene, num_envs, seed);
  Pool pool(threads);

  std::printf("## Renders (%u envs, %u threads)\n\n", num_envs, threads);
  std::printf(
      "| WxH | engine | mode | BVH | ms/render (median) | min | max | M rays/s | hits %% | agrees with ours |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  auto print_row = [](const RenderRow& r) {
    char agree[32] = "-";
    if (!r.is_ours) std::snprintf(agree, sizeof agree, "%.4f%%", 100.0 * r.agree.fraction);
    std::printf("| %ux%u | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %s |\n", r.width, r.height,
                r.engine.c_str(), r.mode.c_str(), r.bvh.c_str(), r.time.median * 1e3, r.time.min * 1e3,
                r.time.max * 1e3, r.mrays, 100.0 * r.hit_fraction, agree);
    std::fflush(stdout);
  };
  for (const auto& res : resolutions) {
    const wr_camera_desc desc = peer_camera_desc(res.first, res.second, far_clip);
    wr_sensor sensor = nullptr;
    WR_OK(wr_sensor_create(scene, &desc, num_envs, &sensor));
    const Camera cam = make_camera(desc);
    const size_t pixels = size_t(num_envs) * res.first * res.second;
    auto hit_fraction = [&](const std::vector<float>& d) {
      return double(std::count_if(d.begin(), d.end(), [](float x) { return std::isfinite(x); })) / double(pixels);
    };

    // Every contender renders once to warm up, then the timed repetitions go round-robin
    // (ours, then each Embree mode, then ours again, ...), so that load from other processes
    // on a shared machine falls on all of them alike rather than on whichever ran in a bad
    // second. Each keeps its own output for the comparison.
    struct Contender {
      RenderRow row;
      std::function<void(float*)> render;
      std::vector<float> depth;
      std::vector<double> times;
    };
    std::vector<Contender> contenders;
    // Ours: the path the library picks on this CPU (the row the ratios use), then every
    // other path this CPU runs, each switched on just before its render.
    wr_cpu_path best;
    WR_OK(wr_context_cpu_path(context, &best));
    std::vector<wr_cpu_path> our_paths = {best};
    for (const wr_cpu_path p : {WR_CPU_PATH_AVX2, WR_CPU_PATH_SCALAR})
      if (p != best && wr_context_set_cpu_path(context, p) == WR_SUCCESS) our_paths.push_back(p);
    for (const wr_cpu_path p : our_paths) {
      Contender c;
      c.row.engine = "warp-raycaster";
      c.row.mode = std::string("wr_sensor_render, ") + wr_cpu_path_string(p) + (p == best ? " (auto)" : "");
      c.row.bvh = "binned SAH";
      c.row.is_ours = p == best;
      c.render = [&, p](float* out) {
        WR_OK(wr_context_set_cpu_path(context, p));
        WR_OK(wr_sensor_render(sensor, poses.data(), out, nullptr));
      };
      contenders.push_back(std::move(c));
    }
    for (const EmbreeMode mode : {EmbreeMode::kSingle, EmbreeMode::kPacket16})
      for (const RenderScene& rs : embree_scenes) {
        Contender c;
        c.row.engine = "Embree";
        c.row.mode = mode == EmbreeMode::kSingle ? "rtcIntersect1" : "rtcIntersect16 4x4 coherent";
        c.row.bvh = rs.name;
        const RTCScene es = rs.scene;
        c.render = [&pool, es, mode, &cam, &poses, num_envs](float* out) {
          embree_render(pool, es, mode, cam, poses.data(), num_envs, out);
        };
        contenders.push_back(std::move(c));
      }
    for (Contender& c : contenders) {
      c.row.width = res.first, c.row.height = res.second;
      c.depth.assign(pixels, std::nanf(""));
      c.render(c.depth.data());  // warm-up
    }
    for (int r = 0; r < reps; ++r)
      for (Contender& c : contenders) {
        const auto t0 = Clock::now();
        c.render(c.depth.data());
        c.times.push_back(seconds_since(t0));
      }

    WR_OK(wr_context_set_cpu_path(context, WR_CPU_PATH_AUTO));
    const std::vector<float>& ours = contenders[0].depth;
    for (Contender& c : contenders) {
      RenderRow& row = c.row;
      row.time = summarize(c.times);
      row.mrays = double(pixels) / row.time.median / 1e6;
      row.hit_fraction = hit_fraction(c.depth);
      if (!row.is_ours) row.agree = compare(ours, c.depth);
      // Our paths must agree bit for bit, not within a tolerance.
      if (!row.is_ours && row.engine == "warp-raycaster" &&
          std::memcmp(ours.data(), c.depth.data(), ours.size() * sizeof(float)) != 0) {
        all_agree = false;
        failures.push_back(std::to_string(res.first) + "x" + std::to_string(res.second) + " " + row.mode +
                           ": not bit-identical to the " + contenders[0].row.mode + " path");
      }
      print_row(row);
      if (!row.is_ours && row.agree.fraction < kMinAgree) {
        all_agree = false;
        char head[256];
        std::snprintf(head, sizeof head, "%ux%u %s on %s: %zu of %zu pixels disagree (%.4f%% agree); worst:", res.first,
                      res.second, row.mode.c_str(), row.bvh.c_str(), row.agree.disagree, pixels,
                      100.0 * row.agree.fraction);
        std::string msg = head;
        for (const Agreement::Pixel& p : row.agree.worst) {
          const size_t per_env = size_t(res.first) * res.second;
          char line[160];
          std::snprintf(line, sizeof line, "\n  env %zu u %zu v %zu: ours %.7g, Embree %.7g", p.index / per_env,
                        (p.index % per_env) % res.first, (p.index % per_env) / res.first, double(p.ours),
                        double(p.theirs));
          msg += line;
        }
        failures.push_back(msg);
      }
      renders.push_back(row);
    }
    wr_sensor_release(sensor);
  }
  return result;
}

// ---- ratios -----------------------------------------------------------------------------------

namespace {
std::string format_ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", r);
  return text;
}
}  // namespace

void print_ratios(const Options& opt, const Builds& built, const Renders& result, const Mesh& mesh) {
  const std::vector<BuildRow>& builds = built.rows;
  const std::vector<RenderRow>& renders = result.rows;
  const bool all_agree = result.all_agree;
  const std::vector<std::string>& failures = result.failures;
  const auto& resolutions = opt.sizes;
  const double tris = double(mesh.num_triangles());
  std::printf("\n## Ratios\n\nRays per second, ours / Embree's (> 1: warp-raycaster traces faster):\n\n");
  std::printf(
      "| WxH | ours / Embree1 default | ours / Embree16 default | ours / best Embree1 | ours / best Embree16 |\n"
      "|---|---:|---:|---:|---:|\n");
  std::vector<std::string> path_lines;
  for (const auto& res : resolutions) {
    double ours = 0, e1_default = 0, e16_default = 0, e1_best = 0, e16_best = 0;
    for (const RenderRow& r : renders) {
      if (r.width != res.first || r.height != res.second) continue;
      if (r.is_ours) ours = r.mrays;
      if (r.engine != "Embree") continue;
      const bool single = r.mode == "rtcIntersect1";
      const bool is_default = r.bvh == kEmbreeConfigs[0].name;
      if (single) {
        e1_best = std::max(e1_best, r.mrays);
        if (is_default) e1_default = r.mrays;
      } else {
        e16_best = std::max(e16_best, r.mrays);
        if (is_default) e16_default = r.mrays;
      }
    }
    std::printf("| %ux%u | %.2f | %.2f | %.2f | %.2f |\n", res.first, res.second, ours / e1_default, ours / e16_default,
                ours / e1_best, ours / e16_best);
    for (const RenderRow& r : renders)  // our other paths, for CPUs that lack the faster ones
      if (r.width == res.first && r.height == res.second && r.engine != "Embree" && !r.is_ours)
        path_lines.push_back(std::to_string(res.first) + "x" + std::to_string(res.second) + ", " + r.mode + ": " +
                             format_ratio(r.mrays / e1_default) + " x Embree1 default, " +
                             format_ratio(r.mrays / e16_default) + " x Embree16 default");
  }
  for (const std::string& line : path_lines) std::printf("- %s\n", line.c_str());
  const BuildRow& wb = builds[0];
  const BuildRow& eb = builds[1];
  double fastest_build = eb.total.median, smallest = double(eb.live_bytes);
  std::string fastest_name = eb.config, smallest_name = eb.config;
  for (size_t i = 1; i < builds.size(); ++i) {
    if (builds[i].total.median < fastest_build) fastest_build = builds[i].total.median, fastest_name = builds[i].config;
    if (double(builds[i].live_bytes) < smallest)
      smallest = double(builds[i].live_bytes), smallest_name = builds[i].config;
  }
  std::printf(
      "\n- rays/s: ratios above are our M rays/s over Embree's (rtcIntersect1 / rtcIntersect16) on its "
      "default BVH and on its fastest BVH for that mode.\n");
  std::printf(
      "- build time, ours / Embree default: %.2f (%.1f ms / %.1f ms); ours / Embree fastest (%s): %.2f "
      "(< 1: ours builds faster)\n",
      wb.total.median / eb.total.median, wb.total.median * 1e3, eb.total.median * 1e3, fastest_name.c_str(),
      wb.total.median / fastest_build);
  std::printf(
      "- bytes per triangle, ours / Embree default: %.2f (%.1f / %.1f); ours / Embree smallest (%s): %.2f "
      "(< 1: ours is smaller)\n",
      double(wb.live_bytes) / double(eb.live_bytes), double(wb.live_bytes) / tris, double(eb.live_bytes) / tris,
      smallest_name.c_str(), double(wb.live_bytes) / smallest);
  std::printf("- agreement: per pixel both miss or |ours - Embree| <= %g * max(1, |Embree|); required >= %.1f%%: %s\n",
              kRelTol, 100.0 * kMinAgree, all_agree ? "every Embree mode passes" : "FAILED");
  for (const std::string& f : failures) std::printf("\n%s\n", f.c_str());
}

// ---- CSV --------------------------------------------------------------------------------------

void write_csv(const Options& opt, const Builds& built, const Renders& result, const Mesh& mesh) {
  const std::string& csv_path = opt.csv_path;
  const uint32_t num_envs = opt.num_envs;
  const unsigned threads = opt.threads;
  const std::vector<BuildRow>& builds = built.rows;
  const std::vector<RenderRow>& renders = result.rows;
  const double tris = double(mesh.num_triangles());
  std::ofstream csv(csv_path);
  csv << "kind,engine,config,mode,width,height,num_envs,threads,triangles,ms_median,ms_min,ms_max,mrays_per_s,"
         "hit_fraction,agree_fraction,commit_ms_median,live_bytes,bytes_per_triangle,peak_bytes\n";
  for (const BuildRow& b : builds) {
    csv << "build," << b.engine << ",\"" << b.config << "\",,,," << num_envs << ',' << threads << ','
        << mesh.num_triangles() << ',' << b.total.median * 1e3 << ',' << b.total.min * 1e3 << ',' << b.total.max * 1e3
        << ",,,,";
    if (b.engine == "Embree") csv << b.commit.median * 1e3;
    csv << ',' << b.live_bytes << ',' << double(b.live_bytes) / tris << ',';
    if (b.engine == "Embree") csv << b.peak_bytes;
    csv << '\n';
  }
  for (const RenderRow& r : renders)
    csv << "render," << r.engine << ",\"" << r.bvh << "\"," << r.mode << ',' << r.width << ',' << r.height << ','
        << num_envs << ',' << threads << ',' << mesh.num_triangles() << ',' << r.time.median * 1e3 << ','
        << r.time.min * 1e3 << ',' << r.time.max * 1e3 << ',' << r.mrays << ',' << r.hit_fraction << ','
        << (r.is_ours ? 1.0 : r.agree.fraction) << ",,,,\n";
  if (!csv) die("could not write " + csv_path);
  std::printf("\nwrote %s\n", csv_path.c_str());
}

}  // namespace wr_bench
