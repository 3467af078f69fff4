// wr-warp-model: how the CUDA depth kernel's warps would spend their instruction issue slots on
// the GPU benchmark's workload, worked out on the CPU, without a GPU.
//
// Every pixel's ray is traced with the traversal the kernel runs (src/core, through a recording
// probe: each iteration is an inner node or a leaf of k triangles), on the tree a CUDA context
// builds, the CPU's, and the tuning sweep's other one (SAH traversal cost 1, leaves of up to 4);
// WR_WARP_MODEL_BVH_GRID="cost/leaf,cost/leaf,..." replaces those three with its own list. The
// rays are then grouped into warps exactly as the kernel groups them (kernels/warp_tiles.h, for
// every tile shape) and each warp is replayed in
// lockstep, the SIMT model of Aila and Laine ("Understanding the Efficiency of Ray Traversal on
// GPUs", HPG 2009), for two shapes of the traversal loop, which visit the same nodes in the same
// order and differ only in what a warp's lanes wait for:
//   - one loop, its body an if/else of the two kinds (the host's shape): in each iteration the
//     warp issues the inner-node branch if any live lane visits an inner node, and the leaf
//     branch if any visits a leaf, its triangle loop as long as the largest leaf among them;
//   - nested loops, "while-while" (the kernel's shape, core/bvh_traverse.h): the lanes' j-th
//     stretches of inner nodes run together (as long as the longest), then their j-th leaves.
// A lane that has finished idles until the warp's last lane is done.
//
// Reported per terrain, BVH build options and tile shape:
//   - per ray: loop iterations, inner nodes, leaves, triangles tested; device bytes per
//     triangle of the tree (nodes, parents, leaf blocks);
//   - per loop shape, SIMT efficiency: the issue slots the lanes use / the slots the warp issues
//     (32 per instruction), weighting inner nodes, leaf set-ups and triangles by their
//     instruction counts (the per-pixel set-up included); and the issue-bound rays/s that
//     follows on an H200 (132 SMs x 4 schedulers x 1.98 GHz x 32 lanes), an upper bound: memory
//     latency and stalls come on top.
// The instruction counts are depth_kernel's SASS for sm_90 (the plain render's kernel, now
// output_kernel<plain>; nvcc 13.0, disassembled with nvdisasm), counted in
// benchmarks/results/cuda-warp-model-2026-11-30.md; override them with
// --setup, --inner, --leaf, --triangle after a change to the kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/pixel_pipeline.h"
#include "cuda_policy.h"
#include "gpu_workload.h"
#include "scene/bvh_builder.h"
#include "scene/obj_loader.h"
#include "sensor/camera_model.h"
#include "warp_tiles.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

// One traversal, as the iterations the probe saw: kInnerNode, or a leaf's triangle count.
constexpr uint16_t kInnerNode = 0xFFFF;

struct RecordingProbe {
  std::vector<uint16_t>* events;
  void inner_node() const { events->push_back(kInnerNode); }
  void leaf(uint32_t triangles) const { events->push_back(static_cast<uint16_t>(triangles)); }
};

// Every pixel's iterations: pixel p of env e (p = v * width + u) owns
// events[begin[e * W * H + p] .. begin[e * W * H + p + 1]).
struct Traces {
  uint32_t width = 0, height = 0, num_envs = 0;
  std::vector<uint16_t> events;
  std::vector<uint64_t> begin;
};

Traces trace_all(const wr::Bvh& bvh, const wr_camera_desc& desc, const std::vector<float>& poses) {
  Traces t;
  t.width = desc.width, t.height = desc.height, t.num_envs = uint32_t(poses.size() / 7);
  std::vector<wr::TemplateRay> rays(size_t(desc.width) * desc.height);
  wr::build_ray_template(desc, rays.data());
  const wr::DepthParams params = wr::make_depth_params(desc);
  const RecordingProbe probe{&t.events};
  t.begin.push_back(0);
  for (uint32_t e = 0; e < t.num_envs; ++e) {
    wr::RigidTransform camera{};
    const bool ok = wr::camera_from_body_pose(&poses[7 * size_t(e)], params, &camera);
    for (const wr::TemplateRay& ray : rays) {
      if (ok) {  // the plain kernel's output_thread: render_pixel with the probe
        const wr::PixelRay r = wr::make_pixel_ray(ray, camera, params);
        (void)wr::trace_closest_hit<wr::GpuTraversal>(bvh.view(), camera.pos, r.dir, r.tmin, r.tmax, probe);
      }
      t.begin.push_back(t.events.size());
    }
  }
  return t;
}

// Instruction counts of the kernel's branches (see the header comment).
struct Costs {
  double setup = 0;     // once per pixel, every lane together: its warp tile, camera, ray, root box
  double inner = 0;     // an inner-node iteration: both children's boxes, the push or the pop
  double leaf = 0;      // a leaf iteration without its triangles: loop head, block set-up, pop
  double triangle = 0;  // one triangle of a leaf
};

struct Tally {
  uint64_t rays = 0, iterations = 0, inner = 0, leaves = 0, triangles = 0;
  double lane_slots = 0;   // instructions the lanes need, each on its own
  double warp_issues = 0;  // instructions the warps issue (each takes 32 lane slots)
};

// The recorded iterations [*first, *last) of the ray that lane `lane` of warp `warp` traces;
// false for a lane the kernel leaves idle (past the last warp, or in a partial tile's overhang).
bool lane_trace(const Traces& t, const wr::cuda::WarpTiles& tiles, uint64_t warp, uint32_t lane, const uint16_t** first,
                const uint16_t** last) {
  uint32_t env, u, v;
  if (!tiles.pixel_of(warp * 32 + lane, &env, &u, &v)) return false;
  const uint64_t pixel = uint64_t(env) * t.width * t.height + uint64_t(v) * t.width + u;
  *first = t.events.data() + t.begin[pixel];
  *last = t.events.data() + t.begin[pixel + 1];
  return true;
}

// Replays the warps of one tile shape over the recorded traces, one loop (if/else) per iteration.
Tally replay(const Traces& t, uint32_t tile_w_shift, const Costs& c) {
  const wr::cuda::WarpTiles tiles = wr::cuda::WarpTiles::make(t.width, t.height, t.num_envs, tile_w_shift);
  Tally tally;
  const uint16_t* lane_events[32];
  size_t lane_length[32];
  for (uint64_t warp = 0; warp < tiles.num_warps; ++warp) {
    size_t longest = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint16_t* last = nullptr;
      lane_length[lane] = 0;
      if (!lane_trace(t, tiles, warp, lane, &lane_events[lane], &last)) continue;
      lane_length[lane] = size_t(last - lane_events[lane]);
      longest = std::max(longest, lane_length[lane]);
      ++tally.rays;
      tally.iterations += lane_length[lane];
      tally.lane_slots += c.setup;
    }
    tally.warp_issues += c.setup;
    for (size_t i = 0; i < longest; ++i) {
      bool any_inner = false;
      uint32_t widest_leaf = 0;
      bool any_leaf = false;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (i >= lane_length[lane]) continue;
        const uint16_t e = lane_events[lane][i];
        if (e == kInnerNode) {
          any_inner = true;
          ++tally.inner;
          tally.lane_slots += c.inner;
        } else {
          any_leaf = true;
          widest_leaf = std::max<uint32_t>(widest_leaf, e);
          ++tally.leaves;
          tally.triangles += e;
          tally.lane_slots += c.leaf + c.triangle * e;
        }
      }
      if (any_inner) tally.warp_issues += c.inner;
      if (any_leaf) tally.warp_issues += c.leaf + c.triangle * widest_leaf;
    }
  }
  return tally;
}

// The same warps under nested loops (while-while, the kernel's shape): an inner loop over inner
// nodes that each lane leaves at its next leaf, then the leaf's triangles. A lane's iterations
// are unchanged (the same nodes in the same order), only grouped differently: the warp runs its
// lanes' j-th stretch of inner nodes together (as long as the longest), then their j-th leaves
// together (as long as the largest).
double while_while_issues(const Traces& t, uint32_t tile_w_shift, const Costs& c) {
  const wr::cuda::WarpTiles tiles = wr::cuda::WarpTiles::make(t.width, t.height, t.num_envs, tile_w_shift);
  double issues = 0;
  const uint16_t* at[32];
  const uint16_t* end[32];
  for (uint64_t warp = 0; warp < tiles.num_warps; ++warp) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      at[lane] = end[lane] = nullptr;
      lane_trace(t, tiles, warp, lane, &at[lane], &end[lane]);
    }
    issues += c.setup;
    for (;;) {
      size_t longest_run = 0;
      uint32_t widest_leaf = 0;
      bool any_leaf = false, any_left = false;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (at[lane] == end[lane]) continue;
        any_left = true;
        size_t run = 0;
        while (at[lane] != end[lane] && *at[lane] == kInnerNode) ++at[lane], ++run;
        longest_run = std::max(longest_run, run);
        if (at[lane] != end[lane]) {
          any_leaf = true;
          widest_leaf = std::max<uint32_t>(widest_leaf, *at[lane]);
          ++at[lane];
        }
      }
      if (!any_left) break;
      issues += c.inner * double(longest_run);
      if (any_leaf) issues += c.leaf + c.triangle * widest_leaf;
    }
  }
  return issues;
}

// (count x 3) ground points (x, y, z) under random (x, y) in the inner 90% of the footprint, as
// wr-bench-gpu finds them (a ray straight down from above the scene; the lowest z on a miss).
std::vector<float> ground_points(const wr::Bvh& bvh, const float lo[3], const float hi[3], uint32_t count,
                                 uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> fx(lo[0] + 0.05f * (hi[0] - lo[0]), hi[0] - 0.05f * (hi[0] - lo[0]));
  std::uniform_real_distribution<float> fy(lo[1] + 0.05f * (hi[1] - lo[1]), hi[1] - 0.05f * (hi[1] - lo[1]));
  const float top = hi[2] + 1.0f;
  std::vector<float> points;
  for (uint32_t i = 0; i < count; ++i) {
    const float x = fx(rng), y = fy(rng);
    const wr::TraceResult hit =
        wr::trace_closest_hit(bvh.view(), wr::Vec3{x, y, top}, wr::Vec3{0.0f, 0.0f, -1.0f}, 0.0f, INFINITY);
    points.insert(points.end(), {x, y, hit.triangle != wr::kInvalidIndex ? top - hit.t : lo[2]});
  }
  return points;
}

void bounds(const std::vector<float>& vertices, float lo[3], float hi[3]) {
  for (int a = 0; a < 3; ++a) lo[a] = INFINITY, hi[a] = -INFINITY;
  for (size_t i = 0; i < vertices.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], vertices[i]);
    hi[i % 3] = std::max(hi[i % 3], vertices[i]);
  }
}

double parse_number(const char* flag, const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (!text[0] || *end || !(v >= 0.0)) {
    std::fprintf(stderr, "wr-warp-model: %s needs a number >= 0, got '%s'\n", flag, text);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // SASS instructions of depth_kernel's (now output_kernel<plain>'s) branches, sm_90, as counted in
  // benchmarks/results/cuda-warp-model-2026-11-30.md.
  Costs costs{430, 78, 26, 150};
  uint32_t num_envs = 64, width = 106, height = 60;
  std::string obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--setup" && has_value) {
      costs.setup = parse_number("--setup", argv[++i]);
    } else if (a == "--inner" && has_value) {
      costs.inner = parse_number("--inner", argv[++i]);
    } else if (a == "--leaf" && has_value) {
      costs.leaf = parse_number("--leaf", argv[++i]);
    } else if (a == "--triangle" && has_value) {
      costs.triangle = parse_number("--triangle", argv[++i]);
    } else if (a == "--envs" && has_value) {
      num_envs = uint32_t(std::max(1.0, parse_number("--envs", argv[++i])));
    } else if (a == "--obj" && has_value) {
      obj_path = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: wr-warp-model [--envs N (64)] [--obj FILE (the bundled terrain)]\n"
                   "                     [--setup S] [--inner I] [--leaf L] [--triangle T]   instructions\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }

  struct Terrain {
    std::string name;
    std::vector<float> vertices;
    std::vector<uint32_t> indices;
  };
  std::vector<Terrain> terrains;
  {
    const wr::Mesh m = wr::load_obj(obj_path);
    terrains.push_back({"parkour_terrain.obj", m.vertices, m.indices});
    const wr_bench::Mesh big = wr_bench::million_triangle_terrain();
    terrains.push_back({"generated 708x708 + boxes", big.vertices, big.indices});
  }
  struct Options {
    const char* name;
    wr::BvhBuildOptions options;
  };
  // The CUDA contexts' tree, the CPU's, and the tuning sweep's other variant (bvh-cost1-leaf4,
  // scripts/build-cuda-variants.sh).
  wr::BvhBuildOptions cpu_options, small_leaves;
  small_leaves.traversal_cost = 1.0f;
  small_leaves.max_leaf_size = 4;
  std::vector<Options> option_sets = {
      {"CUDA contexts", wr::cuda::bvh_build_options()}, {"CPU contexts", cpu_options}, {"sweep variant", small_leaves}};
  if (const char* grid = std::getenv("WR_WARP_MODEL_BVH_GRID")) {  // "cost/leaf,cost/leaf,..." instead
    option_sets.clear();
    for (const char* p = grid; *p;) {
      wr::BvhBuildOptions o;
      char* end = nullptr;
      o.traversal_cost = std::strtof(p, &end);
      o.max_leaf_size = uint32_t(std::strtoul(end + 1, &end, 10));
      option_sets.push_back({"grid", o});
      p = *end ? end + 1 : end;
    }
  }
  constexpr double kH200LaneSlotsPerSecond = 132.0 * 4 * 1.98e9 * 32;

  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, width, height, wr_bench::kHfovDegrees);
  desc.far_clip = wr_bench::kFarClip;
  std::printf("# wr-warp-model: the depth kernel's warps replayed in lockstep on the CPU\n\n");
  std::printf(
      "- workload: %u envs at %ux%u, %g deg, plane depth, far clip %g m, robots 0.3-0.7 m above the ground "
      "(tools/workload/gpu_workload.h)\n",
      num_envs, width, height, double(wr_bench::kHfovDegrees), double(wr_bench::kFarClip));
  std::printf("- instructions: per pixel %g, per inner node %g, per leaf %g, per triangle %g\n", costs.setup,
              costs.inner, costs.leaf, costs.triangle);
  std::printf("- issue bound: %.3g lane instructions/s (H200: 132 SMs x 4 schedulers x 1.98 GHz x 32 lanes)\n\n",
              kH200LaneSlotsPerSecond);
  std::printf(
      "| terrain | BVH options (traversal cost / max leaf) | tile | iterations/ray | inner nodes/ray | "
      "leaves/ray | triangles/ray | one loop: SIMT efficiency | G rays/s | "
      "nested loops (the kernel): SIMT efficiency | G rays/s | device bytes/triangle |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Terrain& terrain : terrains) {
    float lo[3], hi[3];
    bounds(terrain.vertices, lo, hi);
    for (const Options& o : option_sets) {
      const wr::Bvh bvh =
          wr::build_bvh(terrain.vertices.data(), terrain.indices.data(), terrain.indices.size() / 3, o.options);
      std::mt19937 rng(11);
      const std::vector<float> poses = wr_bench::robot_poses(ground_points(bvh, lo, hi, num_envs, 100), num_envs, rng);
      const Traces traces = trace_all(bvh, desc, poses);
      // What a CUDA context uploads: nodes, parents and leaf blocks.
      const double bytes_per_triangle =
          double(bvh.nodes.size() * sizeof(wr::BvhNode) + 4 * (bvh.parents.size() + bvh.leaf_words.size())) /
          double(terrain.indices.size() / 3);
      for (uint32_t shift = 0; shift <= 5; ++shift) {
        const Tally t = replay(traces, shift, costs);
        const double rays = double(t.rays);
        const double per_ray = 32.0 * t.warp_issues / rays;
        const double ww = while_while_issues(traces, shift, costs);
        std::printf(
            "| %s | %s (%g / %u) | %ux%u | %.1f | %.1f | %.1f | %.1f | %.1f%% | %.2f | %.1f%% | %.2f | %.1f |\n",
            terrain.name.c_str(), o.name, double(o.options.traversal_cost), o.options.max_leaf_size, 1u << shift,
            32u >> shift, double(t.iterations) / rays, double(t.inner) / rays, double(t.leaves) / rays,
            double(t.triangles) / rays, 100.0 * t.lane_slots / (32.0 * t.warp_issues),
            kH200LaneSlotsPerSecond / per_ray / 1e9, 100.0 * t.lane_slots / (32.0 * ww),
            kH200LaneSlotsPerSecond / (32.0 * ww / rays) / 1e9, bytes_per_triangle);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
