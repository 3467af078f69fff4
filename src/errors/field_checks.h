// Checks of a field of a caller's struct (wr_camera_desc, wr_sensor_options, wr_heightfield_desc),
// refused as WR_ERROR_INVALID_ARGUMENT "<function>: <name> <why>", `name` spelled as the caller
// writes it ("desc->fx", "options->noise.min_range"): one wording for every struct.
#pragma once

#include <cmath>
#include <string>

#include "errors/status_error.h"

namespace wr {

[[noreturn]] inline void bad_field(const char* function, const std::string& name, const std::string& why) {
  fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + " " + why);
}

inline void require_finite_field(const char* function, const std::string& name, float v) {
  if (!std::isfinite(v)) bad_field(function, name, "= " + num(v) + ": must be finite");
}

// The largest length, in metres, of a pattern's start, offset or mount coordinate: a sensor beyond
// it is a mistake, and a coordinate near the largest float overflows to infinity when a rotation
// turns it into the world (a world ray must stay finite).
constexpr double kMaxSensorLength = 1e18;

inline void require_length_field(const char* function, const std::string& name, double v) {
  if (!(std::fabs(v) <= kMaxSensorLength))
    bad_field(function, name, "= " + num(static_cast<float>(v)) + ": must be finite and within +-1e18 metres");
}

inline void require_positive_field(const char* function, const std::string& name, float v) {
  if (!(std::isfinite(v) && v > 0.0f)) bad_field(function, name, "= " + num(v) + ": must be finite and > 0");
}

inline void require_non_negative_field(const char* function, const std::string& name, float v) {
  if (!(std::isfinite(v) && v >= 0.0f)) bad_field(function, name, "= " + num(v) + ": must be finite and >= 0");
}

}  // namespace wr
