// The demo's contact sheet: the first 16 depth images of a batch as one PNG, coloured by depth in
// metres (the turbo colour map), with a colour bar whose ticks are labelled in metres.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace wr_demo {

// Depths (metres) at the two ends of the colour map, and how depth maps between them.
struct DisplayRange {
  float near = 0.1f, far = 1.0f;
  bool log_scale = true;  // a robot's view spans 0.3 m to tens of metres: log keeps the near steps apart
};

// The 1st and 99th percentiles of the finite positive depths among the first `count` floats.
DisplayRange percentile_range(const std::vector<float>& depth, size_t count, bool log_scale);

// Writes a 4x4 grid of the first min(n, 16) images of `depth` ((n x h x w) metres), each pixel
// `scale` x `scale`, and the colour bar. Misses (+-inf) are dark grey, NaN (invalid) magenta.
// Throws std::runtime_error when the file cannot be written.
void write_contact_sheet(const std::filesystem::path& path, const std::vector<float>& depth, uint32_t n, uint32_t h,
                         uint32_t w, int scale, const DisplayRange& range);

}  // namespace wr_demo
