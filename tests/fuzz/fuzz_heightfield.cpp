// Fuzz harness: wr_scene_create_heightfield on arbitrary descriptions (sizes just inside and
// outside the limits, either layout or any int, spacings, scales, origins, bases and samples drawn
// from NaN, the infinities, huge, denormal and signed-zero values as often as plain ones).
//   - it succeeds exactly when the description is valid as wr.h states it and every vertex it
//     implies (wr.h's formula, in float) and the base's height are finite; otherwise
//     WR_ERROR_INVALID_ARGUMENT naming the function, and no handle written;
//   - a scene has wr.h's triangle count and the exact bounds of the vertices wr.h's formula gives;
//   - without a base it is the very mesh of wr.h's formulas: the same rays through it and through
//     wr_scene_create of that mesh (built here) give the same hits, bit for bit, ids included.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;
using wr_fuzz::fail;

bool finite_positive(float v) { return std::isfinite(v) && v > 0.0f; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  const uint8_t fields = in.take<uint8_t>();  // which fields the input overrides
  wr_heightfield_desc d;
  wr_heightfield_desc_init(&d);
  d.num_x = in.below(7), d.num_y = in.below(7);
  int layout = int(in.below(2));
  if (in.take<uint8_t>() >= 240) layout = in.take<int>();
  std::memcpy(&d.layout, &layout, sizeof layout);
  if (fields & 1) d.spacing_x = in.special_float(), d.spacing_y = in.special_float();
  if (fields & 2) d.z_scale = in.special_float();
  if (fields & 4)
    for (float& o : d.origin) o = in.special_float();
  if (fields & 8) d.base_depth = in.special_float();
  std::vector<float> heights(size_t(d.num_x) * d.num_y);
  for (float& h : heights) h = fields & 16 ? in.special_float() : float(int(in.below(9)) - 4) * 0.25f;
  d.heights = heights.data();

  // wr.h's rules, read independently of the library's code.
  const uint32_t nx = d.num_x, ny = d.num_y;
  bool valid = nx >= 2 && ny >= 2 && (layout == WR_HEIGHTFIELD_X_FASTEST || layout == WR_HEIGHTFIELD_Y_FASTEST) &&
               finite_positive(d.spacing_x) && finite_positive(d.spacing_y) && std::isfinite(d.z_scale) &&
               std::isfinite(d.origin[0]) && std::isfinite(d.origin[1]) && std::isfinite(d.origin[2]) &&
               std::isfinite(d.base_depth) && d.base_depth >= 0.0f;
  std::vector<float> vertices;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t iy = 0; valid && iy < ny; ++iy)
    for (uint32_t ix = 0; valid && ix < nx; ++ix) {
      const float h = heights[layout == WR_HEIGHTFIELD_X_FASTEST ? size_t(iy) * nx + ix : size_t(ix) * ny + iy];
      const float v[3] = {d.origin[0] + float(ix) * d.spacing_x, d.origin[1] + float(iy) * d.spacing_y,
                          d.origin[2] + d.z_scale * h};
      for (int a = 0; a < 3; ++a) {
        valid = valid && std::isfinite(h) && std::isfinite(v[a]);
        lo[a] = std::fmin(lo[a], v[a]), hi[a] = std::fmax(hi[a], v[a]);
      }
      vertices.insert(vertices.end(), v, v + 3);
    }
  const bool base = valid && d.base_depth > 0.0f;
  if (base) {
    const float z = d.origin[2] - d.base_depth;
    valid = std::isfinite(z);
    lo[2] = std::fmin(lo[2], z), hi[2] = std::fmax(hi[2], z);  // the base's corners (above samples below it)
  }

  const wr_scene kUnwritten = reinterpret_cast<wr_scene>(uintptr_t(0x5a5a5a50));
  wr_scene scene = kUnwritten;
  const wr_status s = wr_scene_create_heightfield(wr_fuzz::context(), &d, &scene);
  if (!valid) {
    check(s == WR_ERROR_INVALID_ARGUMENT, "an invalid height field was not refused",
          wr_status_string(s) + std::string(": ") + wr_last_error());
    wr_fuzz::check_message(s, "wr_scene_create_heightfield");
    check(scene == kUnwritten, "a failed call wrote the handle");
    return 0;
  }
  char desc[320];
  std::snprintf(desc, sizeof desc,
                "; desc %ux%u layout %d spacing (%.9g, %.9g) z_scale %.9g origin (%.9g, %.9g, %.9g) base %.9g", nx, ny,
                layout, d.spacing_x, d.spacing_y, d.z_scale, d.origin[0], d.origin[1], d.origin[2], d.base_depth);
  check(s == WR_SUCCESS, "a valid height field was refused", wr_last_error() + std::string(desc));
  uint64_t triangles = 0;
  check(wr_scene_num_triangles(scene, &triangles) == WR_SUCCESS, "wr_scene_num_triangles");
  const uint64_t surface = 2ull * (nx - 1) * (ny - 1);
  check(triangles == surface + (base ? 4ull * (nx + ny - 2) + 2 : 0), "the triangle count is not wr.h's",
        std::to_string(triangles));
  float blo[3], bhi[3];
  check(wr_scene_bounds(scene, blo, bhi) == WR_SUCCESS, "wr_scene_bounds");
  for (int a = 0; a < 3; ++a)
    check(blo[a] == lo[a] && bhi[a] == hi[a], "the bounds are not those of wr.h's vertices",
          "axis " + std::to_string(a) + ": " + std::to_string(blo[a]) + ".." + std::to_string(bhi[a]) + " vs " +
              std::to_string(lo[a]) + ".." + std::to_string(hi[a]) + desc);

  if (!base) {
    std::vector<uint32_t> indices;
    for (uint32_t iy = 0; iy + 1 < ny; ++iy)
      for (uint32_t ix = 0; ix + 1 < nx; ++ix) {
        const uint32_t a = iy * nx + ix, b = a + nx + 1;
        indices.insert(indices.end(), {a, b, a + 1, a, b, a + nx});
      }
    wr_scene mesh = nullptr;
    check(wr_scene_create(wr_fuzz::context(), vertices.data(), vertices.size() / 3, indices.data(), indices.size() / 3,
                          &mesh) == WR_SUCCESS,
          "wr_scene_create of wr.h's mesh", wr_last_error());
    // Rays from above the grid's cells towards it, and some from the input.
    std::vector<float> o, dir;
    for (uint32_t r = 0, n = 1 + in.below(8); r < n; ++r) {
      const bool raw = in.take<uint8_t>() >= 200;
      for (int a = 0; a < 3; ++a) {
        const float mid = 0.5f * lo[a] + 0.5f * hi[a], half = 0.5f * hi[a] - 0.5f * lo[a];
        o.push_back(raw ? in.special_float()
                        : mid + half * (float(int(in.below(9)) - 4) * 0.25f) + (a == 2 ? 1.0f + half : 0.0f));
        dir.push_back(raw ? in.special_float() : a == 2 ? -1.0f : float(int(in.below(5)) - 2) * 0.1f);
      }
    }
    const size_t n = o.size() / 3;
    std::vector<float> t0(n, -1.0f), t1(n, -2.0f);
    std::vector<uint32_t> id0(n, 1), id1(n, 2);
    const wr_status a = wr_scene_intersect(scene, o.data(), dir.data(), nullptr, n, t0.data(), id0.data(), nullptr);
    const wr_status b = wr_scene_intersect(mesh, o.data(), dir.data(), nullptr, n, t1.data(), id1.data(), nullptr);
    check(a == b, "the two scenes judged the rays differently",
          wr_status_string(a) + std::string(" vs ") + wr_status_string(b));
    if (a == WR_SUCCESS)
      for (size_t i = 0; i < n; ++i)
        if (std::memcmp(&t0[i], &t1[i], sizeof(float)) != 0 || id0[i] != id1[i])
          fail("the height field and wr.h's mesh give different hits", "ray " + std::to_string(i));
    wr_scene_release(mesh);
  }
  wr_scene_release(scene);
  return 0;
}
