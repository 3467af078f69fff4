#include "scene/heightfield.h"

#include <cmath>
#include <cstring>
#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"

namespace wr {
namespace {

// The border's samples, once each, going round: along y = 0 (ix = 0 .. nx - 1), up x = nx - 1,
// back along y = ny - 1, down x = 0. Sample k of 2 (nx + ny) - 4 as (ix, iy).
void border_sample(uint64_t k, uint32_t nx, uint32_t ny, uint32_t* ix, uint32_t* iy) {
  const uint64_t a = nx - 1, b = a + (ny - 1), c = b + (nx - 1);
  if (k < a)
    *ix = uint32_t(k), *iy = 0;
  else if (k < b)
    *ix = nx - 1, *iy = uint32_t(k - a);
  else if (k < c)
    *ix = uint32_t(nx - 1 - (k - b)), *iy = ny - 1;
  else
    *ix = 0, *iy = uint32_t(ny - 1 - (k - c));
}

}  // namespace

void check_heightfield(const char* function, const wr_heightfield_desc& d) {
  if (!d.heights) bad_field(function, "desc->heights", "is NULL");
  require_element_aligned(function, d.heights, "desc->heights");
  if (d.num_x < 2) bad_field(function, "desc->num_x", "= " + std::to_string(d.num_x) + ": must be at least 2");
  if (d.num_y < 2) bad_field(function, "desc->num_y", "= " + std::to_string(d.num_y) + ": must be at least 2");
  int layout;
  std::memcpy(&layout, &d.layout, sizeof layout);  // a C caller may pass any int
  if (layout != WR_HEIGHTFIELD_X_FASTEST && layout != WR_HEIGHTFIELD_Y_FASTEST)
    bad_field(function, "desc->layout",
              "= " + std::to_string(layout) + ": must be WR_HEIGHTFIELD_X_FASTEST or WR_HEIGHTFIELD_Y_FASTEST");
  require_positive_field(function, "desc->spacing_x", d.spacing_x);
  require_positive_field(function, "desc->spacing_y", d.spacing_y);
  require_finite_field(function, "desc->z_scale", d.z_scale);
  for (int i = 0; i < 3; ++i) require_finite_field(function, "desc->origin[" + std::to_string(i) + "]", d.origin[i]);
  require_non_negative_field(function, "desc->base_depth", d.base_depth);

  const uint64_t nx = d.num_x, ny = d.num_y;
  const uint64_t triangles = heightfield_num_cell_triangles(d) + heightfield_num_side_triangles(d);
  if (triangles > 2147483647ull)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": desc->num_x x desc->num_y = " + std::to_string(nx) +
                                        " x " + std::to_string(ny) + " gives " + std::to_string(triangles) +
                                        " triangles: at most 2147483647");
  // Checked before anything is allocated, so that a huge grid of one bad sample fails fast.
  for (uint64_t iy = 0; iy < ny; ++iy)
    for (uint64_t ix = 0; ix < nx; ++ix) {
      const uint64_t k = heightfield_index(d, ix, iy);
      if (!std::isfinite(d.heights[k]))
        fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": desc->heights[" + std::to_string(k) +
                                            "] (sample ix = " + std::to_string(ix) + ", iy = " + std::to_string(iy) +
                                            ") = " + num(d.heights[k]) + ": must be finite");
    }
  if (d.base_depth > 0.0f && !std::isfinite(d.origin[2] - d.base_depth))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": desc->origin[2] - desc->base_depth = " +
                                        num(d.origin[2] - d.base_depth) + ": the base's height overflows float");
}

void heightfield_sample(const char* function, const wr_heightfield_desc& d, uint64_t ix, uint64_t iy, float out[3]) {
  // Each coordinate is computed in float as wr.h writes it, so that a caller who triangulates
  // the grid by that formula gets the same bits.
  const uint64_t k = heightfield_index(d, ix, iy);
  const float x = d.origin[0] + static_cast<float>(ix) * d.spacing_x;
  const float y = d.origin[1] + static_cast<float>(iy) * d.spacing_y;
  const float z = d.origin[2] + d.z_scale * d.heights[k];
  // Finite inputs can still overflow float here; the caller must hear of its fields, not of
  // a vertex array it never passed.
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": sample ix = " + std::to_string(ix) + ", iy = " + std::to_string(iy) + " lies at (" +
             num(x) + ", " + num(y) + ", " + num(z) +
             "): desc->origin + (ix desc->spacing_x, iy desc->spacing_y, desc->z_scale desc->heights[" +
             std::to_string(k) + "]) overflows float");
  out[0] = x, out[1] = y, out[2] = z;
}

Mesh heightfield_sides(const char* function, const wr_heightfield_desc& d) {
  Mesh sides;
  if (!(d.base_depth > 0.0f)) return sides;
  const uint64_t border = heightfield_num_border_samples(d);
  sides.vertices.resize(2 * 3 * border);
  const float z = d.origin[2] - d.base_depth;
  for (uint64_t k = 0; k < border; ++k) {
    uint32_t ix, iy;
    border_sample(k, d.num_x, d.num_y, &ix, &iy);
    float* top = &sides.vertices[3 * k];
    heightfield_sample(function, d, ix, iy, top);
    float* bottom = &sides.vertices[3 * (border + k)];
    bottom[0] = top[0], bottom[1] = top[1], bottom[2] = z;
  }
  sides.indices.reserve(3 * heightfield_num_side_triangles(d));
  // A wall under each border edge k -> k + 1: two triangles (top k, top k + 1, base k + 1) and
  // (top k, base k + 1, base k).
  for (uint64_t k = 0; k < border; ++k) {
    const uint32_t t0 = uint32_t(k), t1 = uint32_t((k + 1) % border);
    const uint32_t b0 = uint32_t(border + k), b1 = uint32_t(border + (k + 1) % border);
    sides.indices.insert(sides.indices.end(), {t0, t1, b1, t0, b1, b0});
  }
  // The bottom: the base's four corners (border samples 0, nx - 1, nx + ny - 2, 2 nx + ny - 3).
  const uint64_t nx = d.num_x, ny = d.num_y;
  const uint32_t c0 = uint32_t(border), c1 = uint32_t(border + nx - 1), c2 = uint32_t(border + nx + ny - 2),
                 c3 = uint32_t(border + 2 * nx + ny - 3);
  sides.indices.insert(sides.indices.end(), {c0, c1, c2, c0, c2, c3});
  return sides;
}

Mesh triangulate_heightfield(const char* function, const wr_heightfield_desc& d) {
  check_heightfield(function, d);
  const uint64_t nx = d.num_x, ny = d.num_y;
  const bool base = d.base_depth > 0.0f;
  const uint64_t border = heightfield_num_border_samples(d);
  Mesh mesh;
  mesh.vertices.reserve(3 * (nx * ny + (base ? border : 0)));
  mesh.indices.reserve(3 * (heightfield_num_cell_triangles(d) + heightfield_num_side_triangles(d)));
  for (uint64_t iy = 0; iy < ny; ++iy)
    for (uint64_t ix = 0; ix < nx; ++ix) {
      float p[3];
      heightfield_sample(function, d, ix, iy, p);
      mesh.vertices.insert(mesh.vertices.end(), p, p + 3);
    }
  const auto sample = [nx](uint64_t ix, uint64_t iy) { return static_cast<uint32_t>(iy * nx + ix); };
  for (uint64_t iy = 0; iy + 1 < ny; ++iy)
    for (uint64_t ix = 0; ix + 1 < nx; ++ix) {
      const uint32_t a = sample(ix, iy), b = sample(ix + 1, iy + 1);
      mesh.indices.insert(mesh.indices.end(), {a, b, sample(ix + 1, iy), a, b, sample(ix, iy + 1)});
    }
  if (base) {
    // The sides' own mesh, its vertices mapped onto this one: the border's top samples are the
    // grid's, its base samples follow the grid's.
    const Mesh sides = heightfield_sides(function, d);
    mesh.vertices.insert(mesh.vertices.end(), sides.vertices.begin() + 3 * border, sides.vertices.end());
    for (uint32_t v : sides.indices) {
      uint32_t ix, iy;
      if (v < border) border_sample(v, d.num_x, d.num_y, &ix, &iy);
      mesh.indices.push_back(v < border ? sample(ix, iy) : static_cast<uint32_t>(nx * ny + (v - border)));
    }
  }
  return mesh;
}

}  // namespace wr
