// Building blocks for the indexed meshes the API tests hand to wr_scene_create. The shapes
// themselves (boxes, rooms, heightfields) stay in the tests that use them: each is chosen for
// what its test checks, and changing one would change that test's scene.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace wr_test {

// An indexed triangle mesh with shared vertices, in the layout wr_scene_create takes.
struct Mesh {
  std::vector<float> vertices;    // (num_vertices x 3)
  std::vector<uint32_t> indices;  // (num_triangles x 3)

  // Appends a vertex (rounded to float) and returns its index.
  uint32_t vertex(float x, float y, float z) {
    vertices.insert(vertices.end(), {x, y, z});
    return uint32_t(vertices.size() / 3 - 1);
  }
  uint32_t vertex(const Eigen::Vector3d& p) { return vertex(float(p.x()), float(p.y()), float(p.z())); }
  void triangle(uint32_t a, uint32_t b, uint32_t c) { indices.insert(indices.end(), {a, b, c}); }
  uint64_t num_vertices() const { return vertices.size() / 3; }
  uint64_t num_triangles() const { return indices.size() / 3; }
  // Vertex i as stored, i.e. after rounding to float.
  Eigen::Vector3d position(uint32_t i) const {
    return Eigen::Vector3d(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]);
  }
};

// The two triangles of the quad whose corners, in cyclic order, are v00 v10 v11 v01: split along
// the diagonal v00-v11 when `along_00_11`, else along v10-v01. Both triangles keep the quad's
// winding. Grids alternate (or randomise) the diagonal so that rays meet vertices of valence 4
// and 8 and edges in both directions. TriangleMesh: anything with triangle(a, b, c).
template <class TriangleMesh>
void add_split_quad(TriangleMesh& m, uint32_t v00, uint32_t v10, uint32_t v11, uint32_t v01, bool along_00_11) {
  if (along_00_11) {
    m.triangle(v00, v10, v11);
    m.triangle(v00, v11, v01);
  } else {
    m.triangle(v00, v10, v01);
    m.triangle(v10, v11, v01);
  }
}

}  // namespace wr_test
