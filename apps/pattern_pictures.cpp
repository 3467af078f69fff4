#include "pattern_pictures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace wr_demo {

void write_height_scan_picture(const std::filesystem::path& path, const std::vector<ScanPanel>& panels,
                               const DisplayRange& range) {
  const int gap = 6, size = panels.empty() ? 1 : panels[0].size, label_scale = 2;
  Canvas c(gap + int(panels.size()) * (size + gap) + 150, std::max(size + 2 * gap + 24, 300), 48);
  const uint8_t shade[3] = {20, 20, 20}, ring[3] = {0, 0, 0};
  for (size_t k = 0; k < panels.size(); ++k) {
    const ScanPanel& p = panels[k];
    const int ox = gap + int(k) * (size + gap), oy = gap + 24;
    // The ground in grey, its range the panel's own: dark low, light high.
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (float z : p.ground_z)
      if (std::isfinite(z)) lo = std::min(lo, z), hi = std::max(hi, z);
    for (int y = 0; y < p.size; ++y)
      for (int x = 0; x < p.size; ++x) {
        const float z = p.ground_z[size_t(y) * p.size + x];
        const uint8_t g = std::isfinite(z) ? uint8_t(60 + 150 * (hi > lo ? (z - lo) / (hi - lo) : 0.5f)) : 30;
        const uint8_t px[3] = {g, g, g};
        c.put(ox + x, oy + y, px);
      }
    // Each hit a dot of 5 x 5 pixels in a black ring, coloured by the scan's value.
    for (size_t r = 0; r < p.values.size(); ++r) {
      const float hx = p.hit_xy[2 * r], hy = p.hit_xy[2 * r + 1];
      if (!std::isfinite(hx) || !std::isfinite(hy)) continue;
      const int x = int(std::floor((hx - p.x0) / p.metres_per_pixel)),
                y = int(std::floor((p.y1 - hy) / p.metres_per_pixel));
      if (x < 0 || y < 0 || x >= p.size || y >= p.size) continue;
      uint8_t px[3];
      turbo(colour_position(p.values[r], range), px);
      c.fill(ox + x - 3, oy + y - 3, ox + x + 4, oy + y + 4, ring);
      c.fill(ox + x - 2, oy + y - 2, ox + x + 3, oy + y + 3, px);
    }
    const std::string label = "env " + std::to_string(p.env) + ", " +
                              std::to_string(int(std::lround(p.size * p.metres_per_pixel))) + " m across";
    c.fill(ox, gap, ox + 10 + 12 * int(label.size()), gap + 20, shade);
    c.text(ox + 4, gap + 3, label, label_scale);
  }
  const int bx = gap + int(panels.size()) * (size + gap) + 10, by = gap + 58;
  c.colour_bar(bx, by, c.height - by - 20, range, "%.2f", "height value");
  c.write_png(path);
}

void write_lidar_picture(const std::filesystem::path& path, const std::vector<float>& distances,
                         const std::vector<uint32_t>& envs, uint32_t channels, uint32_t columns, int row_px,
                         int columns_per_px, const DisplayRange& range) {
  const int gap = 6, label_h = 24, img_w = int((columns + uint32_t(columns_per_px) - 1) / uint32_t(columns_per_px));
  const int img_h = int(channels) * row_px, label_scale = 2;
  Canvas c(gap + img_w + gap + 150, std::max(gap + int(envs.size()) * (label_h + img_h + gap), 300), 48);
  const uint8_t miss[3] = {70, 70, 70};
  for (size_t k = 0; k < envs.size(); ++k) {
    const int ox = gap, oy = gap + int(k) * (label_h + img_h + gap);
    c.text(ox, oy + 3,
           "env " + std::to_string(envs[k]) + ": range image, the highest beam on top, azimuth left to right",
           label_scale);
    const float* env = &distances[size_t(envs[k]) * channels * columns];
    for (uint32_t ch = 0; ch < channels; ++ch)
      for (int x = 0; x < img_w; ++x) {
        // The nearest return of the columns this pixel covers (a thin post stays visible).
        float d = std::numeric_limits<float>::infinity();
        for (uint32_t a = uint32_t(x) * uint32_t(columns_per_px);
             a < std::min(columns, uint32_t(x + 1) * uint32_t(columns_per_px)); ++a)
          d = std::min(d, env[size_t(ch) * columns + a]);
        uint8_t px[3];
        if (std::isfinite(d))
          turbo(colour_position(d, range), px);
        else
          std::copy(miss, miss + 3, px);
        const int y = oy + label_h + int(channels - 1 - ch) * row_px;
        c.fill(ox + x, y, ox + x + 1, y + row_px, px);
      }
  }
  const int bx = gap + img_w + gap + 10, by = gap + 34;
  c.colour_bar(bx, by, c.height - by - 50, range, "%.1f m", "distance");
  c.fill(bx, c.height - 30, bx + 14, c.height - 16, miss);
  c.text(bx + 20, c.height - 30, "no return", label_scale);
  c.write_png(path);
}

}  // namespace wr_demo
