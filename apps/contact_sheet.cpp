#include "contact_sheet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>

#include <stb/stb_easy_font.h>
// The one definition of stb_image_write in the programs linking wr_demo_common.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace wr_demo {
namespace {

// The turbo colour map at t in [0, 1], by the polynomial fit its author published (A. Mikhailov,
// "Turbo, An Improved Rainbow Colormap for Visualization", Google AI Blog, 2019): a perceptually
// smoother rainbow than jet, dark blue (near, t = 0) to dark red (far, t = 1).
void turbo(float t, uint8_t rgb[3]) {
  t = std::clamp(t, 0.0f, 1.0f);
  const double x = t, x2 = x * x, x3 = x2 * x, x4 = x2 * x2, x5 = x4 * x;
  const double r =
      0.13572138 + 4.61539260 * x - 42.66032258 * x2 + 132.13108234 * x3 - 152.94239396 * x4 + 59.28637943 * x5;
  const double g = 0.09140261 + 2.19418839 * x + 4.84296658 * x2 - 14.18503333 * x3 + 4.27729857 * x4 + 2.82956604 * x5;
  const double b =
      0.10667330 + 12.64194608 * x - 60.58204836 * x2 + 110.36276771 * x3 - 89.90310912 * x4 + 27.34824973 * x5;
  rgb[0] = uint8_t(std::lround(255.0 * std::clamp(r, 0.0, 1.0)));
  rgb[1] = uint8_t(std::lround(255.0 * std::clamp(g, 0.0, 1.0)));
  rgb[2] = uint8_t(std::lround(255.0 * std::clamp(b, 0.0, 1.0)));
}

// Where depth d falls on the colour map.
float position(float d, const DisplayRange& r) {
  if (!r.log_scale) return (d - r.near) / (r.far - r.near);
  return (std::log(std::max(d, 1e-6f)) - std::log(r.near)) / (std::log(r.far) - std::log(r.near));
}

// An RGB canvas (height x width x 3).
struct Canvas {
  int width, height;
  std::vector<uint8_t> rgb;
  void fill(int x0, int y0, int x1, int y1, const uint8_t c[3]) {
    for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(width, x1); ++x)
        std::copy(c, c + 3, &rgb[(size_t(y) * width + x) * 3]);
  }
};

// Text through stb_easy_font (its quads are axis-aligned rectangles), scaled `s` times.
void text(Canvas& c, int x, int y, const std::string& s, int scale) {
  static char buffer[64 * 1024];
  std::string copy = s;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer, sizeof buffer);
  const uint8_t white[3] = {235, 235, 235};
  for (int q = 0; q < quads; ++q) {
    const float* v = reinterpret_cast<const float*>(buffer + q * 64);  // 4 vertices of 16 bytes
    const float x0 = v[0], y0 = v[1], x1 = v[8], y1 = v[9];            // corners 0 and 2
    c.fill(x + int(x0 * scale), y + int(y0 * scale), x + int(x1 * scale), y + int(y1 * scale), white);
  }
}

}  // namespace

DisplayRange percentile_range(const std::vector<float>& depth, size_t count, bool log_scale) {
  std::vector<float> finite;
  std::copy_if(depth.begin(), depth.begin() + std::ptrdiff_t(count), std::back_inserter(finite),
               [](float d) { return std::isfinite(d) && d > 0; });
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

void write_contact_sheet(const std::filesystem::path& path, const std::vector<float>& depth, uint32_t n, uint32_t h,
                         uint32_t w, int scale, const DisplayRange& range) {
  const int gap = 2, tw = int(w) * scale, th = int(h) * scale, bar_w = 24, label_scale = 2;
  const int grid_w = 4 * tw + 5 * gap, grid_h = 4 * th + 5 * gap;
  Canvas c{grid_w + bar_w + 110, std::max(grid_h, 240), {}};
  c.rgb.assign(size_t(c.width) * c.height * 3, 48);
  const uint8_t miss[3] = {70, 70, 70}, invalid[3] = {255, 0, 255};
  for (uint32_t e = 0; e < std::min<uint32_t>(n, 16); ++e) {
    const int ox = gap + int(e % 4) * (tw + gap), oy = gap + int(e / 4) * (th + gap);
    for (int y = 0; y < th; ++y)
      for (int x = 0; x < tw; ++x) {
        const float d = depth[(size_t(e) * h + size_t(y / scale)) * w + size_t(x / scale)];
        uint8_t px[3];
        if (std::isnan(d))
          std::copy(invalid, invalid + 3, px);
        else if (!std::isfinite(d))
          std::copy(miss, miss + 3, px);
        else
          turbo(position(d, range), px);
        std::copy(px, px + 3, &c.rgb[(size_t(oy + y) * c.width + ox + x) * 3]);
      }
  }
  // The bar: near at the top, far at the bottom, five labelled ticks.
  const int bx = grid_w + 8, by = gap + 10, bh = c.height - 2 * by;
  for (int y = 0; y < bh; ++y) {
    uint8_t px[3];
    turbo(float(y) / float(bh - 1), px);
    c.fill(bx, by + y, bx + bar_w, by + y + 1, px);
  }
  for (int k = 0; k <= 4; ++k) {
    const float t = float(k) / 4;
    const float d =
        range.log_scale ? range.near * std::pow(range.far / range.near, t) : range.near + t * (range.far - range.near);
    const int y = by + int(t * float(bh - 1));
    const uint8_t white[3] = {235, 235, 235};
    c.fill(bx + bar_w, y, bx + bar_w + 5, y + 1, white);
    char label[32];
    std::snprintf(label, sizeof label, "%.2f m", double(d));
    text(c, bx + bar_w + 8, y - 6, label, label_scale);
  }
  if (!stbi_write_png(path.string().c_str(), c.width, c.height, 3, c.rgb.data(), c.width * 3))
    throw std::runtime_error("cannot write " + path.string());
}

}  // namespace wr_demo
