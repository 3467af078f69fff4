#include "scene/polygon_triangulation.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wr {

void Triangulator::add(const std::vector<uint32_t>& c, std::vector<uint32_t>& out) {
  const size_t n = c.size();
  if (n == 3) {
    out.insert(out.end(), c.begin(), c.end());
    return;
  }
  // Newell normal: its component k is twice the signed area of the polygon projected
  // onto the plane of axes (k+1, k+2). Projecting along the largest one loses least.
  double normal[3] = {0, 0, 0};
  for (size_t i = 0; i < n; ++i) {
    const float* a = &v_[3 * size_t(c[i])];
    const float* b = &v_[3 * size_t(c[(i + 1) % n])];
    for (int k = 0; k < 3; ++k) {
      const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      normal[k] += (double(a[k1]) - b[k1]) * (double(a[k2]) + b[k2]);
    }
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::fabs(normal[k]) > std::fabs(normal[axis])) axis = k;
  }
  if (!(normal[axis] != 0.0)) return fan(c, out);  // no area at all: any split will do
  // Swap the 2D axes when needed so that the polygon runs counter-clockwise.
  int ax = (axis + 1) % 3, ay = (axis + 2) % 3;
  if (normal[axis] < 0) std::swap(ax, ay);
  xy_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const float* p = &v_[3 * size_t(c[i])];
    xy_[i] = {p[ax], p[ay]};
  }

  bool convex = true;
  for (size_t i = 0; i < n && convex; ++i) convex = turn(xy_[(i + n - 1) % n], xy_[i], xy_[(i + 1) % n]) >= 0;
  if (convex && n == 4) return split_quad(c, out);
  if (convex) return fan(c, out);

  ring_.resize(n);
  for (size_t i = 0; i < n; ++i) ring_[i] = i;
  size_t cursor = 0, misses = 0;
  while (ring_.size() > 3) {
    const size_t m = ring_.size();
    const size_t prev = ring_[(cursor + m - 1) % m], cur = ring_[cursor], next = ring_[(cursor + 1) % m];
    if (misses < m && !is_ear(prev, cur, next)) {
      cursor = (cursor + 1) % m;
      ++misses;
      continue;
    }
    out.insert(out.end(), {c[prev], c[cur], c[next]});
    ring_.erase(ring_.begin() + static_cast<std::ptrdiff_t>(cursor));
    if (cursor == ring_.size()) cursor = 0;
    misses = 0;
  }
  out.insert(out.end(), {c[ring_[0]], c[ring_[1]], c[ring_[2]]});
}

// Corner `cur` is an ear when it is strictly convex and no other remaining corner lies
// inside or on the triangle (a corner at the same spot as one of the three, as where an
// exporter bridged a hole, does not count).
bool Triangulator::is_ear(size_t prev, size_t cur, size_t next) const {
  const P2 &a = xy_[prev], &b = xy_[cur], &d = xy_[next];
  if (!(turn(a, b, d) > 0)) return false;
  for (size_t r : ring_) {
    if (r == prev || r == cur || r == next) continue;
    const P2& p = xy_[r];
    const auto same = [&](const P2& q) { return p.x == q.x && p.y == q.y; };
    if (same(a) || same(b) || same(d)) continue;
    if (turn(a, b, p) >= 0 && turn(b, d, p) >= 0 && turn(d, a, p) >= 0) return false;
  }
  return true;
}

void Triangulator::fan(const std::vector<uint32_t>& c, std::vector<uint32_t>& out) {
  for (size_t i = 1; i + 1 < c.size(); ++i) out.insert(out.end(), {c[0], c[i], c[i + 1]});
}

void Triangulator::split_quad(const std::vector<uint32_t>& c, std::vector<uint32_t>& out) const {
  const auto dist2 = [&](uint32_t i, uint32_t j) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = double(v_[3 * size_t(i) + k]) - v_[3 * size_t(j) + k];
      s += d * d;
    }
    return s;
  };
  if (dist2(c[0], c[2]) < dist2(c[1], c[3])) {
    out.insert(out.end(), {c[0], c[1], c[2], c[0], c[2], c[3]});
  } else {
    out.insert(out.end(), {c[0], c[1], c[3], c[1], c[2], c[3]});
  }
}

}  // namespace wr
