// A tiny built-in 5x7 pixel font for the plot's labels and legend: digits, A-Z (lower case
// is drawn as upper case) and a few signs. Hand-drawn; no font library needed.
#pragma once

#include <cstdint>

namespace wrbench {

constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

/// Rows of the glyph of c, top to bottom, bit 4 = leftmost column; nullptr for a character
/// the font lacks (drawn as a blank).
const uint8_t* glyph_rows(char c);

}  // namespace wrbench
