// The grid terrain kind (src/core/grid_terrain.h) against the triangle BVH on the same height
// field and the same rays, one CPU thread, scalar traversal for both (the per-ray cores: the CPU
// backend's packet path is the BVH's alone). Memory per sample and build time of both kinds.
//
// The field: an extreme-parkour-sized terrain (10 x 40 tiles of 18 x 4 m and a 5 m border at
// 0.05 m: 3801 x 3401 samples, 25.8 M triangles), its tiles flat, stairs, pits, slopes and
// blocks, with a few centimetres of noise (a stand-in for legged_gym's generator, same size and
// kinds of features). Rays: the parkour camera (106 x 60, 1.6 m up, pitched down 0.5 rad) at 256
// random poses, and IsaacLab's default height scan (a 1.6 x 1.0 m grid at 0.1 m: 17 x 11 = 187
// vertical rays from 20 m up) at 4096 random poses.
//   build-bench/benchmarks/wr-bench-grid-terrain [--benchmark_filter=Camera]
// The same field as legged_gym meshes it (convert_heightfield_to_trimesh, slope threshold 0.75:
// vertices moved into walls) against the grid kind for grid-topology meshes, likewise.
// Speed is measured here, never asserted by tests. Quote ratios from one run.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/grid_mesh_terrain.h"
#include "core/grid_terrain.h"
#include "core/terrain.h"
#include "parkour_field.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/grid_mesh_builder.h"
#include "scene/heightfield.h"

namespace {

using namespace wr_bench;

// The same field as legged_gym meshes it: heights in units of 0.005 m, slope threshold 0.75
// (IsaacLab's generator's default), vertices moved into vertical walls.
struct MeshTerrain {
  wr_tools::TriangleMesh mesh;
  wr::Bvh bvh;
  wr::GridMeshData grid;
  double bvh_build_s = 0, grid_build_s = 0;
  uint64_t bvh_bytes = 0;

  MeshTerrain() : mesh(parkour_legged_gym_mesh()) {
    const auto t0 = std::chrono::steady_clock::now();
    bvh = wr::build_bvh(mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles());
    const auto t1 = std::chrono::steady_clock::now();
    wr::build_grid_mesh_terrain(mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(), mesh.num_triangles(),
                                &grid);
    const auto t2 = std::chrono::steady_clock::now();
    bvh_build_s = std::chrono::duration<double>(t1 - t0).count();
    grid_build_s = std::chrono::duration<double>(t2 - t1).count();
    bvh_bytes = bvh.nodes.size() * sizeof(wr::BvhNode) + 4 * (bvh.leaf_words.size() + bvh.parents.size());
  }
};

MeshTerrain& mesh_terrain() {
  static MeshTerrain t;
  return t;
}

struct Terrain {
  wr_heightfield_desc desc;
  wr::Bvh bvh;
  wr::GridTerrainData grid;
  double bvh_build_s = 0, grid_build_s = 0;
  uint64_t bvh_bytes = 0;

  Terrain() {
    wr_heightfield_desc_init(&desc);
    desc.heights = parkour_heights().data();
    desc.num_x = kNx;
    desc.num_y = kNy;
    desc.spacing_x = desc.spacing_y = kSpacing;
    const auto t0 = std::chrono::steady_clock::now();
    const wr::Mesh mesh = wr::triangulate_heightfield("bench", desc);
    const auto t1 = std::chrono::steady_clock::now();
    bvh = wr::build_bvh(mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles());
    const auto t2 = std::chrono::steady_clock::now();
    wr::build_grid_terrain("bench", desc, wr::BvhBuildOptions{}, &grid);
    const auto t3 = std::chrono::steady_clock::now();
    bvh_build_s = std::chrono::duration<double>(t2 - t0).count();
    grid_build_s = std::chrono::duration<double>(t3 - t2).count();
    (void)t1;
    bvh_bytes = bvh.nodes.size() * sizeof(wr::BvhNode) + 4 * (bvh.leaf_words.size() + bvh.parents.size());
  }
};

Terrain& terrain() {
  static Terrain t;
  return t;
}

struct Rays {
  std::vector<wr::Vec3> org, dir;
};

// The parkour camera: 106 x 60, 87 x 58 degrees, 1.6 m up, pitched down 0.5 rad.
Rays camera_rays(int n) {
  Rays r;
  const float fx = std::tan(0.5f * 87.0f * 3.14159265f / 180.0f), fy = std::tan(0.5f * 58.0f * 3.14159265f / 180.0f);
  const float pitch = 0.5f, cp = std::cos(pitch), sp = std::sin(pitch);
  for (const Pose& p : poses(n, 1)) {
    const float cy = std::cos(p.yaw), sy = std::sin(p.yaw);
    const float z = 1.6f + parkour_height(p.x, p.y, 0, 0);
    for (int v = 0; v < 60; ++v)
      for (int u = 0; u < 106; ++u) {
        // forward + a left + b up, in the body frame pitched down, then yawed.
        const float a = fx * (1.0f - 2.0f * (float(u) + 0.5f) / 106.0f),
                    b = fy * (1.0f - 2.0f * (float(v) + 0.5f) / 60.0f);
        const float lx = cp + b * sp, ly = a, dz = -sp + b * cp;
        r.org.push_back(wr::Vec3{p.x, p.y, z});
        r.dir.push_back(wr::Vec3{cy * lx - sy * ly, sy * lx + cy * ly, dz});
      }
  }
  return r;
}

// IsaacLab's default height scan: GridPatternCfg(resolution=0.1, size=[1.6, 1.0]), 20 m up,
// yaw-aligned, straight down.
Rays height_scan_rays(int n) {
  std::vector<float> o, d;
  parkour_height_scan(n, &o, &d);
  Rays r;
  for (size_t k = 0; k < o.size(); k += 3) {
    r.org.push_back(wr::Vec3{o[k], o[k + 1], o[k + 2]});
    r.dir.push_back(wr::Vec3{d[k], d[k + 1], d[k + 2]});
  }
  return r;
}

void report(benchmark::State& state, size_t rays, uint64_t hits) {
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(rays));
  state.counters["hit_fraction"] = double(hits) / double(rays);
}

// kKind: 0 the height field's BVH, 1 its grid, 2 the legged_gym mesh's BVH, 3 its grid.
template <int kKind>
void trace_all(benchmark::State& state, const Rays& r, float tmax) {
  const wr::BvhView bvh = kKind == 0 ? terrain().bvh.view() : mesh_terrain().bvh.view();
  const wr::GridView grid = kKind == 1 ? terrain().grid.view() : wr::GridView{};
  const wr::GridMeshView grid_mesh = kKind == 3 ? mesh_terrain().grid.view() : wr::GridMeshView{};
  uint64_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    for (size_t k = 0; k < r.org.size(); ++k) {
      wr::TraceResult h;
      if constexpr (kKind == 1)
        h = wr::trace_terrain<wr::HostTraversal>(wr::GridTerrain{}, grid, r.org[k], r.dir[k], 0.0f, tmax);
      else if constexpr (kKind == 3)
        h = wr::trace_terrain<wr::HostTraversal>(wr::GridMeshTerrain{}, grid_mesh, r.org[k], r.dir[k], 0.0f, tmax);
      else
        h = wr::trace_closest_hit<wr::HostTraversal>(bvh, r.org[k], r.dir[k], 0.0f, tmax);
      hits += h.triangle != wr::kInvalidIndex;
    }
    benchmark::DoNotOptimize(hits);
  }
  report(state, r.org.size(), hits);
}

const Rays& cameras() {
  static const Rays r = camera_rays(256);
  return r;
}
const Rays& scans() {
  static const Rays r = height_scan_rays(4096);
  return r;
}
void BM_CameraRays_Bvh(benchmark::State& s) { trace_all<0>(s, cameras(), 10.0f); }
void BM_CameraRays_Grid(benchmark::State& s) { trace_all<1>(s, cameras(), 10.0f); }
void BM_HeightScan_Bvh(benchmark::State& s) { trace_all<0>(s, scans(), INFINITY); }
void BM_HeightScan_Grid(benchmark::State& s) { trace_all<1>(s, scans(), INFINITY); }
void BM_MeshCameraRays_Bvh(benchmark::State& s) { trace_all<2>(s, cameras(), 10.0f); }
void BM_MeshCameraRays_Grid(benchmark::State& s) { trace_all<3>(s, cameras(), 10.0f); }
void BM_MeshHeightScan_Bvh(benchmark::State& s) { trace_all<2>(s, scans(), INFINITY); }
void BM_MeshHeightScan_Grid(benchmark::State& s) { trace_all<3>(s, scans(), INFINITY); }

// Build time and bytes per sample of both kinds (measured once, when the terrain is made).
void BM_Memory(benchmark::State& state) {
  const Terrain& t = terrain();
  for (auto _ : state) benchmark::DoNotOptimize(t.bvh_bytes);
  const double samples = double(kNx) * kNy;
  state.counters["bvh_bytes_per_sample"] = double(t.bvh_bytes) / samples;
  state.counters["grid_bytes_per_sample"] = double(t.grid.sample_bytes() + t.grid.pyramid_bytes()) / samples;
  state.counters["bvh_build_s"] = t.bvh_build_s;
  state.counters["grid_build_s"] = t.grid_build_s;
}

void BM_MeshMemory(benchmark::State& state) {
  const MeshTerrain& t = mesh_terrain();
  for (auto _ : state) benchmark::DoNotOptimize(t.bvh_bytes);
  const double samples = double(kNx) * kNy;
  state.counters["bvh_bytes_per_sample"] = double(t.bvh_bytes) / samples;
  state.counters["grid_bytes_per_sample"] = double(t.grid.bytes()) / samples;
  state.counters["bvh_build_s"] = t.bvh_build_s;
  state.counters["grid_build_s"] = t.grid_build_s;
}

BENCHMARK(BM_Memory)->Iterations(1);
BENCHMARK(BM_CameraRays_Bvh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CameraRays_Grid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HeightScan_Bvh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HeightScan_Grid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshMemory)->Iterations(1);
BENCHMARK(BM_MeshCameraRays_Bvh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshCameraRays_Grid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshHeightScan_Bvh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshHeightScan_Grid)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
