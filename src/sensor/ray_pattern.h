// A ray pattern on the host (wr_patterns.h): a wr_pattern_desc checked and turned into its
// rays (a start and a unit direction each, in the pattern frame), by the peers' published rules
// where the desc names one (IsaacLab's grid_pattern and lidar_pattern, mjlab's GridPatternCfg).
// A pattern sensor (sensor/sensor.h) copies them into its ray template.
#pragma once

#include <cstdint>
#include <vector>

#include <wr/wr.h>

namespace wr {

struct RayPattern {
  std::vector<float> starts;      // (num_rays x 3)
  std::vector<float> directions;  // (num_rays x 3), unit
  uint32_t num_rays() const { return static_cast<uint32_t>(directions.size() / 3); }
};

// At most this many rays in a pattern (2^26: its template, 32 bytes a ray, stays below 2 GiB).
constexpr uint32_t kMaxPatternRays = 1u << 26;

// Throws WR_ERROR_INVALID_ARGUMENT naming the first bad field ("<function>: desc->grid_resolution ...").
RayPattern make_ray_pattern(const char* function, const wr_pattern_desc& desc);

// The number of samples along a grid side of `size` at `resolution` under `rule` (wr_grid_count_rule),
// as torch.arange counts them: ceil((end - start) / step), in double.
uint64_t grid_side_count(double size, double resolution, int rule);

}  // namespace wr
