#include "scene/mesh_validation.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "errors/status_error.h"

namespace wr {
namespace {

// The arrays are scanned in chunks with a branch-free reduction inside each chunk (which
// the compiler vectorises) and an exact search only in a chunk known to hold a bad value:
// the common, valid case then costs one streaming pass over each array.
constexpr uint64_t kChunk = 4096;

constexpr uint32_t kExponentMask = 0x7f800000u;  // IEEE-754 binary32 exponent bits

// A float is NaN or infinite exactly when all its exponent bits are set. Testing the bits
// (instead of std::isfinite) keeps the check correct even under -ffast-math.
inline uint32_t exponent_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits & kExponentMask;
}

std::string format_float(float f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  return buf;
}

[[noreturn]] void fail_argument(const char* function, const std::string& what) {
  fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + what);
}

}  // namespace

void validate_mesh_arrays(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                          uint64_t num_triangles) {
  if (vertices == nullptr) fail_argument(function, "vertices is NULL");
  if (indices == nullptr) fail_argument(function, "indices is NULL");
  require_element_aligned(function, vertices, "vertices");
  require_element_aligned(function, indices, "indices");
  if (num_vertices == 0) fail_argument(function, "num_vertices is 0");
  if (num_triangles == 0) fail_argument(function, "num_triangles is 0");

  constexpr uint64_t kMaxRows = std::numeric_limits<uint64_t>::max() / 3;
  if (num_vertices > kMaxRows) {
    fail_argument(function, "num_vertices = " + std::to_string(num_vertices) +
                                " is too large: num_vertices * 3 overflows a 64-bit size");
  }
  if (num_triangles > kMaxRows) {
    fail_argument(function, "num_triangles = " + std::to_string(num_triangles) +
                                " is too large: num_triangles * 3 overflows a 64-bit size");
  }
  // The BVH builder numbers its nodes (up to 2 per triangle) in 32 bits. Checked here, before
  // either array is read, so that a count past the limit costs nothing whatever it points to.
  if (num_triangles > kMaxSceneTriangles) {
    fail_argument(function, "num_triangles = " + std::to_string(num_triangles) + " is too large: at most " +
                                std::to_string(kMaxSceneTriangles) +
                                " triangles (2^31 - 1: the BVH numbers its nodes in 32 bits)");
  }

  // Indices: every uint32 is in range when num_vertices exceeds the uint32 range.
  if (num_vertices <= std::numeric_limits<uint32_t>::max()) {
    const uint32_t limit = static_cast<uint32_t>(num_vertices);
    const uint64_t n = num_triangles * 3;
    for (uint64_t begin = 0; begin < n; begin += kChunk) {
      const uint64_t end = std::min(n, begin + kChunk);
      uint32_t max_index = 0;
      for (uint64_t i = begin; i < end; ++i) max_index = std::max(max_index, indices[i]);
      if (max_index < limit) continue;
      for (uint64_t i = begin; i < end; ++i) {
        if (indices[i] >= limit) {
          fail_argument(function, "indices[" + std::to_string(i) + "] (triangle " + std::to_string(i / 3) +
                                      ", corner " + std::to_string(i % 3) + ") = " + std::to_string(indices[i]) +
                                      " is out of range: num_vertices is " + std::to_string(num_vertices));
        }
      }
    }
  }

  // Vertices: all of them, referenced or not (the scene's bounds cover every vertex).
  const uint64_t n = num_vertices * 3;
  for (uint64_t begin = 0; begin < n; begin += kChunk) {
    const uint64_t end = std::min(n, begin + kChunk);
    uint32_t max_exponent = 0;
    for (uint64_t i = begin; i < end; ++i) max_exponent = std::max(max_exponent, exponent_bits(vertices[i]));
    if (max_exponent != kExponentMask) continue;
    for (uint64_t i = begin; i < end; ++i) {
      if (exponent_bits(vertices[i]) == kExponentMask) {
        const uint64_t v = i / 3;
        fail_argument(function, "vertex " + std::to_string(v) + " = (" + format_float(vertices[3 * v]) + ", " +
                                    format_float(vertices[3 * v + 1]) + ", " + format_float(vertices[3 * v + 2]) +
                                    ") is not finite");
      }
    }
  }
}

}  // namespace wr
