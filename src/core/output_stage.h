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

// The output value of output pixel (x, y) before its dtype, from the camera values:
// `camera(u, v)` is camera pixel (u, v) after noise (u, v in camera coordinates, within the crop).
template <class Camera>
WR_HD float output_value(const Camera& camera, uint32_t x, uint32_t y, const OutputParams& o) {
  float v;
  if (o.resample == kResampleArea) {
    // adaptive average pooling: input rows [floor(y h / oh), ceil((y + 1) h / oh)), columns alike
    const uint32_t y0 = y * o.crop_h / o.out_h, y1 = ((y + 1) * o.crop_h + o.out_h - 1) / o.out_h;
    const uint32_t x0 = x * o.crop_w / o.out_w, x1 = ((x + 1) * o.crop_w + o.out_w - 1) / o.out_w;
    float sum = 0.0f;
    for (uint32_t j = y0; j < y1; ++j)
      for (uint32_t i = x0; i < x1; ++i) sum += sample_value(camera(o.crop_x + i, o.crop_y + j), o);
    v = sum / static_cast<float>((y1 - y0) * (x1 - x0));
  } else if (o.resample == kResampleBicubic) {
    int bx, by;
    float tx, ty, wx[4], wy[4];
    cubic_source(x, o.scale_x, &bx, &tx);
    cubic_source(y, o.scale_y, &by, &ty);
    cubic_weights(tx, wx);
    cubic_weights(ty, wy);
    v = 0.0f;
    for (int j = 0; j < 4; ++j) {
      const uint32_t row = o.crop_y + clamp_index(by - 1 + j, o.crop_h);
      float r = 0.0f;
      for (int i = 0; i < 4; ++i)
        r = r + sample_value(camera(o.crop_x + clamp_index(bx - 1 + i, o.crop_w), row), o) * wx[i];
      v = v + r * wy[j];
    }
  } else {
    v = sample_value(camera(o.crop_x + x, o.crop_y + y), o);
  }
  if (o.normalize) v = (v - o.norm_a) / (o.norm_b - o.norm_a) + o.norm_c;
  if (o.clamp) v = v < o.clamp_min ? o.clamp_min : (v > o.clamp_max ? o.clamp_max : v);
  return v;
}

// IEEE binary16 of f, rounded to nearest even (overflow to infinity, NaN kept a quiet NaN).
WR_HD uint16_t float_to_half(float f) {
  const uint32_t x = bits_from_float(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): a subnormal half, m x 2^-24
    if (abs < 0x33000000u) return sign;  // below 2^-25, half the smallest subnormal: to zero
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

// Writes v as element i of an output array of o.dtype.
WR_HD void store_output(void* out, uint64_t i, float v, int dtype) {
  if (dtype == kDtypeFloat32)
    static_cast<float*>(out)[i] = v;
  else if (dtype == kDtypeFloat16)
    static_cast<uint16_t*>(out)[i] = float_to_half(v);
  else
    static_cast<uint16_t*>(out)[i] = depth_to_mm(v);
}

}  // namespace wr
