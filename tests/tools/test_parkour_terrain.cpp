// Tests of the parkour terrain generator (tools/terrain): determinism, mesh sanity, the shape of
// every feature measured by casting vertical rays at the mesh (brute force, written here, not
// the library's traversal), spawn points on the surface, OBJ round trip, bundled assets current.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <wr/wr.h>

#include "parkour_terrain.h"

using wr::terrain::TerrainMesh;
using wr::terrain::TerrainOptions;
using wr::terrain::TileKind;

namespace {

// 3 x 3 tiles hold every one of the 7 kinds. Step height deliberately not the default, so a
// generator that ignored the option would fail.
TerrainOptions small_options(uint32_t seed) {
  TerrainOptions o;
  o.seed = seed;
  o.tiles_x = 3;
  o.tiles_y = 3;
  o.tile_size_m = 4.0f;
  o.resolution_m = 0.1f;
  o.stair_step_height_m = 0.13f;
  return o;
}

std::string to_obj(const TerrainMesh& mesh) {
  std::ostringstream s;
  wr::terrain::write_obj(mesh, s);
  return s.str();
}

// Topmost surface under a vertical ray at (x, y), by testing the triangles of a coarse xy
// bucket grid (each triangle listed in every bucket its bounding box touches).
class VerticalCaster {
 public:
  explicit VerticalCaster(const TerrainMesh& m) : m_(m) {
    double xmax = 0, ymax = 0;
    for (size_t v = 0; v < m.num_vertices(); ++v) {
      xmax = std::max(xmax, double(m.vertices[3 * v]));
      ymax = std::max(ymax, double(m.vertices[3 * v + 1]));
    }
    nbx_ = int(xmax / kBucket) + 1;
    nby_ = int(ymax / kBucket) + 1;
    buckets_.resize(size_t(nbx_) * nby_);
    for (size_t t = 0; t < m.num_triangles(); ++t) {
      double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
      for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 2; ++a) {
          lo[a] = std::min(lo[a], double(m.vertices[3 * m.indices[3 * t + k] + a]));
          hi[a] = std::max(hi[a], double(m.vertices[3 * m.indices[3 * t + k] + a]));
        }
      for (int by = bucket(lo[1], nby_); by <= bucket(hi[1], nby_); ++by)
        for (int bx = bucket(lo[0], nbx_); bx <= bucket(hi[0], nbx_); ++bx)
          buckets_[size_t(by) * nbx_ + bx].push_back(uint32_t(t));
    }
  }

  /// Highest z where the vertical line through (x, y) meets a triangle; NaN if none.
  double top(double x, double y) const {
    double best = std::numeric_limits<double>::quiet_NaN();
    for (uint32_t t : buckets_[size_t(bucket(y, nby_)) * nbx_ + bucket(x, nbx_)]) {
      const float* p[3];
      for (int k = 0; k < 3; ++k) p[k] = &m_.vertices[3 * size_t(m_.indices[3 * t + k])];
      const double area = (double(p[1][0]) - p[0][0]) * (double(p[2][1]) - p[0][1]) -
                          (double(p[2][0]) - p[0][0]) * (double(p[1][1]) - p[0][1]);
      if (std::fabs(area) < 1e-12) continue;  // vertical wall or degenerate: a vertical ray grazes it
      double w[3];
      for (int k = 0; k < 3; ++k) {
        const float* a = p[(k + 1) % 3];
        const float* b = p[(k + 2) % 3];
        w[k] = ((double(a[0]) - x) * (double(b[1]) - y) - (double(b[0]) - x) * (double(a[1]) - y)) / area;
      }
      if (w[0] < -1e-9 || w[1] < -1e-9 || w[2] < -1e-9) continue;
      const double z = w[0] * p[0][2] + w[1] * p[1][2] + w[2] * p[2][2];
      if (!(z <= best)) best = z;  // also takes the first hit, when best is NaN
    }
    return best;
  }

 private:
  static constexpr double kBucket = 0.5;
  static int bucket(double c, int n) { return std::clamp(int(std::floor(c / kBucket)), 0, n - 1); }
  const TerrainMesh& m_;
  int nbx_ = 0, nby_ = 0;
  std::vector<std::vector<uint32_t>> buckets_;
};

struct ParsedObj {
  std::vector<double> v;    // (V x 3)
  std::vector<uint32_t> f;  // (T x 3), 0-based
  std::vector<std::string> comments;
};

// The few lines of OBJ this generator writes: "# ...", "v x y z", "f a b c" (1-based).
ParsedObj parse_obj(std::istream& in) {
  ParsedObj obj;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line.substr(1));
    if (line[0] == '#') {
      obj.comments.push_back(line);
    } else if (line.rfind("v ", 0) == 0) {
      double x, y, z;
      REQUIRE(static_cast<bool>(s >> x >> y >> z));
      obj.v.insert(obj.v.end(), {x, y, z});
    } else if (line.rfind("f ", 0) == 0) {
      long a, b, c;
      REQUIRE(static_cast<bool>(s >> a >> b >> c));
      REQUIRE(std::min({a, b, c}) >= 1);
      obj.f.insert(obj.f.end(), {uint32_t(a - 1), uint32_t(b - 1), uint32_t(c - 1)});
    } else {
      FAIL("unexpected OBJ line: " << line);
    }
  }
  return obj;
}

std::string source_dir() {
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  return dir ? dir : ".";
}

double tile_x0(const TerrainMesh& m, size_t t) { return double(t % m.options.tiles_x) * m.options.tile_size_m; }
double tile_y0(const TerrainMesh& m, size_t t) { return double(t / m.options.tiles_x) * m.options.tile_size_m; }

}  // namespace

TEST_CASE("terrain: same seed and size give identical meshes and byte-identical OBJ", "[terrain]") {
  const TerrainMesh a = wr::terrain::generate_parkour_terrain(small_options(7));
  const TerrainMesh b = wr::terrain::generate_parkour_terrain(small_options(7));
  CHECK(a.vertices == b.vertices);
  CHECK(a.indices == b.indices);
  CHECK(a.spawn_points == b.spawn_points);
  CHECK(to_obj(a) == to_obj(b));
}

TEST_CASE("terrain: different seeds give different terrains", "[terrain]") {
  const TerrainMesh a = wr::terrain::generate_parkour_terrain(small_options(1));
  const TerrainMesh b = wr::terrain::generate_parkour_terrain(small_options(2));
  CHECK(a.tile_kinds != b.tile_kinds);
  CHECK(to_obj(a) != to_obj(b));
}

TEST_CASE("terrain: counts follow the grid, indices in range, coordinates finite and in bounds", "[terrain]") {
  const TerrainOptions o = small_options(3);
  const TerrainMesh m = wr::terrain::generate_parkour_terrain(o);
  REQUIRE(m.cells_per_tile == 40);  // 4 m / 0.1 m
  CHECK(m.spacing_m == Approx(0.1f));
  const size_t nx = size_t(o.tiles_x) * 40, ny = size_t(o.tiles_y) * 40;

  // Every kind appears on 9 tiles; boxes and hurdles are closed boxes of 8 vertices, 12 triangles.
  REQUIRE(m.tile_kinds.size() == 9);
  const std::set<TileKind> kinds(m.tile_kinds.begin(), m.tile_kinds.end());
  CHECK(kinds.size() == size_t(wr::terrain::kNumTileKinds));
  const size_t box_tiles = size_t(std::count(m.tile_kinds.begin(), m.tile_kinds.end(), TileKind::kBoxes));
  const size_t hurdle_tiles = size_t(std::count(m.tile_kinds.begin(), m.tile_kinds.end(), TileKind::kHurdles));
  const size_t boxes = box_tiles * o.boxes_per_tile + hurdle_tiles * o.hurdles_per_tile;
  CHECK(m.num_boxes == boxes);
  CHECK(m.num_heightfield_triangles == 2 * nx * ny);
  CHECK(m.num_triangles() == 2 * nx * ny + 12 * boxes);
  CHECK(m.num_vertices() == (nx + 1) * (ny + 1) + 8 * boxes);
  CHECK(m.spawn_points.size() == 3 * 9);

  const uint32_t max_index = *std::max_element(m.indices.begin(), m.indices.end());
  CHECK(max_index == m.num_vertices() - 1);
  size_t bad = 0;
  for (size_t v = 0; v < m.num_vertices(); ++v) {
    const float x = m.vertices[3 * v], y = m.vertices[3 * v + 1], z = m.vertices[3 * v + 2];
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z) || x < 0 || x > 12 || y < 0 || y > 12 ||
        std::fabs(z) > 2)
      ++bad;
  }
  CHECK(bad == 0);
  for (float c : m.spawn_points) CHECK(std::isfinite(c));
}

TEST_CASE("terrain: the heightfield is one watertight sheet with vertical walls", "[terrain]") {
  const TerrainOptions o = small_options(11);
  const TerrainMesh m = wr::terrain::generate_parkour_terrain(o);
  const size_t nx = size_t(o.tiles_x) * m.cells_per_tile, ny = size_t(o.tiles_y) * m.cells_per_tile;
  const double extent_x = o.tiles_x * double(o.tile_size_m), extent_y = o.tiles_y * double(o.tile_size_m);

  // Every interior edge is shared by exactly two triangles, traversed in opposite directions
  // (shared vertices, consistent orientation, no T-junction); only the outline is single.
  std::map<std::pair<uint32_t, uint32_t>, int> edges;
  for (size_t t = 0; t < m.num_heightfield_triangles; ++t)
    for (int k = 0; k < 3; ++k) ++edges[{m.indices[3 * t + k], m.indices[3 * t + (k + 1) % 3]}];
  size_t outline = 0, bad_edges = 0;
  for (const auto& e : edges) {
    const auto it = edges.find({e.first.second, e.first.first});
    if (e.second != 1) ++bad_edges;
    if (it == edges.end()) ++outline;
  }
  CHECK(bad_edges == 0);
  CHECK(outline == 2 * (nx + ny));

  // Seen from above no triangle faces down (no fold, no lid), none is sloped steeper than the
  // wall threshold (steps are vertical, not ramps), and the projected areas add up to exactly
  // the footprint: the sheet covers every point once, without a crack.
  size_t down = 0, steep = 0, vertical = 0;
  double area_sum = 0;
  for (size_t t = 0; t < m.num_heightfield_triangles; ++t) {
    const float* p[3];
    for (int k = 0; k < 3; ++k) p[k] = &m.vertices[3 * size_t(m.indices[3 * t + k])];
    const double e1[3] = {double(p[1][0]) - p[0][0], double(p[1][1]) - p[0][1], double(p[1][2]) - p[0][2]};
    const double e2[3] = {double(p[2][0]) - p[0][0], double(p[2][1]) - p[0][1], double(p[2][2]) - p[0][2]};
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double nxy = std::sqrt(n[0] * n[0] + n[1] * n[1]);
    area_sum += 0.5 * n[2];
    if (n[2] < -1e-12) ++down;
    if (std::fabs(n[2]) <= 1e-12 && nxy > 1e-12) ++vertical;
    if (n[2] > 1e-12 && nxy > (o.slope_threshold + 1e-4) * n[2]) ++steep;
  }
  CHECK(down == 0);
  CHECK(steep == 0);
  CHECK(vertical > 500);  // stair risers and pit walls
  CHECK(area_sum == Approx(extent_x * extent_y).epsilon(1e-6));

  // The boxes are closed: every edge used twice in opposite directions, volume positive.
  for (size_t b = 0; b < m.num_boxes; ++b) {
    std::map<std::pair<uint32_t, uint32_t>, int> box_edges;
    double volume = 0;
    for (size_t t = m.num_heightfield_triangles + 12 * b; t < m.num_heightfield_triangles + 12 * (b + 1); ++t) {
      const float* p[3];
      for (int k = 0; k < 3; ++k) {
        p[k] = &m.vertices[3 * size_t(m.indices[3 * t + k])];
        ++box_edges[{m.indices[3 * t + k], m.indices[3 * t + (k + 1) % 3]}];
      }
      volume += (double(p[0][0]) * (double(p[1][1]) * p[2][2] - double(p[1][2]) * p[2][1]) -
                 double(p[0][1]) * (double(p[1][0]) * p[2][2] - double(p[1][2]) * p[2][0]) +
                 double(p[0][2]) * (double(p[1][0]) * p[2][1] - double(p[1][1]) * p[2][0])) /
                6.0;
    }
    bool closed = box_edges.size() == 36;  // 18 edges, each in both directions
    for (const auto& e : box_edges)
      closed = closed && e.second == 1 && box_edges.count({e.first.second, e.first.first});
    CHECK(closed);
    CHECK(volume > 0.001);
  }
}

TEST_CASE("terrain: every feature has the configured shape", "[terrain]") {
  const TerrainOptions o = small_options(5);
  const TerrainMesh m = wr::terrain::generate_parkour_terrain(o);
  const VerticalCaster cast(m);
  const double tile = o.tile_size_m, step = m.spacing_m;

  for (size_t t = 0; t < m.tile_kinds.size(); ++t) {
    const TileKind kind = m.tile_kinds[t];
    const double x0 = tile_x0(m, t), y0 = tile_y0(m, t);
    INFO("tile " << t << " (" << wr::terrain::tile_kind_name(kind) << ")");
    // Heights along the tile's middle row, from its -x edge to its +x edge; the small offsets keep
    // the rays off grid lines (any hit is fine there, but the samples are more telling).
    std::vector<double> row;
    for (double u = 0.013; u < tile; u += step / 3) row.push_back(cast.top(x0 + u, y0 + 0.5 * tile + 0.37 * step));
    for (double z : row) REQUIRE(std::isfinite(z));  // no crack anywhere along the row
    const double lo = *std::min_element(row.begin(), row.end());

    switch (kind) {
      case TileKind::kStairsUp:
      case TileKind::kStairsDown: {
        // Every sample lies on a tread k * step_height (no ramp between treads), the levels climb
        // one step at a time towards the centre and there are at least 3 of them.
        const double h = o.stair_step_height_m * (kind == TileKind::kStairsUp ? 1.0 : -1.0);
        int prev = 0, deepest = 0;
        for (size_t s = 0; s < row.size() / 2; ++s) {
          const double k = row[s] / h;
          REQUIRE(k == Approx(std::round(k)).margin(1e-4));
          const int level = int(std::round(k));
          CHECK((level == prev || level == prev + 1));
          prev = level;
          deepest = std::max(deepest, level);
        }
        CHECK(deepest >= 3);
        CHECK(row.front() == Approx(0.0).margin(1e-6));
        break;
      }
      case TileKind::kSlope: {
        // A smooth pyramid: never steeper than slope_max, centre raised or sunk by at least
        // slope_min over the run from the margin to the platform.
        for (size_t s = 1; s < row.size(); ++s) CHECK(std::fabs(row[s] - row[s - 1]) <= o.slope_max * step / 3 + 1e-5);
        const double centre = row[row.size() / 2];
        CHECK(std::fabs(centre) >= o.slope_min * 0.5);
        CHECK(std::fabs(centre) <= o.slope_max * tile / 2);
        break;
      }
      case TileKind::kGaps: {
        // Platforms at 0 and pits gap_depth deep with vertical walls: nothing in between.
        size_t pit_samples = 0;
        for (double z : row) {
          const bool ground = std::fabs(z) < 1e-5, pit = std::fabs(z + o.gap_depth_m) < 1e-5;
          CHECK((ground || pit));
          pit_samples += pit;
        }
        CHECK(pit_samples * step / 3 >= o.gap_width_min_m - step);
        CHECK(lo == Approx(-o.gap_depth_m).margin(1e-5));
        break;
      }
      case TileKind::kHurdles: {
        // hurdles_per_tile separate walls, each between the configured heights, on flat ground.
        int walls = 0;
        bool in_wall = false;
        for (double z : row) {
          const bool wall = z > 0.01;
          if (wall)
            CHECK((z >= o.hurdle_height_min_m - 1e-5 && z <= o.hurdle_height_max_m + 1e-5));
          else
            CHECK(std::fabs(z) < 1e-5);
          walls += wall && !in_wall;
          in_wall = wall;
        }
        CHECK(walls == int(o.hurdles_per_tile));
        break;
      }
      case TileKind::kBoxes:
      case TileKind::kRough: {
        double zmin = 1e9, zmax = -1e9;
        for (double v = 0.011; v < tile; v += 0.05)
          for (double u = 0.017; u < tile; u += 0.05) {
            const double z = cast.top(x0 + u, y0 + v);
            REQUIRE(std::isfinite(z));
            zmin = std::min(zmin, z);
            zmax = std::max(zmax, z);
          }
        if (kind == TileKind::kBoxes) {
          CHECK(zmin == Approx(0.0).margin(1e-6));  // flat ground, boxes on it
          CHECK(zmax >= o.box_height_min_m);
          CHECK(zmax <= o.box_height_max_m + 1e-5);
        } else {
          CHECK(zmin >= -o.rough_amplitude_m - 1e-6);
          CHECK(zmax <= o.rough_amplitude_m + 1e-6);
          CHECK(zmax - zmin > o.rough_amplitude_m / 2);  // really bumpy
        }
        break;
      }
    }
  }
}

TEST_CASE("terrain: spawn points lie on flat, free ground inside their tile", "[terrain]") {
  for (uint32_t seed : {2u, 9u}) {
    const TerrainMesh m = wr::terrain::generate_parkour_terrain(small_options(seed));
    const VerticalCaster cast(m);
    const double tile = m.options.tile_size_m;
    for (size_t t = 0; t < m.tile_kinds.size(); ++t) {
      INFO("seed " << seed << " tile " << t << " (" << wr::terrain::tile_kind_name(m.tile_kinds[t]) << ")");
      const double x = m.spawn_points[3 * t], y = m.spawn_points[3 * t + 1], z = m.spawn_points[3 * t + 2];
      CHECK(x > tile_x0(m, t) + 0.5);
      CHECK(x < tile_x0(m, t) + tile - 0.5);
      CHECK(y > tile_y0(m, t) + 0.5);
      CHECK(y < tile_y0(m, t) + tile - 0.5);
      CHECK(cast.top(x, y) == Approx(z).margin(1e-5));
      // Flat and free of obstacles where a robot stands (about its footprint).
      for (double dx : {-0.3, 0.0, 0.3})
        for (double dy : {-0.2, 0.0, 0.2}) CHECK(cast.top(x + dx, y + dy) == Approx(z).margin(1e-5));
    }
    // Stairs tiles spawn on their top (or bottom) platform.
    for (size_t t = 0; t < m.tile_kinds.size(); ++t) {
      if (m.tile_kinds[t] == TileKind::kStairsUp) CHECK(m.spawn_points[3 * t + 2] >= 3 * 0.13f - 1e-5f);
      if (m.tile_kinds[t] == TileKind::kStairsDown) CHECK(m.spawn_points[3 * t + 2] <= -3 * 0.13f + 1e-5f);
    }
  }
}

TEST_CASE("terrain: OBJ output parses back to the same mesh", "[terrain]") {
  const TerrainMesh m = wr::terrain::generate_parkour_terrain(small_options(4));
  const std::string text = to_obj(m);
  std::istringstream in(text);
  const ParsedObj obj = parse_obj(in);
  REQUIRE(obj.v.size() == m.vertices.size());
  REQUIRE(obj.f.size() == m.indices.size());
  CHECK(obj.f == m.indices);
  double worst = 0;
  for (size_t k = 0; k < obj.v.size(); ++k) worst = std::max(worst, std::fabs(obj.v[k] - m.vertices[k]));
  CHECK(worst <= 0.0005 + 1e-6);  // 3 decimals
  REQUIRE(!obj.comments.empty());
  // One "# spawn <tile> <kind> x y z" comment per tile, for programs that only read the OBJ.
  size_t spawns = 0;
  for (const std::string& c : obj.comments) {
    if (c.rfind("# spawn ", 0) != 0 || c.rfind("# spawn points", 0) == 0) continue;
    std::istringstream s(c.substr(8));
    size_t t;
    std::string kind;
    double x, y, z;
    REQUIRE(static_cast<bool>(s >> t >> kind >> x >> y >> z));
    REQUIRE(t < m.tile_kinds.size());
    CHECK(kind == wr::terrain::tile_kind_name(m.tile_kinds[t]));
    CHECK(x == Approx(m.spawn_points[3 * t]).margin(0.0005 + 1e-6));
    CHECK(y == Approx(m.spawn_points[3 * t + 1]).margin(0.0005 + 1e-6));
    CHECK(z == Approx(m.spawn_points[3 * t + 2]).margin(0.0005 + 1e-6));
    ++spawns;
  }
  CHECK(spawns == m.tile_kinds.size());
  CHECK(text.find("seed 4, 3 x 3 tiles of 4 m") != std::string::npos);
  CHECK(text.find("\nv 0 0 0\n") != std::string::npos);  // trailing zeros dropped
}

TEST_CASE("terrain: bad options are refused with the option's name", "[terrain]") {
  auto refused = [](TerrainOptions o, const std::string& name) {
    try {
      wr::terrain::generate_parkour_terrain(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(name) != std::string::npos;
    }
    return false;
  };
  TerrainOptions o = small_options(1);
  o.tiles_x = 0;
  CHECK(refused(o, "tiles_x"));
  o = small_options(1);
  o.tile_size_m = 2.0f;
  CHECK(refused(o, "tile_size_m"));
  o = small_options(1);
  o.resolution_m = std::numeric_limits<float>::quiet_NaN();
  CHECK(refused(o, "resolution_m"));
  o = small_options(1);
  o.resolution_m = 0.25f;  // 0.13 m steps would come out as ramps
  CHECK(refused(o, "stair_step_height_m"));
  o = small_options(1);
  o.slope_max = 0.9f;  // above the wall threshold
  CHECK(refused(o, "slope_max"));
  o = small_options(1);
  o.tiles_x = o.tiles_y = 1000;
  o.resolution_m = 0.01f;
  CHECK(refused(o, "vertices"));
}

// The files in assets/ are what assets/README.md says they are: regenerating them with those
// commands gives the same bytes (so the README cannot go stale, nor the generator drift).
TEST_CASE("terrain: bundled assets match their regeneration commands", "[terrain][assets]") {
  struct Asset {
    const char* file;
    uint32_t seed, tiles;
    float tile_size, resolution;
    size_t min_tris, max_tris, max_bytes;
  };
  const Asset assets[] = {
      {"parkour_small.obj", 7, 3, 4.0f, 0.2f, 2000, 20000, 300000},
      {"parkour_terrain.obj", 42, 5, 8.0f, 0.1f, 200000, 1000000, 10000000},
  };
  for (const Asset& a : assets) {
    INFO(a.file << ": regenerate it with the commands in assets/README.md");
    const std::string path = source_dir() + "/assets/" + a.file;
    std::ifstream file(path, std::ios::binary);
    REQUIRE(file.good());
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    TerrainOptions o;
    o.seed = a.seed;
    o.tiles_x = o.tiles_y = a.tiles;
    o.tile_size_m = a.tile_size;
    o.resolution_m = a.resolution;
    const TerrainMesh m = wr::terrain::generate_parkour_terrain(o);
    CHECK(m.num_triangles() >= a.min_tris);
    CHECK(m.num_triangles() <= a.max_tris);
    CHECK(bytes.size() < a.max_bytes);
    CHECK(bytes == to_obj(m));
    const std::set<TileKind> kinds(m.tile_kinds.begin(), m.tile_kinds.end());
    CHECK(kinds.size() == size_t(wr::terrain::kNumTileKinds));
  }
}

TEST_CASE("terrain: the ground as a height field and as legged_gym's grid mesh, which the grid kind takes",
          "[terrain]") {
  const TerrainMesh t = wr::terrain::generate_parkour_terrain(small_options(5));
  const uint32_t nx = t.num_x, ny = t.num_y;
  REQUIRE(nx == 3 * t.cells_per_tile + 1);
  REQUIRE(ny == 3 * t.cells_per_tile + 1);
  REQUIRE(t.heights.size() == size_t(nx) * ny);
  // The height field's samples are the mesh's ground vertices' z (x fastest), before any moved
  // into a wall; a vertex that did not move sits at (ix, iy) spacing.
  size_t moved = 0;
  for (uint32_t iy = 0; iy < ny; ++iy)
    for (uint32_t ix = 0; ix < nx; ++ix) {
      const float* v = &t.vertices[3 * (size_t(iy) * nx + ix)];
      CHECK(v[2] == t.heights[size_t(iy) * nx + ix]);
      moved += v[0] != float(ix * double(t.spacing_m)) || v[1] != float(iy * double(t.spacing_m));
    }
  CHECK(moved > 0);
  // legged_gym's mesh of it: rows along x, heights in units of 0.005 m, the same walls threshold.
  const TerrainMesh g = wr::terrain::legged_gym_mesh(t, 0.005);
  REQUIRE(g.num_vertices() == size_t(nx) * ny);
  REQUIRE(g.num_triangles() == 2 * size_t(nx - 1) * (ny - 1));
  CHECK(g.num_boxes == 0);
  for (uint32_t ix = 0; ix < nx; ++ix)
    for (uint32_t iy = 0; iy < ny; ++iy)
      CHECK(std::fabs(g.vertices[3 * (size_t(ix) * ny + iy) + 2] - t.heights[size_t(iy) * nx + ix]) <= 0.0025f + 1e-6f);
  wr_context ctx = nullptr;
  REQUIRE(wr_context_create_cpu(1, &ctx) == WR_SUCCESS);
  wr_scene grid = nullptr;
  const wr_status status =
      wr_scene_create_grid_mesh(ctx, g.vertices.data(), g.num_vertices(), g.indices.data(), g.num_triangles(), &grid);
  INFO(wr_last_error());
  CHECK(status == WR_SUCCESS);
  wr_scene_release(grid);
  wr_context_release(ctx);
  CHECK_THROWS_WITH(wr::terrain::legged_gym_mesh(t, 1e-6), Catch::Contains("does not fit legged_gym's int16"));
}
