#include "plot_png.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include "pixel_font.h"

namespace wrbench {
namespace {

constexpr int kWidth = 960, kPlotHeight = 480;                 // the image's height grows with the legend
constexpr int kLeft = 100, kRight = 30, kTop = 50, kAxisBelow = 70;  // margins around the plot area
constexpr int kTextScale = 2;                                        // each font pixel is 2 x 2
constexpr int kLineHeight = kGlyphHeight * kTextScale + 8;           // a legend line

struct Canvas {
  explicit Canvas(int height) : height(height), rgb(size_t(kWidth) * size_t(height) * 3, 255) {}
  int height;
  std::vector<uint8_t> rgb;  // (height x kWidth x 3)

  void dot(int x, int y, const uint8_t* c) {
    if (x < 0 || y < 0 || x >= kWidth || y >= height) return;
    uint8_t* p = &rgb[3 * (size_t(y) * kWidth + x)];
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
  }
  void rect(int x0, int y0, int x1, int y1, const uint8_t* c) {  // filled, inclusive
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) dot(x, y, c);
  }
  void frame(int x0, int y0, int x1, int y1, const uint8_t* c) {  // outline, inclusive
    rect(x0, y0, x1, y0, c), rect(x0, y1, x1, y1, c), rect(x0, y0, x0, y1, c), rect(x1, y0, x1, y1, c);
  }
  // Bresenham's line, `thick` pixels wide.
  void line(int x0, int y0, int x1, int y1, const uint8_t* c, int thick) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    for (int err = dx + dy;;) {
      rect(x0, y0, x0 + thick - 1, y0 + thick - 1, c);
      if (x0 == x1 && y0 == y1) return;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  // Text with its top-left corner at (x, y).
  void text(int x, int y, const std::string& s, const uint8_t* c) {
    for (char ch : s) {
      if (const uint8_t* rows = glyph_rows(ch))
        for (int r = 0; r < kGlyphHeight; ++r)
          for (int k = 0; k < kGlyphWidth; ++k)
            if (rows[r] & (0x10 >> k))
              rect(x + k * kTextScale, y + r * kTextScale, x + (k + 1) * kTextScale - 1,
                   y + (r + 1) * kTextScale - 1, c);
      x += kGlyphAdvance * kTextScale;
    }
  }
  static int text_width(const std::string& s) { return int(s.size()) * kGlyphAdvance * kTextScale; }
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

bool write_memory_plot(const std::string& path, const std::string& title, const std::vector<PlotSeries>& series,
                       const std::vector<std::string>& notes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;  // envs; MiB
  for (const PlotSeries& s : series)
    for (size_t i = 0; i < s.envs.size(); ++i) {
      xmin = std::min(xmin, s.envs[i]), xmax = std::max(xmax, s.envs[i]);
      for (double b : {s.reported[i], i < s.measured.size() ? s.measured[i] : s.reported[i]})
        if (b > 0) ymin = std::min(ymin, b / kMiB), ymax = std::max(ymax, b / kMiB);
    }
  if (!(xmax > 0) || !(ymax > 0)) return false;
  // Log axes: x padded by 5% of its decades on each side, y over whole decades.
  const double lx0 = std::log10(xmin), lx1 = std::log10(std::max(xmax, 2 * xmin)), pad = 0.05 * (lx1 - lx0);
  const double ax0 = lx0 - pad, ax1 = lx1 + pad;
  const double ay0 = std::floor(std::log10(ymin)), ay1 = std::max(std::ceil(std::log10(ymax)), ay0 + 1);
  // The plot area, then the x axis labels, then the legend under it (never over the data).
  const int legend_h = int(series.size() + notes.size()) * kLineHeight;
  const int height = kTop + kPlotHeight + kAxisBelow + legend_h + 24;
  const int px0 = kLeft, px1 = kWidth - kRight, py0 = kTop, py1 = kTop + kPlotHeight;
  auto to_x = [&](double envs) { return px0 + int(std::lround((std::log10(envs) - ax0) / (ax1 - ax0) * (px1 - px0))); };
  auto to_y = [&](double bytes) {
    return py1 - int(std::lround((std::log10(bytes / kMiB) - ay0) / (ay1 - ay0) * (py1 - py0)));
  };

  Canvas cv(height);
  const uint8_t black[3] = {0, 0, 0}, grid[3] = {220, 220, 220}, minor[3] = {236, 236, 236}, grey[3] = {90, 90, 90};
  // Grid: decades of MiB (with 2x and 5x in a lighter grey, labelled over one or two
  // decades), and every N measured.
  const bool label_minor = ay1 - ay0 <= 2;
  for (double d = ay0; d <= ay1 + 1e-9; d += 1) {
    for (double m : {2.0, 5.0}) {
      const double v = std::pow(10.0, d) * m;
      if (std::log10(v) >= ay1) continue;
      const int y = to_y(v * kMiB);
      cv.rect(px0, y, px1, y, minor);
      if (label_minor)
        cv.text(px0 - 10 - Canvas::text_width(number(v)), y - kGlyphHeight * kTextScale / 2, number(v), grey);
    }
    const int y = to_y(std::pow(10.0, d) * kMiB);
    cv.rect(px0, y, px1, y, grid);
    const std::string label = number(std::pow(10.0, d));
    cv.text(px0 - 10 - Canvas::text_width(label), y - kGlyphHeight * kTextScale / 2, label, black);
  }
  std::vector<double> ticks;
  for (const PlotSeries& s : series) ticks.insert(ticks.end(), s.envs.begin(), s.envs.end());
  std::sort(ticks.begin(), ticks.end());
  ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
  int last_label_end = -1000;
  for (double n : ticks) {
    const int x = to_x(n);
    cv.rect(x, py0, x, py1, grid);
    const std::string label = number(n);
    const int lx = x - Canvas::text_width(label) / 2;
    if (lx > last_label_end + 6) cv.text(lx, py1 + 10, label, black), last_label_end = lx + Canvas::text_width(label);
  }
  cv.frame(px0, py0, px1, py1, black);
  cv.text(px0, 14, title, black);
  cv.text(10, py0 - 28, "MIB", grey);
  const std::string xlabel = "ENVS N (LOG SCALE)";
  cv.text((px0 + px1 - Canvas::text_width(xlabel)) / 2, py1 + 40, xlabel, grey);

  // Series: a line with dots through the reported bytes, hollow squares on the measured.
  for (const PlotSeries& s : series) {
    for (size_t i = 0; i < s.envs.size(); ++i) {
      const int x = to_x(s.envs[i]), y = to_y(s.reported[i]);
      if (i > 0) cv.line(to_x(s.envs[i - 1]), to_y(s.reported[i - 1]), x, y, s.rgb, 2);
      cv.rect(x - 2, y - 2, x + 3, y + 3, s.rgb);
      if (i < s.measured.size() && s.measured[i] > 0) {
        const int ym = to_y(s.measured[i]);
        cv.frame(x - 6, ym - 6, x + 7, ym + 7, s.rgb);
        cv.frame(x - 5, ym - 5, x + 6, ym + 6, s.rgb);
      }
    }
  }

  // Legend, under the x axis.
  const int line_h = kLineHeight, lx = px0, ly = py1 + kAxisBelow + 12;
  int y = ly;
  for (const PlotSeries& s : series) {
    const int mid = y + kGlyphHeight * kTextScale / 2;
    cv.line(lx, mid, lx + 32, mid, s.rgb, 2);
    cv.rect(lx + 14, mid - 2, lx + 19, mid + 3, s.rgb);
    cv.text(lx + 44, y, s.label, black);
    y += line_h;
  }
  for (const std::string& n : notes) cv.text(lx, y, n, grey), y += line_h;

  return stbi_write_png(path.c_str(), kWidth, height, 3, cv.rgb.data(), kWidth * 3) != 0;
}

}  // namespace wrbench
