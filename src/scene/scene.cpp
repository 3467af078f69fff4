#include "scene/scene.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "errors/status_error.h"

#include "scene/mesh_validation.h"

namespace wr {

MeshScene::MeshScene(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                     uint64_t num_triangles, BvhBuildOptions options) {
  validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);  // and the 2^31 - 1 limit
  const auto start = std::chrono::steady_clock::now();
  options.ledger = &ledger_;
  try {
    bvh_ = build_bvh(vertices, indices, num_triangles, options);
  } catch (const std::length_error& e) {
    // A limit of the input's size (a scene of hundreds of millions of triangles whose leaves
    // need more corner words than 32-bit offsets reach), not a bug: named as such.
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": num_triangles = " + std::to_string(num_triangles) +
                                        " is too large for one scene: " + e.what());
  }
  num_triangles_ = num_triangles;
  build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace wr
