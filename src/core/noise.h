// Sensor noise of the depth pipeline (pixel_pipeline.h), applied to a camera pixel's clean depth:
// reproducible from (seed, env, frame, pixel) through Philox (philox.h), with no state per env, and
// the same bits on every backend (det_math.h). Each model is off at its zero parameters.
//
// Values are REP 117's: a depth in metres, -inf nearer than the sensor's minimum range, +inf no
// return, NaN invalid (the output stage, output_stage.h, turns them into what the user asked for).
// The models, in the order they are applied to a pixel with a return:
//   1. too close: d < min_range becomes -inf;
//   2. edge dropout: where a 4-neighbour's clean depth differs from d by more than edge_threshold
//      (a neighbour without a return counts as infinitely far), NaN with edge_probability (stereo
//      matching fails at depth discontinuities);
//   3. dropout: NaN with dropout_probability;
//   4. range-dependent Gaussian: d += sigma(d) z, sigma(d) = a + b d + c d^2, z standard normal
//      (stereo error grows with the square of depth);
//   5. disparity quantisation: disparity f B / d rounded to a multiple of the subpixel step, and
//      back; a disparity that rounds to 0 becomes +inf (no return);
//   6. per-env offset: d += o(env, frame), o uniform in [-env_offset, env_offset], the same for every
//      pixel of the env's frame (extreme-parkour's dis_noise).
#pragma once

#include "det_math.h"
#include "philox.h"

namespace wr {

struct NoiseParams {
  uint32_t seed_lo, seed_hi;  // the Philox key
  float min_range;            // metres; 0: off
  float edge_threshold;       // metres; 0: off
  float edge_probability;
  float dropout_probability;        // 0: off
  float sigma_a, sigma_b, sigma_c;  // all 0: off
  float focal_baseline;             // f (pixels) x B (metres); 0: off
  float disparity_step;             // pixels
  float env_offset;                 // metres; 0: off
  bool any;                         // some model is on
  bool edges;                       // edge dropout is on (it reads the neighbours' clean depth)
};

// The Philox output of one pixel of one env's frame: counter (pixel, env, frame), key = seed.
WR_HD Philox4x32 noise_bits(const NoiseParams& n, uint32_t pixel, uint32_t env, uint64_t frame) {
  return philox4x32_10(Philox4x32{{pixel, env, static_cast<uint32_t>(frame), static_cast<uint32_t>(frame >> 32)}},
                       n.seed_lo, n.seed_hi);
}

// The per-env offset of env's frame: counter pixel 0xFFFFFFFF, which no pixel has (an image has
// fewer than 2^32 - 1 pixels).
WR_HD float env_offset(const NoiseParams& n, uint32_t env, uint64_t frame) {
  if (n.env_offset == 0.0f) return 0.0f;
  const float u = uniform_open01(noise_bits(n, 0xFFFFFFFFu, env, frame).v[0]);
  return n.env_offset * (2.0f * u - 1.0f);
}

// Whether a neighbour's clean depth makes d an edge pixel.
WR_HD bool is_depth_step(float d, float neighbour, float threshold) {
  return neighbour != neighbour || fabs_(neighbour - d) > threshold;  // NaN or inf - d: a step
}

// Camera pixel (u, v) of a width x height image, after the noise models: `clean(u, v)` gives the
// clean depth of any pixel of the image (+inf for no return), `offset` is env_offset(n, env,
// frame).
template <class Clean>
WR_HD float noisy_depth(const Clean& clean, uint32_t u, uint32_t v, uint32_t width, uint32_t height,
                        const NoiseParams& n, uint32_t env, uint64_t frame, float offset) {
  float d = clean(u, v);
  if (!n.any || !(d < infinity_())) return d;  // no model, or no return (NaN never comes in)
  if (d < n.min_range) return -infinity_();
  const Philox4x32 r = noise_bits(n, v * width + u, env, frame);
  if (n.edges) {
    const bool step = (u > 0 && is_depth_step(d, clean(u - 1, v), n.edge_threshold)) ||
                      (u + 1 < width && is_depth_step(d, clean(u + 1, v), n.edge_threshold)) ||
                      (v > 0 && is_depth_step(d, clean(u, v - 1), n.edge_threshold)) ||
                      (v + 1 < height && is_depth_step(d, clean(u, v + 1), n.edge_threshold));
    if (step && uniform_open01(r.v[3]) < n.edge_probability) return quiet_nan_();
  }
  if (uniform_open01(r.v[2]) < n.dropout_probability) return quiet_nan_();
  const float sigma = n.sigma_a + n.sigma_b * d + n.sigma_c * d * d;
  if (sigma != 0.0f) d = d + sigma * box_muller(uniform_open01(r.v[0]), uniform_open01(r.v[1]));
  if (n.focal_baseline > 0.0f) {
    const float disparity = round_(n.focal_baseline / d / n.disparity_step) * n.disparity_step;
    d = disparity > 0.0f ? n.focal_baseline / disparity : infinity_();
  }
  return d + offset;
}

}  // namespace wr
