// wr-terrain: writes a parkour terrain (see parkour_terrain.h) as a Wavefront OBJ file.
//
//   wr-terrain --seed 7 --tiles-x 5 --tiles-y 5 --tile-size 8 --resolution 0.1 -o terrain.obj
//
// Prints the triangle count and the file size; exits non-zero with a message on bad options
// or when the file cannot be written.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

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
  app.add_option("-o,--output", output, "OBJ file to write")->required();
  CLI11_PARSE(app, argc, argv);

  wr::terrain::TerrainMesh mesh;
  try {
    mesh = wr::terrain::generate_parkour_terrain(options);
  } catch (const std::exception& e) {
    std::cerr << "wr-terrain: error: " << e.what() << "\n";
    return 2;
  }

  {
    std::ofstream file(output, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "wr-terrain: error: cannot open " << output << " for writing\n";
      return 1;
    }
    wr::terrain::write_obj(mesh, file);
    file.flush();
    if (!file) {
      std::cerr << "wr-terrain: error: writing " << output << " failed (disk full?)\n";
      return 1;
    }
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(output, ec);
  std::printf("wr-terrain: wrote %s: %zu triangles (%u heightfield, %u boxes), %zu vertices, %.2f MB (%llu bytes)\n",
              output.c_str(), mesh.num_triangles(), mesh.num_heightfield_triangles, mesh.num_boxes, mesh.num_vertices(),
              ec ? 0.0 : double(bytes) / 1e6, ec ? 0ull : static_cast<unsigned long long>(bytes));
  return 0;
}
