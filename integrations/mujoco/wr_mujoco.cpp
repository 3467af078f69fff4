// wr_mujoco: MuJoCo models as warp-raycaster scenes and cameras (wr_mujoco.h says what and why).
#include "wr_mujoco.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

namespace wr_mujoco {
namespace {

constexpr double kPi = 3.14159265358979323846;
// The most triangles one curved primitive may take: a tolerance that asks for more is refused by
// name rather than exhausting memory.
constexpr uint64_t kMaxPrimitiveTriangles = uint64_t(1) << 24;

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string named(const mjModel* m, int type, int id, const char* kind) {
  const char* n = mj_id2name(m, type, id);
  std::string s = std::string(kind) + " " + std::to_string(id);
  if (n && *n) s += " '" + std::string(n) + "'";
  return s;
}
std::string geom_label(const mjModel* m, int g) { return named(m, mjOBJ_GEOM, g, "geom"); }
std::string body_label(const mjModel* m, int b) { return named(m, mjOBJ_BODY, b, "body"); }
std::string camera_label(const mjModel* m, int c) { return named(m, mjOBJ_CAMERA, c, "camera"); }

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Error("wr_mujoco::" + where + ": " + what);
}

// What the shape builders throw: the culprit without the public function's name, which
// build_geom_mesh puts in front (an Error never escapes without it).
struct ShapeError : std::runtime_error {
  explicit ShapeError(const std::string& what) : std::runtime_error(what) {}
};
[[noreturn]] void fail_shape(const std::string& what) { throw ShapeError(what); }

void check(wr_status s, const std::string& where, const std::string& call) {
  if (s != WR_SUCCESS) fail(where, call + " failed: " + wr_last_error());
}

const char* geom_type_name(int t) {
  switch (t) {
    case mjGEOM_PLANE: return "plane";
    case mjGEOM_HFIELD: return "hfield";
    case mjGEOM_SPHERE: return "sphere";
    case mjGEOM_CAPSULE: return "capsule";
    case mjGEOM_ELLIPSOID: return "ellipsoid";
    case mjGEOM_CYLINDER: return "cylinder";
    case mjGEOM_BOX: return "box";
    case mjGEOM_MESH: return "mesh";
    case mjGEOM_SDF: return "sdf";
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

void require_positive(const mjModel* m, int g, const char* what, double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    fail_shape(geom_label(m, g) + " (" + geom_type_name(m->geom_type[g]) + "): " + what + " = " + num(v) +
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
Mesh model_mesh(const mjModel* m, int g) {
  const int id = m->geom_dataid[g];
  if (id < 0 || id >= m->nmesh)
    fail_shape(geom_label(m, g) + " (mesh): geom_dataid = " + std::to_string(id) + " names no mesh");
  const int nv = m->mesh_vertnum[id], nf = m->mesh_facenum[id];
  if (nv < 3 || nf < 1)
    fail_shape(geom_label(m, g) + " (" + named(m, mjOBJ_MESH, id, "mesh") + "): " + std::to_string(nv) +
               " vertices and " + std::to_string(nf) + " faces: nothing to render");
  Mesh mesh;
  const float* v = m->mesh_vert + 3 * static_cast<size_t>(m->mesh_vertadr[id]);
  mesh.vertices.assign(v, v + 3 * static_cast<size_t>(nv));
  const int* f = m->mesh_face + 3 * static_cast<size_t>(m->mesh_faceadr[id]);
  mesh.indices.resize(3 * static_cast<size_t>(nf));
  for (size_t i = 0; i < mesh.indices.size(); ++i) {
    if (f[i] < 0 || f[i] >= nv)
      fail_shape(geom_label(m, g) + " (mesh): face " + std::to_string(i / 3) + " names vertex " + std::to_string(f[i]) +
                 " of " + std::to_string(nv));
    mesh.indices[i] = static_cast<uint32_t>(f[i]);
  }
  return mesh;
}

struct HfieldParams {
  int id, nrow, ncol;
  const mjtNum* size;  // x, y, z_top, z_bottom (hfield_size)
  const float* data;   // nrow x ncol, row r at y, column c at x (hfield_data)
};
HfieldParams hfield_params(const mjModel* m, int g) {
  const int id = m->geom_dataid[g];
  if (id < 0 || id >= m->nhfield)
    fail_shape(geom_label(m, g) + " (hfield): geom_dataid = " + std::to_string(id) + " names no hfield");
  HfieldParams p{id, m->hfield_nrow[id], m->hfield_ncol[id], m->hfield_size + 4 * id,
                 m->hfield_data + m->hfield_adr[id]};
  if (p.nrow < 2 || p.ncol < 2)
    fail_shape(geom_label(m, g) + " (" + named(m, mjOBJ_HFIELD, id, "hfield") + "): " + std::to_string(p.nrow) + " x " +
               std::to_string(p.ncol) + " samples: needs 2 x 2 at least");
  return p;
}

// The heightfield as wr.h triangulates it (wr_scene_create_heightfield's vertices and triangles,
// with MuJoCo's parameterisation: origin (-size[0], -size[1], 0), spacing 2 size / (n - 1),
// z_scale size[2], base_depth size[3]), in double in the geom's frame: what mj_rayHfield
// intersects (its two triangles per cell split along the same diagonal, its side walls down to
// its base box).
Mesh hfield_mesh(const mjModel* m, int g) {
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

double default_plane_half_extent(const mjModel* m, const SceneOptions& o) {
  if (o.plane_half_extent > 0) return o.plane_half_extent;
  const double e = static_cast<double>(m->vis.map.zfar) * m->stat.extent;
  return e > 0 && std::isfinite(e) ? e : 1000.0;
}

void check_options(const SceneOptions& o, const char* where) {
  if (!(o.tolerance > 0.0) || !std::isfinite(o.tolerance))
    fail(where, "options.tolerance = " + num(o.tolerance) + ": must be finite and > 0 (metres)");
  if (!(o.plane_half_extent >= 0.0) || !std::isfinite(o.plane_half_extent))
    fail(where,
         "options.plane_half_extent = " + num(o.plane_half_extent) + ": must be finite and >= 0 (0: from the model)");
}

Mesh shape_of(const mjModel* m, int g, const SceneOptions& o, double* deviation) {
  *deviation = 0.0;
  const mjtNum* s = m->geom_size + 3 * g;
  const std::string where = geom_label(m, g);
  switch (m->geom_type[g]) {
    case mjGEOM_MESH: return model_mesh(m, g);
    case mjGEOM_HFIELD: return hfield_mesh(m, g);
    case mjGEOM_BOX:
      require_positive(m, g, "size[0]", s[0]);
      require_positive(m, g, "size[1]", s[1]);
      require_positive(m, g, "size[2]", s[2]);
      return box_mesh(s[0], s[1], s[2]);
    case mjGEOM_PLANE: {
      // mj_ray (ray_plane) bounds a plane to |x| <= size[0], |y| <= size[1] where those are > 0.
      const double e = default_plane_half_extent(m, o);
      return plane_mesh(s[0] > 0 ? s[0] : e, s[1] > 0 ? s[1] : e);
    }
    case mjGEOM_SPHERE:
      require_positive(m, g, "size[0] (radius)", s[0]);
      return ellipsoid_mesh(s[0], s[0], s[0], o.tolerance, where, deviation);
    case mjGEOM_ELLIPSOID:
      require_positive(m, g, "size[0]", s[0]);
      require_positive(m, g, "size[1]", s[1]);
      require_positive(m, g, "size[2]", s[2]);
      return ellipsoid_mesh(s[0], s[1], s[2], o.tolerance, where, deviation);
    case mjGEOM_CAPSULE:
      require_positive(m, g, "size[0] (radius)", s[0]);
      if (!(s[1] >= 0.0) || !std::isfinite(s[1]))
        fail_shape(geom_label(m, g) + " (capsule): size[1] (half-length) = " + num(s[1]) + ": must be finite and >= 0");
      return capsule_mesh(s[0], s[1], o.tolerance, where, deviation);
    case mjGEOM_CYLINDER:
      require_positive(m, g, "size[0] (radius)", s[0]);
      require_positive(m, g, "size[1] (half-height)", s[1]);
      return cylinder_mesh(s[0], s[1], o.tolerance, where, deviation);
    case mjGEOM_SDF:
      fail_shape(geom_label(m, g) +
                 " is of type sdf (a signed distance field of a plugin): not supported "
                 "(SceneOptions::skip_unsupported leaves such geoms out)");
    default:
      fail_shape(geom_label(m, g) + ": geom_type = " + std::to_string(m->geom_type[g]) + " is no geom type (mjtGeom)");
  }
}

// The shape of geom g (wr_mujoco.h), errors named as `caller`'s.
Mesh build_geom_mesh(const mjModel* m, int g, const SceneOptions& o, double* deviation, const char* caller) {
  try {
    return shape_of(m, g, o, deviation);
  } catch (const ShapeError& e) {
    fail(caller, e.what());
  }
}

void check_model(const mjModel* m, const char* where) {
  if (!m) fail(where, "m is NULL");
}

void check_geom(const mjModel* m, int g, const char* where) {
  if (g < 0 || g >= m->ngeom)
    fail(where, "geom " + std::to_string(g) + " is out of range: the model has " + std::to_string(m->ngeom) + " geoms");
}

// mj_ray's visibility (engine_ray.c, ray_eliminate): transparent geoms and geoms of a group that
// is off are not seen; with flg_static = 1 static geoms are seen.
bool seen_by_mj_ray(const mjModel* m, int g, const SceneOptions& o) {
  const int mat = m->geom_matid[g];
  if (mat < 0 && m->geom_rgba[4 * g + 3] == 0) return false;
  if (mat >= 0 && m->mat_rgba[4 * mat + 3] == 0) return false;
  const int group = std::min(mjNGROUP - 1, std::max(0, m->geom_group[g]));
  return o.geomgroup[group] != 0;
}

bool is_static(const mjModel* m, int g) { return m->body_weldid[m->geom_bodyid[g]] == 0; }

// w x y z of the rotation whose row-major matrix is mat.
void pose_from(const mjtNum pos[3], const mjtNum mat[9], float* out) {
  mjtNum q[4];
  mju_mat2Quat(q, mat);
  for (int i = 0; i < 3; ++i) out[i] = static_cast<float>(pos[i]);
  for (int i = 0; i < 4; ++i) out[3 + i] = static_cast<float>(q[i]);
}

struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

}  // namespace

Mesh geom_mesh(const mjModel* m, int geom, const SceneOptions& options) {
  check_model(m, "geom_mesh");
  check_geom(m, geom, "geom_mesh");
  check_options(options, "geom_mesh");
  double deviation;
  return build_geom_mesh(m, geom, options, &deviation, "geom_mesh");
}

double geom_mesh_deviation(const mjModel* m, int geom, const SceneOptions& options) {
  check_model(m, "geom_mesh_deviation");
  check_geom(m, geom, "geom_mesh_deviation");
  check_options(options, "geom_mesh_deviation");
  double deviation;
  build_geom_mesh(m, geom, options, &deviation, "geom_mesh_deviation");
  return deviation;
}

BatchOutputs request_batch_outputs(mjBatch* b) {
  if (!b) fail("request_batch_outputs", "b is NULL");
  const mjModel* m = mjb_model(b);
  BatchOutputs out;
  out.nsim = mjb_nsim(b);
  const auto get = [&](const char* field, int expected) -> const mjtNum* {
    int size = -1, elemsize = -1;
    void* p = mjb_output(b, field, &size, &elemsize);
    if (!p) fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") returned NULL");
    if (size != expected || elemsize != static_cast<int>(sizeof(mjtNum)))
      fail("request_batch_outputs", std::string("mjb_output(b, \"") + field + "\") has size " + std::to_string(size) +
                                        " of " + std::to_string(elemsize) + " bytes: expected " +
                                        std::to_string(expected) + " of " + std::to_string(sizeof(mjtNum)));
    return static_cast<const mjtNum*>(p);
  };
  if (m->ngeom > 0) {
    out.geom_xpos = get("geom_xpos", 3 * m->ngeom);
    out.geom_xmat = get("geom_xmat", 9 * m->ngeom);
  }
  if (m->ncam > 0) {
    out.cam_xpos = get("cam_xpos", 3 * m->ncam);
    out.cam_xmat = get("cam_xmat", 9 * m->ncam);
  }
  return out;
}

// ---- Scene ----

Scene::Scene(Scene&& o) noexcept { *this = std::move(o); }

Scene& Scene::operator=(Scene&& o) noexcept {
  if (this != &o) {
    wr_scene_release(scene_);
    scene_ = std::exchange(o.scene_, nullptr);
    num_prototypes_ = o.num_prototypes_;
    num_static_geoms_ = o.num_static_geoms_;
    num_terrain_triangles_ = o.num_terrain_triangles_;
    ngeom_ = o.ngeom_;
    nbody_ = o.nbody_;
    slots_ = std::move(o.slots_);
    body_group_ = std::move(o.body_group_);
    body_overflow_ = std::move(o.body_overflow_);
    body_has_static_ = std::move(o.body_has_static_);
    skipped_ = std::move(o.skipped_);
  }
  return *this;
}

Scene::~Scene() { wr_scene_release(scene_); }

uint32_t Scene::body_group(int body) const {
  if (body < 0 || body >= nbody_)
    fail("Scene::body_group",
         "body " + std::to_string(body) + " is out of range: the model has " + std::to_string(nbody_) + " bodies");
  return body_group_[body];
}

Scene Scene::build(wr_context ctx, const mjModel* m, const SceneOptions& options) {
  const char* where = "Scene::build";
  check_model(m, where);
  if (!ctx) fail(where, "ctx is NULL");
  check_options(options, where);

  Scene scene;
  scene.ngeom_ = m->ngeom;
  scene.nbody_ = m->nbody;
  scene.body_group_.assign(m->nbody, 0);
  scene.body_overflow_.assign(m->nbody, 0);
  scene.body_has_static_.assign(m->nbody, 0);
  // Groups 1..31 to the moving bodies that carry cameras, by lowest camera id (wr_mujoco.h).
  uint32_t next_group = 1;
  for (int c = 0; c < m->ncam; ++c) {
    const int b = m->cam_bodyid[c];
    if (m->body_weldid[b] == 0 || scene.body_group_[b] != 0 || scene.body_overflow_[b]) continue;
    if (next_group < 32)
      scene.body_group_[b] = next_group++;
    else
      scene.body_overflow_[b] = 1;
  }

  // Static geoms are posed at qpos0 (they do not move with qpos: their bodies are welded to the world).
  std::unique_ptr<mjData, DataDeleter> d(mj_makeData(m));
  if (!d) fail(where, "mj_makeData failed (out of memory?)");
  mj_kinematics(m, d.get());

  std::vector<float> terrain_vertices;
  std::vector<uint32_t> terrain_indices;
  struct Prototype {
    Mesh mesh;
    int hfield_geom = -1;  // >= 0: made by wr_scene_create_heightfield from this geom's hfield
  };
  std::vector<Prototype> prototypes;
  std::map<std::tuple<int, int, double, double, double>, uint32_t> prototype_of;

  for (int g = 0; g < m->ngeom; ++g) {
    if (!seen_by_mj_ray(m, g, options)) continue;
    const int type = m->geom_type[g];
    if (type == mjGEOM_SDF && options.skip_unsupported) {
      scene.skipped_.push_back(geom_label(m, g) + ": type sdf is not supported, skipped");
      continue;
    }
    const bool fixed = is_static(m, g);
    if (fixed) {
      double deviation;
      const Mesh mesh = build_geom_mesh(m, g, options, &deviation, where);
      const mjtNum* p = d->geom_xpos + 3 * g;
      const mjtNum* r = d->geom_xmat + 9 * g;
      const uint64_t base = terrain_vertices.size() / 3;
      if (base + mesh.vertices.size() / 3 > UINT32_MAX)
        fail(where, geom_label(m, g) + ": the terrain would have more than 2^32 - 1 vertices");
      for (size_t i = 0; i < mesh.vertices.size(); i += 3) {
        const double* v = &mesh.vertices[i];
        for (int k = 0; k < 3; ++k) {
          const float w = static_cast<float>(p[k] + r[3 * k] * v[0] + r[3 * k + 1] * v[1] + r[3 * k + 2] * v[2]);
          if (!std::isfinite(w)) fail(where, geom_label(m, g) + ": a vertex in the world is not finite as a float");
          terrain_vertices.push_back(w);
        }
      }
      for (uint32_t i : mesh.indices) terrain_indices.push_back(static_cast<uint32_t>(base) + i);
      scene.num_static_geoms_++;
      scene.body_has_static_[m->geom_bodyid[g]] = 1;
      continue;
    }
    // Moving: a slot, its prototype shared by geoms of the same shape.
    const mjtNum* s = m->geom_size + 3 * g;
    const int dataid = (type == mjGEOM_MESH || type == mjGEOM_HFIELD) ? m->geom_dataid[g] : -1;
    const auto key = std::make_tuple(type, dataid, s[0], s[1], s[2]);
    auto it = prototype_of.find(key);
    if (it == prototype_of.end()) {
      Prototype proto;
      if (type == mjGEOM_HFIELD) {
        try {
          hfield_params(m, g);  // checked here, made below
        } catch (const ShapeError& e) {
          fail(where, e.what());
        }
        proto.hfield_geom = g;
      } else {
        double deviation;
        proto.mesh = build_geom_mesh(m, g, options, &deviation, where);
      }
      it = prototype_of.emplace(key, static_cast<uint32_t>(prototypes.size())).first;
      prototypes.push_back(std::move(proto));
    }
    const int body = m->geom_bodyid[g];
    scene.slots_.push_back(Slot{g, body, it->second, scene.body_group_[body]});
  }
  if (scene.slots_.size() > 65536)
    fail(where, "the model has " + std::to_string(scene.slots_.size()) +
                    " moving geoms seen: an instanced scene takes at most 65536 per env");

  if (terrain_indices.empty()) {
    // wr_scene_create needs a triangle; a zero-area one is never hit (wr.h).
    terrain_vertices.assign(9, 0.0f);
    terrain_indices = {0, 1, 2};
  }
  scene.num_terrain_triangles_ = terrain_indices.size() / 3;
  wr_scene terrain = nullptr;
  check(wr_scene_create(ctx, terrain_vertices.data(), terrain_vertices.size() / 3, terrain_indices.data(),
                        terrain_indices.size() / 3, &terrain),
        where, "wr_scene_create (the terrain: " + std::to_string(scene.num_static_geoms_) + " static geoms)");
  if (scene.slots_.empty()) {
    scene.scene_ = terrain;
    return scene;
  }

  std::vector<wr_scene> handles(prototypes.size(), nullptr);
  const auto release_all = [&]() {
    for (wr_scene h : handles) wr_scene_release(h);
    wr_scene_release(terrain);
  };
  try {
    for (size_t i = 0; i < prototypes.size(); ++i) {
      const Prototype& proto = prototypes[i];
      if (proto.hfield_geom >= 0) {
        const int g = proto.hfield_geom;
        const HfieldParams p = hfield_params(m, g);  // checked above
        wr_heightfield_desc hd;
        wr_heightfield_desc_init(&hd);
        hd.heights = p.data;
        hd.num_x = static_cast<uint32_t>(p.ncol);
        hd.num_y = static_cast<uint32_t>(p.nrow);
        hd.layout = WR_HEIGHTFIELD_X_FASTEST;  // hfield_data: row r (y) after row, column c (x) fastest
        hd.spacing_x = static_cast<float>(2.0 * p.size[0] / (p.ncol - 1));
        hd.spacing_y = static_cast<float>(2.0 * p.size[1] / (p.nrow - 1));
        hd.z_scale = static_cast<float>(p.size[2]);
        hd.origin[0] = static_cast<float>(-p.size[0]);
        hd.origin[1] = static_cast<float>(-p.size[1]);
        hd.origin[2] = 0.0f;
        hd.base_depth = static_cast<float>(p.size[3]);
        check(wr_scene_create_heightfield(ctx, &hd, &handles[i]), where,
              "wr_scene_create_heightfield (the prototype of " + geom_label(m, g) + ")");
      } else {
        std::vector<float> v(proto.mesh.vertices.begin(), proto.mesh.vertices.end());
        for (float x : v)
          if (!std::isfinite(x)) fail(where, "prototype " + std::to_string(i) + ": a vertex is not finite as a float");
        check(wr_scene_create(ctx, v.data(), v.size() / 3, proto.mesh.indices.data(), proto.mesh.indices.size() / 3,
                              &handles[i]),
              where, "wr_scene_create (prototype " + std::to_string(i) + ")");
      }
    }
    std::vector<uint32_t> slot_prototypes, slot_groups;
    for (const Slot& s : scene.slots_) {
      slot_prototypes.push_back(s.prototype);
      slot_groups.push_back(s.group);
    }
    wr_instanced_scene_desc desc;
    wr_instanced_scene_desc_init(&desc);
    desc.terrain = terrain;
    desc.prototypes = handles.data();
    desc.num_prototypes = static_cast<uint32_t>(handles.size());
    desc.slot_prototypes = slot_prototypes.data();
    desc.slot_groups = slot_groups.data();
    desc.num_slots = static_cast<uint32_t>(slot_prototypes.size());
    check(wr_scene_create_instanced(ctx, &desc, &scene.scene_), where, "wr_scene_create_instanced");
  } catch (...) {
    release_all();
    throw;
  }
  release_all();  // the instanced scene keeps what it needs
  scene.num_prototypes_ = static_cast<uint32_t>(prototypes.size());
  return scene;
}

void Scene::fill_instance_poses(const mjData* d, float* out) const {
  if (!d) fail("Scene::fill_instance_poses", "d is NULL");
  if (!out && !slots_.empty()) fail("Scene::fill_instance_poses", "out is NULL");
  for (size_t i = 0; i < slots_.size(); ++i) {
    const int g = slots_[i].geom;
    pose_from(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, out + 7 * i);
  }
}

void Scene::fill_instance_poses_batch(const mjtNum* geom_xpos, const mjtNum* geom_xmat, int nsim, float* out) const {
  const char* where = "Scene::fill_instance_poses_batch";
  if (nsim < 0) fail(where, "nsim = " + std::to_string(nsim) + ": must be >= 0");
  if (slots_.empty() || nsim == 0) return;
  if (!geom_xpos) fail(where, "geom_xpos is NULL");
  if (!geom_xmat) fail(where, "geom_xmat is NULL");
  if (!out) fail(where, "out is NULL");
  const size_t n = slots_.size();
  for (int e = 0; e < nsim; ++e) {
    const mjtNum* xpos = geom_xpos + size_t(e) * 3 * ngeom_;
    const mjtNum* xmat = geom_xmat + size_t(e) * 9 * ngeom_;
    for (size_t i = 0; i < n; ++i) {
      const int g = slots_[i].geom;
      pose_from(xpos + 3 * g, xmat + 9 * g, out + 7 * (size_t(e) * n + i));
    }
  }
}

void Scene::fill_instance_poses_batch(const BatchOutputs& b, float* out) const {
  fill_instance_poses_batch(b.geom_xpos, b.geom_xmat, b.nsim, out);
}

// ---- Camera ----

Camera Camera::from_model(const mjModel* m, const Scene& scene, const char* name, const CameraOptions& options) {
  check_model(m, "Camera::from_model");
  if (!name) fail("Camera::from_model", "name is NULL");
  const int id = mj_name2id(m, mjOBJ_CAMERA, name);
  if (id < 0) {
    std::string have;
    for (int c = 0; c < m->ncam; ++c) {
      const char* n = mj_id2name(m, mjOBJ_CAMERA, c);
      have += (c ? ", " : "") + (n && *n ? "'" + std::string(n) + "'" : "camera " + std::to_string(c) + " (unnamed)");
    }
    fail("Camera::from_model", "no camera named '" + std::string(name) + "' in the model (it has " +
                                   std::to_string(m->ncam) + (m->ncam == 1 ? " camera" : " cameras") +
                                   (m->ncam ? ": " + have : "") + ")");
  }
  return from_model(m, scene, id, options);
}

Camera Camera::from_model(const mjModel* m, const Scene& scene, int id, const CameraOptions& o) {
  const char* where = "Camera::from_model";
  check_model(m, where);
  if (id < 0 || id >= m->ncam)
    fail(where,
         "camera " + std::to_string(id) + " is out of range: the model has " + std::to_string(m->ncam) + " cameras");
  if (scene.ngeom_ != m->ngeom || scene.nbody_ != m->nbody)
    fail(where, "the scene was built from another model (" + std::to_string(scene.ngeom_) + " geoms, " +
                    std::to_string(scene.nbody_) + " bodies; this one has " + std::to_string(m->ngeom) + ", " +
                    std::to_string(m->nbody) + ")");
  const std::string label = camera_label(m, id);
  Camera cam;
  cam.id = id;
  const char* n = mj_id2name(m, mjOBJ_CAMERA, id);
  cam.name = n ? n : "";
  cam.body = m->cam_bodyid[id];
  cam.ncam_ = m->ncam;
  if (m->cam_projection[id] != mjPROJ_PERSPECTIVE)
    fail(where, label + ": orthographic projection is not supported (the library renders pinhole cameras)");

  if ((o.width == 0) != (o.height == 0))
    fail(where, label + ": options.width = " + std::to_string(o.width) + ", options.height = " +
                    std::to_string(o.height) + ": give both, or neither for the camera's resolution");
  const int width = o.width ? static_cast<int>(o.width) : m->cam_resolution[2 * id];
  const int height = o.height ? static_cast<int>(o.height) : m->cam_resolution[2 * id + 1];
  if (width < 1 || height < 1)
    fail(where,
         label + ": resolution " + std::to_string(width) + " x " + std::to_string(height) + ": must be positive");

  wr_camera_desc& desc = cam.desc;
  std::memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.width = static_cast<uint32_t>(width);
  desc.height = static_cast<uint32_t>(height);
  const float* sensorsize = m->cam_sensorsize + 2 * id;
  const float* intrinsic = m->cam_intrinsic + 4 * id;
  double fx, fy, cx, cy;
  if (sensorsize[0] > 0 && sensorsize[1] > 0) {
    // focal / sensorsize / principal (XMLreference camera/sensorsize: fovy is then ignored). The
    // principal offset moves the optical axis p_x left and p_y up of the image centre, as the
    // renderer's frustum does (wr_mujoco.h).
    if (!(intrinsic[0] > 0) || !(intrinsic[1] > 0))
      fail(where, label + ": focal length (cam_intrinsic[0..1]) = " + num(intrinsic[0]) + ", " + num(intrinsic[1]) +
                      ": must be > 0 with a sensorsize");
    fx = double(intrinsic[0]) / sensorsize[0] * width;
    fy = double(intrinsic[1]) / sensorsize[1] * height;
    cx = 0.5 * width - double(intrinsic[2]) / sensorsize[0] * width;
    cy = 0.5 * height - double(intrinsic[3]) / sensorsize[1] * height;
  } else {
    // fovy: the vertical field of view in degrees (XMLreference camera/fovy), square pixels.
    const double fovy = m->cam_fovy[id];
    if (!(fovy > 0 && fovy < 180)) fail(where, label + ": fovy = " + num(fovy) + " degrees: must be in (0, 180)");
    fy = 0.5 * height / std::tan(fovy * kPi / 360.0);
    fx = fy;
    cx = 0.5 * width;
    cy = 0.5 * height;
  }
  desc.fx = static_cast<float>(fx);
  desc.fy = static_cast<float>(fy);
  desc.cx = static_cast<float>(cx);
  desc.cy = static_cast<float>(cy);
  desc.near_clip = o.near_clip;
  desc.far_clip = o.far_clip;
  desc.miss_value = o.miss_value;
  desc.depth_kind = o.depth_kind;
  desc.quat_order = WR_QUAT_WXYZ;  // mount all zero: the identity

  if (o.exclude_own_body) {
    const int b = cam.body;
    if (scene.body_group_[b] != 0) {
      cam.exclude_groups = 1u << scene.body_group_[b];
    } else if (scene.body_overflow_[b]) {
      fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                      " is past the 31st moving body with a camera, and has no group of its own (wr_mujoco.h)");
    } else if (scene.body_has_static_[b]) {
      fail(where, label + ": exclude_own_body: its " + body_label(m, b) +
                      " is welded to the world, and its geoms are part of the terrain, which cannot be excluded");
    }
    // else: a static body without geoms seen: there is nothing to exclude.
  }
  return cam;
}

wr_sensor_options Camera::sensor_options() const {
  wr_sensor_options opts;
  wr_sensor_options_init(&opts);
  opts.exclude_groups = exclude_groups;
  return opts;
}

namespace {
// The library's camera frame from MuJoCo's: forward = -cam_z, left = -cam_x, up = +cam_y.
void camera_pose(const mjtNum pos[3], const mjtNum xmat[9], float* out) {
  mjtNum r[9];
  for (int i = 0; i < 3; ++i) {
    r[3 * i + 0] = -xmat[3 * i + 2];
    r[3 * i + 1] = -xmat[3 * i + 0];
    r[3 * i + 2] = xmat[3 * i + 1];
  }
  pose_from(pos, r, out);
}
}  // namespace

void Camera::fill_pose(const mjData* d, float* out) const {
  if (!d) fail("Camera::fill_pose", "d is NULL");
  if (!out) fail("Camera::fill_pose", "out is NULL");
  camera_pose(d->cam_xpos + 3 * id, d->cam_xmat + 9 * id, out);
}

void Camera::fill_pose_batch(const mjtNum* cam_xpos, const mjtNum* cam_xmat, int nsim, float* out) const {
  const char* where = "Camera::fill_pose_batch";
  if (nsim < 0) fail(where, "nsim = " + std::to_string(nsim) + ": must be >= 0");
  if (nsim == 0) return;
  if (!cam_xpos) fail(where, "cam_xpos is NULL");
  if (!cam_xmat) fail(where, "cam_xmat is NULL");
  if (!out) fail(where, "out is NULL");
  for (int e = 0; e < nsim; ++e)
    camera_pose(cam_xpos + size_t(e) * 3 * ncam_ + 3 * id, cam_xmat + size_t(e) * 9 * ncam_ + 9 * id,
                out + 7 * size_t(e));
}

void Camera::fill_pose_batch(const BatchOutputs& b, float* out) const {
  fill_pose_batch(b.cam_xpos, b.cam_xmat, b.nsim, out);
}

}  // namespace wr_mujoco
