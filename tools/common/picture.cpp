#include "picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <stb/stb_easy_font.h>
// The one definition of stb_image_write in the programs linking wr_demo_common.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace wr_demo {

float colour_position(float v, const DisplayRange& r) {
  if (!r.log_scale) return (v - r.near) / (r.far - r.near);
  return (std::log(std::max(v, 1e-6f)) - std::log(r.near)) / (std::log(r.far) - std::log(r.near));
}

// By the polynomial fit its author published (A. Mikhailov, "Turbo, An Improved Rainbow Colormap
// for Visualization", Google AI Blog, 2019): a perceptually smoother rainbow than jet.
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

Canvas::Canvas(int w, int h, uint8_t grey) : width(w), height(h), rgb(size_t(w) * size_t(h) * 3, grey) {}

void Canvas::fill(int x0, int y0, int x1, int y1, const uint8_t c[3]) {
  for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(width, x1); ++x) std::copy(c, c + 3, &rgb[(size_t(y) * width + x) * 3]);
}

// stb_easy_font's quads are axis-aligned rectangles: each is filled as one.
void Canvas::text(int x, int y, const std::string& s, int scale) {
  static char buffer[64 * 1024];
  std::string copy = s;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer, sizeof buffer);
  const uint8_t white[3] = {235, 235, 235};
  for (int q = 0; q < quads; ++q) {
    const float* v = reinterpret_cast<const float*>(buffer + q * 64);  // 4 vertices of 16 bytes
    const float x0 = v[0], y0 = v[1], x1 = v[8], y1 = v[9];            // corners 0 and 2
    fill(x + int(x0 * scale), y + int(y0 * scale), x + int(x1 * scale), y + int(y1 * scale), white);
  }
}

void Canvas::colour_bar(int x, int y, int h, const DisplayRange& range, const char* label_format,
                        const std::string& title) {
  const int bar_w = 24, label_scale = 2;
  text(x, y - 22, title, label_scale);
  for (int i = 0; i < h; ++i) {
    uint8_t px[3];
    turbo(float(i) / float(h - 1), px);
    fill(x, y + i, x + bar_w, y + i + 1, px);
  }
  const uint8_t white[3] = {235, 235, 235};
  for (int k = 0; k <= 4; ++k) {
    const float t = float(k) / 4;
    const float v =
        range.log_scale ? range.near * std::pow(range.far / range.near, t) : range.near + t * (range.far - range.near);
    const int ty = y + int(t * float(h - 1));
    fill(x + bar_w, ty, x + bar_w + 4, ty + 1, white);  // the tick, then a gap before its label
    char label[32];
    std::snprintf(label, sizeof label, label_format, double(v));
    text(x + bar_w + 10, ty - 6, label, label_scale);
  }
}

void Canvas::write_png(const std::filesystem::path& path) const {
  if (!stbi_write_png(path.string().c_str(), width, height, 3, rgb.data(), width * 3))
    throw std::runtime_error("cannot write " + path.string());
}

}  // namespace wr_demo
