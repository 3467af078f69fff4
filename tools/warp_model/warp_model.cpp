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
//
// --grid-kinds models the grid terrain kinds against the BVH instead (grid_kinds below): the
// grid scenes' benchmark workload (tools/workload/parkour_field.h), each kind's walk recorded
// through the same probe and replayed in lockstep in the kernels' loop shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/pixel_pipeline.h"
#include "core/terrain.h"
#include "cuda_policy.h"
#include "gpu_workload.h"
#include "parkour_field.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/grid_mesh_builder.h"
#include "scene/heightfield.h"
#include "scene/obj_loader.h"
#include "sensor/camera_model.h"
#include "warp_tiles.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

// One traversal, as the iterations the probe saw (core/bvh_traverse.h's NoTraversalProbe): one of
// these, or a leaf's (a grid's cell's) triangle count.
constexpr uint16_t kInnerNode = 0xFFFF;        // a BVH's inner node; a grid node's own box
constexpr uint16_t kChildrenOfNodes = 0xFFFE;  // a grid node of level >= 2: its children's boxes at once
constexpr uint16_t kChildrenOfCells = 0xFFFD;  // a grid node of level 1: its cells' boxes at once
constexpr uint16_t kClimb = 0xFFFC;            // a grid walk's climb to the level above

struct RecordingProbe {
  std::vector<uint16_t>* events;
  void inner_node() const { events->push_back(kInnerNode); }
  void leaf(uint32_t triangles) const { events->push_back(static_cast<uint16_t>(triangles)); }
  void grid_children(uint32_t level) const { events->push_back(level == 1 ? kChildrenOfCells : kChildrenOfNodes); }
  void grid_climb() const { events->push_back(kClimb); }
};

// Every pixel's iterations: pixel p of env e (p = v * width + u) owns
// events[begin[e * W * H + p] .. begin[e * W * H + p + 1]).
struct Traces {
  uint32_t width = 0, height = 0, num_envs = 0;
  std::vector<uint16_t> events;
  std::vector<uint64_t> begin;
};

// Every pixel's ray of `desc` at `poses` (num_envs x 7) through trace(org, dir, tmin, tmax, probe).
template <class Trace>
Traces trace_pixels(const wr_camera_desc& desc, const std::vector<float>& poses, const Trace& trace) {
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
        trace(camera.pos, r.dir, r.tmin, r.tmax, probe);
      }
      t.begin.push_back(t.events.size());
    }
  }
  return t;
}

Traces trace_all(const wr::Bvh& bvh, const wr_camera_desc& desc, const std::vector<float>& poses) {
  return trace_pixels(desc, poses, [&](wr::Vec3 o, wr::Vec3 d, float tmin, float tmax, const RecordingProbe& probe) {
    (void)wr::trace_closest_hit<wr::GpuTraversal>(bvh.view(), o, d, tmin, tmax, probe);
  });
}

// Instruction counts of the kernel's branches (see the header comment). A grid's walk
// (core/grid_terrain.h) is one loop whose iterations each pick the nearest pending child
// (`iteration`) and then test its children, test a cell (a leaf of 2 triangles) or climb; the
// walk's first node box is an inner node. The BVH's kernels leave the grid's costs at 0.
struct Costs {
  double setup = 0;           // once per pixel, every lane together: its warp tile, camera, ray, root box
  double inner = 0;           // an inner-node iteration: both children's boxes, the push or the pop
  double leaf = 0;            // a leaf iteration without its triangles: loop head, block set-up, pop
  double triangle = 0;        // one triangle of a leaf
  double iteration = 0;       // a grid walk's iteration: the pick of the nearest pending child
  double children_nodes = 0;  // a grid node of level >= 2: its children's x-y planes, z ranges, tests
  double children_cells = 0;  // a grid node of level 1: likewise, the cells' z ranges from their corners
  double climb = 0;           // a grid walk's climb
};

struct Tally {
  uint64_t rays = 0, iterations = 0, inner = 0, leaves = 0, triangles = 0;
  uint64_t children_nodes = 0, children_cells = 0, climbs = 0;
  double lane_slots = 0;   // instructions the lanes need, each on its own
  double warp_issues = 0;  // instructions the warps issue (each takes 32 lane slots)
};

// Which ray each lane of a warp traces: the camera kernels' warp tiles (kernels/warp_tiles.h) over
// pixel-indexed traces, or, where `tiles` is absent, 32 consecutive rays (the explicit-ray kernel).
struct Warps {
  const Traces* traces;
  bool tiled;
  wr::cuda::WarpTiles tiles;
  uint64_t num_warps() const { return tiled ? tiles.num_warps : (traces->begin.size() - 1 + 31) / 32; }
  // The recorded iterations [*first, *last) of the ray that lane `lane` of warp `warp` traces;
  // false for a lane the kernel leaves idle (past the last ray, or in a partial tile's overhang).
  bool lane_trace(uint64_t warp, uint32_t lane, const uint16_t** first, const uint16_t** last) const {
    const Traces& t = *traces;
    uint64_t ray = warp * 32 + lane;
    if (tiled) {
      uint32_t env, u, v;
      if (!tiles.pixel_of(warp * 32 + lane, &env, &u, &v)) return false;
      ray = uint64_t(env) * t.width * t.height + uint64_t(v) * t.width + u;
    } else if (ray + 1 >= t.begin.size()) {
      return false;
    }
    *first = t.events.data() + t.begin[ray];
    *last = t.events.data() + t.begin[ray + 1];
    return true;
  }
};

Warps camera_warps(const Traces& t, uint32_t tile_w_shift) {
  return Warps{&t, true, wr::cuda::WarpTiles::make(t.width, t.height, t.num_envs, tile_w_shift)};
}
Warps consecutive_warps(const Traces& t) { return Warps{&t, false, {}}; }

// Replays the warps over the recorded traces, one loop (if/else) per iteration: the warp issues
// each kind of iteration any of its live lanes is at.
Tally replay(const Warps& warps, const Costs& c) {
  Tally tally;
  const uint16_t* lane_events[32];
  size_t lane_length[32];
  for (uint64_t warp = 0; warp < warps.num_warps(); ++warp) {
    size_t longest = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint16_t* last = nullptr;
      lane_length[lane] = 0;
      if (!warps.lane_trace(warp, lane, &lane_events[lane], &last)) continue;
      lane_length[lane] = size_t(last - lane_events[lane]);
      longest = std::max(longest, lane_length[lane]);
      ++tally.rays;
      tally.iterations += lane_length[lane];
      tally.lane_slots += c.setup;
    }
    tally.warp_issues += c.setup;
    for (size_t i = 0; i < longest; ++i) {
      bool any_inner = false, any_leaf = false, any_nodes = false, any_cells = false, any_climb = false;
      uint32_t widest_leaf = 0;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (i >= lane_length[lane]) continue;
        const uint16_t e = lane_events[lane][i];
        if (e == kInnerNode) {
          any_inner = true;
          ++tally.inner;
          tally.lane_slots += c.inner;
        } else if (e == kChildrenOfNodes) {
          any_nodes = true;
          ++tally.children_nodes;
          tally.lane_slots += c.iteration + c.children_nodes;
        } else if (e == kChildrenOfCells) {
          any_cells = true;
          ++tally.children_cells;
          tally.lane_slots += c.iteration + c.children_cells;
        } else if (e == kClimb) {
          any_climb = true;
          ++tally.climbs;
          tally.lane_slots += c.iteration + c.climb;
        } else {
          any_leaf = true;
          widest_leaf = std::max<uint32_t>(widest_leaf, e);
          ++tally.leaves;
          tally.triangles += e;
          tally.lane_slots += c.iteration + c.leaf + c.triangle * e;
        }
      }
      if (any_nodes || any_cells || any_climb || any_leaf) tally.warp_issues += c.iteration;
      if (any_inner) tally.warp_issues += c.inner;
      if (any_nodes) tally.warp_issues += c.children_nodes;
      if (any_cells) tally.warp_issues += c.children_cells;
      if (any_climb) tally.warp_issues += c.climb;
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
// A BVH's traces only (its inner nodes and leaves).
double while_while_issues(const Warps& warps, const Costs& c) {
  double issues = 0;
  const uint16_t* at[32];
  const uint16_t* end[32];
  for (uint64_t warp = 0; warp < warps.num_warps(); ++warp) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      at[lane] = end[lane] = nullptr;
      warps.lane_trace(warp, lane, &at[lane], &end[lane]);
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

constexpr double kH200LaneSlotsPerSecond = 132.0 * 4 * 1.98e9 * 32;

// ---- The grid terrain kinds against the BVH (--grid-kinds) ----

// SASS instructions (sm_90) of each kind's branches in the plain camera kernel (output_kernel<plain>)
// and for the height scan, counted from nvdisasm's line information as
// benchmarks/results/cuda-warp-model-grid-2026-12-03.md describes: static counts of each branch's
// code, a grid's children test split by the z range it loads (pyramid bounds or a cell's
// corners). The explicit-ray kernel's set-up outside the terrain is taken as the camera kernel's.
struct KindCosts {
  Costs camera, scan;
};
const KindCosts& costs_of(wr::BvhTerrain) {
  static const KindCosts c{{430, 78, 26, 150}, {430, 78, 26, 150}};
  return c;
}
const KindCosts& costs_of(wr::GridTerrain) {
  static const KindCosts c{{605, 133, 0, 123, 68, 316, 442, 4}, {438, 0, 0, 118.5}};
  return c;
}
const KindCosts& costs_of(wr::GridMeshTerrain) {
  static const KindCosts c{{950, 126, 0, 173, 68, 299, 495, 4}, {950, 75, 0, 160.5}};
  return c;
}

// The parkour camera's pixels at N = 256 and IsaacLab's height scan at N = 4096 over one terrain
// of kind Kind, traced as the kernels trace it.
struct KindTraces {
  Traces camera, scan;
};
template <class Kind>
KindTraces trace_kind(const typename Kind::View& view) {
  const auto trace = [&](wr::Vec3 o, wr::Vec3 d, float tmin, float tmax, const RecordingProbe& probe) {
    (void)wr::trace_terrain<wr::GpuTraversal>(Kind{}, view, o, d, tmin, tmax, probe);
  };
  KindTraces k;
  wr_camera_desc desc;
  (void)wr_bench::parkour_camera(&desc);
  k.camera = trace_pixels(desc, wr_bench::parkour_camera_poses(256), trace);
  std::vector<float> o, d;
  wr_bench::parkour_height_scan(4096, &o, &d);
  const RecordingProbe probe{&k.scan.events};
  k.scan.begin.push_back(0);
  for (size_t i = 0; i < o.size(); i += 3) {
    trace(wr::Vec3{o[i], o[i + 1], o[i + 2]}, wr::Vec3{d[i], d[i + 1], d[i + 2]}, 0.0f, INFINITY, probe);
    k.scan.begin.push_back(k.scan.events.size());
  }
  return k;
}

void print_kind_row(const char* kind, const char* rays, const Warps& warps, const Costs& c, bool bvh,
                    double bytes_per_sample) {
  const Tally t = replay(warps, c);
  const double n = double(t.rays);
  // The kernels' loop shapes: the BVH's nested loops, a grid's one loop.
  const double issues = bvh ? while_while_issues(warps, c) : t.warp_issues;
  std::printf("| %s | %s | %.1f | %.1f / %.1f | %.1f | %.1f | %.1f | %.1f%% | %.2f | %.1f |\n", kind, rays,
              double(t.inner) / n, double(t.children_nodes) / n, double(t.children_cells) / n, double(t.climbs) / n,
              double(t.leaves) / n, double(t.triangles) / n, 100.0 * t.lane_slots / (32.0 * issues),
              kH200LaneSlotsPerSecond / (32.0 * issues / n) / 1e9, bytes_per_sample);
  std::fflush(stdout);
}

// Both rows of a terrain of kind Kind (its costs_of, its kernels' loop shape).
template <class Kind>
void print_kind(const char* kind, const typename Kind::View& view, double bytes_per_sample) {
  const KindTraces k = trace_kind<Kind>(view);
  const KindCosts& c = costs_of(Kind{});
  constexpr bool bvh = std::is_same<Kind, wr::BvhTerrain>::value;
  print_kind_row(kind, "camera, N = 256", camera_warps(k.camera, wr::cuda::kTileWShift), c.camera, bvh,
                 bytes_per_sample);
  print_kind_row(kind, "height scan, N = 4096", consecutive_warps(k.scan), c.scan, bvh, bytes_per_sample);
}

double bvh_device_bytes(const wr::Bvh& bvh) {
  return double(bvh.nodes.size() * sizeof(wr::BvhNode) + 4 * (bvh.parents.size() + bvh.leaf_words.size()));
}

// The grid scenes' workload (tools/workload/parkour_field.h: the extreme-parkour-sized field as a
// height field and as legged_gym's mesh of it), each kind as a CUDA context would build it.
int grid_kinds() {
  using namespace wr_bench;
  const double samples = double(kNx) * kNy;
  std::printf("# wr-warp-model --grid-kinds: the grid terrain kinds' walks and the BVH's, replayed in lockstep\n\n");
  std::printf(
      "- workload: the %ux%u-sample field at %g m (tools/workload/parkour_field.h); the parkour camera at "
      "N = 256 (8x4 warp tiles), IsaacLab's 187-ray height scan at N = 4096 (32 consecutive rays a warp)\n",
      kNx, kNy, double(kSpacing));
  std::printf(
      "- loop shapes: the BVH's nested loops, the grid walk's one loop; instructions per branch: "
      "costs_of in tools/warp_model/warp_model.cpp\n\n");
  std::printf(
      "| kind | rays | node boxes/ray | children tests/ray (of nodes / of cells) | climbs/ray | "
      "leaves or cells/ray | triangles/ray | SIMT efficiency | G rays/s (issue bound) | "
      "device bytes/sample |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  wr_heightfield_desc desc;
  wr_heightfield_desc_init(&desc);
  desc.heights = parkour_heights().data();
  desc.num_x = kNx, desc.num_y = kNy;
  desc.spacing_x = desc.spacing_y = kSpacing;
  {
    const wr::Mesh m = wr::triangulate_heightfield("wr-warp-model", desc);
    const wr::Bvh bvh =
        wr::build_bvh(m.vertices.data(), m.indices.data(), m.num_triangles(), wr::cuda::bvh_build_options());
    print_kind<wr::BvhTerrain>("height field, BVH", bvh.view(), bvh_device_bytes(bvh) / samples);
  }
  {
    wr::GridTerrainData grid;
    if (!wr::build_grid_terrain("wr-warp-model", desc, wr::cuda::bvh_build_options(), &grid)) return 1;
    print_kind<wr::GridTerrain>("height field, grid", grid.view(),
                                double(grid.sample_bytes() + grid.pyramid_bytes()) / samples);
  }
  const wr_tools::TriangleMesh& mesh = parkour_legged_gym_mesh();
  {
    const wr::Bvh bvh =
        wr::build_bvh(mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles(), wr::cuda::bvh_build_options());
    print_kind<wr::BvhTerrain>("legged_gym mesh, BVH", bvh.view(), bvh_device_bytes(bvh) / samples);
  }
  {
    wr::GridMeshData grid;
    if (!wr::build_grid_mesh_terrain(mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                                     mesh.num_triangles(), &grid))
      return 1;
    print_kind<wr::GridMeshTerrain>("legged_gym mesh, grid", grid.view(), double(grid.bytes()) / samples);
  }
  return 0;
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
    } else if (a == "--grid-kinds") {
      return grid_kinds();
    } else {
      std::fprintf(stderr,
                   "usage: wr-warp-model [--envs N (64)] [--obj FILE (the bundled terrain)]\n"
                   "                     [--setup S] [--inner I] [--leaf L] [--triangle T]   instructions\n"
                   "       wr-warp-model --grid-kinds   the grid terrain kinds against the BVH\n");
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
        const Warps warps = camera_warps(traces, shift);
        const Tally t = replay(warps, costs);
        const double rays = double(t.rays);
        const double per_ray = 32.0 * t.warp_issues / rays;
        const double ww = while_while_issues(warps, costs);
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
