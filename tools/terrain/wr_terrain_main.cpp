// wr-terrain: writes a parkour terrain (see parkour_terrain.h) as a Wavefront OBJ file, and its
// ground as a height field (.npy) and as legged_gym's grid mesh (OBJ) for the grid terrain kind.
//
//   wr-terrain --seed 7 --tiles-x 5 --tiles-y 5 --tile-size 8 --resolution 0.1 -o terrain.obj
//   wr-terrain --tiles-x 9 --tiles-y 8 --tile-size 20 --resolution 0.05 --heightfield parkour.npy
//   (extreme-parkour-sized: 180 x 160 m at 0.05 m, 3601 x 3201 samples; its tiles are square)
//
// --heightfield: float32 (num_y, num_x), heights[iy, ix] in metres at (ix, iy) * spacing (the
// spacing is printed): wr.Scene.from_heightfield(ctx, np.load(...), spacing, terrain="grid").
// --grid-mesh: the ground as legged_gym's convert_heightfield_to_trimesh makes it (heights in
// units of --vertical-scale, --slope-threshold), the arrays wr_scene_create_grid_mesh takes,
// vertices and faces in their order. Neither holds the boxes. Prints what it wrote; exits
// non-zero with a message on bad options or when a file cannot be written.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "npy.h"
#include "parkour_terrain.h"

int main(int argc, char** argv) {
  wr::terrain::TerrainOptions options;
  std::string output;

  CLI::App app{
      "Generate a parkour terrain (stairs, slopes, gaps, hurdles, boxes, rough ground) as OBJ.\n"
      "Same options, same bytes."};
  app.add_option("--seed", options.seed, "random seed (tile order, gap widths, boxes, bumps)")->capture_default_str();
  app.add_option("--tiles-x", options.tiles_x, "tiles along +x")->capture_default_str()->check(CLI::Range(1u, 1024u));
  app.add_option("--tiles-y", options.tiles_y, "tiles along +y")->capture_default_str()->check(CLI::Range(1u, 1024u));
  app.add_option("--tile-size", options.tile_size_m, "side of a square tile, metres (4 to 64)")
      ->capture_default_str()
      ->check(CLI::Range(4.0f, 64.0f));
  app.add_option("--resolution", options.resolution_m, "heightfield spacing, metres")
      ->capture_default_str()
      ->check(CLI::Range(0.001f, 4.0f));
  std::string heightfield, grid_mesh;
  double vertical_scale = 0.005;
  app.add_option("--slope-threshold", options.slope_threshold,
                 "a cell edge rising more than this times the spacing becomes a vertical wall")
      ->capture_default_str();
  app.add_option("-o,--output", output, "OBJ file to write: the ground with its walls, and the boxes");
  app.add_option("--heightfield", heightfield, ".npy file to write: the ground's heights, float32 (num_y, num_x)");
  app.add_option("--grid-mesh", grid_mesh, "OBJ file to write: the ground as legged_gym's grid mesh");
  app.add_option("--vertical-scale", vertical_scale, "legged_gym's vertical_scale for --grid-mesh, metres")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (output.empty() && heightfield.empty() && grid_mesh.empty()) {
    std::cerr << "wr-terrain: error: nothing to write: give -o, --heightfield or --grid-mesh\n";
    return 2;
  }

  wr::terrain::TerrainMesh mesh, legged_gym;
  try {
    mesh = wr::terrain::generate_parkour_terrain(options);
    if (!grid_mesh.empty()) legged_gym = wr::terrain::legged_gym_mesh(mesh, vertical_scale);
  } catch (const std::exception& e) {
    std::cerr << "wr-terrain: error: " << e.what() << "\n";
    return 2;
  }

  const auto write = [](const std::string& path, const wr::terrain::TerrainMesh& m) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "wr-terrain: error: cannot open " << path << " for writing\n";
      return false;
    }
    wr::terrain::write_obj(m, file);
    file.flush();
    if (!file) {
      std::cerr << "wr-terrain: error: writing " << path << " failed (disk full?)\n";
      return false;
    }
    return true;
  };
  if (!grid_mesh.empty()) {
    if (!write(grid_mesh, legged_gym)) return 1;
    std::printf("wr-terrain: wrote %s: legged_gym's grid mesh of the ground, %u x %u vertices, %zu triangles\n",
                grid_mesh.c_str(), mesh.num_x, mesh.num_y, legged_gym.indices.size() / 3);
  }
  if (!heightfield.empty()) {
    try {
      wr_demo::write_npy(heightfield, mesh.heights.data(), mesh.heights.size() * sizeof(float), "<f4",
                         std::vector<uint64_t>{mesh.num_y, mesh.num_x});
    } catch (const std::exception& e) {
      std::cerr << "wr-terrain: error: " << e.what() << "\n";
      return 1;
    }
    std::printf("wr-terrain: wrote %s: heights (%u, %u) float32, spacing %.9g m\n", heightfield.c_str(), mesh.num_y,
                mesh.num_x, double(mesh.spacing_m));
  }
  if (output.empty()) return 0;
  if (!write(output, mesh)) return 1;
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(output, ec);
  std::printf("wr-terrain: wrote %s: %zu triangles (%u heightfield, %u boxes), %zu vertices, %.2f MB (%llu bytes)\n",
              output.c_str(), mesh.num_triangles(), mesh.num_heightfield_triangles, mesh.num_boxes, mesh.num_vertices(),
              ec ? 0.0 : double(bytes) / 1e6, ec ? 0ull : static_cast<unsigned long long>(bytes));
  return 0;
}
