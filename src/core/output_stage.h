// The output stage of the depth pipeline (pixel_pipeline.h): from the camera image's values
// (after noise, REP 117 sentinels: noise.h) to what the policy reads, per output pixel:
//
//   crop       a window of the camera image
//   invalid    the miss value for every pixel without a valid depth (the default), or REP 117's
//              sentinels kept (-inf too close, +inf no return, NaN invalid)
//   clip       finite depths clamped to [clip_min, clip_max]
//   resample   the crop to out_w x out_h: area (box average, torch's interpolate(mode="area"), that
//              is adaptive_avg_pool2d) or bicubic (Keys' cubic with a = -0.75, sample indices
//              clamped at the borders: torch's interpolate(mode="bicubic", align_corners=False))
//   normalise  out = (d - a) / (b - a) + c
//   clamp      values clamped to [clamp_min, clamp_max] (NaN stays NaN)
//   dtype      float32, float16 (IEEE round to nearest even) or uint16 millimetres (REP 118:
//              round(1000 d), 0 for no valid depth)
//
// Plain functions of (output pixel, the camera values), run by the CPU backend and by the CUDA
// kernel alike.
#pragma once

#include "platform.h"

namespace wr {

enum OutputResample : int { kResampleNone = 0, kResampleArea = 1, kResampleBicubic = 2 };
enum OutputDtype : int { kDtypeFloat32 = 0, kDtypeFloat16 = 1, kDtypeUint16Mm = 2 };

struct OutputParams {
  uint32_t crop_x, crop_y, crop_w, crop_h;  // the crop, in camera pixels
  uint32_t out_w, out_h;                    // the output image
  int resample;                             // OutputResample
  float scale_x, scale_y;                   // crop_w / out_w, crop_h / out_h, as torch computes them
  bool rep117;                              // keep the sentinels; else the miss value
  float miss_value;
  bool clip;
  float clip_min, clip_max;
  bool normalize;
  float norm_a, norm_b, norm_c;
  bool clamp;
  float clamp_min, clamp_max;
  int dtype;  // OutputDtype
};

// Bytes of one output value.
WR_HD uint32_t dtype_bytes(int dtype) { return dtype == kDtypeFloat32 ? 4u : 2u; }

// A camera value as the crop's sample: the invalid treatment, then the clip.
WR_HD float sample_value(float d, const OutputParams& o) {
  const bool valid = d - d == 0.0f;  // finite
  if (!valid) return o.rep117 ? d : o.miss_value;
  if (o.clip) d = d < o.clip_min ? o.clip_min : (d > o.clip_max ? o.clip_max : d);
  return d;
}

// Normalisation and clamp, after resampling.
WR_HD float finish_value(float v, const OutputParams& o) {
  if (o.normalize) v = (v - o.norm_a) / (o.norm_b - o.norm_a) + o.norm_c;
  if (o.clamp) v = v < o.clamp_min ? o.clamp_min : (v > o.clamp_max ? o.clamp_max : v);
  return v;
}

// Keys' cubic convolution weights for the four samples around a fraction t in [0, 1), with
// a = -0.75, as torch's get_cubic_upsample_coefficients computes them.
WR_HD void cubic_weights(float t, float w[4]) {
  const float a = -0.75f;
  const float x0 = t + 1.0f, x1 = t, x2 = 1.0f - t, x3 = 2.0f - t;
  w[0] = ((a * x0 - 5.0f * a) * x0 + 8.0f * a) * x0 - 4.0f * a;
  w[1] = ((a + 2.0f) * x1 - (a + 3.0f)) * x1 * x1 + 1.0f;
  w[2] = ((a + 2.0f) * x2 - (a + 3.0f)) * x2 * x2 + 1.0f;
  w[3] = ((a * x3 - 5.0f * a) * x3 + 8.0f * a) * x3 - 4.0f * a;
}

// The source position of output index i (half-pixel centres, align_corners = False), split into
// the integer below it and the fraction.
WR_HD void cubic_source(uint32_t i, float scale, int* base, float* t) {
  const float real = scale * (static_cast<float>(i) + 0.5f) - 0.5f;
  const float f = floor_(real);
  *base = static_cast<int>(f);
  *t = real - f;
}

WR_HD uint32_t clamp_index(int i, uint32_t n) {
  return i < 0 ? 0u : (static_cast<uint32_t>(i) >= n ? n - 1u : static_cast<uint32_t>(i));
}

// What one output column (or row) reads of the crop, the same for every env and frame: built
// once per sensor (make_resample_taps) and only read by the render. Bicubic: the four sample
// indices (clamped at the borders) and Keys' weights. Area: the samples [index[0], index[1]).
struct ResampleTaps {
  uint32_t index[4];
  float weight[4];
};

// The taps of output index i along an axis of n crop samples and `out` output samples.
WR_HD ResampleTaps make_resample_taps(uint32_t i, uint32_t n, uint32_t out, float scale, int resample) {
  ResampleTaps t{};
  if (resample == kResampleArea) {
    // adaptive average pooling: [floor(i n / out), ceil((i + 1) n / out))
    t.index[0] = i * n / out;
    t.index[1] = ((i + 1) * n + out - 1) / out;
    return t;
  }
  int base;
  float frac;
  cubic_source(i, scale, &base, &frac);
  cubic_weights(frac, t.weight);
  for (int k = 0; k < 4; ++k) t.index[k] = clamp_index(base - 1 + k, n);
  return t;
}

// The output value of output pixel (x, y) before its dtype, from the crop's samples:
// `sample(i, j)` is the sample (sample_value) of crop pixel (i, j), i in [0, crop_w); tx and ty
// the taps of column x and row y (unused without resampling).
template <class Samples>
WR_HD float output_value(const Samples& sample, uint32_t x, uint32_t y, const ResampleTaps& tx, const ResampleTaps& ty,
                         const OutputParams& o) {
  float v;
  if (o.resample == kResampleArea) {
    float sum = 0.0f;
    for (uint32_t j = ty.index[0]; j < ty.index[1]; ++j)
      for (uint32_t i = tx.index[0]; i < tx.index[1]; ++i) sum += sample(i, j);
    v = sum / static_cast<float>((ty.index[1] - ty.index[0]) * (tx.index[1] - tx.index[0]));
  } else if (o.resample == kResampleBicubic) {
    v = 0.0f;
    for (int j = 0; j < 4; ++j) {
      float r = 0.0f;
      for (int i = 0; i < 4; ++i) r = r + sample(tx.index[i], ty.index[j]) * tx.weight[i];
      v = v + r * ty.weight[j];
    }
  } else {
    v = sample(x, y);
  }
  return finish_value(v, o);
}

// IEEE binary16 of f, rounded to nearest even (overflow to infinity, NaN kept a quiet NaN).
WR_HD uint16_t float_to_half(float f) {
  const uint32_t x = bits_from_float(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                      // below the smallest normal half (2^-14): a subnormal half, m x 2^-24
    if (abs < 0x33000000u) return sign;         // below 2^-25, half the smallest subnormal: to zero
    const uint32_t shift = 126u - (abs >> 23);  // 14 ... 24
    const uint32_t mant = (abs & 0x007FFFFFu) | 0x00800000u;
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;  // may carry into the smallest normal
    return static_cast<uint16_t>(sign | h);
  }
  // normal: rebias the exponent (127 -> 15), keep 10 mantissa bits, round to nearest even
  const uint32_t e = (abs >> 23) - 112u, m = abs & 0x007FFFFFu;
  uint32_t h = (e << 10) | (m >> 13);
  const uint32_t rest = m & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right
  return static_cast<uint16_t>(sign | h);
}

// REP 118 millimetres: round(1000 d), 0 where d is not a finite positive depth (or rounds to 0),
// 65535 for depths beyond.
WR_HD uint16_t depth_to_mm(float d) {
  if (!(d - d == 0.0f)) return 0;
  const float mm = round_(d * 1000.0f);
  return mm <= 0.0f ? 0 : (mm >= 65535.0f ? static_cast<uint16_t>(65535) : static_cast<uint16_t>(mm));
}

// The bits of v as an element of an output array of `dtype` (in the low 16 bits for the 2-byte
// dtypes), and such an element stored or read.
WR_HD uint32_t encode_output(float v, int dtype) {
  if (dtype == kDtypeFloat32) return bits_from_float(v);
  return dtype == kDtypeFloat16 ? float_to_half(v) : depth_to_mm(v);
}
WR_HD void put_output(void* out, uint64_t i, uint32_t bits, int dtype) {
  if (dtype == kDtypeFloat32)
    static_cast<uint32_t*>(out)[i] = bits;
  else
    static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(bits);
}
WR_HD uint32_t get_output(const void* out, uint64_t i, int dtype) {
  return dtype == kDtypeFloat32 ? static_cast<const uint32_t*>(out)[i] : static_cast<const uint16_t*>(out)[i];
}

}  // namespace wr
