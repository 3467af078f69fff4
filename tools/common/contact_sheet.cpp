#include "contact_sheet.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <string>

namespace wr_demo {

std::vector<uint32_t> varied_envs(const std::vector<float>& depth, uint32_t n, uint32_t h, uint32_t w, uint32_t count) {
  std::vector<uint32_t> envs(n);
  std::iota(envs.begin(), envs.end(), 0u);
  if (n <= count) return envs;
  std::vector<size_t> edges(n, 0);
  const auto edge = [](float a, float b) {
    return std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) > 0.1f * std::min(std::fabs(a), std::fabs(b));
  };
  for (uint32_t e = 0; e < n; ++e) {
    const float* img = &depth[size_t(e) * h * w];
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const float d = img[size_t(y) * w + x];
        if (x + 1 < w && edge(d, img[size_t(y) * w + x + 1])) ++edges[e];
        if (y + 1 < h && edge(d, img[size_t(y + 1) * w + x])) ++edges[e];
      }
  }
  std::stable_sort(envs.begin(), envs.end(), [&](uint32_t a, uint32_t b) { return edges[a] > edges[b]; });
  envs.resize(count);
  std::sort(envs.begin(), envs.end());
  return envs;
}

DisplayRange percentile_range(const std::vector<float>& depth, const std::vector<uint32_t>& envs, size_t pixels,
                              bool log_scale) {
  std::vector<float> finite;
  for (uint32_t e : envs)
    std::copy_if(depth.begin() + std::ptrdiff_t(e * pixels), depth.begin() + std::ptrdiff_t((e + 1) * pixels),
                 std::back_inserter(finite), [](float d) { return std::isfinite(d) && d > 0; });
  DisplayRange r;
  r.log_scale = log_scale;
  if (finite.empty()) return r;
  auto lo = finite.begin() + std::ptrdiff_t(finite.size() / 100);
  std::nth_element(finite.begin(), lo, finite.end());
  r.near = *lo;
  auto hi = finite.begin() + std::ptrdiff_t(finite.size() * 99 / 100);
  std::nth_element(finite.begin(), hi, finite.end());
  r.far = std::max(*hi, r.near * 1.01f);
  return r;
}

void write_contact_sheet(const std::filesystem::path& path, const std::vector<float>& depth,
                         const std::vector<uint32_t>& envs, uint32_t h, uint32_t w, int scale,
                         const DisplayRange& range) {
  const int gap = 2, tw = int(w) * scale, th = int(h) * scale, label_scale = 2;
  const int grid_w = 4 * tw + 5 * gap, grid_h = 4 * th + 5 * gap;
  Canvas c(grid_w + 150, std::max(grid_h, 300), 48);
  const uint8_t miss[3] = {70, 70, 70}, invalid[3] = {255, 0, 255}, shade[3] = {20, 20, 20};
  for (size_t k = 0; k < std::min<size_t>(envs.size(), 16); ++k) {
    const int ox = gap + int(k % 4) * (tw + gap), oy = gap + int(k / 4) * (th + gap);
    for (int y = 0; y < th; ++y)
      for (int x = 0; x < tw; ++x) {
        const float d = depth[(size_t(envs[k]) * h + size_t(y / scale)) * w + size_t(x / scale)];
        uint8_t px[3];
        if (std::isnan(d))
          std::copy(invalid, invalid + 3, px);
        else if (!std::isfinite(d))
          std::copy(miss, miss + 3, px);
        else
          turbo(colour_position(d, range), px);
        c.put(ox + x, oy + y, px);
      }
    const std::string label = "env " + std::to_string(envs[k]);
    c.fill(ox, oy, ox + 10 + 12 * int(label.size()), oy + 20, shade);
    c.text(ox + 4, oy + 3, label, label_scale);
  }
  // The bar: near at the top, far at the bottom; then what the pixels without depth are.
  const int bx = grid_w + 10, by = gap + 34, bh = c.height - by - 70;
  c.colour_bar(bx, by, bh, range, "%.2f m", "depth");
  c.fill(bx, by + bh + 22, bx + 14, by + bh + 36, miss);
  c.text(bx + 20, by + bh + 22, "no return", label_scale);
  c.fill(bx, by + bh + 44, bx + 14, by + bh + 58, invalid);
  c.text(bx + 20, by + bh + 44, "invalid", label_scale);
  c.write_png(path);
}

}  // namespace wr_demo
