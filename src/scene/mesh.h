// A triangle mesh on the host, as loaded from a file or copied from the caller's arrays,
// before the BVH is built from it.
#pragma once

#include <cstdint>
#include <vector>

namespace wr {

struct Mesh {
  std::vector<float> vertices;    // (num_vertices x 3): x y z in metres
  std::vector<uint32_t> indices;  // (num_triangles x 3): 0-based rows of `vertices`

  uint64_t num_vertices() const { return vertices.size() / 3; }
  uint64_t num_triangles() const { return indices.size() / 3; }
};

}  // namespace wr
