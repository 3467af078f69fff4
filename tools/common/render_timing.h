// How the demos time a render: the best and the mean of repeated calls after one warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace wr_demo {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The best and the mean time of `repeats` calls of `render`, in ms, after one untimed warm-up
/// call (it pages in the BVH and the output, and fills a history).
struct Timing {
  double best_ms = 1e300, mean_ms = 0;
};
template <class Render>
Timing time_renders(uint32_t repeats, Render&& render) {
  render();
  Timing t;
  double sum_ms = 0;
  for (uint32_t r = 0; r < repeats; ++r) {
    const Clock::time_point t0 = Clock::now();
    render();
    const double ms = ms_since(t0);
    t.best_ms = std::min(t.best_ms, ms), sum_ms += ms;
  }
  t.mean_ms = sum_ms / repeats;
  return t;
}

}  // namespace wr_demo
