// Pictures of the pattern sensors' renders (wr-demo --height-scan, --lidar): a height scan seen from
// above over the ground it read, and a LiDAR's range image.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "picture.h"

namespace wr_demo {

// One env's height scan from above: a square of the ground around the robot, `size` x `size`
// pixels of `metres_per_pixel`, whose top-left corner is at world (x0, y1) (+x to the right, +y
// up), and the scan's rays where they hit.
struct ScanPanel {
  uint32_t env;
  float x0, y1, metres_per_pixel;
  int size;
  std::vector<float> ground_z;  // (size x size) the ground's height, row 0 the top (y1); NaN: none
  std::vector<float> hit_xy;    // (rays x 2) each ray's hit, world x and y; +inf where it missed
  std::vector<float> values;    // (rays) the scan's values (the observation), coloured by `range`
};

// Panels side by side: the ground in grey (dark low, light high), each hit a dot coloured by the
// scan's value, and a colour bar of those values. Throws std::runtime_error when it cannot write.
void write_height_scan_picture(const std::filesystem::path& path, const std::vector<ScanPanel>& panels,
                               const DisplayRange& range);

// Range images of the envs `envs` of `distances` ((n x channels x columns) metres, channel 0 the
// lowest beam), one above the other: a row per channel, the top row the highest beam, each column
// one azimuth step (the first at the left), `row_px` pixels per channel and `columns_per_px`
// columns per pixel; misses dark grey. Throws std::runtime_error when it cannot write.
void write_lidar_picture(const std::filesystem::path& path, const std::vector<float>& distances,
                         const std::vector<uint32_t>& envs, uint32_t channels, uint32_t columns, int row_px,
                         int columns_per_px, const DisplayRange& range);

}  // namespace wr_demo
