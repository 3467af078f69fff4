// A log-log PNG plot of memory against the number of envs: one colour per strategy, a line
// through the reported bytes and hollow squares on the measured ones, with a legend in the
// built-in pixel font. Written with stb_image_write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wrbench {

struct PlotSeries {
  std::string label;
  uint8_t rgb[3] = {0, 0, 0};
  std::vector<double> envs;      // x: N of each point
  std::vector<double> reported;  // bytes, drawn as a line with dots
  std::vector<double> measured;  // bytes, drawn as hollow squares (same length as envs, or empty)
};

/// Writes `path` (PNG, 960 pixels wide, the legend under the plot). `notes` are legend lines
/// under the series (e.g. what the line and the squares are). Returns false when the file cannot be written.
bool write_memory_plot(const std::string& path, const std::string& title, const std::vector<PlotSeries>& series,
                       const std::vector<std::string>& notes);

}  // namespace wrbench
