// An indexed triangle mesh being built, in the layout wr_scene_create takes: the one mesh type
// of the tests (tests/support/mesh_builders.h), the tools (the parkour terrain, the GPU
// workload), the demo and the peer benchmarks (benchmarks/peers). Header only, standard library
// only. (The library's own wr::Mesh, src/scene/mesh.h, is what it loads files into; wr_mujoco's
// Mesh holds a geom's shape in double, before it is posed.)
#pragma once

#include <cstdint>
#include <vector>

namespace wr_tools {

struct TriangleMesh {
  std::vector<float> vertices;    // (num_vertices x 3): x y z
  std::vector<uint32_t> indices;  // (num_triangles x 3): 0-based rows of vertices

  // Appends a vertex and returns its index.
  uint32_t vertex(float x, float y, float z) {
    vertices.insert(vertices.end(), {x, y, z});
    return static_cast<uint32_t>(vertices.size() / 3 - 1);
  }
  void triangle(uint32_t a, uint32_t b, uint32_t c) { indices.insert(indices.end(), {a, b, c}); }
  uint64_t num_vertices() const { return vertices.size() / 3; }
  uint64_t num_triangles() const { return indices.size() / 3; }
};

}  // namespace wr_tools
