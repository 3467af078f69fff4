#include "sensor/ray_pattern.h"

#include <cmath>
#include <cstring>
#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"

namespace wr {
namespace {

std::string dnum(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// An enum field a C caller may have set to any int.
template <class E>
int enum_int(const E& e) {
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

void require_enum(const char* function, const char* field, int v, int hi, const char* names) {
  if (v < 0 || v > hi) bad_field(function, field, "= " + std::to_string(v) + ": must be one of " + names);
}

void require_finite(const char* function, const std::string& field, double v) {
  if (!std::isfinite(v)) bad_field(function, field, "= " + dnum(v) + ": must be finite");
}

void require_ray_count(const char* function, const char* what, uint64_t n) {
  if (n == 0) bad_field(function, what, "gives no ray: a pattern needs at least one");
  if (n > kMaxPatternRays) bad_field(function, what, "gives " + std::to_string(n) + " rays: at most 2^26 per pattern");
}

// A direction normalised in double, rounded once; `field` names it where it is zero or not finite.
void unit(const char* function, const std::string& field, const double d[3], double out[3]) {
  for (int i = 0; i < 3; ++i) require_finite(function, field + "[" + std::to_string(i) + "]", d[i]);
  const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(n > 0.0)) bad_field(function, field, "is (0, 0, 0): a direction must not be zero");
  for (int i = 0; i < 3; ++i) out[i] = d[i] / n;
}

void push(RayPattern* p, const double s[3], const double d[3]) {
  for (int i = 0; i < 3; ++i) {
    p->starts.push_back(static_cast<float>(s[i]));
    p->directions.push_back(static_cast<float>(d[i]));
  }
}

RayPattern grid(const char* function, const wr_pattern_desc& d) {
  for (int i = 0; i < 2; ++i) {
    const std::string f = "desc->grid_size[" + std::to_string(i) + "]";
    require_length_field(function, f, d.grid_size[i]);
    if (d.grid_size[i] < 0.0) bad_field(function, f, "= " + dnum(d.grid_size[i]) + ": must be >= 0");
  }
  if (!(std::isfinite(d.grid_resolution) && d.grid_resolution > 0.0))
    bad_field(function, "desc->grid_resolution", "= " + dnum(d.grid_resolution) + ": must be finite and > 0");
  const int ordering = enum_int(d.grid_ordering), rule = enum_int(d.grid_count_rule), plane = enum_int(d.grid_plane);
  require_enum(function, "desc->grid_ordering", ordering, WR_GRID_IJ, "WR_GRID_XY, WR_GRID_IJ");
  require_enum(function, "desc->grid_count_rule", rule, WR_GRID_COUNT_MJLAB,
               "WR_GRID_COUNT_ISAACLAB, WR_GRID_COUNT_MJLAB");
  require_enum(function, "desc->grid_plane", plane, WR_GRID_PLANE_NORMAL, "WR_GRID_PLANE_XY, WR_GRID_PLANE_NORMAL");
  const double raw[3] = {d.grid_direction[0], d.grid_direction[1], d.grid_direction[2]};
  double dir[3];
  unit(function, "desc->grid_direction", raw, dir);
  const uint64_t nx = grid_side_count(d.grid_size[0], d.grid_resolution, rule);
  const uint64_t ny = grid_side_count(d.grid_size[1], d.grid_resolution, rule);
  require_ray_count(function, "desc->grid_size / grid_resolution",
                    nx * ny > kMaxPatternRays ? kMaxPatternRays + 1ull : nx * ny);
  // The plane's axes: the frame's x and y, or (WR_GRID_PLANE_NORMAL) +X (+Z where the direction is
  // along X) made normal to the direction, and that cross the direction.
  double e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0};
  if (plane == WR_GRID_PLANE_NORMAL) {
    const double a[3] = {std::fabs(dir[0]) > 1.0 - 1e-9 ? 0.0 : 1.0, 0.0, std::fabs(dir[0]) > 1.0 - 1e-9 ? 1.0 : 0.0};
    const double ad = a[0] * dir[0] + a[1] * dir[1] + a[2] * dir[2];
    double m[3] = {a[0] - ad * dir[0], a[1] - ad * dir[1], a[2] - ad * dir[2]};
    const double n = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    for (int i = 0; i < 3; ++i) e1[i] = m[i] / n;
    e2[0] = e1[1] * dir[2] - e1[2] * dir[1];
    e2[1] = e1[2] * dir[0] - e1[0] * dir[2];
    e2[2] = e1[0] * dir[1] - e1[1] * dir[0];
  }
  RayPattern p;
  p.starts.reserve(nx * ny * 3);
  p.directions.reserve(nx * ny * 3);
  const double x0 = -d.grid_size[0] / 2, y0 = -d.grid_size[1] / 2, step = d.grid_resolution;
  const uint64_t outer = ordering == WR_GRID_XY ? ny : nx, inner = ordering == WR_GRID_XY ? nx : ny;
  for (uint64_t a = 0; a < outer; ++a)
    for (uint64_t b = 0; b < inner; ++b) {
      const uint64_t i = ordering == WR_GRID_XY ? b : a, j = ordering == WR_GRID_XY ? a : b;
      // torch.arange's sample, rounded to float as its float32 tensor holds it
      const double x = static_cast<float>(x0 + step * static_cast<double>(i));
      const double y = static_cast<float>(y0 + step * static_cast<double>(j));
      const double s[3] = {x * e1[0] + y * e2[0], x * e1[1] + y * e2[1], x * e1[2] + y * e2[2]};
      push(&p, s, dir);
    }
  return p;
}

// The k-th of n values evenly from a to b, in double (torch.linspace's values up to its rounding:
// torch computes in float32, from both ends).
double linspace(double a, double b, uint64_t n, uint64_t k) {
  return n == 1 ? a : a + (b - a) * static_cast<double>(k) / static_cast<double>(n - 1);
}

RayPattern spherical(const char* function, const wr_pattern_desc& d) {
  if (d.channels == 0) bad_field(function, "desc->channels", "is 0: a spherical pattern needs at least one");
  if (d.channels > kMaxPatternRays)
    bad_field(function, "desc->channels", "= " + std::to_string(d.channels) + ": at most 2^26 rays per pattern");
  if (!d.vertical_angles) {
    require_finite(function, "desc->vertical_fov[0]", d.vertical_fov[0]);
    require_finite(function, "desc->vertical_fov[1]", d.vertical_fov[1]);
  }
  const double h0 = d.horizontal_fov[0], h1 = d.horizontal_fov[1];
  require_finite(function, "desc->horizontal_fov[0]", h0);
  require_finite(function, "desc->horizontal_fov[1]", h1);
  uint64_t count = d.horizontal_count;
  if (count == 0) {
    if (!(std::isfinite(d.horizontal_resolution) && d.horizontal_resolution > 0.0))
      bad_field(function, "desc->horizontal_resolution",
                "= " + dnum(d.horizontal_resolution) + ": must be finite and > 0 where horizontal_count is 0");
    const double c = std::ceil((h1 - h0) / d.horizontal_resolution) + 1.0;
    if (!(c >= 1.0 && c <= double(kMaxPatternRays) + 1.0))
      bad_field(function, "desc->horizontal_fov",
                "= [" + dnum(h0) + ", " + dnum(h1) + "] at " + dnum(d.horizontal_resolution) +
                    " degrees: must give between 1 and 2^26 azimuths (is the range reversed?)");
    count = static_cast<uint64_t>(c);
  }
  const bool full_circle = std::fabs(std::fabs(h0 - h1) - 360.0) < 1e-6;
  const uint64_t azimuths = full_circle ? count - 1 : count;
  const int order = enum_int(d.spherical_order);
  require_enum(function, "desc->spherical_order", order, WR_SPHERICAL_AZIMUTH_MAJOR,
               "WR_SPHERICAL_CHANNEL_MAJOR, WR_SPHERICAL_AZIMUTH_MAJOR");
  // The count, before anything of its size is allocated or the caller's angles are read.
  const uint64_t n = azimuths * d.channels;
  require_ray_count(function, "desc->channels x the azimuths", n > kMaxPatternRays ? kMaxPatternRays + 1ull : n);
  std::vector<double> elevations(d.channels);
  if (d.vertical_angles) {
    require_element_aligned(function, d.vertical_angles, "desc->vertical_angles");
    for (uint32_t c = 0; c < d.channels; ++c) {
      require_finite(function, "desc->vertical_angles[" + std::to_string(c) + "]", d.vertical_angles[c]);
      elevations[c] = d.vertical_angles[c];
    }
  } else {
    for (uint32_t c = 0; c < d.channels; ++c)
      elevations[c] = linspace(d.vertical_fov[0], d.vertical_fov[1], d.channels, c);
  }
  RayPattern p;
  p.starts.reserve(n * 3);
  p.directions.reserve(n * 3);
  const double deg = 3.14159265358979323846 / 180.0, origin[3] = {0, 0, 0};
  const uint64_t outer = order == WR_SPHERICAL_CHANNEL_MAJOR ? d.channels : azimuths;
  const uint64_t inner = order == WR_SPHERICAL_CHANNEL_MAJOR ? azimuths : d.channels;
  for (uint64_t a = 0; a < outer; ++a)
    for (uint64_t b = 0; b < inner; ++b) {
      const uint64_t c = order == WR_SPHERICAL_CHANNEL_MAJOR ? a : b, h = order == WR_SPHERICAL_CHANNEL_MAJOR ? b : a;
      const double e = elevations[c] * deg, az = linspace(h0, h1, count, h) * deg;
      const double dir[3] = {std::cos(e) * std::cos(az), std::cos(e) * std::sin(az), std::sin(e)};
      push(&p, origin, dir);
    }
  return p;
}

RayPattern table(const char* function, const wr_pattern_desc& d) {
  require_ray_count(function, "desc->table_count", d.table_count);
  require_array(function, d.table_directions, "desc->table_directions");
  if (d.table_starts) require_array(function, d.table_starts, "desc->table_starts");
  RayPattern p;
  p.starts.reserve(uint64_t(d.table_count) * 3);
  p.directions.reserve(uint64_t(d.table_count) * 3);
  for (uint32_t i = 0; i < d.table_count; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    const float* t = d.table_directions + 3ull * i;
    const double raw[3] = {t[0], t[1], t[2]};
    double dir[3], s[3] = {0, 0, 0};
    unit(function, "desc->table_directions" + at, raw, dir);
    if (d.table_starts)
      for (int k = 0; k < 3; ++k) {
        s[k] = d.table_starts[3ull * i + k];
        require_length_field(function, "desc->table_starts" + at + "[" + std::to_string(k) + "]", s[k]);
      }
    push(&p, s, dir);
  }
  return p;
}

RayPattern rosette(const char* function, const wr_pattern_desc& d) {
  if (!(std::isfinite(d.rosette_fov) && d.rosette_fov > 0.0 && d.rosette_fov < 180.0))
    bad_field(function, "desc->rosette_fov", "= " + dnum(d.rosette_fov) + " degrees: must be in (0, 180)");
  require_ray_count(function, "desc->rosette_count", d.rosette_count);
  for (int i = 0; i < 2; ++i)
    require_finite(function, "desc->rosette_revolutions[" + std::to_string(i) + "]", d.rosette_revolutions[i]);
  RayPattern p;
  p.starts.assign(3ull * d.rosette_count, 0.0f);
  p.directions.reserve(3ull * d.rosette_count);
  const double two_pi = 2.0 * 3.14159265358979323846, deg = 3.14159265358979323846 / 180.0;
  const double r = d.rosette_fov / 4.0 * deg;  // each prism's deflection
  for (uint32_t k = 0; k < d.rosette_count; ++k) {
    // the prisms' angles, their revolutions reduced to [0, 1) first so that k x rate stays exact
    const double t0 = two_pi * std::fmod(double(k) * d.rosette_revolutions[0], 1.0);
    const double t1 = two_pi * std::fmod(double(k) * d.rosette_revolutions[1], 1.0);
    const double a = r * (std::cos(t0) + std::cos(t1)), e = r * (std::sin(t0) + std::sin(t1));
    const double dir[3] = {std::cos(e) * std::cos(a), std::cos(e) * std::sin(a), std::sin(e)};
    for (int i = 0; i < 3; ++i) p.directions.push_back(static_cast<float>(dir[i]));
  }
  return p;
}

}  // namespace

uint64_t grid_side_count(double size, double resolution, int rule) {
  const double start = -size / 2;
  const double end = rule == WR_GRID_COUNT_MJLAB ? size / 2 + resolution * 0.5 : size / 2 + 1.0e-9;
  const double n = std::ceil((end - start) / resolution);
  return n > double(kMaxPatternRays) ? uint64_t(kMaxPatternRays) + 1 : static_cast<uint64_t>(n);
}

RayPattern make_ray_pattern(const char* function, const wr_pattern_desc& d) {
  const int kind = enum_int(d.kind);
  require_enum(function, "desc->kind", kind, WR_PATTERN_ROSETTE,
               "WR_PATTERN_GRID, WR_PATTERN_SPHERICAL, WR_PATTERN_TABLE, WR_PATTERN_ROSETTE");
  if (kind == WR_PATTERN_GRID) return grid(function, d);
  if (kind == WR_PATTERN_SPHERICAL) return spherical(function, d);
  if (kind == WR_PATTERN_ROSETTE) return rosette(function, d);
  return table(function, d);
}

}  // namespace wr
