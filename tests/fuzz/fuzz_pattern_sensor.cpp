// Fuzz harness: ray patterns (wr_pattern_create: grid, spherical, table, rosette), pattern sensors
// (wr_sensor_create_pattern: mount, offsets, alignment, yaw rule, distances, value, scanning,
// frames) and their renders and world rays on a fixed scene, with fields drawn from NaN, the
// infinities, huge, denormal and signed-zero values as often as from plain ones, enum fields from
// any int, and sizes from any uint32.
//   - every call either succeeds or fails with WR_ERROR_INVALID_ARGUMENT naming its function, and
//     a failed creation writes no handle (the library never aborts: the sanitizers watch);
//   - a pattern has between 1 and 2^26 rays, every direction unit and finite, every start finite;
//   - a render succeeds exactly when every frame pose is valid; then every value is the miss value
//     (bit for bit) or finite, and a distance lies in [min_distance, max_distance]; a failed render
//     writes nothing;
//   - hit details (asked for in half the renders): a ray without a triangle has the miss value, +inf
//     points and 0 normals; one with a triangle a finite point and a unit normal;
//   - the world rays of env 0 are finite, their directions unit.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;
using wr_fuzz::check_message;
using wr_fuzz::pose_valid;

// A count: small, or past the library's limit of 2^26 rays (refused before anything is allocated);
// never a valid count of millions, which would take gigabytes under the sanitizers.
uint32_t any_count(wr_fuzz::Bytes& in, uint32_t small) {
  const uint8_t k = in.take<uint8_t>();
  if (k < 220) return in.below(small);
  return in.take<uint32_t>() | 0x10000000u;
}

// A length for a grid side or a field of view: a special value, but a finite one at most `cap`.
double capped(wr_fuzz::Bytes& in, double cap) {
  const double v = in.special_float();
  return std::isfinite(v) && std::fabs(v) > cap ? std::copysign(cap, v) : v;
}

// v, or `floor` where v is a finite value in (0, floor): no resolution so fine that a valid pattern
// of tens of millions of rays comes out (gigabytes under the sanitizers).
double at_least(double v, double floor) { return std::isfinite(v) && v > 0 && v < floor ? floor : v; }

// Stores into the enum field *e one of its `plain` values, or any int (stored as bytes: a C caller
// may pass any, and a C++ load of an out-of-range enum value is undefined behaviour).
template <class E>
void any_enum(wr_fuzz::Bytes& in, int plain, E* e) {
  const uint8_t k = in.take<uint8_t>();
  const int v = k < 200 ? int(k % uint8_t(plain)) : int(in.take<uint32_t>());
  static_assert(sizeof(E) == sizeof v, "a C enum is an int");
  std::memcpy(e, &v, sizeof v);
}

// The enum field's value as an int (read as bytes, as above).
template <class E>
int as_int(const E& e) {
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  // ---- the pattern ----
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  any_enum(in, 4, &pd.kind);
  const auto small_double = [&](double scale) { return double(in.special_float()) * scale; };
  pd.grid_size[0] = capped(in, 20.0);
  pd.grid_size[1] = capped(in, 20.0);
  pd.grid_resolution = in.take<uint8_t>() < 128 ? 0.05 + 0.01 * in.below(50) : at_least(small_double(1.0), 0.01);
  any_enum(in, 2, &pd.grid_ordering);
  any_enum(in, 2, &pd.grid_count_rule);
  any_enum(in, 2, &pd.grid_plane);
  for (float& v : pd.grid_direction) v = in.special_float();
  pd.channels = any_count(in, 20);
  pd.vertical_fov[0] = small_double(10.0);
  pd.vertical_fov[1] = small_double(10.0);
  std::vector<float> angles(pd.channels <= 32 ? pd.channels : 0);
  for (float& a : angles) a = in.special_float();
  if (!angles.empty() && in.take<uint8_t>() < 100) pd.vertical_angles = angles.data();
  pd.horizontal_fov[0] = capped(in, 400.0);
  pd.horizontal_fov[1] = capped(in, 400.0);
  pd.horizontal_resolution = in.take<uint8_t>() < 128 ? 1.0 + in.below(30) : at_least(small_double(1.0), 0.01);
  pd.horizontal_count = any_count(in, 100);
  any_enum(in, 2, &pd.spherical_order);
  const uint32_t table = in.below(40);
  std::vector<float> dirs(3 * table), starts(3 * table);
  for (float& v : dirs) v = in.take<uint8_t>() < 220 ? float(int(in.below(5)) - 2) : in.special_float();
  for (float& v : starts) v = in.take<uint8_t>() < 220 ? 0.1f * float(in.below(10)) : in.special_float();
  pd.table_count = in.take<uint8_t>() < 230 ? table : any_count(in, 100);
  pd.table_directions = pd.table_count <= table ? dirs.data() : nullptr;
  pd.table_starts = in.take<uint8_t>() < 128 && pd.table_count <= table ? starts.data() : nullptr;
  pd.rosette_fov = small_double(10.0);
  pd.rosette_count = any_count(in, 500);
  pd.rosette_revolutions[0] = small_double(0.01);
  pd.rosette_revolutions[1] = small_double(0.01);
  wr_pattern pattern = nullptr;
  const wr_status made = wr_pattern_create(&pd, &pattern);
  if (made != WR_SUCCESS) {
    check(made == WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create failed with another status", wr_last_error());
    check_message(made, "wr_pattern_create");
    check(pattern == nullptr, "a failed wr_pattern_create wrote a handle");
    return 0;
  }
  uint32_t n = 0;
  check(wr_pattern_num_rays(pattern, &n) == WR_SUCCESS && n >= 1 && n <= (1u << 26), "a pattern's ray count",
        std::to_string(n));
  if (n > 20000) {  // enough checked for a pattern that large
    wr_pattern_release(pattern);
    return 0;
  }
  std::vector<float> ps(3ull * n), pdirs(3ull * n);
  check(wr_pattern_rays(pattern, ps.data(), pdirs.data()) == WR_SUCCESS, "wr_pattern_rays", wr_last_error());
  for (uint32_t i = 0; i < n; ++i) {
    const float* d = &pdirs[3ull * i];
    const double len = std::sqrt(double(d[0]) * d[0] + double(d[1]) * d[1] + double(d[2]) * d[2]);
    check(std::fabs(len - 1.0) < 1e-5, "a pattern direction is not unit", std::to_string(len));
    for (int k = 0; k < 3; ++k) check(std::isfinite(ps[3ull * i + k]), "a pattern start is not finite");
  }

  // ---- the sensor ----
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  any_enum(in, 2, &d.quat_order);
  for (float& v : d.mount_position) v = in.take<uint8_t>() < 200 ? 0.1f * float(in.below(5)) : in.special_float();
  for (float& v : d.mount_rotation) v = in.take<uint8_t>() < 200 ? float(in.below(2)) : in.special_float();
  for (float& v : d.offset_position) v = in.take<uint8_t>() < 200 ? float(in.below(20)) : in.special_float();
  for (float& v : d.offset_rotation) v = in.take<uint8_t>() < 200 ? float(in.below(2)) : in.special_float();
  any_enum(in, 3, &d.alignment);
  any_enum(in, 2, &d.yaw_rule);
  d.min_distance = in.take<uint8_t>() < 200 ? 0.0f : in.special_float();
  d.max_distance = in.take<uint8_t>() < 128 ? 50.0f : in.special_float();
  any_enum(in, 2, &d.value);
  d.height_offset = in.take<uint8_t>() < 200 ? 0.5f : in.special_float();
  d.miss_value = in.special_float();
  d.rays_per_frame = in.take<uint8_t>() < 128 ? 0 : in.below(n + 3);
  any_enum(in, 2, &d.scan_phase);
  d.scan_seed = in.take<uint64_t>();
  any_enum(in, 2, &d.hit_frame);
  d.num_frames = in.take<uint8_t>() < 160 ? 0 : in.below(11);
  uint32_t offsets[16];
  float frame_mounts[16 * 7];
  for (uint32_t& o : offsets) o = in.take<uint8_t>() < 230 ? 7 * in.below(4) : in.take<uint32_t>();
  for (float& v : frame_mounts) v = in.take<uint8_t>() < 230 ? float(in.below(2)) : in.special_float();
  if (in.take<uint8_t>() < 128) d.frame_pose_offsets = offsets;
  if (in.take<uint8_t>() < 128) d.frame_mounts = frame_mounts;
  const uint32_t num_envs = 1 + in.below(3);
  wr_sensor sensor = nullptr;
  const wr_status created = wr_sensor_create_pattern(wr_fuzz::room_scene(), pattern, &d, nullptr, num_envs, &sensor);
  wr_pattern_release(pattern);  // the sensor keeps its copy
  if (created != WR_SUCCESS) {
    check(created == WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create_pattern failed with another status", wr_last_error());
    check_message(created, "wr_sensor_create_pattern");
    check(sensor == nullptr, "a failed wr_sensor_create_pattern wrote a handle");
    return 0;
  }
  uint32_t width = 0, height = 0;
  check(wr_sensor_output_shape(sensor, &width, &height, nullptr, nullptr) == WR_SUCCESS, "output shape");
  check(width == (d.rays_per_frame ? d.rays_per_frame : n) && height == (d.num_frames > 1 ? d.num_frames : 1),
        "the output shape is not rays x frames", std::to_string(width) + " x " + std::to_string(height));

  // ---- a render: each env's record holds every frame's pose ----
  uint32_t record = 7;
  for (uint32_t f = 0; height > 1 && f < height; ++f) {
    const uint32_t o = d.frame_pose_offsets ? offsets[f] : 7 * f;
    record = o + 7 > record ? o + 7 : record;
  }
  if (record > 4096) {  // a valid sensor whose poses lie far into each record: not rendered here
    wr_sensor_release(sensor);
    return 0;
  }
  std::vector<float> poses(size_t(num_envs) * record);
  for (float& v : poses) v = in.take<uint8_t>() < 230 ? 0.25f * float(in.below(9)) : in.special_float();
  for (uint32_t e = 0; e < num_envs; ++e) poses[size_t(e) * record + 3] = 1.0f;  // a valid first pose
  bool valid = true;
  for (uint32_t e = 0; e < num_envs; ++e)
    for (uint32_t f = 0; f < height; ++f)
      valid = valid && pose_valid(&poses[size_t(e) * record + (height > 1 && d.frame_pose_offsets ? offsets[f]
                                                               : height > 1                       ? 7 * f
                                                                                                  : 0)]);
  const size_t values = size_t(num_envs) * width * height;
  std::vector<float> out(values, -7.25f), points(3 * values, -7.25f), normals(3 * values, -7.25f);
  std::vector<uint32_t> triangles(values, 7u);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.pose_stride = record;
  a.out = out.data();
  a.out_bytes = out.size() * sizeof(float);
  a.frame = in.take<uint64_t>();
  const bool details = in.take<uint8_t>() & 1;
  if (details) a.triangle_ids = triangles.data(), a.hit_points = points.data(), a.hit_normals = normals.data();
  const wr_status rendered = wr_sensor_render_ex(sensor, &a);
  if (rendered != WR_SUCCESS) {
    check(rendered == WR_ERROR_INVALID_ARGUMENT && !valid, "a render of valid poses failed", wr_last_error());
    check_message(rendered, "wr_sensor_render_ex");
    for (float v : out) check(v == -7.25f, "a failed render wrote its output");
    for (float v : points) check(v == -7.25f, "a failed render wrote its hit points");
  } else {
    check(valid, "a render of a bad pose succeeded");
    for (float v : out) {
      const bool miss = std::memcmp(&v, &d.miss_value, sizeof v) == 0;
      check(miss || std::isfinite(v), "a value is neither the miss value nor finite");
      if (!miss && as_int(d.value) == WR_RAY_DISTANCE)
        check(v >= d.min_distance && v <= d.max_distance, "a distance outside [min, max]", std::to_string(v));
    }
    // Hit details: a miss (no triangle) has the miss value, +inf points and 0 normals; a hit, a
    // finite point and a unit normal.
    for (size_t i = 0; details && i < values; ++i) {
      const float* p = &points[3 * i];
      const float* nrm = &normals[3 * i];
      if (triangles[i] == UINT32_MAX) {
        check(std::memcmp(&out[i], &d.miss_value, sizeof(float)) == 0, "a ray without a triangle has a value");
        check(std::isinf(p[0]) && std::isinf(p[1]) && std::isinf(p[2]), "a miss's point is not +inf");
        check(nrm[0] == 0.0f && nrm[1] == 0.0f && nrm[2] == 0.0f, "a miss's normal is not 0");
      } else {
        check(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]), "a hit's point is not finite");
        const double len = std::sqrt(double(nrm[0]) * nrm[0] + double(nrm[1]) * nrm[1] + double(nrm[2]) * nrm[2]);
        check(std::fabs(len - 1.0) < 1e-4, "a hit's normal is not unit", std::to_string(len));
      }
    }
    std::vector<float> ws(3 * values / num_envs), wd(3 * values / num_envs);
    const wr_status rays = wr_sensor_world_rays(sensor, poses.data(), nullptr, 0, a.frame, ws.data(), wd.data());
    check(rays == WR_SUCCESS, "wr_sensor_world_rays of a rendered pose failed", wr_last_error());
    for (size_t i = 0; i < ws.size(); i += 3) {
      const double len =
          std::sqrt(double(wd[i]) * wd[i] + double(wd[i + 1]) * wd[i + 1] + double(wd[i + 2]) * wd[i + 2]);
      check(std::isfinite(ws[i]) && std::isfinite(ws[i + 1]) && std::isfinite(ws[i + 2]), "a world start");
      check(std::fabs(len - 1.0) < 1e-4, "a world direction is not unit", std::to_string(len));
    }
  }
  wr_sensor_release(sensor);
  return 0;
}
