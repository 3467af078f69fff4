// Parkour terrain generator: a grid of square tiles, each holding one feature (stairs up or
// down, a sloped pyramid, pits between platforms, hurdles, scattered boxes, rough ground), in
// the style of the terrains legged-robot RL trains on (Rudin et al. 2022, "Learning to Walk in
// Minutes Using Massively Parallel Deep RL", legged_gym; Cheng et al. 2024, "Extreme Parkour
// with Legged Robots"). Used to make the meshes in assets/ that the demo, tests and
// benchmarks ray-cast against.
//
// The ground is one heightfield turned into one indexed triangle mesh; steep steps become
// vertical walls by moving vertices sideways as legged_gym's convert_heightfield_to_trimesh
// does, so the mesh keeps the grid's connectivity (shared vertices, no T-junctions, no
// cracks). Hurdles and boxes are separate closed box meshes standing on (and sunk slightly
// into) the ground.
//
// Output is deterministic: the same options give the same mesh and byte-identical OBJ text
// (own PCG32 generator, no <random> distributions, no transcendental functions).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "triangle_mesh.h"  // tools/common

namespace wr {
namespace terrain {

/// The feature a tile holds.
enum class TileKind : uint8_t {
  kStairsUp = 0,    ///< square pyramid of steps rising to a central platform
  kStairsDown = 1,  ///< inverted pyramid of steps falling to a central platform
  kSlope = 2,       ///< square pyramid of smooth slopes, up or down, with a central platform
  kGaps = 3,        ///< course of platforms along +x separated by deep pits
  kHurdles = 4,     ///< thin walls across the tile, to jump over, along +x
  kBoxes = 5,       ///< boxes of random size and yaw scattered around a clear centre
  kRough = 6,       ///< smooth random bumps (value noise) around a flat centre
};
constexpr int kNumTileKinds = 7;

/// Lower-case name of a tile kind ("stairs_up", "gaps", ...).
const char* tile_kind_name(TileKind kind);

/// Everything that shapes the terrain. Lengths in metres. Defaults follow legged_gym /
/// extreme-parkour magnitudes for a quadruped of about 0.6 m length.
struct TerrainOptions {
  uint32_t seed = 0;
  uint32_t tiles_x = 5;       ///< tiles along +x
  uint32_t tiles_y = 5;       ///< tiles along +y
  float tile_size_m = 8.0f;   ///< side of a square tile, 4 to 64
  float resolution_m = 0.1f;  ///< heightfield spacing; snapped so a tile holds a whole number of cells

  /// A cell edge whose height changes by more than slope_threshold * spacing becomes a
  /// vertical wall (legged_gym's slope_treshold). Must exceed every smooth slope below.
  float slope_threshold = 0.6f;
  float margin_m = 0.5f;           ///< flat border (height 0) around every tile: tiles join there
  float platform_size_m = 2.0f;    ///< central platform of stairs/slope tiles (capped at tile/4)
  float spawn_clearance_m = 0.5f;  ///< half-side of the square kept free of boxes around a spawn
  float start_length_m = 1.5f;     ///< flat run-up before gaps/hurdles (capped at tile/4)

  float stair_step_height_m = 0.15f;
  float stair_step_width_m = 0.30f;  ///< snapped to a whole number of cells, at least 2

  float slope_min = 0.10f;  ///< rise over run of slope tiles
  float slope_max = 0.40f;

  float gap_width_min_m = 0.30f;  ///< pit width along x (at least 3 cells)
  float gap_width_max_m = 0.80f;
  float gap_depth_m = 1.0f;
  float gap_platform_min_m = 0.8f;  ///< platform length between two pits
  float gap_platform_max_m = 1.4f;

  uint32_t hurdles_per_tile = 4;
  float hurdle_height_min_m = 0.15f;
  float hurdle_height_max_m = 0.35f;
  float hurdle_thickness_m = 0.10f;

  uint32_t boxes_per_tile = 10;
  float box_size_min_m = 0.30f;  ///< footprint side (capped so boxes fit around the clear centre)
  float box_size_max_m = 0.80f;
  float box_height_min_m = 0.05f;
  float box_height_max_m = 0.30f;

  float rough_amplitude_m = 0.04f;   ///< bumps span [-a, +a]
  float rough_wavelength_m = 0.30f;  ///< spacing of the value-noise lattice

  /// Depth to which hurdles and boxes reach below the ground, so no sliver of air shows
  /// under them and their bottom faces never coincide with the ground.
  float box_sink_m = 0.05f;
};

/// A generated terrain. Tile t = ty * tiles_x + tx covers
/// [tx * tile, (tx + 1) * tile] x [ty * tile, (ty + 1) * tile] in x, y; the terrain spans
/// [0, tiles_x * tile] x [0, tiles_y * tile], ground height 0 along every tile border.
/// The mesh (tools/common/triangle_mesh.h): the heightfield's vertices and triangles first, then
/// the boxes'.
struct TerrainMesh : wr_tools::TriangleMesh {
  TerrainOptions options;            ///< as given (resolution_m as requested, not snapped)
  std::vector<float> spawn_points;   ///< (num_tiles x 3) a flat, obstacle-free spot on each tile; z = ground there
  std::vector<TileKind> tile_kinds;  ///< (num_tiles) the feature of each tile
  uint32_t cells_per_tile = 0;       ///< heightfield cells along a tile side
  float spacing_m = 0.0f;            ///< actual heightfield spacing: tile_size_m / cells_per_tile
  uint32_t num_heightfield_triangles = 0;  ///< 2 * (tiles_x * cells) * (tiles_y * cells)
  uint32_t num_boxes = 0;                  ///< closed boxes (hurdles + boxes), 8 vertices and 12 triangles each
  /// The ground as a height field, before its vertices move into walls: (num_y x num_x) heights in
  /// metres, x fastest (wr_heightfield_desc's WR_HEIGHTFIELD_X_FASTEST, MuJoCo's hfield_data),
  /// sample (ix, iy) at (ix, iy) * spacing_m. The boxes are not in it.
  std::vector<float> heights;
  uint32_t num_x = 0, num_y = 0;
};

/// Builds the terrain. Throws std::invalid_argument naming the offending option when the
/// options are out of range or inconsistent (e.g. a resolution too coarse for the steps to
/// become vertical walls, or a grid with more vertices than 32-bit indices can address).
TerrainMesh generate_parkour_terrain(const TerrainOptions& options);

/// The ground as legged_gym meshes it (convert_heightfield_to_trimesh, tools/common/
/// legged_gym_trimesh.h): the heights in units of vertical_scale (rounded, as legged_gym's int16
/// height_field_raw holds them), rows along x, options.slope_threshold as its slope threshold; no
/// boxes. The arrays wr_scene_create_grid_mesh takes. Throws std::invalid_argument when a height
/// does not fit int16 in those units.
TerrainMesh legged_gym_mesh(const TerrainMesh& terrain, double vertical_scale);

/// Writes Wavefront OBJ: a '#' header naming seed, size and the kind of every tile, one
/// "# spawn <tile> <kind> x y z" comment per tile, then "v x y z" lines (at most 3 decimals,
/// trailing zeros dropped) and "f a b c" lines (1-based). Deterministic.
void write_obj(const TerrainMesh& mesh, std::ostream& out);

}  // namespace terrain
}  // namespace wr
