// The CUDA backend against the CPU backend, through the public C API (libwr.so) plus the CUDA
// runtime API for device buffers, streams and graphs.
//
// What is checked (include/wr/wr.h is the contract):
//   - parity: the same scene, camera desc and poses rendered by a CPU context and by a CUDA
//     context give BIT-IDENTICAL depth images. No tolerance: the kernel runs the very same
//     src/core code, compiled with --fmad=false (the CPU side with -ffp-contract=off), IEEE
//     division and square root (nvcc's defaults, no --use_fast_math), no flush-to-zero, and
//     both read the ray template and the sensor constants computed once on the host. Any
//     difference is a bug (a contraction, an intrinsic that rounds differently, a race, an
//     unwritten pixel), not noise.
//   - render only enqueues: it is captured into a CUDA graph (global capture mode, which
//     rejects allocation and synchronisation) as exactly one kernel node, and the graph
//     replays with whatever poses the buffer holds at launch time; it returns while its
//     stream is still blocked behind earlier work; free device memory is unchanged across
//     100 renders.
//   - a non-finite pose (or a zero quaternion) in device memory turns exactly that env's
//     image into NaN; a host pointer is rejected with a message naming it.
//   - context errors: a bad ordinal names it; without a usable GPU, WR_DEVICE_CUDA fails with
//     WR_ERROR_UNSUPPORTED carrying the CUDA error text, and the CPU keeps working.
//
// Without a usable GPU every GPU test WARNs "skipped: <reason>" and returns (Catch2 v2 has no
// SKIP). Set WR_REQUIRE_GPU=1 (scripts/gpu-check.sh does) to turn such a skip into a failure,
// so a broken driver cannot make a GPU machine look green.
//
// Device buffers are filled with the byte 0xFF (the float bits 0xFFFFFFFF, a NaN that neither
// backend ever writes) before every render, so a pixel the kernel fails to write shows up as
// a difference from the CPU image.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "float_bits.h"
#include "mesh_builders.h"

namespace {

using Eigen::AngleAxisd;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr uint32_t kUnwritten = 0xFFFFFFFFu;  // bits of a float the fill byte 0xFF makes

#define REQUIRE_CUDA(call)                                                                   \
  do {                                                                                       \
    const cudaError_t e_ = (call);                                                           \
    INFO(#call << " -> " << cudaGetErrorName(e_) << " (" << cudaGetErrorString(e_) << ")");  \
    REQUIRE(e_ == cudaSuccess);                                                              \
  } while (0)

using wr_test::bits;

// ---- handles and device resources ---------------------------------------------------------------

using wr_test::Context;
using wr_test::make_sensor;
using wr_test::Scene;
using wr_test::Sensor;

// A cudaMalloc'd array of n floats, freed on scope exit.
class DeviceFloats {
 public:
  explicit DeviceFloats(size_t n) : n_(n) { REQUIRE_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), bytes())); }
  ~DeviceFloats() { cudaFree(p_); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(float); }

  // Stream-ordered copies and fills: the legacy default stream (cudaMemcpy, cudaMemset) does not
  // order against a non-blocking stream, so everything touching a buffer goes on one stream.
  void upload(const std::vector<float>& host, cudaStream_t stream) {
    REQUIRE(host.size() == n_);
    REQUIRE_CUDA(cudaMemcpyAsync(p_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
  }
  void fill_unwritten(cudaStream_t stream) { REQUIRE_CUDA(cudaMemsetAsync(p_, 0xFF, bytes(), stream)); }
  // Copies back and waits for the stream: the result is complete when this returns.
  std::vector<float> download(cudaStream_t stream) const {
    std::vector<float> host(n_);
    REQUIRE_CUDA(cudaMemcpyAsync(host.data(), p_, bytes(), cudaMemcpyDeviceToHost, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    return host;
  }

 private:
  float* p_ = nullptr;
  size_t n_;
};

// A non-blocking stream (does not synchronise with the legacy default stream), destroyed on exit.
class Stream {
 public:
  Stream() { REQUIRE_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (!s_) return;
    // If a REQUIRE threw in the middle of a capture, end it so later tests are not run under an
    // active global-mode capture (which would make their allocations fail).
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s_, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s_, &g);
      if (g) cudaGraphDestroy(g);
    }
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

struct GraphDestroy {
  void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};
struct GraphExecDestroy {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDestroy>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDestroy>;

// ---- skipping without a GPU ---------------------------------------------------------------------

bool gpu_required() {
  const char* v = std::getenv("WR_REQUIRE_GPU");
  return v && *v && std::strcmp(v, "0") != 0;
}

// A CUDA context on device 0, or null after WARNing why the calling test is skipped. Only
// WR_ERROR_UNSUPPORTED (no usable driver or device) skips; any other failure is a test failure,
// and so is a skip when WR_REQUIRE_GPU is set.
Context cuda_context_or_skip() {
  wr_context c = nullptr;
  const wr_status s = wr_context_create(WR_DEVICE_CUDA, 0, &c);
  if (s == WR_SUCCESS) return Context(c);
  const std::string why = std::string(wr_status_string(s)) + ": " + wr_last_error();
  if (s != WR_ERROR_UNSUPPORTED) FAIL("wr_context_create(WR_DEVICE_CUDA, 0) failed unexpectedly: " << why);
  if (gpu_required()) FAIL("WR_REQUIRE_GPU is set but no CUDA context can be created: " << why);
  WARN("skipped: no usable CUDA device: " << why);
  return nullptr;
}

#define CUDA_CONTEXT_OR_SKIP(var)             \
  Context var = cuda_context_or_skip();       \
  if (!var) return

Context cpu_context() { return wr_test::make_context(0); }

// ---- meshes -------------------------------------------------------------------------------------

using wr_test::add_split_quad;
using wr_test::Mesh;

// A closed box (8 shared vertices, 12 triangles) with centre (cx, cy, cz), half extents
// (hx, hy, hz), turned by `yaw` radians about +Z.
void add_box(Mesh& m, float cx, float cy, float cz, float hx, float hy, float hz, double yaw) {
  const double c = std::cos(yaw), s = std::sin(yaw);
  uint32_t v[8];
  for (int i = 0; i < 8; ++i) {
    const double x = (i & 1 ? hx : -hx), y = (i & 2 ? hy : -hy), z = (i & 4 ? hz : -hz);
    v[i] = m.vertex(float(cx + c * x - s * y), float(cy + s * x + c * y), float(cz + z));
  }
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangle(v[f[0]], v[f[1]], v[f[2]]);
    m.triangle(v[f[0]], v[f[2]], v[f[3]]);
  }
}

// A bumpy heightfield of (n x n) quads of 0.5 m over [0, n/2]^2 with terraced steps, plus
// boxes standing on it, some turned. 2 n^2 + 12 * num_boxes triangles.
Mesh heightfield_with_boxes(uint32_t seed, uint32_t n = 24, int num_boxes = 12) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.15f), unit(0.0f, 1.0f);
  Mesh m;
  const float cell = 0.5f;
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i <= n; ++i) {
      const float x = cell * float(i), y = cell * float(j);
      float h = 0.4f * std::sin(0.7f * x) * std::cos(0.5f * y) + noise(rng);
      if (x > 6.0f) h += 0.25f * std::floor((x - 6.0f) / 1.5f);  // stairs up along +X
      m.vertex(x, y, h);
    }
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      add_split_quad(m, a, b, d, c, (i + j) % 2 != 0);
    }
  const float size = cell * float(n);
  for (int b = 0; b < num_boxes; ++b) {
    const float hx = 0.15f + 0.6f * unit(rng), hy = 0.15f + 0.6f * unit(rng), hz = 0.1f + 0.8f * unit(rng);
    const float x = 1.0f + (size - 2.0f) * unit(rng), y = 1.0f + (size - 2.0f) * unit(rng);
    add_box(m, x, y, 0.3f + hz, hx, hy, hz, b % 3 == 0 ? 0.0 : 2.0 * kPi * unit(rng));
  }
  return m;
}

// A closed room [-4, 4] x [-3, 3] x [0, 3], every wall split into 0.5 m quads (two triangles
// each, diagonals alternating), plus two pillars. All coordinates are multiples of 0.5, exact
// in float, so the walls meet at bit-identical vertices: the room is watertight and a camera
// inside it hits something at every pixel when nothing is clipped.
Mesh closed_room() {
  Mesh m;
  const float lo[3] = {-4.0f, -3.0f, 0.0f}, hi[3] = {4.0f, 3.0f, 3.0f}, step = 0.5f;
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const int nb = int((hi[b] - lo[b]) / step), nc = int((hi[c] - lo[c]) / step);
    for (float fixed : {lo[a], hi[a]}) {
      const uint32_t base = uint32_t(m.num_vertices());
      for (int j = 0; j <= nc; ++j)
        for (int i = 0; i <= nb; ++i) {
          float p[3];
          p[a] = fixed;
          p[b] = lo[b] + step * float(i);
          p[c] = lo[c] + step * float(j);
          m.vertex(p[0], p[1], p[2]);
        }
      auto at = [&](int i, int j) { return base + uint32_t(j * (nb + 1) + i); };
      for (int j = 0; j < nc; ++j)
        for (int i = 0; i < nb; ++i)
          add_split_quad(m, at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1), (i + j) % 2 != 0);
    }
  }
  add_box(m, 1.5f, 1.0f, 1.5f, 0.25f, 0.25f, 1.5f, 0.0);
  add_box(m, -2.0f, -1.0f, 1.0f, 0.4f, 0.2f, 1.0f, 0.6);
  return m;
}

// num_triangles random triangles in [-5, 5]^3: small and large ones, slivers (third corner
// 1e-5 off the first edge's midpoint), needles, and zero-area ones of three kinds (a repeated
// index, three exactly collinear corners, three equal corners), some sharing an edge with the
// previous triangle.
Mesh triangle_soup(uint32_t seed, int num_triangles) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-5.0f, 5.0f), off(-1.0f, 1.0f), unit(0.0f, 1.0f);
  Mesh m;
  for (int t = 0; t < num_triangles; ++t) {
    const float size = unit(rng) < 0.15f ? 3.0f : 0.4f;
    const float x = pos(rng), y = pos(rng), z = pos(rng);
    const uint32_t a = m.vertex(x, y, z);
    const float bx = x + size * off(rng), by = y + size * off(rng), bz = z + size * off(rng);
    const uint32_t b = m.vertex(bx, by, bz);
    const int kind = int(unit(rng) * 10.0f);
    switch (kind) {
      case 0: {  // sliver
        const uint32_t c = m.vertex(0.5f * (x + bx) + 1e-5f, 0.5f * (y + by), 0.5f * (z + bz));
        m.triangle(a, b, c);
        break;
      }
      case 1: {  // needle: long and very thin
        const uint32_t c = m.vertex(x + 6.0f * (bx - x), y + 6.0f * (by - y) + 2e-3f, z + 6.0f * (bz - z));
        m.triangle(a, b, c);
        break;
      }
      case 2:  // zero area: repeated index
        m.triangle(a, a, b);
        break;
      case 3: {  // zero area: exactly collinear along +X (the coordinates are exact in float)
        const uint32_t c = m.vertex(x + 1.0f, y, z), d = m.vertex(x + 3.0f, y, z);
        m.triangle(a, c, d);
        break;
      }
      case 4: {  // zero area: three equal corners (distinct vertices)
        const uint32_t c = m.vertex(x, y, z), d = m.vertex(x, y, z);
        m.triangle(a, c, d);
        break;
      }
      case 5:  // shares the edge (a_prev, b_prev) of the previous triangle's first two corners
        if (t > 0) {
          const uint32_t p0 = m.indices[m.indices.size() - 3], p1 = m.indices[m.indices.size() - 2];
          m.triangle(p0, p1, a);
          break;
        }
        [[fallthrough]];
      default: {
        const uint32_t c = m.vertex(x + size * off(rng), y + size * off(rng), z + size * off(rng));
        m.triangle(a, b, c);
      }
    }
  }
  return m;
}

Scene make_scene(wr_context context, const Mesh& m) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(context, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return Scene(s);
}

// ---- poses --------------------------------------------------------------------------------------

double deg(double d) { return d * kPi / 180.0; }

// Yaw about world +Z, then pitch about the new +Y (positive looks DOWN), then roll about +X.
Quaterniond ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  return Quaterniond(AngleAxisd(deg(yaw_deg), Vector3d::UnitZ()) * AngleAxisd(deg(pitch_deg), Vector3d::UnitY()) *
                     AngleAxisd(deg(roll_deg), Vector3d::UnitX()));
}

// Writes (w, x, y, z) in `order`.
void put_quat(float* out, float w, float x, float y, float z, wr_quat_order order) {
  if (order == WR_QUAT_WXYZ) {
    out[0] = w, out[1] = x, out[2] = y, out[3] = z;
  } else {
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
  }
}

using PositionSampler = std::function<Vector3d(std::mt19937&)>;

// (n x 7) body poses: positions from `position`, orientations a mix of
//   - uniformly random rotations, the quaternion scaled by a random factor (not unit);
//   - steep ones: pitch within 15 degrees of straight up or down, any roll;
//   - exact axis-aligned ones from integer quaternions such as (1, 0, 1, 0): the library
//     normalises, and with these the rotation matrix comes out exactly (0, +-1 entries), so
//     rays along the optical axis are exactly parallel to world axes (the 0 * inf slabs of the
//     ray/box test);
//   - ordinary robot-like ones: pitch -30..60 degrees, roll within 20 degrees.
std::vector<float> random_poses(std::mt19937& rng, uint32_t n, wr_quat_order order, const PositionSampler& position) {
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  static const float kExact[][4] = {{1, 0, 1, 0}, {1, 0, -1, 0}, {0, 1, 0, 0}, {1, 0, 0, 1},
                                    {3, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 0, 2}, {0, 0, 1, 0}};
  std::vector<float> poses(7 * size_t(n));
  for (uint32_t e = 0; e < n; ++e) {
    float* p = &poses[7 * size_t(e)];
    const Vector3d pos = position(rng);
    p[0] = float(pos.x()), p[1] = float(pos.y()), p[2] = float(pos.z());
    const int kind = int(unit(rng) * 4.0);
    if (kind == 2) {
      const float* q = kExact[size_t(unit(rng) * 8.0) % 8];
      put_quat(p + 3, q[0], q[1], q[2], q[3], order);
      continue;
    }
    Quaterniond q;
    double scale = 1.0;
    if (kind == 0) {  // uniform over rotations (Shoemake, "Uniform random rotations", Graphics Gems III)
      const double u1 = unit(rng), u2 = 2.0 * kPi * unit(rng), u3 = 2.0 * kPi * unit(rng);
      q = Quaterniond(std::sqrt(u1) * std::cos(u3), std::sqrt(1.0 - u1) * std::sin(u2),
                      std::sqrt(1.0 - u1) * std::cos(u2), std::sqrt(u1) * std::sin(u3));
      scale = 0.3 + 2.7 * unit(rng);
    } else if (kind == 1) {
      const double pitch = (unit(rng) < 0.5 ? -1.0 : 1.0) * (75.0 + 15.0 * unit(rng));
      q = ypr(180.0 * sym(rng), pitch, 180.0 * sym(rng));
    } else {
      q = ypr(180.0 * sym(rng), -30.0 + 90.0 * unit(rng), 20.0 * sym(rng));
    }
    put_quat(p + 3, float(q.w() * scale), float(q.x() * scale), float(q.y() * scale), float(q.z() * scale), order);
  }
  return poses;
}

// ---- rendering and comparing --------------------------------------------------------------------

std::vector<float> render_cpu(wr_sensor sensor, const std::vector<float>& poses, size_t count) {
  std::vector<float> depth(count);
  std::memset(depth.data(), 0xFF, count * sizeof(float));
  REQUIRE_OK(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr));
  return depth;
}

// Uploads poses, renders on `stream` (null: the legacy default stream) and copies the image back.
std::vector<float> render_gpu(wr_sensor sensor, const std::vector<float>& poses, size_t count, cudaStream_t stream) {
  DeviceFloats d_poses(poses.size()), d_depth(count);
  d_poses.upload(poses, stream);
  d_depth.fill_unwritten(stream);
  REQUIRE_OK(wr_sensor_render(sensor, d_poses.get(), d_depth.get(), stream));
  return d_depth.download(stream);
}

// Pixels whose float bits differ, with the first few described for the failure message.
struct BitDiff {
  size_t count = 0;
  std::string examples;
};

BitDiff compare_bits(const std::vector<float>& cpu, const std::vector<float>& gpu, uint32_t width, uint32_t height,
                     const std::vector<bool>& skip_env = {}) {
  BitDiff d;
  REQUIRE(cpu.size() == gpu.size());
  const size_t per_env = size_t(width) * height;
  std::ostringstream os;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const size_t env = i / per_env;
    if (env < skip_env.size() && skip_env[env]) continue;
    if (bits(cpu[i]) == bits(gpu[i])) continue;
    if (++d.count <= 8) {
      char line[200];
      std::snprintf(line, sizeof line, "  env %zu pixel (u %zu, v %zu): cpu %.9g (0x%08x), gpu %.9g (0x%08x)\n", env,
                    (i % per_env) % width, (i % per_env) / width, double(cpu[i]), bits(cpu[i]), double(gpu[i]),
                    bits(gpu[i]));
      os << line;
    }
  }
  d.examples = os.str();
  return d;
}

#define REQUIRE_BIT_IDENTICAL(cpu, gpu, ...)                                                     \
  do {                                                                                           \
    const BitDiff diff_ = compare_bits(cpu, gpu, __VA_ARGS__);                                   \
    INFO(diff_.count << " of " << (cpu).size() << " pixels differ between the CPU and the GPU:\n" \
                     << diff_.examples);                                                         \
    REQUIRE(diff_.count == 0);                                                                   \
  } while (0)

// ---- parity -------------------------------------------------------------------------------------

struct Config {
  uint32_t width, height, num_envs;
  wr_depth_kind depth_kind;
  wr_quat_order quat_order;
  float fx_over_w, fy_over_w;  // focal lengths as fractions of the width
  float cx_over_w, cy_over_h;  // principal point as fractions of the image size
  float near_clip, far_clip, miss_value;
  bool mount;        // an offset and tilted mount, else the identity
  bool own_stream;   // a non-blocking stream, else the legacy default stream
};

// Odd sizes, so 8x4 warp tiles are partial at the right and bottom edges; one exactly one tile;
// one pixel; one row; one column. Both depth kinds and quaternion orders, centred and far
// off-centre principal points (with w = 37 and cx = 18.5 the centre column's ray is exactly the
// optical axis), narrow and wide fields of view, clipping on and off, all miss values.
const Config kConfigs[] = {
    {37, 23, 1, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.8f, 0.8f, 0.5f, 0.5f, 0.0f, kInf, kInf, false, false},
    {37, 23, 7, WR_DEPTH_RANGE, WR_QUAT_XYZW, 0.6f, 0.7f, 0.31f, 0.72f, 0.25f, 6.0f, kNaN, true, true},
    {37, 23, 64, WR_DEPTH_PLANE, WR_QUAT_XYZW, 1.3f, 1.1f, 0.5f, 0.5f, 0.5f, 4.0f, -1.0f, true, true},
    {37, 23, 64, WR_DEPTH_RANGE, WR_QUAT_WXYZ, 0.25f, 0.3f, 0.9f, 0.1f, 0.0f, kInf, 0.0f, true, false},
    {45, 17, 7, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.9f, 0.5f, 0.2f, 0.8f, 1.0f, 1e30f, kInf, true, true},
    {8, 4, 64, WR_DEPTH_RANGE, WR_QUAT_XYZW, 0.7f, 0.7f, 0.5f, 0.5f, 0.05f, 9.0f, kInf, true, true},
    {1, 1, 7, WR_DEPTH_PLANE, WR_QUAT_XYZW, 1.0f, 1.0f, 0.5f, 0.5f, 0.0f, kInf, kInf, false, true},
    {33, 1, 1, WR_DEPTH_RANGE, WR_QUAT_WXYZ, 0.5f, 0.5f, 0.5f, -2.0f, 0.0f, 7.5f, kNaN, true, false},
    {3, 29, 64, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.4f, 2.0f, 1.5f, 0.5f, 0.3f, kInf, kInf, true, true},
};

wr_camera_desc make_desc(const Config& c) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, c.width, c.height, 90.0f);
  d.fx = c.fx_over_w * float(c.width);
  d.fy = c.fy_over_w * float(c.width);
  d.cx = c.cx_over_w * float(c.width);
  d.cy = c.cy_over_h * float(c.height);
  d.near_clip = c.near_clip;
  d.far_clip = c.far_clip;
  d.miss_value = c.miss_value;
  d.depth_kind = c.depth_kind;
  d.quat_order = c.quat_order;
  if (c.mount) {
    d.mount_position[0] = 0.31f, d.mount_position[1] = -0.07f, d.mount_position[2] = 0.12f;
    const Quaterniond q = ypr(5.0, 25.0, -3.0);
    put_quat(d.mount_rotation, float(q.w()), float(q.x()), float(q.y()), float(q.z()), c.quat_order);
  }
  return d;
}

// Reported values strictly inside [near, far] (not miss_value): how many pixels hit something.
size_t count_hits(const std::vector<float>& depth, const Config& c) {
  size_t hits = 0;
  for (float v : depth)
    if (bits(v) != bits(c.miss_value) && v >= c.near_clip && v <= c.far_clip) ++hits;
  return hits;
}

// Renders `mesh` with every config on a CPU and a CUDA context and requires bit-identical
// images and equal stack-overflow counts. Returns (hit pixels, total pixels) over all configs
// so the caller can check the scene was actually seen.
std::pair<size_t, size_t> check_parity(wr_context gpu, const Mesh& mesh, const PositionSampler& position,
                                       uint32_t seed, bool expect_closed = false) {
  Context cpu = cpu_context();
  Scene cpu_scene = make_scene(cpu.get(), mesh), gpu_scene = make_scene(gpu, mesh);
  uint64_t tris = 0;
  REQUIRE_OK(wr_scene_num_triangles(gpu_scene.get(), &tris));
  REQUIRE(tris == mesh.num_triangles());
  Stream stream;
  std::mt19937 rng(seed);
  size_t hits = 0, total = 0;
  for (size_t k = 0; k < sizeof kConfigs / sizeof kConfigs[0]; ++k) {
    const Config& c = kConfigs[k];
    INFO("config " << k << ": " << c.width << "x" << c.height << ", " << c.num_envs << " envs, "
                   << (c.depth_kind == WR_DEPTH_PLANE ? "plane" : "range") << " depth, "
                   << (c.quat_order == WR_QUAT_WXYZ ? "wxyz" : "xyzw") << ", near " << c.near_clip << ", far "
                   << c.far_clip << ", miss " << c.miss_value << (c.mount ? ", mount" : "")
                   << (c.own_stream ? ", own stream" : ", default stream"));
    const wr_camera_desc desc = make_desc(c);
    Sensor cpu_sensor = make_sensor(cpu_scene.get(), desc, c.num_envs);
    Sensor gpu_sensor = make_sensor(gpu_scene.get(), desc, c.num_envs);
    const size_t count = size_t(c.num_envs) * c.width * c.height;
    for (int round = 0; round < 2; ++round) {
      const std::vector<float> poses = random_poses(rng, c.num_envs, c.quat_order, position);
      const std::vector<float> want = render_cpu(cpu_sensor.get(), poses, count);
      const std::vector<float> got = render_gpu(gpu_sensor.get(), poses, count, c.own_stream ? stream.get() : nullptr);
      REQUIRE_BIT_IDENTICAL(want, got, c.width, c.height);
      hits += count_hits(want, c);
      total += count;
      if (expect_closed && c.near_clip == 0.0f && c.far_clip == kInf) {
        INFO("the room is closed: with nothing clipped every pixel must hit a wall");
        REQUIRE(count_hits(want, c) == count);
      }
    }
    uint64_t cpu_overflows = 0, gpu_overflows = 0;
    REQUIRE_OK(wr_sensor_stack_overflows(cpu_sensor.get(), &cpu_overflows));
    REQUIRE_OK(wr_sensor_stack_overflows(gpu_sensor.get(), &gpu_overflows));
    REQUIRE(gpu_overflows == cpu_overflows);  // the same rays overflow, whatever the backend
  }
  return {hits, total};
}

}  // namespace

TEST_CASE("cuda: parity with the CPU, bumpy heightfield with boxes", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = heightfield_with_boxes(11);
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        std::uniform_real_distribution<double> xy(0.5, 11.5), z(0.3, 3.5);
        return Vector3d(xy(rng), xy(rng), z(rng));
      },
      101);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 5);  // the terrain was in view, not only sky
  CHECK(seen.first < seen.second);      // and some rays missed or were clipped
}

TEST_CASE("cuda: parity with the CPU, camera inside a closed subdivided room", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = closed_room();
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        // At most 0.34 m from the walls' inside: the mount offset keeps the camera in the room.
        std::uniform_real_distribution<double> x(-3.5, 3.5), y(-2.5, 2.5), z(0.4, 2.6);
        return Vector3d(x(rng), y(rng), z(rng));
      },
      202, /*expect_closed=*/true);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 2);
}

TEST_CASE("cuda: parity with the CPU, triangle soup with slivers and degenerate triangles", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = triangle_soup(33, 1500);
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        std::uniform_real_distribution<double> p(-7.0, 7.0);
        return Vector3d(p(rng), p(rng), p(rng));
      },
      303);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 20);
  CHECK(seen.first < seen.second);
}

namespace {

// Shared setup of the tests below: a heightfield seen by a CPU and a CUDA sensor with the
// same desc, device pose and depth buffers, and a non-blocking stream.
struct Rig {
  static constexpr uint32_t kWidth = 37, kHeight = 23, kEnvs = 16;
  Context cpu;
  Scene cpu_scene, gpu_scene;
  Sensor cpu_sensor, gpu_sensor;
  DeviceFloats d_poses{7 * size_t(kEnvs)};
  DeviceFloats d_depth{size_t(kEnvs) * kWidth * kHeight};
  Stream stream;  // after the buffers: destroyed (and synchronised) before they are freed
  std::mt19937 rng{7};

  explicit Rig(wr_context gpu) : cpu(cpu_context()) {
    const Mesh mesh = heightfield_with_boxes(5);
    cpu_scene = make_scene(cpu.get(), mesh);
    gpu_scene = make_scene(gpu, mesh);
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, kWidth, kHeight, 87.0f);
    desc.cx = 17.25f;  // off centre
    desc.far_clip = 8.0f;
    desc.depth_kind = WR_DEPTH_RANGE;
    desc.quat_order = WR_QUAT_XYZW;
    desc.mount_position[0] = 0.3f;
    const Quaterniond m = ypr(0.0, 30.0, 0.0);
    put_quat(desc.mount_rotation, float(m.w()), float(m.x()), float(m.y()), float(m.z()), WR_QUAT_XYZW);
    cpu_sensor = make_sensor(cpu_scene.get(), desc, kEnvs);
    gpu_sensor = make_sensor(gpu_scene.get(), desc, kEnvs);
  }
  static size_t count() { return size_t(kEnvs) * kWidth * kHeight; }
  std::vector<float> poses() {
    return random_poses(rng, kEnvs, WR_QUAT_XYZW, [](std::mt19937& r) {
      std::uniform_real_distribution<double> xy(0.5, 11.5), z(0.5, 2.5);
      return Vector3d(xy(r), xy(r), z(r));
    });
  }
  std::vector<float> cpu_render(const std::vector<float>& p) { return render_cpu(cpu_sensor.get(), p, count()); }
  // One render of `p` on the rig's stream; returns the image once the stream is done.
  std::vector<float> gpu_render(const std::vector<float>& p) {
    d_poses.upload(p, stream.get());
    d_depth.fill_unwritten(stream.get());
    REQUIRE_OK(wr_sensor_render(gpu_sensor.get(), d_poses.get(), d_depth.get(), stream.get()));
    return d_depth.download(stream.get());
  }
};

size_t count_unwritten(const std::vector<float>& v) {
  return size_t(std::count_if(v.begin(), v.end(), [](float f) { return bits(f) == kUnwritten; }));
}

}  // namespace

TEST_CASE("cuda: a render captured into a CUDA graph replays with the poses in the buffer at launch",
          "[cuda][graph]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  const cudaStream_t stream = rig.stream.get();

  // One render before capturing: the first launch of a kernel loads its module (CUDA lazy
  // loading), which is the runtime's one-time work, not render's. Applications warm up the
  // same way before capturing.
  {
    const std::vector<float> p = rig.poses();
    REQUIRE_BIT_IDENTICAL(rig.cpu_render(p), rig.gpu_render(p), Rig::kWidth, Rig::kHeight);
  }
  rig.d_depth.fill_unwritten(stream);
  REQUIRE_CUDA(cudaStreamSynchronize(stream));

  // Global mode is the strictest: any allocation or synchronisation inside render, from any
  // thread, invalidates the capture and EndCapture fails.
  cudaGraph_t raw_graph = nullptr;
  REQUIRE_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const wr_status status = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), rig.d_depth.get(), stream);
  const std::string message = wr_last_error();
  const cudaError_t end = cudaStreamEndCapture(stream, &raw_graph);  // always ended, even on failure
  Graph graph(raw_graph);
  {
    INFO("wr_sensor_render while capturing -> " << wr_status_string(status) << ": " << message);
    REQUIRE(status == WR_SUCCESS);
  }
  REQUIRE_CUDA(end);
  REQUIRE(graph);

  // Render enqueued exactly one kernel: no memset, no copy, no allocation node.
  size_t num_nodes = 0;
  REQUIRE_CUDA(cudaGraphGetNodes(graph.get(), nullptr, &num_nodes));
  REQUIRE(num_nodes == 1);
  cudaGraphNode_t node = nullptr;
  REQUIRE_CUDA(cudaGraphGetNodes(graph.get(), &node, &num_nodes));
  cudaGraphNodeType type{};
  REQUIRE_CUDA(cudaGraphNodeGetType(node, &type));
  REQUIRE(type == cudaGraphNodeTypeKernel);

  // Capturing ran nothing: the depth buffer still holds the fill.
  {
    const std::vector<float> untouched = rig.d_depth.download(stream);
    REQUIRE(count_unwritten(untouched) == untouched.size());
  }

  cudaGraphExec_t raw_exec = nullptr;
  REQUIRE_CUDA(cudaGraphInstantiate(&raw_exec, graph.get(), 0));
  GraphExec exec(raw_exec);
  for (int replay = 0; replay < 5; ++replay) {
    INFO("replay " << replay);
    const std::vector<float> p = rig.poses();  // new poses each time, into the same buffer
    rig.d_poses.upload(p, stream);
    rig.d_depth.fill_unwritten(stream);
    REQUIRE_CUDA(cudaGraphLaunch(exec.get(), stream));
    const std::vector<float> got = rig.d_depth.download(stream);
    REQUIRE_BIT_IDENTICAL(rig.cpu_render(p), got, Rig::kWidth, Rig::kHeight);
  }
}

namespace {

// A host function that holds its stream until `open` is set (or 20 s pass, recorded as a
// time-out). Work enqueued after it cannot start before it returns.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> timed_out{false};
};

void CUDART_CB wait_at_gate(void* arg) {
  Gate& gate = *static_cast<Gate*>(arg);
  const auto start = std::chrono::steady_clock::now();
  while (!gate.open.load()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) {
      gate.timed_out = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

TEST_CASE("cuda: render returns while its stream is blocked, and never allocates", "[cuda][async]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  const cudaStream_t stream = rig.stream.get();

  SECTION("render only enqueues: it returns while earlier work on its stream still blocks") {
    const std::vector<float> p = rig.poses();
    rig.d_poses.upload(p, stream);
    rig.d_depth.fill_unwritten(stream);
    Gate gate;
    REQUIRE_CUDA(cudaLaunchHostFunc(stream, wait_at_gate, &gate));
    const wr_status status = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), rig.d_depth.get(), stream);
    const std::string message = wr_last_error();
    // Had render synchronised its stream or the device, it could only have returned after the
    // gate timed out.
    const bool returned_before_gate = !gate.timed_out.load();
    const cudaError_t pending = cudaStreamQuery(stream);
    gate.open = true;
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    INFO("wr_sensor_render -> " << wr_status_string(status) << ": " << message);
    REQUIRE(status == WR_SUCCESS);
    REQUIRE(returned_before_gate);
    REQUIRE(pending == cudaErrorNotReady);
    REQUIRE_FALSE(gate.timed_out.load());
    REQUIRE_BIT_IDENTICAL(rig.cpu_render(p), rig.d_depth.download(stream), Rig::kWidth, Rig::kHeight);
  }

  SECTION("free device memory is unchanged across 100 renders") {
    // Warm up first: the first launch loads the kernel's module (lazy loading), a one-time
    // allocation by the CUDA runtime, not by render.
    const std::vector<float> p0 = rig.poses(), p1 = rig.poses();
    rig.gpu_render(p0);
    DeviceFloats d_poses1(7 * size_t(Rig::kEnvs));  // allocated before any measurement
    d_poses1.upload(p1, stream);
    REQUIRE_CUDA(cudaDeviceSynchronize());
    // cudaMemGetInfo sees the whole device: another process creating or freeing memory at the
    // same moment (tests run in parallel by ctest -j) changes it too. Such a one-off is ruled
    // out by measuring up to three times; a render that allocates changes every measurement.
    // (scripts/gpu-check.sh runs these tests one at a time, so there one attempt suffices.)
    size_t free_before = 0, free_after = 0, total = 0;
    bool unchanged = false;
    for (int attempt = 0; attempt < 3 && !unchanged; ++attempt) {
      REQUIRE_CUDA(cudaMemGetInfo(&free_before, &total));
      for (int i = 0; i < 100; ++i) {
        const float* poses = i % 2 ? d_poses1.get() : rig.d_poses.get();
        REQUIRE_OK(wr_sensor_render(rig.gpu_sensor.get(), poses, rig.d_depth.get(), stream));
      }
      REQUIRE_CUDA(cudaStreamSynchronize(stream));
      REQUIRE_CUDA(cudaMemGetInfo(&free_after, &total));
      unchanged = free_after == free_before;
      if (!unchanged)
        WARN("attempt " << attempt << ": free device memory went from " << free_before << " B to " << free_after
                        << " B across 100 renders");
    }
    INFO("free device memory before " << free_before << " B, after " << free_after << " B");
    REQUIRE(unchanged);
    // The renders really ran: the last one (odd index) used p1.
    REQUIRE_BIT_IDENTICAL(rig.cpu_render(p1), rig.d_depth.download(stream), Rig::kWidth, Rig::kHeight);
  }
}

TEST_CASE("cuda: a non-finite pose on the device makes exactly that env's image NaN", "[cuda][pose]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  std::vector<float> good = rig.poses();
  std::vector<float> bad = good;
  std::vector<bool> poisoned(Rig::kEnvs, false);
  // env 2: NaN position; env 5: +inf in the quaternion; env 9: -inf z; env 12: a zero quaternion.
  bad[7 * 2 + 0] = kNaN;
  bad[7 * 5 + 4] = kInf;
  bad[7 * 9 + 2] = -kInf;
  for (int i = 3; i < 7; ++i) bad[7 * 12 + i] = 0.0f;
  for (int e : {2, 5, 9, 12}) poisoned[size_t(e)] = true;

  // The CPU backend rejects such poses (the check is free on host data), so the reference
  // renders the good poses; envs are independent, so the other envs' images are the same.
  {
    std::vector<float> depth(Rig::count());
    REQUIRE(wr_sensor_render(rig.cpu_sensor.get(), bad.data(), depth.data(), nullptr) == WR_ERROR_INVALID_ARGUMENT);
  }
  const std::vector<float> want = rig.cpu_render(good);
  const std::vector<float> got = rig.gpu_render(bad);

  const size_t per_env = size_t(Rig::kWidth) * Rig::kHeight;
  for (uint32_t e = 0; e < Rig::kEnvs; ++e) {
    if (!poisoned[e]) continue;
    INFO("env " << e);
    const auto first = got.begin() + std::ptrdiff_t(e * per_env);
    const size_t nan = size_t(std::count_if(first, first + std::ptrdiff_t(per_env), [](float f) {
      return std::isnan(f) && bits(f) != kUnwritten;  // written NaN, not the untouched fill
    }));
    REQUIRE(nan == per_env);
  }
  REQUIRE_BIT_IDENTICAL(want, got, Rig::kWidth, Rig::kHeight, poisoned);
  // The good envs did hit the terrain (desc.miss_value is +inf), so "equal" means something.
  size_t hits = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!poisoned[i / per_env] && std::isfinite(got[i])) ++hits;
  REQUIRE(hits > 0);
}

TEST_CASE("cuda: host pointers are rejected by name and the sensor still works", "[cuda][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  const cudaStream_t stream = rig.stream.get();
  const std::vector<float> p = rig.poses();
  rig.d_poses.upload(p, stream);
  rig.d_depth.fill_unwritten(stream);
  REQUIRE_CUDA(cudaStreamSynchronize(stream));

  struct Free {
    void operator()(float* f) const { std::free(f); }
  };
  std::unique_ptr<float, Free> host_poses(static_cast<float*>(std::malloc(p.size() * sizeof(float))));
  std::unique_ptr<float, Free> host_depth(static_cast<float*>(std::malloc(Rig::count() * sizeof(float))));
  REQUIRE(host_poses);
  REQUIRE(host_depth);
  std::memcpy(host_poses.get(), p.data(), p.size() * sizeof(float));
  std::memset(host_depth.get(), 0xFF, Rig::count() * sizeof(float));

  const wr_status s1 = wr_sensor_render(rig.gpu_sensor.get(), host_poses.get(), rig.d_depth.get(), stream);
  const std::string m1 = wr_last_error();
  INFO("host body_poses -> " << wr_status_string(s1) << ": " << m1);
  REQUIRE(s1 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m1, Catch::StartsWith("wr_sensor_render"));
  CHECK_THAT(m1, Catch::Contains("body_poses"));
  CHECK_THAT(m1, Catch::Contains("host pointer"));

  const wr_status s2 = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), host_depth.get(), stream);
  const std::string m2 = wr_last_error();
  INFO("host depth_out -> " << wr_status_string(s2) << ": " << m2);
  REQUIRE(s2 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m2, Catch::StartsWith("wr_sensor_render"));
  CHECK_THAT(m2, Catch::Contains("depth_out"));
  CHECK_THAT(m2, Catch::Contains("host pointer"));

  // Neither failed call wrote anything, on the host or on the device.
  CHECK(count_unwritten(std::vector<float>(host_depth.get(), host_depth.get() + Rig::count())) == Rig::count());
  CHECK(count_unwritten(rig.d_depth.download(stream)) == Rig::count());

  // And the sensor renders correctly right after.
  REQUIRE_BIT_IDENTICAL(rig.cpu_render(p), rig.gpu_render(p), Rig::kWidth, Rig::kHeight);
}

TEST_CASE("cuda: an ordinal past the last device is an invalid argument naming it", "[cuda][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  wr_context c = nullptr;
  const wr_status s = wr_context_create(WR_DEVICE_CUDA, 9999, &c);
  const std::string m = wr_last_error();
  INFO("wr_context_create(WR_DEVICE_CUDA, 9999) -> " << wr_status_string(s) << ": " << m);
  REQUIRE(s == WR_ERROR_INVALID_ARGUMENT);
  CHECK(c == nullptr);
  CHECK_THAT(m, Catch::StartsWith("wr_context_create"));
  CHECK_THAT(m, Catch::Contains("ordinal"));
  CHECK_THAT(m, Catch::Contains("9999"));
  // Device 0 is still fine.
  REQUIRE_OK(wr_context_create(WR_DEVICE_CUDA, 0, &c));
  wr_context_release(c);
}

TEST_CASE("cuda: without a usable GPU, WR_DEVICE_CUDA fails with the CUDA error and the CPU still works",
          "[cuda][errors]") {
  // Always runs: on a GPU machine it checks only the CPU half.
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failed attempt leaves nothing broken behind
    wr_context c = nullptr;
    const wr_status s = wr_context_create(WR_DEVICE_CUDA, 0, &c);
    const std::string m = wr_last_error();
    if (s == WR_SUCCESS) {
      wr_context_release(c);
      if (attempt == 0) WARN("a usable CUDA device is present: the no-GPU path is not exercised on this machine");
      continue;
    }
    INFO("attempt " << attempt << ": wr_context_create(WR_DEVICE_CUDA, 0) -> " << wr_status_string(s) << ": " << m);
    REQUIRE(s == WR_ERROR_UNSUPPORTED);
    CHECK(c == nullptr);
    CHECK_THAT(m, Catch::StartsWith("wr_context_create"));
    // This test's own CUDA runtime meets the same driver; where it fails, libwr must have
    // reported that very error.
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    cudaGetLastError();
    if (e != cudaSuccess) {
      CHECK_THAT(m, Catch::Contains(cudaGetErrorName(e)));
      CHECK_THAT(m, Catch::Contains(cudaGetErrorString(e)));
    } else {
      CHECK_THAT(m, Catch::Contains("CUDA"));
    }
    if (gpu_required()) FAIL("WR_REQUIRE_GPU is set but WR_DEVICE_CUDA is unsupported: " << m);
  }

  // A CPU context works right after: a camera 2 m above the plane z = 0, looking straight down
  // (the integer quaternion (1, 0, 1, 0) is an exact +90 degree pitch once normalised), sees
  // plane depth 2 at every pixel.
  Context cpu = cpu_context();
  Mesh plane;
  const uint32_t a = plane.vertex(-50, -50, 0), b = plane.vertex(50, -50, 0), c = plane.vertex(50, 50, 0),
                 d = plane.vertex(-50, 50, 0);
  plane.triangle(a, b, c);
  plane.triangle(a, c, d);
  Scene scene = make_scene(cpu.get(), plane);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 9, 7, 60.0f);
  Sensor sensor = make_sensor(scene.get(), desc, 2);
  const std::vector<float> poses = {0, 0, 2, 1, 0, 1, 0, 3, -4, 2, 1, 0, 1, 0};
  const std::vector<float> depth = render_cpu(sensor.get(), poses, 2 * 9 * 7);
  for (float v : depth) REQUIRE(v == Approx(2.0f).epsilon(1e-6));
}
