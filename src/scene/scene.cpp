#include "scene/scene.h"

#include <chrono>
#include <string>

#include "common/status_error.h"

#include "scene/mesh_validation.h"

namespace wr {

Scene::Scene(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
             uint64_t num_triangles, BvhBuildOptions options) {
  validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);
  // The builder numbers nodes (up to 2 per triangle) in 32 bits.
  if (num_triangles >= (1ull << 31))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": num_triangles = " + std::to_string(num_triangles) +
                                        " exceeds 2^31 - 1, the BVH's index range");
  const auto start = std::chrono::steady_clock::now();
  options.ledger = &ledger_;
  bvh_ = build_bvh(vertices, indices, num_triangles, options);
  num_triangles_ = num_triangles;
  build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace wr
