// The scenes of the Embree acceptance test (test_reference_embree.cpp), generated from fixed
// seeds: terrain with boxes, a closed subdivided room, and a triangle soup with slivers and
// zero-area triangles. Each mesh also records which triangles the reference (Embree) is given.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "mesh_builders.h"

namespace wr_test::embree_tests {

using Eigen::AngleAxisd;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

// Uniform numbers from a fixed seed. mt19937's output sequence is fixed by the standard (the
// mapping of std::uniform_real_distribution is not), so every platform sees the same scenes.
class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  double uniform() { return (static_cast<double>(gen_()) + 0.5) / 4294967296.0; }  // (0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(gen_() % n); }
  double sign() { return (gen_() & 1u) ? 1.0 : -1.0; }
  Vector3d unit_vector() {
    for (;;) {
      const Vector3d v(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      const double n = v.norm();
      if (n > 0.1 && n <= 1.0) return v / n;
    }
  }

 private:
  std::mt19937 gen_;
};

inline double deg(double degrees) { return degrees * kPi / 180.0; }

// ---- Meshes --------------------------------------------------------------------------------

// The project's mesh builder (tools/common/triangle_mesh.h; `indices`: what warp-raycaster gets)
// with what Embree gets beside it.
struct Mesh : wr_tools::TriangleMesh {
  std::vector<uint32_t> reference_indices;  // (num_reference_triangles x 3): `indices` minus the
                                            // zero-area triangles, which the contract says are
                                            // never hit
  uint32_t add_vertex(const Vector3d& p) {
    return vertex(static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()));
  }
  void triangle(uint32_t a, uint32_t b, uint32_t c) {
    TriangleMesh::triangle(a, b, c);
    reference_indices.insert(reference_indices.end(), {a, b, c});
  }
  void add_degenerate_triangle(uint32_t a, uint32_t b, uint32_t c) { TriangleMesh::triangle(a, b, c); }
};

// A closed box: 8 shared corners, 12 triangles. half: half extents along the box's own axes.
inline void add_box(Mesh& mesh, const Vector3d& centre, const Vector3d& half, const Matrix3d& rotation) {
  uint32_t v[8];
  for (int i = 0; i < 8; ++i) {
    const Vector3d corner((i & 1) ? half.x() : -half.x(), (i & 2) ? half.y() : -half.y(),
                          (i & 4) ? half.z() : -half.z());
    v[i] = mesh.add_vertex(centre + rotation * corner);
  }
  // Each face as a cycle of 4 corners (bit 0: +x, bit 1: +y, bit 2: +z).
  static const int kFaces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : kFaces) {
    mesh.triangle(v[f[0]], v[f[1]], v[f[2]]);
    mesh.triangle(v[f[0]], v[f[2]], v[f[3]]);
  }
}

// Terrain height: Gaussian bumps plus a few steps (a step rises `rise` across a straight
// line; on a 0.25 m grid it becomes a one-cell-wide ramp of up to ~70 degrees).
struct Terrain {
  struct Bump {
    double x, y, sigma, amplitude;
  };
  struct Step {
    double px, py, nx, ny, rise;
  };
  std::vector<Bump> bumps;
  std::vector<Step> steps;

  double height(double x, double y) const {
    double h = 0.0;
    for (const Bump& b : bumps) {
      const double r2 = (x - b.x) * (x - b.x) + (y - b.y) * (y - b.y);
      h += b.amplitude * std::exp(-r2 / (2.0 * b.sigma * b.sigma));
    }
    for (const Step& s : steps)
      if ((x - s.px) * s.nx + (y - s.py) * s.ny > 0.0) h += s.rise;
    return h;
  }
};

struct PlacedBox {
  Vector3d centre, half;
  Matrix3d rotation;
};

constexpr double kTerrainSize = 30.0;  // metres, square [0, 30] x [0, 30]
constexpr int kTerrainCells = 119;     // 120 x 120 vertices

// Scene 1: a heightfield grid (random bumps, a few steps, random cell diagonals) with closed
// boxes on it: axis-aligned, yawed, and yawed + tilted, each sunk a little into the ground.
inline Mesh make_terrain_scene(uint32_t seed, Terrain* terrain, std::vector<PlacedBox>* boxes) {
  Rng rng(seed);
  for (int i = 0; i < 25; ++i)
    terrain->bumps.push_back({rng.uniform(0, kTerrainSize), rng.uniform(0, kTerrainSize), rng.uniform(1.0, 5.0),
                              rng.sign() * rng.uniform(0.2, 1.5)});
  for (int i = 0; i < 4; ++i) {
    const double a = rng.uniform(-kPi, kPi);
    terrain->steps.push_back(
        {rng.uniform(5, 25), rng.uniform(5, 25), std::cos(a), std::sin(a), rng.sign() * rng.uniform(0.3, 0.8)});
  }
  Mesh mesh;
  const int n = kTerrainCells + 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double x = kTerrainSize * i / kTerrainCells, y = kTerrainSize * j / kTerrainCells;
      mesh.add_vertex(Vector3d(x, y, terrain->height(x, y)));
    }
  for (int j = 0; j < kTerrainCells; ++j)
    for (int i = 0; i < kTerrainCells; ++i) {
      const uint32_t a = static_cast<uint32_t>(j * n + i), b = a + 1, c = a + n, d = c + 1;
      wr_test::add_split_quad(mesh, a, b, d, c, rng.below(2) != 0);
    }
  for (int k = 0; k < 16; ++k) {
    PlacedBox box;
    box.half = Vector3d(rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5));
    box.rotation.setIdentity();
    if (k % 3 >= 1) box.rotation = AngleAxisd(rng.uniform(-kPi, kPi), Vector3d::UnitZ()).toRotationMatrix();
    if (k % 3 == 2)
      box.rotation = box.rotation * AngleAxisd(rng.uniform(-0.45, 0.45), Vector3d::UnitX()) *
                     AngleAxisd(rng.uniform(-0.45, 0.45), Vector3d::UnitY());
    const double x = rng.uniform(4, 26), y = rng.uniform(4, 26);
    box.centre = Vector3d(x, y, terrain->height(x, y) - 0.3 + box.half.z());
    add_box(mesh, box.centre, box.half, box.rotation);
    boxes->push_back(box);
  }
  return mesh;
}

const Vector3d kRoomMin(-5.0, -4.0, 0.0), kRoomMax(5.0, 4.0, 3.0);
constexpr int kRoomDivisions = 40;  // quads per wall side

// Scene 2: a closed box room; every wall is a 40 x 40 grid of quads and the six walls share the
// vertices along their common edges (one vertex per lattice point), so the surface is closed.
inline Mesh make_room_scene() {
  Mesh mesh;
  std::map<std::array<int, 3>, uint32_t> lattice;
  auto vertex = [&](std::array<int, 3> k) {
    auto it = lattice.find(k);
    if (it != lattice.end()) return it->second;
    Vector3d p;
    for (int a = 0; a < 3; ++a) p[a] = kRoomMin[a] + (kRoomMax[a] - kRoomMin[a]) * k[a] / kRoomDivisions;
    const uint32_t i = mesh.add_vertex(p);
    lattice.emplace(k, i);
    return i;
  };
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int b = (axis + 1) % 3, c = (axis + 2) % 3;
      for (int p = 0; p < kRoomDivisions; ++p)
        for (int q = 0; q < kRoomDivisions; ++q) {
          std::array<int, 3> k00{}, k10{}, k01{}, k11{};
          for (auto* k : {&k00, &k10, &k01, &k11}) (*k)[axis] = side * kRoomDivisions;
          k00[b] = p, k00[c] = q;
          k10[b] = p + 1, k10[c] = q;
          k01[b] = p, k01[c] = q + 1;
          k11[b] = p + 1, k11[c] = q + 1;
          const uint32_t v00 = vertex(k00), v10 = vertex(k10), v01 = vertex(k01), v11 = vertex(k11);
          wr_test::add_split_quad(mesh, v00, v10, v11, v01, (p + q) % 2 != 0);
        }
    }
  return mesh;
}

constexpr double kSoupSize = 20.0;  // the soup fills the cube [0, 20]^3

// Vertex snapped to a 1/256 m grid: then sums, midpoints and 2b - a of such vertices are exact
// in float, so the collinear triangles below are exactly collinear, i.e. truly zero-area.
inline Vector3d snapped(const Vector3d& p) {
  return Vector3d(std::round(p.x() * 256.0) / 256.0, std::round(p.y() * 256.0) / 256.0,
                  std::round(p.z() * 256.0) / 256.0);
}

// Scene 3: a triangle soup: ordinary triangles, slivers (long and very thin), tiny ones, a few
// big ones, and zero-area ones (repeated index, exactly collinear vertices, coincident
// vertices), which Embree is not given because they must never be hit.
inline Mesh make_soup_scene(uint32_t seed, uint64_t* num_degenerate) {
  Rng rng(seed);
  Mesh mesh;
  auto random_point = [&](double margin) {
    return Vector3d(rng.uniform(margin, kSoupSize - margin), rng.uniform(margin, kSoupSize - margin),
                    rng.uniform(margin, kSoupSize - margin));
  };
  auto add_tri = [&](const Vector3d& a, const Vector3d& b, const Vector3d& c) {
    mesh.triangle(mesh.add_vertex(a), mesh.add_vertex(b), mesh.add_vertex(c));
  };
  for (int i = 0; i < 2500; ++i) {  // ordinary, 0.2 - 1.5 m
    const Vector3d c = random_point(0);
    const double r = rng.uniform(0.2, 1.5);
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  for (int i = 0; i < 400; ++i) {  // slivers: 2 - 8 m long, 0.1 - 10 mm wide
    const Vector3d p = random_point(0), axis = rng.unit_vector();
    const Vector3d across = axis.cross(rng.unit_vector()).normalized();
    const double length = rng.uniform(2.0, 8.0), width = std::exp(rng.uniform(std::log(1e-4), std::log(1e-2)));
    if (i % 2)  // needle: one tiny edge
      add_tri(p, p + length * axis, p + length * axis + width * across);
    else  // spindle: the apex halfway along the long edge
      add_tri(p, p + length * axis, p + 0.5 * length * axis + width * across);
  }
  for (int i = 0; i < 400; ++i) {  // tiny: 1 - 20 mm
    const Vector3d c = random_point(0);
    const double r = std::exp(rng.uniform(std::log(1e-3), std::log(2e-2)));
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  for (int i = 0; i < 30; ++i) {  // big: 6 - 15 m
    const Vector3d c = random_point(0);
    const double r = rng.uniform(6.0, 15.0);
    add_tri(c + r * rng.unit_vector(), c + r * rng.unit_vector(), c + r * rng.unit_vector());
  }
  const uint64_t before = mesh.num_triangles();
  for (int i = 0; i < 400; ++i) {  // zero-area
    const Vector3d a = snapped(random_point(1.0));
    const Vector3d b = snapped(a + rng.uniform(0.2, 3.0) * rng.unit_vector());
    const uint32_t ia = mesh.add_vertex(a), ib = mesh.add_vertex(b);
    switch (i % 6) {
      case 0: mesh.add_degenerate_triangle(ia, ia, ib); break;  // repeated index
      case 1: mesh.add_degenerate_triangle(ia, ib, ib); break;
      case 2: mesh.add_degenerate_triangle(ia, ia, ia); break;                                   // a point
      case 3: mesh.add_degenerate_triangle(ia, ib, mesh.add_vertex(0.5 * (a + b))); break;       // collinear, middle
      case 4: mesh.add_degenerate_triangle(ia, ib, mesh.add_vertex(2.0 * b - a)); break;         // collinear, outside
      default: mesh.add_degenerate_triangle(ia, mesh.add_vertex(a), mesh.add_vertex(a)); break;  // coincident
    }
  }
  *num_degenerate = mesh.num_triangles() - before;
  return mesh;
}

}  // namespace wr_test::embree_tests
