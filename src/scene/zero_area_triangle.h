// The one rule for which triangles can never be hit (wr.h: zero-area triangles never are): the
// BVH builder leaves them out, and the grid terrain takes a height field only when it has none
// among its cells (scene/grid_builder.cpp), so that both kinds hit the same triangles.
#pragma once

namespace wr {

// Repeated or collinear corners. The cross product of float differences is evaluated in double,
// where it is exact for all but extreme inputs; the float watertight test could round such a
// triangle into a sliver, so it is decided here, once, and never by the test.
inline bool triangle_has_zero_area(const float* a, const float* b, const float* c) {
  const double ux = double(b[0]) - a[0], uy = double(b[1]) - a[1], uz = double(b[2]) - a[2];
  const double vx = double(c[0]) - a[0], vy = double(c[1]) - a[1], vz = double(c[2]) - a[2];
  return uy * vz - uz * vy == 0.0 && uz * vx - ux * vz == 0.0 && ux * vy - uy * vx == 0.0;
}

}  // namespace wr
