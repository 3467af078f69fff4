// Fuzz harness: wr_scene_create on arbitrary arrays, then wr_scene_intersect on it.
// The input's first bytes choose the shape of the call (counts, how vertices and indices are
// drawn, misaligned pointers, a triangle count past the limit over a short array); the rest are
// the vertices (often NaN, infinite, huge or denormal), the indices and some rays. The harness
// knows what the answer must be:
//   - a misaligned array, a triangle count past 2^31 - 1: WR_ERROR_INVALID_ARGUMENT naming it,
//     without reading the arrays (AddressSanitizer would see a read past them);
//   - else the first index out of range, or else the first non-finite vertex, named;
//   - else a scene with as many triangles, the exact bounds of their corners, and for every ray a
//     hit that the library's own watertight test gives for that triangle, bit for bit, no farther
//     (ties to the lowest id) than the nearest hit among the triangles whose own bounding box the
//     ray enters (the library's box test), which the BVH cannot skip (a triangle whose t rounds
//     below its box's entry, which it may skip once it has a hit at that t, aside); a miss only
//     where none of them is hit. Zero-area triangles never hit. (The test alone also takes triangles whose box the ray
//     misses where rounding at the float range's ends makes its t come out 0 or past an overflow,
//     and a BVH leaf's box, larger than its triangles', may let it see them: either answer holds.)
//   - rays that are not finite, a zero direction, a negative or NaN tmax: refused, the first named.
#include <cmath>
#include <string>
#include <vector>

#include "core/ray_box.h"
#include "core/ray_triangle.h"
#include "fuzz_support.h"

namespace {

using wr_fuzz::check;

struct Input {
  bool grid_vertices, raw_indices, misalign_vertices, misalign_indices, huge_count;
  int scale_exponent;  // vertices (and rays) scaled by 2^this: structure kept, magnitudes extreme
  std::vector<float> vertices;
  std::vector<uint32_t> indices;
  std::vector<float> origins, directions, tmax;
};

float grid(wr_fuzz::Bytes& in) { return float(int(in.below(9)) - 4); }

Input read_input(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  Input x;
  const uint8_t flags = in.take<uint8_t>();
  x.grid_vertices = flags & 1;
  x.raw_indices = flags & 2;
  x.misalign_vertices = (flags & 0x1c) == 0x04;
  x.misalign_indices = (flags & 0x1c) == 0x08;
  x.huge_count = (flags & 0x1c) == 0x0c;
  static const int kExponents[8] = {0, 0, 0, 0, 60, 100, -60, -130};
  x.scale_exponent = kExponents[flags >> 5];
  const uint32_t nv = 1 + in.below(64), nt = 1 + in.below(96), nr = in.below(9);
  const float scale = std::ldexp(1.0f, x.scale_exponent);
  for (uint32_t i = 0; i < 3 * nv; ++i) x.vertices.push_back((x.grid_vertices ? grid(in) : in.special_float()) * scale);
  for (uint32_t i = 0; i < 3 * nt; ++i)
    x.indices.push_back(x.raw_indices ? (in.take<uint8_t>() < 8 ? in.take<uint32_t>() : in.below(nv + 1))
                                      : in.below(nv));
  for (uint32_t r = 0; r < nr; ++r) {
    for (int a = 0; a < 3; ++a) {
      x.origins.push_back((x.grid_vertices ? grid(in) * 1.5f + 0.25f : in.special_float()) * scale);
      x.directions.push_back(x.grid_vertices ? grid(in) + 0.125f * float(a) : in.special_float());
    }
    x.tmax.push_back(in.take<uint8_t>() < 200 ? __builtin_inff() : in.special_float());
  }
  return x;
}

bool finite3(const float* v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// The builder's rule (bvh_builder.cpp): the cross product of the edges, in double, is zero.
bool zero_area(const float* a, const float* b, const float* c) {
  const double ux = double(b[0]) - a[0], uy = double(b[1]) - a[1], uz = double(b[2]) - a[2];
  const double vx = double(c[0]) - a[0], vy = double(c[1]) - a[1], vz = double(c[2]) - a[2];
  return uy * vz - uz * vy == 0.0 && uz * vx - ux * vz == 0.0 && ux * vy - uy * vx == 0.0;
}

// Triangle t through the library's watertight test: whether it accepts the ray, and where.
bool triangle_hit(const Input& x, uint32_t t, const wr::RayTriangle& rt, float tmax, float* hit) {
  const float* a = &x.vertices[3 * size_t(x.indices[3 * t])];
  const float* b = &x.vertices[3 * size_t(x.indices[3 * t + 1])];
  const float* c = &x.vertices[3 * size_t(x.indices[3 * t + 2])];
  return !zero_area(a, b, c) && wr::intersect_ray_triangle(rt, a, b, c, 0.0f, tmax, hit);
}

// The nearest hit (ties to the lowest id) among the triangles whose own bounding box the ray
// enters (the library's box test) no farther than the triangle's own hit: those the BVH cannot
// skip, since it opens every node it enters no farther than its best hit so far. A triangle whose
// t rounds below its box's entry (to 0 where coordinates near 2^-60 underflow) may be skipped,
// once a hit at that t is found, even on a tie with a lower id.
// *any_hit: whether any triangle whose box the ray enters is hit at all, where the BVH cannot miss.
void brute_force(const Input& x, const wr::RayTriangle& rt, const wr::RayBox& rb, float tmax, float* t_out,
                 uint32_t* tri_out, bool* any_hit) {
  *any_hit = false;
  float best = __builtin_inff();
  uint32_t best_tri = UINT32_MAX;
  for (uint32_t t = 0; t < x.indices.size() / 3; ++t) {
    float lo[3], hi[3], entry;
    for (int k = 0; k < 3; ++k) {
      float l = __builtin_inff(), h = -__builtin_inff();
      for (int c = 0; c < 3; ++c) {
        l = std::fmin(l, x.vertices[3 * size_t(x.indices[3 * t + c]) + k]);
        h = std::fmax(h, x.vertices[3 * size_t(x.indices[3 * t + c]) + k]);
      }
      lo[k] = l, hi[k] = h;
    }
    if (!wr::intersect_ray_box(rb, lo, hi, 0.0f, tmax, &entry)) continue;
    float hit = 0.0f;
    if (!triangle_hit(x, t, rt, tmax, &hit)) continue;
    *any_hit = true;
    if (entry <= hit && (hit < best || (hit == best && t < best_tri))) {
      best = hit;
      best_tri = t;
    }
  }
  *t_out = best;
  *tri_out = best_tri;
}

void check_rays(wr_scene scene, const Input& x) {
  const size_t n = x.tmax.size();
  if (n == 0) return;
  std::string first_bad;
  for (size_t r = 0; r < n && first_bad.empty(); ++r) {
    const float* o = &x.origins[3 * r];
    const float* d = &x.directions[3 * r];
    if (!finite3(o))
      first_bad = "origins of ray " + std::to_string(r);
    else if (!finite3(d) || (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f))
      first_bad = "directions of ray " + std::to_string(r);
    else if (!(x.tmax[r] >= 0.0f))
      first_bad = "tmax of ray " + std::to_string(r);
  }
  std::vector<float> t(n, -7.0f);
  std::vector<uint32_t> tri(n, 12345u);
  const wr_status s =
      wr_scene_intersect(scene, x.origins.data(), x.directions.data(), x.tmax.data(), n, t.data(), tri.data(), nullptr);
  if (!first_bad.empty()) {
    check(s == WR_ERROR_INVALID_ARGUMENT, "a bad ray was not refused", first_bad);
    wr_fuzz::check_message(s, "wr_scene_intersect");
    check(std::string(wr_last_error()).find(first_bad + " ") != std::string::npos, "the first bad ray is not named",
          first_bad + " / " + wr_last_error());
    for (size_t r = 0; r < n; ++r) check(t[r] == -7.0f && tri[r] == 12345u, "a refused call wrote results");
    return;
  }
  check(s == WR_SUCCESS, "wr_scene_intersect", wr_last_error());
  for (size_t r = 0; r < n; ++r) {
    const float* o = &x.origins[3 * r];
    const float* d = &x.directions[3 * r];
    const wr::RayTriangle rt = wr::make_ray_triangle(wr::Vec3{o[0], o[1], o[2]}, wr::Vec3{d[0], d[1], d[2]});
    const wr::RayBox rb = wr::make_ray_box(wr::Vec3{o[0], o[1], o[2]}, wr::Vec3{d[0], d[1], d[2]});
    float want_t = 0.0f, got_t = 0.0f;
    uint32_t want_tri = 0;
    bool any_hit = false;
    brute_force(x, rt, rb, x.tmax[r], &want_t, &want_tri, &any_hit);
    const std::string detail = "ray " + std::to_string(r) + ": got t = " + std::to_string(t[r]) + " triangle " +
                               std::to_string(tri[r]) +
                               ", the triangles whose box it enters give t = " + std::to_string(want_t) + " triangle " +
                               std::to_string(want_tri);
    if (tri[r] == UINT32_MAX) {
      check(std::isinf(t[r]) && t[r] > 0 && !any_hit, "the BVH missed a hit", detail);
      continue;
    }
    // A hit is the test's own answer for that triangle, bit for bit, and no farther than the
    // nearest hit the BVH cannot skip. It may be nearer: a leaf's box is larger than its
    // triangles', and where coordinates near the float range's ends make the test's t round
    // (to 0 just behind the origin, or past an overflow) it can accept a triangle whose own
    // box the ray misses.
    check(tri[r] < x.indices.size() / 3 && triangle_hit(x, tri[r], rt, x.tmax[r], &got_t) &&
              std::memcmp(&got_t, &t[r], sizeof got_t) == 0,
          "the BVH's hit is not the triangle test's", detail);
    check(t[r] < want_t || (t[r] == want_t && tri[r] <= want_tri), "the BVH's hit is not the nearest", detail);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Input x = read_input(data, size);
  const uint64_t nv = x.vertices.size() / 3, nt = x.indices.size() / 3;
  // Misaligned copies: one byte into a buffer of their own.
  std::vector<unsigned char> vbuf(x.vertices.size() * 4 + 1), ibuf(x.indices.size() * 4 + 1);
  std::memcpy(vbuf.data() + 1, x.vertices.data(), x.vertices.size() * 4);
  std::memcpy(ibuf.data() + 1, x.indices.data(), x.indices.size() * 4);
  const float* vertices = x.misalign_vertices ? reinterpret_cast<const float*>(vbuf.data() + 1) : x.vertices.data();
  const uint32_t* indices = x.misalign_indices ? reinterpret_cast<const uint32_t*>(ibuf.data() + 1) : x.indices.data();
  const uint64_t count = x.huge_count ? (1ull << 31) + nt - 1 : nt;

  const wr_scene kUnwritten = reinterpret_cast<wr_scene>(uintptr_t(0x5a5a5a50));
  wr_scene scene = kUnwritten;
  const wr_status s = wr_scene_create(wr_fuzz::context(), vertices, nv, indices, count, &scene);
  const std::string message = s == WR_SUCCESS ? "" : wr_last_error();

  // What the answer must be.
  std::string culprit;
  if (x.misalign_vertices)
    culprit = "vertices is not aligned";
  else if (x.misalign_indices)
    culprit = "indices is not aligned";
  else if (x.huge_count)
    culprit = "num_triangles = " + std::to_string(count) + " is too large";
  for (size_t i = 0; culprit.empty() && i < x.indices.size(); ++i)
    if (x.indices[i] >= nv) culprit = "indices[" + std::to_string(i) + "]";
  for (size_t v = 0; culprit.empty() && v < nv; ++v)
    if (!finite3(&x.vertices[3 * v])) culprit = "vertex " + std::to_string(v) + " ";

  if (!culprit.empty()) {
    check(s == WR_ERROR_INVALID_ARGUMENT, "bad arrays were not refused", culprit + " / " + wr_status_string(s));
    check(scene == kUnwritten, "a failed call wrote the handle");
    wr_fuzz::check_message(s, "wr_scene_create");
    check(message.find(culprit) != std::string::npos, "the culprit is not named", culprit + " / " + message);
    return 0;
  }
  check(s == WR_SUCCESS, "good arrays were refused", message);

  uint64_t got = 0;
  check(wr_scene_num_triangles(scene, &got) == WR_SUCCESS && got == nt, "wr_scene_num_triangles");
  float lo[3], hi[3], want_lo[3], want_hi[3];
  for (int a = 0; a < 3; ++a) want_lo[a] = __builtin_inff(), want_hi[a] = -__builtin_inff();
  for (uint32_t i : x.indices)
    for (int a = 0; a < 3; ++a) {
      want_lo[a] = std::fmin(want_lo[a], x.vertices[3 * size_t(i) + a]);
      want_hi[a] = std::fmax(want_hi[a], x.vertices[3 * size_t(i) + a]);
    }
  check(wr_scene_bounds(scene, lo, hi) == WR_SUCCESS, "wr_scene_bounds");
  for (int a = 0; a < 3; ++a) check(lo[a] == want_lo[a] && hi[a] == want_hi[a], "the bounds are not the corners'");
  wr_memory_stats m{};
  check(wr_scene_memory(scene, &m) == WR_SUCCESS && m.host_bytes > 0 && m.device_bytes == 0, "wr_scene_memory");
  check_rays(scene, x);
  wr_scene_release(scene);
  return 0;
}
