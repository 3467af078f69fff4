// Parkour terrain generator; see parkour_terrain.h for the layout and the guarantees.
//
// Why vertices move (legged_gym's convert_heightfield_to_trimesh, Rudin et al. 2022): a
// heightfield sampled on a grid turns every step into a ramp one cell wide. Where the height
// rises by more than slope_threshold * spacing from a vertex to its neighbour, the lower vertex
// is moved onto the neighbour's x (or y), so that cell stands vertical and the step is a wall.
// Only positions change, never connectivity, so the surface stays one watertight sheet with
// shared vertices. This needs every flat run (a stair tread, a platform, a pit floor) to be at
// least two vertices wide; the option checks below enforce it.
//
// Determinism: all randomness comes from one PCG32 stream per tile (O'Neill 2014, "PCG: A
// Family of Simple Fast Space-Efficient Statistically Good Algorithms for Random Number
// Generation"), seeded by SplitMix64 (Steele, Lea, Flood 2014) from (seed, tile index). Only
// +, -, *, /, sqrt and floor are used (all correctly rounded in IEEE 754), and the build turns
// off FMA contraction, so the same options give the same bytes on every conforming platform.
#include "parkour_terrain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "legged_gym_trimesh.h"
#include "splitmix64.h"

namespace wr {
namespace terrain {

const char* tile_kind_name(TileKind kind) {
  switch (kind) {
    case TileKind::kStairsUp: return "stairs_up";
    case TileKind::kStairsDown: return "stairs_down";
    case TileKind::kSlope: return "slope";
    case TileKind::kGaps: return "gaps";
    case TileKind::kHurdles: return "hurdles";
    case TileKind::kBoxes: return "boxes";
    case TileKind::kRough: return "rough";
  }
  return "unknown";
}

namespace {

using wr_tools::splitmix64;

// PCG32 (XSH RR output), O'Neill 2014. std::mt19937 would be portable too, but the
// std:: distributions are not specified bit for bit, so the conversions are written here.
class Pcg32 {
 public:
  explicit Pcg32(uint64_t seed) : state_(0), inc_((splitmix64(seed ^ 0x5851F42D4C957F2Dull) << 1u) | 1u) {
    next();
    state_ += splitmix64(seed);
    next();
  }
  uint32_t next() {
    const uint64_t old = state_;
    state_ = old * 6364136223846793005ull + inc_;
    const uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }
  /// Uniform in [0, 1) with 24 random bits (exact in float and double).
  double uniform() { return static_cast<double>(next() >> 8) * (1.0 / 16777216.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) (n > 0); the modulo bias is below 2^-20 for the n used here.
  uint32_t below(uint32_t n) { return next() % n; }

 private:
  uint64_t state_;
  uint64_t inc_;
};

[[noreturn]] void bad_option(const std::string& message) { throw std::invalid_argument("parkour terrain: " + message); }

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void require_finite_positive(const char* name, float v) {
  if (!std::isfinite(v) || !(v > 0.0f)) bad_option(std::string(name) + " must be finite and > 0, got " + num(v));
}

void require_range(const char* lo_name, float lo, const char* hi_name, float hi) {
  if (lo > hi)
    bad_option(std::string(lo_name) + " (" + num(lo) + ") must not exceed " + hi_name + " (" + num(hi) + ")");
}

int cells(double length_m, double spacing) { return static_cast<int>(std::lround(length_m / spacing)); }

// Cell counts that every tile shares, derived once from the options.
struct Layout {
  int n = 0;                               // cells along a tile side
  double spacing = 0.0;                    // metres per cell
  double tile = 0.0;                       // metres per tile side
  int margin = 0;                          // flat border, cells
  int half = 0;                            // n / 2: the centre vertex of a tile
  int platform_half = 0;                   // half-side of the central platform of stairs/slope tiles, cells
  int step_width = 0;                      // stair tread, cells (>= 2)
  int start = 0;                           // run-up before gaps/hurdles, cells
  int clear = 0;                           // half-side of the flat square around rough-tile spawns, cells
  int gap_min = 0, gap_max = 0;            // pit width, cells (>= 3)
  int platform_min = 0, platform_max = 0;  // platform between pits, cells (>= 2)
  int num_steps = 0;                       // stairs per stairs tile
  double box_side_max = 0.0;               // footprint side cap so boxes fit between margin and clear square
  double box_side_min = 0.0;
};

constexpr uint64_t kMaxVertices = 50000000ull;  // ~600 MB of vertices: far beyond any sane terrain

Layout make_layout(const TerrainOptions& o) {
  if (o.tiles_x == 0 || o.tiles_y == 0 || o.tiles_x > 65536 || o.tiles_y > 65536)
    bad_option("tiles_x and tiles_y must be in [1, 65536], got " + std::to_string(o.tiles_x) + " x " +
               std::to_string(o.tiles_y));
  if (!std::isfinite(o.tile_size_m) || o.tile_size_m < 4.0f || o.tile_size_m > 64.0f)
    bad_option("tile_size_m must be in [4, 64], got " + num(o.tile_size_m));
  require_finite_positive("resolution_m", o.resolution_m);
  require_finite_positive("slope_threshold", o.slope_threshold);
  require_finite_positive("margin_m", o.margin_m);
  require_finite_positive("platform_size_m", o.platform_size_m);
  require_finite_positive("spawn_clearance_m", o.spawn_clearance_m);
  require_finite_positive("start_length_m", o.start_length_m);
  require_finite_positive("stair_step_height_m", o.stair_step_height_m);
  require_finite_positive("stair_step_width_m", o.stair_step_width_m);
  require_finite_positive("slope_min", o.slope_min);
  require_finite_positive("slope_max", o.slope_max);
  require_finite_positive("gap_width_min_m", o.gap_width_min_m);
  require_finite_positive("gap_width_max_m", o.gap_width_max_m);
  require_finite_positive("gap_depth_m", o.gap_depth_m);
  require_finite_positive("gap_platform_min_m", o.gap_platform_min_m);
  require_finite_positive("gap_platform_max_m", o.gap_platform_max_m);
  require_finite_positive("hurdle_height_min_m", o.hurdle_height_min_m);
  require_finite_positive("hurdle_height_max_m", o.hurdle_height_max_m);
  require_finite_positive("hurdle_thickness_m", o.hurdle_thickness_m);
  require_finite_positive("box_size_min_m", o.box_size_min_m);
  require_finite_positive("box_size_max_m", o.box_size_max_m);
  require_finite_positive("box_height_min_m", o.box_height_min_m);
  require_finite_positive("box_height_max_m", o.box_height_max_m);
  require_finite_positive("rough_amplitude_m", o.rough_amplitude_m);
  require_finite_positive("rough_wavelength_m", o.rough_wavelength_m);
  require_finite_positive("box_sink_m", o.box_sink_m);
  require_range("slope_min", o.slope_min, "slope_max", o.slope_max);
  require_range("gap_width_min_m", o.gap_width_min_m, "gap_width_max_m", o.gap_width_max_m);
  require_range("gap_platform_min_m", o.gap_platform_min_m, "gap_platform_max_m", o.gap_platform_max_m);
  require_range("hurdle_height_min_m", o.hurdle_height_min_m, "hurdle_height_max_m", o.hurdle_height_max_m);
  require_range("box_size_min_m", o.box_size_min_m, "box_size_max_m", o.box_size_max_m);
  require_range("box_height_min_m", o.box_height_min_m, "box_height_max_m", o.box_height_max_m);

  Layout l;
  l.tile = o.tile_size_m;
  const double n_real = l.tile / o.resolution_m;
  if (n_real < 16.0 || n_real > 4096.0)
    bad_option("tile_size_m / resolution_m must be in [16, 4096] cells, got " + num(n_real));
  l.n = static_cast<int>(std::lround(n_real));
  l.spacing = l.tile / l.n;
  l.half = l.n / 2;
  const uint64_t verts = (uint64_t(o.tiles_x) * uint64_t(l.n) + 1) * (uint64_t(o.tiles_y) * uint64_t(l.n) + 1);
  if (verts > kMaxVertices)
    bad_option("the grid would have " + std::to_string(verts) + " vertices, more than " + std::to_string(kMaxVertices) +
               ": use fewer tiles or a coarser resolution_m");

  // Smooth features must stay below the wall threshold, steps above it.
  const double wall = double(o.slope_threshold) * l.spacing;  // height change that makes a wall
  if (o.slope_max >= o.slope_threshold)
    bad_option("slope_max (" + num(o.slope_max) + ") must be below slope_threshold (" + num(o.slope_threshold) + ")");
  const double rough_slope = 2.0 * o.rough_amplitude_m / o.rough_wavelength_m + o.rough_amplitude_m / o.margin_m;
  if (rough_slope >= o.slope_threshold)
    bad_option(
        "rough ground too steep for slope_threshold: 2 * rough_amplitude_m / rough_wavelength_m + "
        "rough_amplitude_m / margin_m = " +
        num(rough_slope) + " must be below " + num(o.slope_threshold));
  if (!(o.stair_step_height_m > wall))
    bad_option("stair_step_height_m (" + num(o.stair_step_height_m) + ") must exceed slope_threshold * spacing (" +
               num(wall) + ") for steps to become walls: use a finer resolution_m");
  if (!(o.gap_depth_m > wall)) bad_option("gap_depth_m must exceed slope_threshold * spacing (" + num(wall) + ")");

  l.margin = std::max(2, cells(o.margin_m, l.spacing));
  l.platform_half = std::max(2, cells(std::min(double(o.platform_size_m), l.tile / 4.0) / 2.0, l.spacing));
  l.step_width = std::max(2, cells(o.stair_step_width_m, l.spacing));
  l.start = std::max(2, cells(std::min(double(o.start_length_m), l.tile / 4.0), l.spacing));
  l.clear = std::max(2, cells(o.spawn_clearance_m, l.spacing));
  l.gap_min = std::max(3, cells(o.gap_width_min_m, l.spacing));
  l.gap_max = std::max(l.gap_min, cells(o.gap_width_max_m, l.spacing));
  l.platform_min = std::max(2, cells(o.gap_platform_min_m, l.spacing));
  l.platform_max = std::max(l.platform_min, cells(o.gap_platform_max_m, l.spacing));
  l.num_steps = (l.half - l.margin - l.platform_half) / l.step_width;
  if (l.num_steps < 1)
    bad_option("no room for stairs: tile_size_m / 2 must exceed margin_m + platform_size_m / 2 + stair_step_width_m");
  if (l.margin + l.start + l.gap_min + l.platform_min > l.n - l.margin)
    bad_option(
        "no room for a gap: tile_size_m must exceed 2 * margin_m + start_length_m + gap_width_min_m + "
        "gap_platform_min_m");
  const double course = (l.n - l.margin - (l.margin + l.start)) * l.spacing;
  if (o.hurdles_per_tile > 0 && course / o.hurdles_per_tile < 2.0 * o.hurdle_thickness_m)
    bad_option("hurdles_per_tile (" + std::to_string(o.hurdles_per_tile) + ") hurdles of hurdle_thickness_m (" +
               num(o.hurdle_thickness_m) + ") do not fit on the tile");
  if (l.clear + l.margin >= l.half) bad_option("spawn_clearance_m + margin_m must be below tile_size_m / 2");
  // A box of half-diagonal r must fit between the margin and the clear square around the spawn:
  // margin + 2 r <= tile / 2 - clearance.
  const double r_max = 0.5 * (l.tile / 2.0 - o.margin_m - o.spawn_clearance_m);
  if (o.boxes_per_tile > 0 && r_max < 0.05)
    bad_option("no room for boxes: tile_size_m / 2 - margin_m - spawn_clearance_m must be at least 0.1");
  l.box_side_max = std::min(double(o.box_size_max_m), r_max * std::sqrt(2.0));
  l.box_side_min = std::min(double(o.box_size_min_m), l.box_side_max);
  if (o.hurdles_per_tile > 1000 || o.boxes_per_tile > 1000)
    bad_option("hurdles_per_tile and boxes_per_tile must be <= 1000");
  return l;
}

// An upright box, possibly yawed: centre (cx, cy), half extents (hx, hy) along its own axes,
// which are rotated by (c, s) = (cos yaw, sin yaw); z from z0 to z1.
struct Box {
  double cx, cy, hx, hy, c, s, z0, z1;
};

// The ground of one tile as a function of the local position (u, v) in cells, [0, n]^2. It is
// sampled at the vertices (the heightfield) and at the cell centres (to choose each cell's
// diagonal, see below). It is 0 within `margin` of the tile border, so neighbouring tiles agree
// on the vertices they share.
struct TileShape {
  TileKind kind = TileKind::kBoxes;
  double sign = 1.0;                      // stairs, slope: +1 up towards the centre, -1 down
  double slope = 0.0;                     // slope: rise over run
  std::vector<std::pair<int, int>> pits;  // gaps: wall pairs (a, b), pit floor strictly between, in x
  std::vector<double> lattice;            // rough: (lattice_n x lattice_n) value-noise heights
  int lattice_n = 0;

  double height(const Layout& l, const TerrainOptions& o, double u, double v) const {
    const double d = std::min(std::min(u, v), std::min(l.n - u, l.n - v));  // Chebyshev distance to the border
    switch (kind) {
      case TileKind::kStairsUp:
      case TileKind::kStairsDown: {
        // Ring k (1..num_steps) holds the points whose distance to the border lies in
        // [margin + (k-1) w, margin + k w); the last ring runs on to the centre (the platform).
        if (d < l.margin) return 0.0;
        const int k = std::min(l.num_steps, static_cast<int>(std::floor((d - l.margin) / l.step_width)) + 1);
        return sign * k * double(o.stair_step_height_m);
      }
      case TileKind::kSlope: {
        const double run = l.half - l.margin - l.platform_half;
        return sign * slope * (std::clamp(d - l.margin, 0.0, run) * l.spacing);
      }
      case TileKind::kGaps:
        if (v <= l.margin || v >= l.n - l.margin) return 0.0;
        for (const auto& pit : pits)
          if (u > pit.first && u < pit.second) return -double(o.gap_depth_m);
        return 0.0;
      case TileKind::kRough: {
        const double gu = u * l.spacing / o.rough_wavelength_m, gv = v * l.spacing / o.rough_wavelength_m;
        const int iu = std::min(lattice_n - 2, static_cast<int>(std::floor(gu)));
        const int iv = std::min(lattice_n - 2, static_cast<int>(std::floor(gv)));
        const double fu = gu - iu, fv = gv - iv;
        const size_t base = size_t(iv) * size_t(lattice_n) + size_t(iu);
        const double noise = (1 - fv) * ((1 - fu) * lattice[base] + fu * lattice[base + 1]) +
                             fv * ((1 - fu) * lattice[base + lattice_n] + fu * lattice[base + lattice_n + 1]);
        const double d_centre = std::max(std::fabs(u - l.half), std::fabs(v - l.half)) - l.clear;
        return noise * std::clamp(std::min(d - l.margin, d_centre) / l.margin, 0.0, 1.0);
      }
      case TileKind::kHurdles:
      case TileKind::kBoxes: return 0.0;  // flat; the obstacles are separate boxes
    }
    return 0.0;
  }
};

struct Spawn {
  int i, j;  // local vertex; its ground is flat for at least two cells around
};

Spawn plan_pyramid(const Layout& l, TileShape& shape, double sign) {
  shape.sign = sign;
  return {l.half, l.half};
}

Spawn plan_slope(const Layout& l, Pcg32& rng, TileShape& shape, const TerrainOptions& o) {
  shape.slope = rng.uniform(o.slope_min, o.slope_max);
  shape.sign = rng.below(2) == 0 ? 1.0 : -1.0;
  return {l.half, l.half};
}

Spawn plan_gaps(const Layout& l, Pcg32& rng, TileShape& shape, const TerrainOptions& o) {
  // Walls stand on the high vertices next to a pit, so a pit of `gw` cells between the
  // walls at i = cur and i = cur + gw has its floor vertices at cur + 1 .. cur + gw - 1 (>= 2).
  const int first_wall = l.margin + l.start;
  const int last_wall = l.n - l.margin - l.platform_min;  // leave a platform before the margin
  int cur = first_wall;
  for (;;) {
    int gw =
        std::max(l.gap_min, std::min(l.gap_max, cells(rng.uniform(o.gap_width_min_m, o.gap_width_max_m), l.spacing)));
    if (cur + gw > last_wall) gw = last_wall - cur;
    if (gw < l.gap_min) break;  // make_layout guarantees the first pit fits
    shape.pits.emplace_back(cur, cur + gw);
    cur += gw;
    cur +=
        std::max(l.platform_min,
                 std::min(l.platform_max, cells(rng.uniform(o.gap_platform_min_m, o.gap_platform_max_m), l.spacing)));
  }
  return {(l.margin + first_wall) / 2, l.half};
}

Spawn plan_hurdles(const Layout& l, Pcg32& rng, const TerrainOptions& o, double x0, double y0,
                   std::vector<Box>& boxes) {
  const int first = l.margin + l.start;
  const double u0 = first * l.spacing, u1 = (l.n - l.margin) * l.spacing;
  const double pitch = (u1 - u0) / std::max<uint32_t>(1, o.hurdles_per_tile);
  const double half_t = 0.5 * o.hurdle_thickness_m;
  const double v0 = l.margin * l.spacing, v1 = (l.n - l.margin) * l.spacing;
  for (uint32_t k = 0; k < o.hurdles_per_tile; ++k) {
    // Jitter within the middle of each pitch so hurdles never touch or leave the course.
    const double jitter = rng.uniform(-0.25, 0.25) * (pitch - o.hurdle_thickness_m);
    const double u = u0 + (k + 0.5) * pitch + jitter;
    const double height = rng.uniform(o.hurdle_height_min_m, o.hurdle_height_max_m);
    boxes.push_back({x0 + u, y0 + 0.5 * (v0 + v1), half_t, 0.5 * (v1 - v0), 1.0, 0.0, -double(o.box_sink_m), height});
  }
  return {(l.margin + first) / 2, l.half};
}

Spawn plan_boxes(const Layout& l, Pcg32& rng, const TerrainOptions& o, double x0, double y0, std::vector<Box>& boxes) {
  const double centre = l.half * l.spacing;
  for (uint32_t k = 0; k < o.boxes_per_tile; ++k) {
    const double sx = rng.uniform(l.box_side_min, l.box_side_max);
    const double sy = rng.uniform(l.box_side_min, l.box_side_max);
    const double height = rng.uniform(o.box_height_min_m, o.box_height_max_m);
    // Yaw in (-90, 90) degrees through the rational parametrisation of the circle, which needs
    // no sin/cos (whose last bits vary between math libraries): t = tan(yaw / 2).
    const double t = rng.uniform(-1.0, 1.0);
    const double c = (1.0 - t * t) / (1.0 + t * t), s = 2.0 * t / (1.0 + t * t);
    const double r = 0.5 * std::sqrt(sx * sx + sy * sy);  // half-diagonal bounds any yaw
    // Centre uniform over the frame between the margin and the clear square around the spawn
    // (both shrunk by r): two strips of b x a (bottom, top) and two of a x 2e (left, right).
    const double lo = o.margin_m + r, hi = l.tile - o.margin_m - r, e = o.spawn_clearance_m + r;
    const double a = std::max(0.0, centre - e - lo), b = hi - lo;
    const double strip_bt = b * a, strip_lr = a * 2.0 * e;
    double pick = rng.uniform() * 2.0 * (strip_bt + strip_lr);
    const double p = rng.uniform(), q = rng.uniform();
    double u, v;
    if (pick < strip_bt) {
      u = lo + p * b, v = lo + q * a;
    } else if ((pick -= strip_bt) < strip_bt) {
      u = lo + p * b, v = centre + e + q * a;
    } else if ((pick -= strip_bt) < strip_lr) {
      u = lo + p * a, v = centre - e + q * 2.0 * e;
    } else {
      u = centre + e + p * a, v = centre - e + q * 2.0 * e;
    }
    boxes.push_back({x0 + u, y0 + v, 0.5 * sx, 0.5 * sy, c, s, -double(o.box_sink_m), height});
  }
  return {l.half, l.half};
}

Spawn plan_rough(const Layout& l, Pcg32& rng, TileShape& shape, const TerrainOptions& o) {
  // Value noise: uniform random heights on a lattice of pitch rough_wavelength_m, bilinearly
  // interpolated (legged_gym's random_uniform_terrain does the same on a coarser grid), faded
  // to 0 over one margin width inside the border and around the flat square at the spawn.
  shape.lattice_n = static_cast<int>(std::floor(l.tile / o.rough_wavelength_m)) + 2;
  shape.lattice.resize(size_t(shape.lattice_n) * size_t(shape.lattice_n));
  for (double& h : shape.lattice) h = rng.uniform(-double(o.rough_amplitude_m), double(o.rough_amplitude_m));
  return {l.half, l.half};
}

void append_box(const Box& b, std::vector<float>& vertices, std::vector<uint32_t>& indices) {
  const uint32_t first = static_cast<uint32_t>(vertices.size() / 3);
  // Corners 0..3 counter-clockwise seen from above at z0, 4..7 above them at z1.
  const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  for (int level = 0; level < 2; ++level) {
    for (int k = 0; k < 4; ++k) {
      const double lu = su[k] * b.hx, lv = sv[k] * b.hy;
      vertices.push_back(static_cast<float>(b.cx + b.c * lu - b.s * lv));
      vertices.push_back(static_cast<float>(b.cy + b.s * lu + b.c * lv));
      vertices.push_back(static_cast<float>(level == 0 ? b.z0 : b.z1));
    }
  }
  // Outward-facing (counter-clockwise seen from outside): bottom, top, four sides.
  static const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  for (const auto& f : faces)
    for (uint32_t corner : f) indices.push_back(first + corner);
}

}  // namespace

TerrainMesh generate_parkour_terrain(const TerrainOptions& options) {
  const Layout l = make_layout(options);
  TerrainMesh mesh;
  mesh.options = options;
  mesh.cells_per_tile = static_cast<uint32_t>(l.n);
  mesh.spacing_m = static_cast<float>(l.spacing);

  const uint32_t num_tiles = options.tiles_x * options.tiles_y;
  const size_t nx = size_t(options.tiles_x) * size_t(l.n), ny = size_t(options.tiles_y) * size_t(l.n);
  const size_t row = nx + 1;

  // Tile kinds: every kind equally often (when there are at least 7 tiles each appears),
  // shuffled by the seed (Fisher-Yates).
  mesh.tile_kinds.resize(num_tiles);
  for (uint32_t t = 0; t < num_tiles; ++t) mesh.tile_kinds[t] = static_cast<TileKind>(t % kNumTileKinds);
  Pcg32 layout_rng(splitmix64(uint64_t(options.seed) ^ 0xA5A5A5A5ull));
  for (uint32_t t = num_tiles; t > 1; --t) std::swap(mesh.tile_kinds[t - 1], mesh.tile_kinds[layout_rng.below(t)]);

  // Heights at the vertices, (ny + 1) x (nx + 1), and at the cell centres, ny x nx, both
  // row-major with y outer. Every tile is 0 on its border, so shared vertices agree.
  std::vector<float>& heights = mesh.heights;
  heights.assign(row * (ny + 1), 0.0f);
  mesh.num_x = static_cast<uint32_t>(row);
  mesh.num_y = static_cast<uint32_t>(ny + 1);
  std::vector<float> centres(nx * ny, 0.0f);
  std::vector<Box> boxes;
  mesh.spawn_points.resize(size_t(num_tiles) * 3);
  for (uint32_t ty = 0; ty < options.tiles_y; ++ty) {
    for (uint32_t tx = 0; tx < options.tiles_x; ++tx) {
      const uint32_t t = ty * options.tiles_x + tx;
      Pcg32 rng(splitmix64((uint64_t(options.seed) << 32) | t));
      const double x0 = tx * l.tile, y0 = ty * l.tile;
      TileShape shape;
      shape.kind = mesh.tile_kinds[t];
      Spawn spawn{l.half, l.half};
      switch (shape.kind) {
        case TileKind::kStairsUp: spawn = plan_pyramid(l, shape, 1.0); break;
        case TileKind::kStairsDown: spawn = plan_pyramid(l, shape, -1.0); break;
        case TileKind::kSlope: spawn = plan_slope(l, rng, shape, options); break;
        case TileKind::kGaps: spawn = plan_gaps(l, rng, shape, options); break;
        case TileKind::kHurdles: spawn = plan_hurdles(l, rng, options, x0, y0, boxes); break;
        case TileKind::kBoxes: spawn = plan_boxes(l, rng, options, x0, y0, boxes); break;
        case TileKind::kRough: spawn = plan_rough(l, rng, shape, options); break;
      }
      const size_t i0 = size_t(tx) * size_t(l.n), j0 = size_t(ty) * size_t(l.n);
      for (int j = 0; j <= l.n; ++j)
        for (int i = 0; i <= l.n; ++i)
          heights[(j0 + j) * row + i0 + i] = static_cast<float>(shape.height(l, options, i, j));
      for (int j = 0; j < l.n; ++j)
        for (int i = 0; i < l.n; ++i)
          centres[(j0 + j) * nx + i0 + i] = static_cast<float>(shape.height(l, options, i + 0.5, j + 0.5));
      // The spawn vertex sits on a flat run at least two cells wide, so it never moves and the
      // surface there is exactly its height.
      mesh.spawn_points[3 * t + 0] = static_cast<float>((i0 + spawn.i) * l.spacing);
      mesh.spawn_points[3 * t + 1] = static_cast<float>((j0 + spawn.j) * l.spacing);
      mesh.spawn_points[3 * t + 2] = heights[(j0 + spawn.j) * row + i0 + spawn.i];
    }
  }

  // Heightfield to mesh with vertical walls (legged_gym convert_heightfield_to_trimesh): a
  // vertex whose +x (-x) neighbour is higher by more than the threshold moves one cell to +x
  // (-x), the same for y; a vertex that moves in neither x nor y but whose (+1, +1) or (-1, -1)
  // diagonal neighbour is that much higher moves onto it, which closes the corners the cell
  // diagonal (i, j)-(i+1, j+1) would otherwise leave sloped.
  const double thr = double(options.slope_threshold) * l.spacing;
  auto hgt = [&](size_t i, size_t j) { return double(heights[j * row + i]); };
  const size_t num_hf_vertices = row * (ny + 1);
  mesh.num_boxes = static_cast<uint32_t>(boxes.size());
  mesh.vertices.reserve((num_hf_vertices + 8 * boxes.size()) * 3);
  for (size_t j = 0; j <= ny; ++j) {
    for (size_t i = 0; i <= nx; ++i) {
      const double z = hgt(i, j);
      const int mx = int(i < nx && hgt(i + 1, j) - z > thr) - int(i > 0 && hgt(i - 1, j) - z > thr);
      const int my = int(j < ny && hgt(i, j + 1) - z > thr) - int(j > 0 && hgt(i, j - 1) - z > thr);
      const int mc =
          int(i < nx && j < ny && hgt(i + 1, j + 1) - z > thr) - int(i > 0 && j > 0 && hgt(i - 1, j - 1) - z > thr);
      const double gx = double(i) + (mx != 0 ? mx : mc), gy = double(j) + (my != 0 ? my : mc);
      mesh.vertices.push_back(static_cast<float>(gx * l.spacing));
      mesh.vertices.push_back(static_cast<float>(gy * l.spacing));
      mesh.vertices.push_back(static_cast<float>(z));
    }
  }
  mesh.num_heightfield_triangles = static_cast<uint32_t>(2 * nx * ny);
  mesh.indices.reserve((size_t(mesh.num_heightfield_triangles) + 12 * boxes.size()) * 3);
  // Each cell is split along one of its diagonals; topology is the same either way (two
  // triangles per cell, all edges shared). legged_gym always takes (i, j)-(i+1, j+1); here a
  // cell takes the other one when that one leaves fewer folded or steep sloped triangles. That
  // happens at the corners the diagonal moves above cannot reach (a pit's (+x, -y) corner, say):
  // there one split gives a small lid over the corner plus a steep sliver folded under it, the
  // other two vertical wall triangles. Between equally good splits the one whose diagonal's
  // midpoint is nearer the ground sampled at the cell centre wins, so creases along either
  // diagonal (the ridges of a pyramid) stay straight instead of zig-zagging.
  const double slope2 = double(options.slope_threshold) * double(options.slope_threshold);
  const double eps_area = 1e-9 * l.spacing * l.spacing;
  auto badness = [&](uint32_t a, uint32_t b, uint32_t c) {
    const float* p = &mesh.vertices[3 * size_t(a)];
    const float* q = &mesh.vertices[3 * size_t(b)];
    const float* r = &mesh.vertices[3 * size_t(c)];
    const double e1[3] = {double(q[0]) - p[0], double(q[1]) - p[1], double(q[2]) - p[2]};
    const double e2[3] = {double(r[0]) - p[0], double(r[1]) - p[1], double(r[2]) - p[2]};
    const double nx_ = e1[1] * e2[2] - e1[2] * e2[1], ny_ = e1[2] * e2[0] - e1[0] * e2[2];
    const double nz_ = e1[0] * e2[1] - e1[1] * e2[0];           // twice the signed area seen from above
    if (nz_ < -eps_area) return 2;                              // faces down: a fold
    if (nz_ <= eps_area) return 0;                              // vertical wall or degenerate
    return nx_ * nx_ + ny_ * ny_ > slope2 * nz_ * nz_ ? 1 : 0;  // steeper than any smooth feature
  };
  for (size_t j = 0; j < ny; ++j) {
    for (size_t i = 0; i < nx; ++i) {
      const uint32_t v00 = static_cast<uint32_t>(j * row + i), v10 = v00 + 1;
      const uint32_t v01 = static_cast<uint32_t>(v00 + row), v11 = v01 + 1;
      // Counter-clockwise seen from above.
      const int main_bad = badness(v00, v10, v11) + badness(v00, v11, v01);
      const int anti_bad = badness(v00, v10, v01) + badness(v10, v11, v01);
      const double c = centres[j * nx + i];
      const bool anti = main_bad != anti_bad ? anti_bad < main_bad
                                             : std::fabs(0.5 * (hgt(i + 1, j) + hgt(i, j + 1)) - c) <
                                                   std::fabs(0.5 * (hgt(i, j) + hgt(i + 1, j + 1)) - c);
      const uint32_t main_tri[6] = {v00, v10, v11, v00, v11, v01};
      const uint32_t anti_tri[6] = {v00, v10, v01, v10, v11, v01};
      const uint32_t* tri = anti ? anti_tri : main_tri;
      mesh.indices.insert(mesh.indices.end(), tri, tri + 6);
    }
  }
  for (const Box& b : boxes) append_box(b, mesh.vertices, mesh.indices);
  return mesh;
}

TerrainMesh legged_gym_mesh(const TerrainMesh& terrain, double vertical_scale) {
  if (!(vertical_scale > 0.0)) bad_option("vertical_scale must be > 0");
  wr_tools::RawField raw{terrain.num_x, terrain.num_y, std::vector<int16_t>(terrain.heights.size())};
  for (uint32_t ix = 0; ix < terrain.num_x; ++ix)
    for (uint32_t iy = 0; iy < terrain.num_y; ++iy) {
      const double units = std::round(double(terrain.heights[size_t(iy) * terrain.num_x + ix]) / vertical_scale);
      if (units < -32768.0 || units > 32767.0)
        bad_option("a height of " + num(terrain.heights[size_t(iy) * terrain.num_x + ix]) +
                   " m does not fit legged_gym's int16 at vertical_scale " + num(vertical_scale));
      raw.h[size_t(ix) * terrain.num_y + iy] = static_cast<int16_t>(units);
    }
  TerrainMesh out;
  out.options = terrain.options;
  out.spawn_points = terrain.spawn_points;
  out.tile_kinds = terrain.tile_kinds;
  out.cells_per_tile = terrain.cells_per_tile;
  out.spacing_m = terrain.spacing_m;
  static_cast<wr_tools::TriangleMesh&>(out) =
      wr_tools::convert_heightfield_to_trimesh(raw, terrain.spacing_m, vertical_scale, terrain.options.slope_threshold);
  out.num_heightfield_triangles = static_cast<uint32_t>(out.indices.size() / 3);
  return out;
}

namespace {

// Formats v with 3 decimals, then drops trailing zeros and a bare '.', and "-0" becomes "0":
// "1.250" -> "1.25", "2.000" -> "2", "-0.000" -> "0". Returns the length written.
int format_coord(float v, char* out) {
  int len = std::snprintf(out, 32, "%.3f", static_cast<double>(v));
  if (len <= 0 || len >= 32) return 0;  // cannot happen for finite |v| < 1e20
  if (std::memchr(out, '.', size_t(len)) != nullptr) {
    while (out[len - 1] == '0') --len;
    if (out[len - 1] == '.') --len;
  }
  if (len == 2 && out[0] == '-' && out[1] == '0') {
    out[0] = '0';
    len = 1;
  }
  out[len] = '\0';
  return len;
}

}  // namespace

void write_obj(const TerrainMesh& mesh, std::ostream& out) {
  const TerrainOptions& o = mesh.options;
  const size_t nv = mesh.num_vertices(), nt = mesh.num_triangles();
  out << "# warp-raycaster parkour terrain (wr-terrain)\n";
  out << "# seed " << o.seed << ", " << o.tiles_x << " x " << o.tiles_y << " tiles of " << o.tile_size_m
      << " m, resolution " << o.resolution_m << " m (" << mesh.cells_per_tile << " cells per tile)\n";
  out << "# " << nv << " vertices, " << nt << " triangles (" << mesh.num_heightfield_triangles << " heightfield, "
      << mesh.num_boxes << " boxes of 12); +Z up, metres\n";
  out << "# tiles, row y = 0 first:";
  for (size_t t = 0; t < mesh.tile_kinds.size(); ++t) {
    if (t % o.tiles_x == 0) out << "\n#  ";
    out << ' ' << tile_kind_name(mesh.tile_kinds[t]);
  }
  out << '\n';
  // Spawn points in comments, so programs that only load the OBJ (the demo) can place robots.
  out << "# spawn points, one per tile: spawn <tile> <kind> x y z\n";
  char num_buf[3][32];
  for (size_t t = 0; t < mesh.tile_kinds.size() && 3 * t + 2 < mesh.spawn_points.size(); ++t) {
    for (int k = 0; k < 3; ++k) format_coord(mesh.spawn_points[3 * t + k], num_buf[k]);
    out << "# spawn " << t << ' ' << tile_kind_name(mesh.tile_kinds[t]) << ' ' << num_buf[0] << ' ' << num_buf[1] << ' '
        << num_buf[2] << '\n';
  }

  // Lines are built in a local buffer and handed to the stream in large blocks.
  std::string buffer;
  buffer.reserve(1 << 20);
  char line[128];
  for (size_t v = 0; v < nv; ++v) {
    int len[3];
    for (int k = 0; k < 3; ++k) len[k] = format_coord(mesh.vertices[3 * v + k], num_buf[k]);
    buffer += "v ";
    buffer.append(num_buf[0], size_t(len[0]));
    buffer += ' ';
    buffer.append(num_buf[1], size_t(len[1]));
    buffer += ' ';
    buffer.append(num_buf[2], size_t(len[2]));
    buffer += '\n';
    if (buffer.size() > (1u << 20) - 128) {
      out.write(buffer.data(), std::streamsize(buffer.size()));
      buffer.clear();
    }
  }
  for (size_t t = 0; t < nt; ++t) {
    const int len = std::snprintf(line, sizeof line, "f %u %u %u\n", unsigned(mesh.indices[3 * t] + 1),
                                  unsigned(mesh.indices[3 * t + 1] + 1), unsigned(mesh.indices[3 * t + 2] + 1));
    buffer.append(line, size_t(len));
    if (buffer.size() > (1u << 20) - 128) {
      out.write(buffer.data(), std::streamsize(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), std::streamsize(buffer.size()));
}

}  // namespace terrain
}  // namespace wr
