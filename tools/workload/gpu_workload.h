// The workload of the GPU benchmarks (wr-bench-gpu) and of the kernel's cost model
// (wr-warp-model): the generated ~1M-triangle terrain and the robots' cameras standing on the
// ground, so that both measure the same scenes and views.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "triangle_mesh.h"

namespace wr_bench {

// The cameras: 87 degrees horizontal field of view, plane depth, clipped at kFarClip metres.
constexpr float kHfovDegrees = 87.0f;
constexpr float kFarClip = 10.0f;

using Mesh = wr_tools::TriangleMesh;  // tools/common/triangle_mesh.h

// A heightfield of (n x n) quads of `cell` metres (2 n^2 triangles) over [0, n * cell]^2, in
// bands along +Y: rolling bumps, stairs (0.12 m steps every 0.4 m, rising 2.9 m then dropping
// back), and stepping stones (a 1.2 m checkerboard of 0.25 m blocks); small noise everywhere.
// Plus num_boxes closed boxes (12 triangles each) of 0.3-1.5 m standing on it, turned at random.
Mesh generated_terrain(uint32_t n, float cell, int num_boxes, uint32_t seed);

// The benchmarks' large terrain: 708 x 708 quads x 2 + 400 boxes x 12 = 1,007,328 triangles
// over a 70.8 m square.
inline Mesh million_triangle_terrain() { return generated_terrain(708, 0.1f, 400, 7); }

// Quaternion (w, x, y, z) of yaw about +Z, then pitch about the new +Y (positive looks down),
// then roll about the new +X.
void ypr_quat(double yaw, double pitch, double roll, float* q);

// (n x 7) body poses (w, x, y, z quaternions) of cameras standing on the first n of the
// (x, y, ground z) points `ground` (count x 3): 0.3-0.7 m above the ground, random heading,
// pitched down 15-45 degrees, rolled up to 5.
std::vector<float> robot_poses(const std::vector<float>& ground, uint32_t n, std::mt19937& rng);

}  // namespace wr_bench
