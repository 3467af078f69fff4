// Fuzz harness: wr_gather_poses on the host (ctx NULL and the CPU context, in turn) on arbitrary
// descriptions: scalar types and quaternion orders valid or any int, batch, item and index counts
// around their limits, indices past the items, frames of zeros, signed permutations or any floats,
// positions and matrices drawn from rotations, NaN, the infinities, huge and denormal values.
//   - it succeeds exactly when the description is valid as wr_poses.h states it (checked here from
//     the header's rules, not the library's code); otherwise WR_ERROR_INVALID_ARGUMENT naming the
//     function, and nothing written;
//   - on success every pose is written, its position is the item's (as float), and where the item's
//     matrix and the frame are rotations the quaternion is a unit one;
//   - the NULL context and the CPU context give the same bits.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;

constexpr uint32_t kSentinel = 0x7f812345u;  // a NaN's bits no gather writes

bool untouched(const std::vector<float>& v) {
  for (float f : v) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    if (b != kSentinel) return false;
  }
  return true;
}

std::vector<float> sentinels(size_t n) {
  std::vector<float> v(n);
  for (float& f : v) std::memcpy(&f, &kSentinel, sizeof f);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  const uint8_t fields = in.take<uint8_t>();
  const uint32_t batches = in.below(4), items = in.below(5), count = in.below(6);
  int type = int(in.below(2)), order = int(in.below(2));
  if (fields & 1) type = in.take<int>();
  if (fields & 2) order = in.take<int>();
  const bool f64 = type == WR_SCALAR_FLOAT64;

  std::vector<uint32_t> indices(count);
  for (uint32_t& i : indices) i = fields & 4 ? in.take<uint32_t>() % (items + 3) : (items ? in.below(items) : 0);

  // Positions and matrices: rotations about one axis by a drawn angle (exactly orthonormal up to
  // rounding), or (fields & 8) any values.
  const size_t n_items = size_t(batches) * items;
  std::vector<double> pos(3 * n_items + 1), mat(9 * n_items + 1);
  std::vector<bool> rotation(n_items, true);
  for (size_t k = 0; k < n_items; ++k) {
    for (int a = 0; a < 3; ++a) pos[3 * k + a] = fields & 8 ? in.special_float() : float(int(in.below(41)) - 20);
    if (fields & 8 && in.take<uint8_t>() < 128) {
      rotation[k] = false;
      for (int e = 0; e < 9; ++e) mat[9 * k + e] = in.special_float();
    } else {
      const double angle = double(in.below(4096)) * (6.283185307179586 / 4096.0);
      const int axis = int(in.below(3)), u = (axis + 1) % 3, v = (axis + 2) % 3;
      double* m = &mat[9 * k];
      for (int e = 0; e < 9; ++e) m[e] = 0.0;
      m[4 * axis] = 1.0;
      m[3 * u + u] = std::cos(angle), m[3 * u + v] = -std::sin(angle);
      m[3 * v + u] = std::sin(angle), m[3 * v + v] = std::cos(angle);
    }
  }
  std::vector<float> posf(pos.begin(), pos.end()), matf(mat.begin(), mat.end());

  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  std::memcpy(&d.scalar_type, &type, sizeof type);
  std::memcpy(&d.quat_order, &order, sizeof order);
  bool frame_rotation = true;
  const uint8_t frame_kind = in.take<uint8_t>();
  if (frame_kind >= 128 && frame_kind < 200) {  // a signed permutation: a rotation or a reflection
    const float perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int p = int(in.below(6));
    float det_sign = 1.0f;
    for (int r = 0; r < 3; ++r) {
      const float s = in.take<uint8_t>() & 1 ? -1.0f : 1.0f;
      det_sign *= s;
      d.frame[3 * r + int(perms[p][r])] = s;
    }
    // A permutation's parity times the signs' product: only +1 is a rotation.
    const bool odd = p == 1 || p == 2 || p == 5;
    frame_rotation = (odd ? -det_sign : det_sign) > 0;
  } else if (frame_kind >= 200) {
    for (float& f : d.frame) f = in.special_float();
    frame_rotation = false;
  }
  // Positions misaligned for their type now and then (wr_poses.h: aligned to the scalar's size).
  const bool misaligned = (fields & 16) != 0;
  const char* pos_base = f64 ? reinterpret_cast<const char*>(pos.data()) : reinterpret_cast<const char*>(posf.data());
  d.positions = pos_base + (misaligned ? 2 : 0);
  d.matrices = f64 ? static_cast<const void*>(mat.data()) : matf.data();
  d.num_batches = batches;
  d.items_per_batch = items;
  d.indices = indices.empty() ? nullptr : indices.data();
  d.count = count;

  // wr_poses.h's rules.
  const uint64_t n = uint64_t(batches) * count;
  bool frame_finite = true;
  for (float f : d.frame) frame_finite = frame_finite && std::isfinite(f);
  bool valid = (type == WR_SCALAR_FLOAT32 || type == WR_SCALAR_FLOAT64) &&
               (order == WR_QUAT_WXYZ || order == WR_QUAT_XYZW) && frame_finite;
  if (valid && n) {
    valid = items > 0 && !misaligned;
    for (uint32_t i : indices) valid = valid && i < items;
  }

  std::vector<float> first;
  for (int round = 0; round < 2; ++round) {
    const wr_context ctx = round == 0 ? nullptr : wr_fuzz::context();
    std::vector<float> out = sentinels(7 * n + 7);  // one spare pose past the end: never written
    const wr_status s = wr_gather_poses(ctx, &d, out.data());
    check(s == WR_SUCCESS || s == WR_ERROR_INVALID_ARGUMENT, "an undocumented status", wr_status_string(s));
    check((s == WR_SUCCESS) == valid, valid ? "a valid gather failed" : "an invalid gather succeeded",
          s == WR_SUCCESS ? "" : wr_last_error());
    if (s != WR_SUCCESS) {
      wr_fuzz::check_message(s, "wr_gather_poses");
      check(untouched(out), "a failed gather wrote its output");
      continue;
    }
    check(untouched(std::vector<float>(out.end() - 7, out.end())), "a gather wrote past its output");
    for (uint64_t p = 0; p < n; ++p) {
      const size_t item = size_t(p / count) * items + indices[p % count];
      const float* o = &out[7 * p];
      for (int a = 0; a < 3; ++a) {
        const float want = f64 ? float(pos[3 * item + a]) : posf[3 * item + a];
        check(std::memcmp(&o[a], &want, sizeof want) == 0 || (std::isnan(o[a]) && std::isnan(want)),
              "a position is not the item's");
      }
      if (rotation[item] && frame_rotation) {
        double len = 0;
        for (int k = 3; k < 7; ++k) len += double(o[k]) * o[k];
        check(std::fabs(len - 1.0) < 1e-5, "a rotation's quaternion is not a unit one", std::to_string(len));
      }
    }
    if (round == 0)
      first = out;
    else
      check(std::memcmp(first.data(), out.data(), out.size() * sizeof(float)) == 0,
            "the CPU context's poses differ from the host's");
  }
  return 0;
}
