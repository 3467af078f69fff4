// wr-bench-vs-embree, the timed comparison and its report: the interleaved, repeated builds and
// renders of both engines (median of --reps after one warm-up, std::chrono::steady_clock), the
// per-pixel agreement of every Embree mode with ours (compare, also wr-bench-instances-vs-embree's),
// and the markdown report on stdout (plus the optional CSV). The Embree side itself is in
// embree_side.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "bench_common.h"
#include "embree_side.h"

namespace wr_bench {

// The command-line options (see main for their help texts).
struct Options {
  std::string obj_path, csv_path, embree_config;
  uint32_t num_envs = 256, seed = 12345;
  unsigned threads = 1;
  int reps = 15;  // the machines this runs on are shared: 15 makes the medians steady
  float far_clip = kInf;
  std::vector<std::pair<uint32_t, uint32_t>> sizes = {{87, 58}, {106, 60}};  // camera width x height
};

struct BuildRow {
  std::string engine, config;
  Stats total, commit;     // seconds; commit only for Embree
  int64_t live_bytes = 0;  // after the build
  int64_t peak_bytes = 0;  // while building (Embree), relative to before
};

// A traced Embree configuration: its name and its last build.
struct RenderScene {
  std::string name;
  RTCScene scene;
};

// Every build of both engines, timed.
struct Builds {
  std::vector<BuildRow> rows;              // ours first, then one per Embree configuration
  std::vector<RenderScene> embree_scenes;  // the traced Embree configurations (the caller releases them)
  wr_scene scene = nullptr;                // our last build (the caller releases it)
};

struct Agreement {
  double fraction = 0;
  size_t disagree = 0;
  struct Pixel {
    size_t index;
    float ours, theirs;
    double error;
  };
  std::vector<Pixel> worst;  // the worst (compare's max_worst), worst first
};

// Per-pixel agreement: a pixel agrees when both miss (not finite) or |ours - theirs| <= kRelTol *
// max(1, |theirs|); every peer requires a fraction of at least kMinAgree.
constexpr double kRelTol = 1e-4;
constexpr double kMinAgree = 0.999;
// Agreement::worst holds the max_worst worst pixels.
Agreement compare(const std::vector<float>& ours, const std::vector<float>& theirs, size_t max_worst = 10);

struct RenderRow {
  uint32_t width = 0, height = 0;
  std::string engine, mode, bvh;
  Stats time;
  double mrays = 0, hit_fraction = 0;
  Agreement agree;  // against ours; unused for ours
  bool is_ours = false;
};

// Every render of both engines, timed and compared with ours.
struct Renders {
  std::vector<RenderRow> rows;
  std::vector<std::string> failures;  // one message per Embree mode that disagrees with ours
  bool all_agree = true;
};

// The CPU's model name (/proc/cpuinfo), or "unknown".
std::string cpu_model_name();

// The report's heading: machine, Embree version, scene, cameras and timing method.
void print_header(const Options& opt, const Mesh& mesh, double read_s, uint32_t wr_threads, const char* wr_path,
                  long embree_version, const std::string& device_config);

// Builds ours and every Embree configuration --reps times after one warm-up, round-robin.
Builds time_builds(const Options& opt, const Mesh& mesh, wr_context context, RTCDevice device, MemoryMonitor& monitor);

// The "BVH build and memory" table.
void print_builds(const Builds& builds, const Mesh& mesh);

// Renders every contender at every resolution, round-robin, printing one table row per render.
// Ours runs on `context` once per CPU path it supports (wr_context_set_cpu_path).
Renders time_renders(const Options& opt, const Builds& builds, wr_context context);

// The "Ratios" section, the agreement verdict and the failure messages.
void print_ratios(const Options& opt, const Builds& builds, const Renders& renders, const Mesh& mesh);

// One CSV row per build and per render into opt.csv_path.
void write_csv(const Options& opt, const Builds& builds, const Renders& renders, const Mesh& mesh);

}  // namespace wr_bench
