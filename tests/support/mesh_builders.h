// Building blocks for the indexed meshes the API tests hand to wr_scene_create. The shapes
// themselves (boxes, rooms, heightfields) stay in the tests that use them: each is chosen for
// what its test checks, and changing one would change that test's scene.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "triangle_mesh.h"  // tools/common: the one mesh builder

namespace wr_test {

// The project's mesh builder (wr_tools::TriangleMesh), with Eigen's points.
struct Mesh : wr_tools::TriangleMesh {
  using TriangleMesh::vertex;
  // Appends a vertex (rounded to float) and returns its index.
  uint32_t vertex(const Eigen::Vector3d& p) { return vertex(float(p.x()), float(p.y()), float(p.z())); }
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
