// wr_gather_poses (wr_poses.h) through the public C API on the host: poses against closed forms
// (rotations about each axis, their quaternions by hand), every branch of Shepperd's method, random
// rotations back to their quaternions, float and double inputs, the frame applied on the right (a
// MuJoCo camera's axes), both quaternion orders, the index table; NULL and CPU contexts giving the
// same bits; every bad argument refused by name with nothing written.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "rotation_test_support.h"

namespace {

constexpr double kPi = 3.14159265358979323846;

// The row-major rotation matrix of the quaternion (w, x, y, z), as a vector.
std::vector<double> matrix_of(const double q[4]) {
  const std::array<double, 9> m = wr_test::rotation_matrix_of(q);
  return std::vector<double>(m.begin(), m.end());
}

// Poses of every item of `batches` batches (items_per_batch each) in order.
std::vector<float> gather(wr_context ctx, const std::vector<double>& pos, const std::vector<double>& mat,
                          uint32_t batches, const std::vector<uint32_t>& indices, uint32_t items,
                          const float* frame = nullptr, wr_quat_order order = WR_QUAT_WXYZ) {
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.scalar_type = WR_SCALAR_FLOAT64;
  d.positions = pos.data();
  d.matrices = mat.data();
  d.num_batches = batches;
  d.items_per_batch = items;
  d.indices = indices.data();
  d.count = static_cast<uint32_t>(indices.size());
  if (frame) std::memcpy(d.frame, frame, sizeof d.frame);
  d.quat_order = order;
  std::vector<float> out(7 * size_t(batches) * indices.size(), -7.0f);
  REQUIRE_OK(wr_gather_poses(ctx, &d, out.data()));
  return out;
}

// q and p are the same rotation: equal, or equal negated, to within tol.
bool same_rotation(const float* q, const double* p, double tol) {
  double plus = 0, minus = 0;
  for (int i = 0; i < 4; ++i) {
    plus = std::max(plus, std::fabs(q[i] - p[i]));
    minus = std::max(minus, std::fabs(q[i] + p[i]));
  }
  return std::min(plus, minus) <= tol;
}

}  // namespace

TEST_CASE("wr_gather_poses: rotations about each axis are their quaternions, on every Shepperd branch",
          "[gather_poses]") {
  // Angles near 0 (the trace branch) and near pi about x, y and z (each diagonal branch).
  for (int axis = 0; axis < 3; ++axis)
    for (double angle : {0.0, 0.3, -1.2, 2.9, kPi - 1e-3, kPi}) {
      double q[4] = {std::cos(angle / 2), 0, 0, 0};
      q[1 + axis] = std::sin(angle / 2);
      const std::vector<double> m = matrix_of(q);
      const std::vector<double> p = {1.5, -2.0, 0.25};
      const std::vector<float> out = gather(nullptr, p, m, 1, {0}, 1);
      INFO("axis " << axis << ", angle " << angle);
      CHECK(out[0] == 1.5f);
      CHECK(out[1] == -2.0f);
      CHECK(out[2] == 0.25f);
      CHECK(same_rotation(out.data() + 3, q, 1e-7));
    }
}

TEST_CASE("wr_gather_poses: random rotations come back as their quaternions, float or double, either order",
          "[gather_poses]") {
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  const uint32_t batches = 3, items = 5;
  std::vector<double> pos, mat, quats;
  for (uint32_t i = 0; i < batches * items; ++i) {
    const std::array<double, 4> q = wr_test::random_unit_quaternion(rng);
    const std::vector<double> m = matrix_of(q.data());
    mat.insert(mat.end(), m.begin(), m.end());
    quats.insert(quats.end(), q.begin(), q.end());
    for (int k = 0; k < 3; ++k) pos.push_back(g(rng));
  }
  const std::vector<uint32_t> indices = {4, 0, 2, 2};  // any order, repeats allowed
  const std::vector<float> out = gather(nullptr, pos, mat, batches, indices, items);
  for (uint32_t b = 0; b < batches; ++b)
    for (size_t i = 0; i < indices.size(); ++i) {
      const size_t item = b * items + indices[i];
      const float* o = out.data() + 7 * (b * indices.size() + i);
      for (int k = 0; k < 3; ++k) CHECK(o[k] == static_cast<float>(pos[3 * item + k]));
      CHECK(same_rotation(o + 3, &quats[4 * item], 1e-7));
    }
  // float inputs: the same rotations, rounded.
  std::vector<float> posf(pos.begin(), pos.end()), matf(mat.begin(), mat.end());
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.positions = posf.data();
  d.matrices = matf.data();
  d.num_batches = batches;
  d.items_per_batch = items;
  d.indices = indices.data();
  d.count = 4;
  d.quat_order = WR_QUAT_XYZW;
  std::vector<float> outf(out.size());
  REQUIRE_OK(wr_gather_poses(nullptr, &d, outf.data()));
  for (size_t i = 0; i < out.size() / 7; ++i) {
    const float* a = out.data() + 7 * i;
    const float* b = outf.data() + 7 * i;
    for (int k = 0; k < 3; ++k) CHECK(a[k] == b[k]);
    const double wxyz[4] = {b[6], b[3], b[4], b[5]};  // x y z w back to w x y z
    CHECK(same_rotation(a + 3, wxyz, 1e-6));
  }
}

TEST_CASE("wr_gather_poses: the frame is applied on the right (a MuJoCo camera's axes into the library's)",
          "[gather_poses]") {
  // MuJoCo's camera looks along its -Z with +Y up; the library's camera frame is +X forward, +Y left,
  // +Z up: forward = -cam_z, left = -cam_x, up = +cam_y, i.e. R_out = cam_xmat * F.
  const float frame[9] = {0, -1, 0, 0, 0, 1, -1, 0, 0};
  const double q[4] = {std::cos(0.4), 0.2, -0.5, 0.3};
  double n = 0;
  for (double c : q) n += c * c;
  const double qn[4] = {q[0] / std::sqrt(n), q[1] / std::sqrt(n), q[2] / std::sqrt(n), q[3] / std::sqrt(n)};
  const std::vector<double> m = matrix_of(qn);
  const std::vector<float> out = gather(nullptr, {0, 0, 0}, m, 1, {0}, 1, frame);
  double back[4] = {out[3], out[4], out[5], out[6]};
  const std::vector<double> r = matrix_of(back);
  for (int row = 0; row < 3; ++row) {
    CHECK(r[3 * row + 0] == Approx(-m[3 * row + 2]).margin(1e-6));  // forward = -cam_z
    CHECK(r[3 * row + 1] == Approx(-m[3 * row + 0]).margin(1e-6));  // left = -cam_x
    CHECK(r[3 * row + 2] == Approx(m[3 * row + 1]).margin(1e-6));   // up = +cam_y
  }
}

TEST_CASE("wr_gather_poses: a CPU context gives the host's bits", "[gather_poses]") {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> pos(3 * 40), mat;
  for (double& p : pos) p = u(rng);
  for (int i = 0; i < 40; ++i) {
    double q[4] = {u(rng), u(rng), u(rng), u(rng)};
    const std::vector<double> m = matrix_of(q);  // unnormalised q: a scaled rotation, normalised back
    mat.insert(mat.end(), m.begin(), m.end());
  }
  const std::vector<uint32_t> indices = {3, 9, 1, 7};
  wr_context ctx = nullptr;
  REQUIRE_OK(wr_context_create_cpu(2, &ctx));
  const std::vector<float> a = gather(nullptr, pos, mat, 4, indices, 10);
  const std::vector<float> b = gather(ctx, pos, mat, 4, indices, 10);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  wr_context_release(ctx);
}

TEST_CASE("wr_gather_poses: bad arguments are refused by name and nothing is written", "[gather_poses][errors]") {
  const std::vector<double> pos(6, 0.0), mat = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::vector<uint32_t> indices = {0, 1};
  std::vector<float> out(14, -7.0f);
  const auto base = [&] {
    wr_pose_gather_desc d;
    wr_pose_gather_desc_init(&d);
    d.scalar_type = WR_SCALAR_FLOAT64;
    d.positions = pos.data();
    d.matrices = mat.data();
    d.num_batches = 1;
    d.items_per_batch = 2;
    d.indices = indices.data();
    d.count = 2;
    return d;
  };
  const auto refused = [&](const wr_pose_gather_desc& d, float* o, const std::string& culprit) {
    INFO(culprit);
    CHECK(wr_gather_poses(nullptr, &d, o) == WR_ERROR_INVALID_ARGUMENT);
    const std::string message = wr_last_error();
    CHECK(message.find("wr_gather_poses") != std::string::npos);
    CHECK(message.find(culprit) != std::string::npos);
    for (float v : out) CHECK(v == -7.0f);
  };
  CHECK(wr_gather_poses(nullptr, nullptr, out.data()) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("desc") != std::string::npos);
  wr_pose_gather_desc d = base();
  d.struct_size = 2;
  refused(d, out.data(), "desc->struct_size");
  d = base();
  std::memset(&d.scalar_type, 0x7f, sizeof d.scalar_type);
  refused(d, out.data(), "desc->scalar_type");
  d = base();
  std::memset(&d.quat_order, 0x05, sizeof d.quat_order);
  refused(d, out.data(), "desc->quat_order");
  const std::vector<uint32_t> past = {0, 2};
  d = base();
  d.indices = past.data();
  refused(d, out.data(), "desc->indices[1] = 2: must be < desc->items_per_batch = 2");
  d = base();
  d.positions = nullptr;
  refused(d, out.data(), "desc->positions");
  d = base();
  d.matrices = nullptr;
  refused(d, out.data(), "desc->matrices");
  d = base();
  d.indices = nullptr;
  refused(d, out.data(), "desc->indices");
  d = base();
  refused(d, nullptr, "out");
  d = base();
  d.frame[4] = NAN;
  refused(d, out.data(), "desc->frame[4]");
  d = base();
  d.items_per_batch = 0;
  refused(d, out.data(), "desc->items_per_batch = 0");
  d = base();
  d.positions = reinterpret_cast<const char*>(pos.data()) + 4;  // aligned for float, not for double
  refused(d, out.data(), "aligned to 8 bytes");
  d = base();
  d.num_batches = 1u << 30;
  d.count = 2;
  refused(d, out.data(), "must be below 2^31");
  // Nothing to gather: success, nothing written, no pointer needed.
  d = base();
  d.count = 0;
  d.positions = d.matrices = nullptr;
  d.indices = nullptr;
  REQUIRE_OK(wr_gather_poses(nullptr, &d, nullptr));
}
