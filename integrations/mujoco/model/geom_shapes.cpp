// The triangles of a MuJoCo geom in its own frame (geom_shapes.h).
#include "geom_shapes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "model_labels.h"

namespace wr_mujoco {
namespace internal {
namespace {

constexpr double kPi = 3.14159265358979323846;
// The most triangles one curved primitive may take: a tolerance that asks for more is refused by
// name rather than exhausting memory.
constexpr uint64_t kMaxPrimitiveTriangles = uint64_t(1) << 24;

[[noreturn]] void fail_shape(const std::string& what) { throw ShapeError(what); }

const char* geom_type_name(int t) {
  switch (t) {
    case kGeomPlane: return "plane";
    case kGeomHfield: return "hfield";
    case kGeomSphere: return "sphere";
    case kGeomCapsule: return "capsule";
    case kGeomEllipsoid: return "ellipsoid";
    case kGeomCylinder: return "cylinder";
    case kGeomBox: return "box";
    case kGeomMesh: return "mesh";
    case kGeomSdf: return "sdf";
    default: return "unknown";
  }
}

// ---- shapes in the geom's frame ----

struct Builder {
  Mesh mesh;
  uint32_t vertex(double x, double y, double z) {
    mesh.vertices.insert(mesh.vertices.end(), {x, y, z});
    return static_cast<uint32_t>(mesh.vertices.size() / 3 - 1);
  }
  void triangle(uint32_t a, uint32_t b, uint32_t c) { mesh.indices.insert(mesh.indices.end(), {a, b, c}); }
};

Mesh box_mesh(double hx, double hy, double hz) {
  Builder b;
  for (int i = 0; i < 8; ++i) b.vertex(i & 1 ? hx : -hx, i & 2 ? hy : -hy, i & 4 ? hz : -hz);
  // Two triangles per face; winding does not matter (both faces are hit).
  const uint32_t faces[6][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    b.triangle(f[0], f[1], f[2]);
    b.triangle(f[0], f[2], f[3]);
  }
  return std::move(b.mesh);
}

// A plane as a grid of quads. Float ray-triangle tests lose accuracy with the distance from the ray's
// origin to the triangle's corners; a plane of half-extent zfar * extent is a large quad, and a
// camera a metre above it would see depths off by far more than the other shapes' rounding. Cells
// of at most kPlaneCell metres (a grid of at most kPlaneMaxCells a side) keep the corners of the
// triangle a ray meets near the point it meets.
constexpr double kPlaneCell = 1.0;
constexpr int kPlaneMaxCells = 256;
Mesh plane_mesh(double hx, double hy) {
  const auto cells = [](double h) {
    return static_cast<int>(std::min<double>(kPlaneMaxCells, std::max(1.0, std::ceil(2.0 * h / kPlaneCell))));
  };
  const int nx = cells(hx), ny = cells(hy);
  Builder b;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      b.vertex(i == nx ? hx : -hx + 2.0 * hx * i / nx, j == ny ? hy : -hy + 2.0 * hy * j / ny, 0.0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const uint32_t v0 = static_cast<uint32_t>(j * (nx + 1) + i), v1 = v0 + 1;
      const uint32_t v3 = v0 + static_cast<uint32_t>(nx + 1), v2 = v3 + 1;
      b.triangle(v0, v1, v2);
      b.triangle(v0, v2, v3);
    }
  return std::move(b.mesh);
}

// A surface of revolution about z: profile points (rho, z) from top to bottom, rho = 0 a pole (one
// vertex), else a ring of nlon vertices at longitudes 2 pi j / nlon; consecutive profile points are
// joined by quads (two triangles) or, next to a pole, a fan. Scaled by (sx, sy, sz) afterwards
// (ellipsoids). Every vertex lies on the surface the profile samples.
Mesh revolved_mesh(const std::vector<std::pair<double, double>>& profile, int nlon, double sx, double sy, double sz) {
  Builder b;
  std::vector<uint32_t> first(profile.size());
  for (size_t k = 0; k < profile.size(); ++k) {
    const double rho = profile[k].first, z = profile[k].second;
    if (rho == 0.0) {
      first[k] = b.vertex(0, 0, sz * z);
    } else {
      first[k] = static_cast<uint32_t>(b.mesh.vertices.size() / 3);
      for (int j = 0; j < nlon; ++j) {
        const double phi = 2.0 * kPi * j / nlon;
        b.vertex(sx * rho * std::cos(phi), sy * rho * std::sin(phi), sz * z);
      }
    }
  }
  for (size_t k = 0; k + 1 < profile.size(); ++k) {
    const bool pole0 = profile[k].first == 0.0, pole1 = profile[k + 1].first == 0.0;
    if (pole0 && pole1) continue;
    for (int j = 0; j < nlon; ++j) {
      const uint32_t j1 = static_cast<uint32_t>((j + 1) % nlon);
      const uint32_t a = first[k] + (pole0 ? 0 : j), b0 = first[k] + (pole0 ? 0 : j1);
      const uint32_t c = first[k + 1] + (pole1 ? 0 : j), d = first[k + 1] + (pole1 ? 0 : j1);
      if (pole0) {
        b.triangle(a, c, d);
      } else if (pole1) {
        b.triangle(a, c, b0);
      } else {
        b.triangle(a, c, d);
        b.triangle(a, d, b0);
      }
    }
  }
  return std::move(b.mesh);
}

// Distance from `centre` to the plane of triangle (p, q, r); 0 for a degenerate one.
double plane_distance(const double p[3], const double q[3], const double r[3], const double centre[3]) {
  const double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  const double v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
  const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (len == 0.0) return 0.0;
  return std::fabs(n[0] * (p[0] - centre[0]) + n[1] * (p[1] - centre[1]) + n[2] * (p[2] - centre[2])) / len;
}

// The tessellation bound of a convex polyhedron inscribed in the unit sphere, over the bands between
// consecutive polar angles `thetas` (0 = north pole, pi = south) with nlon longitudes:
// 1 - (the smallest distance from the centre to a face's plane). It bounds the distance both ways:
// a point of a face lies inside the ball, at least that far from the centre; a point of the sphere
// meets the polyhedron on its radius no nearer the centre than that (the polyhedron is convex and
// holds the centre). By symmetry one column of faces (longitudes 0 and 2 pi / nlon) covers all.
double unit_band_deviation(const std::vector<double>& thetas, int nlon) {
  const double centre[3] = {0, 0, 0};
  const double dphi = 2.0 * kPi / nlon;
  double nearest = 1.0;
  for (size_t k = 0; k + 1 < thetas.size(); ++k) {
    const double s0 = std::sin(thetas[k]), c0 = std::cos(thetas[k]);
    const double s1 = std::sin(thetas[k + 1]), c1 = std::cos(thetas[k + 1]);
    const double a[3] = {s0, 0, c0}, b[3] = {s0 * std::cos(dphi), s0 * std::sin(dphi), c0};
    const double c[3] = {s1, 0, c1}, d[3] = {s1 * std::cos(dphi), s1 * std::sin(dphi), c1};
    // As revolved_mesh splits the band: (a, c, d) and (a, d, b), or one fan triangle at a pole.
    if (thetas[k] == 0.0) {
      nearest = std::min(nearest, plane_distance(a, c, d, centre));
    } else if (thetas[k + 1] == kPi) {
      nearest = std::min(nearest, plane_distance(a, c, b, centre));
    } else {
      nearest = std::min(nearest, plane_distance(a, c, d, centre));
      nearest = std::min(nearest, plane_distance(a, d, b, centre));
    }
  }
  return 1.0 - nearest;
}

std::vector<double> polar_angles(double from, double to, int bands) {
  std::vector<double> t(static_cast<size_t>(bands) + 1);
  for (int k = 0; k <= bands; ++k) t[k] = from + (to - from) * k / bands;
  t.front() = from;
  t.back() = to;
  return t;
}

// Longitude and latitude counts for a unit sphere (or a hemisphere: half_turn = pi / 2) whose
// deviation is at most `unit_tolerance`: each band's faces are within about 1 - cos^2(step / 2) of
// the sphere, so both steps start at 2 acos(sqrt(1 - tol)) and grow finer until the measured bound
// (unit_band_deviation) holds.
struct Bands {
  int nlon = 0, nlat = 0;
  double deviation = 0;
};
Bands sphere_bands(double unit_tolerance, double half_turn, const std::string& where) {
  const double half_step = std::acos(std::sqrt(std::max(0.0, 1.0 - std::min(unit_tolerance, 1.0))));
  const double step = std::max(2.0 * half_step, 1e-12);
  Bands b;
  b.nlon = std::max(8, static_cast<int>(std::ceil(std::min(2.0 * kPi / step, 1e9))));
  b.nlat = std::max(half_turn < kPi ? 2 : 4, static_cast<int>(std::ceil(std::min(half_turn / step, 1e9))));
  for (;;) {
    if (2.0 * double(b.nlon) * double(b.nlat) > double(kMaxPrimitiveTriangles))
      fail_shape(where + ": the tolerance asks for more than " + std::to_string(kMaxPrimitiveTriangles) +
                 " triangles: raise SceneOptions::tolerance");
    b.deviation = unit_band_deviation(polar_angles(0.0, half_turn, b.nlat), b.nlon);
    if (b.deviation <= unit_tolerance) return b;
    b.nlon += std::max(1, b.nlon / 16);
    b.nlat += std::max(1, b.nlat / 16);
  }
}

// The number of sides of a regular polygon inscribed in a circle of radius r whose sagitta
// r (1 - cos(pi / n)) is at most tol: the distance from the circle to the polygon, both ways.
int circle_sides(double r, double tol, const std::string& where, double* deviation) {
  const double c = 1.0 - std::min(tol / r, 1.0);
  int n = std::max(8, static_cast<int>(std::ceil(std::min(kPi / std::max(std::acos(c), 1e-12), 1e9))));
  for (;;) {
    if (4.0 * n > double(kMaxPrimitiveTriangles))
      fail_shape(where + ": the tolerance asks for more than " + std::to_string(kMaxPrimitiveTriangles) +
                 " triangles: raise SceneOptions::tolerance");
    *deviation = r * (1.0 - std::cos(kPi / n));
    if (*deviation <= tol) return n;
    n += std::max(1, n / 16);
  }
}

void require_positive(const ModelView& m, int g, const char* what, double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    fail_shape(geom_label(m, g) + " (" + geom_type_name(m.geom_type[g]) + "): " + what + " = " + num(v) +
               ": must be finite and > 0");
}

// Sphere (XMLreference geom/size: radius), ellipsoid (three radii): a UV sphere, scaled for the
// ellipsoid. A linear map stretches no distance by more than its largest factor, so the unit
// sphere's bound times the largest radius bounds the ellipsoid's.
Mesh ellipsoid_mesh(double a, double b, double c, double tol, const std::string& where, double* deviation) {
  const double rmax = std::max(a, std::max(b, c));
  const Bands bands = sphere_bands(tol / rmax, kPi, where);
  std::vector<std::pair<double, double>> profile;
  for (double t : polar_angles(0.0, kPi, bands.nlat))
    profile.emplace_back(t == 0.0 || t == kPi ? 0.0 : std::sin(t), std::cos(t));
  *deviation = bands.deviation * rmax;
  return revolved_mesh(profile, bands.nlon, a, b, c);
}

// Capsule (radius, half-length of the cylinder part along z): two UV hemispheres joined by the
// prism between their equators. A cap face lies within its hemisphere's ball (its bound is the
// hemisphere's); a side face is r cos(pi / nlon) from the axis (the circle's sagitta).
Mesh capsule_mesh(double r, double h, double tol, const std::string& where, double* deviation) {
  const Bands bands = sphere_bands(tol / r, kPi / 2, where);
  const std::vector<double> top = polar_angles(0.0, kPi / 2, bands.nlat);
  std::vector<std::pair<double, double>> profile;
  for (double t : top) profile.emplace_back(t == 0.0 ? 0.0 : r * std::sin(t), h + r * std::cos(t));
  for (auto it = top.rbegin(); it != top.rend(); ++it)
    profile.emplace_back(*it == 0.0 ? 0.0 : r * std::sin(*it), -h - r * std::cos(*it));
  // The caps' longitudes already keep the side's sagitta, 1 - cos(step / 2) <= 1 - cos^2(step / 2),
  // but the bound is measured, not assumed.
  int nlon = bands.nlon;
  for (;;) {
    *deviation = r * std::max(unit_band_deviation(top, nlon), 1.0 - std::cos(kPi / nlon));
    if (*deviation <= tol) break;
    nlon += std::max(1, nlon / 16);
    if (2.0 * nlon * (2.0 * bands.nlat + 1) > double(kMaxPrimitiveTriangles))
      fail_shape(where + ": the tolerance asks for more than " + std::to_string(kMaxPrimitiveTriangles) +
                 " triangles: raise SceneOptions::tolerance");
  }
  return revolved_mesh(profile, nlon, 1, 1, 1);
}

// Cylinder (radius, half-height): the inscribed prism and its two polygonal caps; the caps lie in
// the true caps' planes, and polygon and disk are the sagitta apart.
Mesh cylinder_mesh(double r, double h, double tol, const std::string& where, double* deviation) {
  const int n = circle_sides(r, tol, where, deviation);
  return revolved_mesh({{0.0, h}, {r, h}, {r, -h}, {0.0, -h}}, n, 1, 1, 1);
}

// The compiled mesh (mesh_vert: float, already in the geom's frame, as mj_ray reads it).
Mesh model_mesh(const ModelView& m, int g) {
  const int id = m.geom_dataid[g];
  if (id < 0 || id >= m.nmesh)
    fail_shape(geom_label(m, g) + " (mesh): geom_dataid = " + std::to_string(id) + " names no mesh");
  const int nv = m.mesh_vertnum[id], nf = m.mesh_facenum[id];
  if (nv < 3 || nf < 1)
    fail_shape(geom_label(m, g) + " (" + named(m, ObjectKind::kMesh, id, "mesh") + "): " + std::to_string(nv) +
               " vertices and " + std::to_string(nf) + " faces: nothing to render");
  Mesh mesh;
  const float* v = m.mesh_vert + 3 * static_cast<size_t>(m.mesh_vertadr[id]);
  mesh.vertices.assign(v, v + 3 * static_cast<size_t>(nv));
  const int* f = m.mesh_face + 3 * static_cast<size_t>(m.mesh_faceadr[id]);
  mesh.indices.resize(3 * static_cast<size_t>(nf));
  for (size_t i = 0; i < mesh.indices.size(); ++i) {
    if (f[i] < 0 || f[i] >= nv)
      fail_shape(geom_label(m, g) + " (mesh): face " + std::to_string(i / 3) + " names vertex " + std::to_string(f[i]) +
                 " of " + std::to_string(nv));
    mesh.indices[i] = static_cast<uint32_t>(f[i]);
  }
  return mesh;
}

// The heightfield as wr.h triangulates it (wr_scene_create_heightfield's vertices and triangles,
// with MuJoCo's parameterisation: origin (-size[0], -size[1], 0), spacing 2 size / (n - 1),
// z_scale size[2], base_depth size[3]), in double in the geom's frame: what mj_rayHfield
// intersects (its two triangles per cell split along the same diagonal, its side walls down to
// its base box).
Mesh hfield_mesh(const ModelView& m, int g) {
  const HfieldParams p = hfield_params(m, g);
  const uint32_t nx = static_cast<uint32_t>(p.ncol), ny = static_cast<uint32_t>(p.nrow);
  const double dx = 2.0 * p.size[0] / (nx - 1), dy = 2.0 * p.size[1] / (ny - 1);
  Builder b;
  for (uint32_t iy = 0; iy < ny; ++iy)
    for (uint32_t ix = 0; ix < nx; ++ix)
      b.vertex(-p.size[0] + ix * dx, -p.size[1] + iy * dy, p.size[2] * static_cast<double>(p.data[iy * nx + ix]));
  const auto sample = [nx](uint32_t ix, uint32_t iy) { return iy * nx + ix; };
  for (uint32_t iy = 0; iy + 1 < ny; ++iy)
    for (uint32_t ix = 0; ix + 1 < nx; ++ix) {
      const uint32_t a = sample(ix, iy), c = sample(ix + 1, iy + 1);
      b.triangle(a, c, sample(ix + 1, iy));
      b.triangle(a, c, sample(ix, iy + 1));
    }
  if (p.size[3] > 0) {
    // The border, counter-clockwise from sample (0, 0); a base vertex under each border sample.
    std::vector<uint32_t> border;
    for (uint32_t ix = 0; ix < nx; ++ix) border.push_back(sample(ix, 0));
    for (uint32_t iy = 1; iy < ny; ++iy) border.push_back(sample(nx - 1, iy));
    for (uint32_t ix = nx - 1; ix-- > 0;) border.push_back(sample(ix, ny - 1));
    for (uint32_t iy = ny - 1; iy-- > 1;) border.push_back(sample(0, iy));
    const double zb = -p.size[3];
    std::vector<uint32_t> base(border.size());
    for (size_t k = 0; k < border.size(); ++k)
      base[k] = b.vertex(b.mesh.vertices[3 * border[k]], b.mesh.vertices[3 * border[k] + 1], zb);
    for (size_t k = 0; k < border.size(); ++k) {
      const size_t k1 = (k + 1) % border.size();
      b.triangle(border[k], border[k1], base[k1]);
      b.triangle(border[k], base[k1], base[k]);
    }
    const uint32_t c0 = base[0], c1 = base[nx - 1], c2 = base[nx + ny - 2], c3 = base[2 * nx + ny - 3];
    b.triangle(c0, c1, c2);
    b.triangle(c0, c2, c3);
  }
  return std::move(b.mesh);
}

double default_plane_half_extent(const ModelView& m, const SceneOptions& o) {
  if (o.plane_half_extent > 0) return o.plane_half_extent;
  const double e = m.zfar_extent;
  return e > 0 && std::isfinite(e) ? e : 1000.0;
}

Mesh shape_of(const ModelView& m, int g, const SceneOptions& o, double* deviation) {
  *deviation = 0.0;
  const double* s = m.geom_size + 3 * g;
  const std::string where = geom_label(m, g);
  switch (m.geom_type[g]) {
    case kGeomMesh: return model_mesh(m, g);
    case kGeomHfield: return hfield_mesh(m, g);
    case kGeomBox:
      require_positive(m, g, "size[0]", s[0]);
      require_positive(m, g, "size[1]", s[1]);
      require_positive(m, g, "size[2]", s[2]);
      return box_mesh(s[0], s[1], s[2]);
    case kGeomPlane: {
      // mj_ray (ray_plane) bounds a plane to |x| <= size[0], |y| <= size[1] where those are > 0.
      const double e = default_plane_half_extent(m, o);
      return plane_mesh(s[0] > 0 ? s[0] : e, s[1] > 0 ? s[1] : e);
    }
    case kGeomSphere:
      require_positive(m, g, "size[0] (radius)", s[0]);
      return ellipsoid_mesh(s[0], s[0], s[0], o.tolerance, where, deviation);
    case kGeomEllipsoid:
      require_positive(m, g, "size[0]", s[0]);
      require_positive(m, g, "size[1]", s[1]);
      require_positive(m, g, "size[2]", s[2]);
      return ellipsoid_mesh(s[0], s[1], s[2], o.tolerance, where, deviation);
    case kGeomCapsule:
      require_positive(m, g, "size[0] (radius)", s[0]);
      if (!(s[1] >= 0.0) || !std::isfinite(s[1]))
        fail_shape(geom_label(m, g) + " (capsule): size[1] (half-length) = " + num(s[1]) + ": must be finite and >= 0");
      return capsule_mesh(s[0], s[1], o.tolerance, where, deviation);
    case kGeomCylinder:
      require_positive(m, g, "size[0] (radius)", s[0]);
      require_positive(m, g, "size[1] (half-height)", s[1]);
      return cylinder_mesh(s[0], s[1], o.tolerance, where, deviation);
    case kGeomSdf:
      fail_shape(geom_label(m, g) +
                 " is of type sdf (a signed distance field of a plugin): not supported "
                 "(SceneOptions::skip_unsupported leaves such geoms out)");
    default:
      fail_shape(geom_label(m, g) + ": geom_type = " + std::to_string(m.geom_type[g]) + " is no geom type (mjtGeom)");
  }
}

}  // namespace

HfieldParams hfield_params(const ModelView& m, int g) {
  const int id = m.geom_dataid[g];
  if (id < 0 || id >= m.nhfield)
    fail_shape(geom_label(m, g) + " (hfield): geom_dataid = " + std::to_string(id) + " names no hfield");
  HfieldParams p{id, m.hfield_nrow[id], m.hfield_ncol[id], m.hfield_size + 4 * id, m.hfield_data + m.hfield_adr[id]};
  if (p.nrow < 2 || p.ncol < 2)
    fail_shape(geom_label(m, g) + " (" + named(m, ObjectKind::kHfield, id, "hfield") + "): " + std::to_string(p.nrow) +
               " x " + std::to_string(p.ncol) + " samples: needs 2 x 2 at least");
  return p;
}

void check_options(const SceneOptions& o, const char* where) {
  if (!(o.tolerance > 0.0) || !std::isfinite(o.tolerance))
    fail(where, "options.tolerance = " + num(o.tolerance) + ": must be finite and > 0 (metres)");
  if (!(o.plane_half_extent >= 0.0) || !std::isfinite(o.plane_half_extent))
    fail(where,
         "options.plane_half_extent = " + num(o.plane_half_extent) + ": must be finite and >= 0 (0: from the model)");
  int terrain;  // read as the int it is: a value outside the enum is no wr_terrain_kind to compare
  std::memcpy(&terrain, &o.terrain, sizeof terrain);
  if (terrain != WR_TERRAIN_AUTO && terrain != WR_TERRAIN_BVH && terrain != WR_TERRAIN_GRID)
    fail(where, "options.terrain = " + std::to_string(terrain) +
                    ": must be WR_TERRAIN_AUTO, WR_TERRAIN_BVH or WR_TERRAIN_GRID");
}

Mesh build_geom_mesh(const ModelView& m, int g, const SceneOptions& o, double* deviation, const char* caller) {
  try {
    return shape_of(m, g, o, deviation);
  } catch (const ShapeError& e) {
    fail(caller, e.what());
  }
}

}  // namespace internal

Mesh geom_mesh(const ModelView& m, int geom, const SceneOptions& options) {
  internal::check_view(m, "geom_mesh");
  internal::check_geom(m, geom, "geom_mesh");
  internal::check_options(options, "geom_mesh");
  double deviation;
  return internal::build_geom_mesh(m, geom, options, &deviation, "geom_mesh");
}

double geom_mesh_deviation(const ModelView& m, int geom, const SceneOptions& options) {
  internal::check_view(m, "geom_mesh_deviation");
  internal::check_geom(m, geom, "geom_mesh_deviation");
  internal::check_options(options, "geom_mesh_deviation");
  double deviation;
  internal::build_geom_mesh(m, geom, options, &deviation, "geom_mesh_deviation");
  return deviation;
}

}  // namespace wr_mujoco
