// The demo's contact sheet: 16 depth images of a batch as one PNG, each labelled with its env,
// coloured by depth in metres (the turbo colour map), with a colour bar whose ticks are labelled in
// metres and a legend for the pixels with no depth.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "picture.h"

namespace wr_demo {

// The envs a contact sheet shows: of the n images of `depth` ((n x h x w) metres), the `count`
// with the most depth edges (neighbouring pixels more than 10 % apart: walls, boxes, steps, gaps),
// so that a sheet is not mostly plain ground; in env order. All n when n <= count.
std::vector<uint32_t> varied_envs(const std::vector<float>& depth, uint32_t n, uint32_t h, uint32_t w,
                                  uint32_t count = 16);

// The 1st and 99th percentiles of the finite positive depths of the images `envs` of `depth`
// (each `pixels` floats).
DisplayRange percentile_range(const std::vector<float>& depth, const std::vector<uint32_t>& envs, size_t pixels,
                              bool log_scale);

// Writes a 4x4 grid of the images `envs` (at most 16) of `depth` ((n x h x w) metres), each pixel
// `scale` x `scale` and labelled with its env, and the colour bar. Misses (+-inf) are dark grey,
// NaN (invalid) magenta. Throws std::runtime_error when the file cannot be written.
void write_contact_sheet(const std::filesystem::path& path, const std::vector<float>& depth,
                         const std::vector<uint32_t>& envs, uint32_t h, uint32_t w, int scale,
                         const DisplayRange& range);

}  // namespace wr_demo
