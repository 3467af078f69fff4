// Validation of caller-supplied mesh arrays at the library boundary.
#pragma once

#include <cstdint>

namespace wr {

// Most triangles a scene can have: the BVH builder numbers its nodes (up to 2 per triangle) in
// 32 bits (which also keeps every triangle id below UINT32_MAX, reserved as "no triangle").
constexpr uint64_t kMaxSceneTriangles = (1ull << 31) - 1;

// Throws wr::StatusError(WR_ERROR_INVALID_ARGUMENT) naming the first problem found, in
// this order: a NULL array, a misaligned one, a zero count, a count whose (count x 3) size
// overflows, more than kMaxSceneTriangles triangles (all before either array is read), the
// first index >= num_vertices, the first vertex with a NaN or infinite coordinate.
// Degenerate triangles (repeated indices, zero area) are accepted: the traversal never
// hits them. Every message starts with `function` (the C API function being served).
//
//   vertices: (num_vertices x 3) float
//   indices:  (num_triangles x 3) uint32
//
// One linear pass over each array, no allocation: a million triangles take a few ms.
void validate_mesh_arrays(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                          uint64_t num_triangles);

}  // namespace wr
