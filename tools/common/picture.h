// What the demos draw with: an RGB canvas, the turbo colour map, text, a labelled colour bar, and
// the PNG writer (stb_image_write). The contact sheet (contact_sheet.h) and the pattern sensors'
// pictures (apps/pattern_pictures.h) are made of these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace wr_demo {

// Values at the two ends of the colour map, and how a value maps between them.
struct DisplayRange {
  float near = 0.1f, far = 1.0f;
  bool log_scale = true;  // a robot's view spans 0.3 m to tens of metres: log keeps the near steps apart
};

// Where value v falls on the colour map, 0 (near) to 1 (far), unclamped.
float colour_position(float v, const DisplayRange& r);

// The turbo colour map at t in [0, 1] (clamped): dark blue (t = 0) to dark red (t = 1).
void turbo(float t, uint8_t rgb[3]);

// An RGB canvas (height x width x 3), drawn on in pixels from the top-left corner.
struct Canvas {
  int width, height;
  std::vector<uint8_t> rgb;
  Canvas(int w, int h, uint8_t grey);
  void fill(int x0, int y0, int x1, int y1, const uint8_t c[3]);  // [x0, x1) x [y0, y1), clipped
  void put(int x, int y, const uint8_t c[3]) { fill(x, y, x + 1, y + 1, c); }
  // Text (stb_easy_font, light grey), each font pixel `scale` x `scale`; (x, y) its top-left corner.
  void text(int x, int y, const std::string& s, int scale);
  // A vertical colour bar at (x, y), `h` pixels high: range.near at the top, range.far at the bottom,
  // five ticks labelled with printf's `label_format` (e.g. "%.2f m"), and `title` above it.
  void colour_bar(int x, int y, int h, const DisplayRange& range, const char* label_format, const std::string& title);
  // Throws std::runtime_error when the file cannot be written.
  void write_png(const std::filesystem::path& path) const;
};

}  // namespace wr_demo
