// What the tests of the CUDA kernels' thread code share (tests/kernels/test_kernel_threads*.cpp, one
// program): the bundled small terrain, the tree a CUDA context builds of a mesh, and the instances'
// box prototype.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_policy.h"
#include "scene/bvh_builder.h"
#include "scene/obj_loader.h"

namespace wr_test::kernels {

// The bundled small terrain (assets/parkour_small.obj; WR_SOURCE_DIR, set by CTest, else run from
// the source root).
inline wr::Mesh small_terrain() {
  const char* dir = std::getenv("WR_SOURCE_DIR");
  return wr::load_obj(std::string(dir ? dir : ".") + "/assets/parkour_small.obj");
}

// The tree a CUDA context builds of a mesh.
inline wr::Bvh gpu_bvh(const float* vertices, const uint32_t* indices, uint64_t num_triangles) {
  return wr::build_bvh(vertices, indices, num_triangles, wr::cuda::bvh_build_options());
}
inline wr::Bvh gpu_bvh(const wr::Mesh& m) { return gpu_bvh(m.vertices.data(), m.indices.data(), m.num_triangles()); }

// A closed box of 0.6 x 0.4 x 0.2 m about its origin: the instances' prototype. (8 x 3), (12 x 3).
inline const std::vector<float> kBoxVertices = {-0.3f, -0.2f, -0.1f, 0.3f,  -0.2f, -0.1f, 0.3f, 0.2f,
                                                -0.1f, -0.3f, 0.2f,  -0.1f, -0.3f, -0.2f, 0.1f, 0.3f,
                                                -0.2f, 0.1f,  0.3f,  0.2f,  0.1f,  -0.3f, 0.2f, 0.1f};
inline const std::vector<uint32_t> kBoxTriangles = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 0, 4, 5, 0, 5, 1,
                                                    1, 5, 6, 1, 6, 2, 2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};

}  // namespace wr_test::kernels
