// Fuzz harness: wr_scene_load_obj on arbitrary bytes. Every input gives a scene or a named error:
//   - WR_SUCCESS, and then a scene with triangles, finite bounds, and explicit rays and a small
//     render whose answers are within their documented ranges;
//   - or WR_ERROR_PARSE whose message names the file (and a line that exists, where it names
//     one), with no handle written.
// Anything else (another status, a crash, a leak, a hang, an out-of-range answer) is a finding.
// The bytes reach the loader as a file: an in-memory one (memfd) read through /proc/self/fd, so
// that the real entry point, file reading included, runs without touching the disk.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

// The file every input is written to, made once.
struct InputFile {
  int fd = -1;
  std::string path;
  InputFile() {
    fd = memfd_create("wr_fuzz_obj", 0);
    if (fd < 0) wr_fuzz::fail("memfd_create");
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  void write(const uint8_t* data, size_t size) {
    if (ftruncate(fd, 0) != 0) wr_fuzz::fail("ftruncate");
    size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) wr_fuzz::fail("pwrite");
      done += static_cast<size_t>(n);
    }
  }
};

uint64_t count_lines(const uint8_t* data, size_t size) {
  uint64_t lines = 1;
  for (size_t i = 0; i < size; ++i) lines += data[i] == '\n' || data[i] == '\r';
  return lines;
}

// Rays from outside the bounds toward their centre, and a 6x4 render of 2 envs, on a scene that
// loaded: answers within range (t >= 0 or +inf, triangle ids in range or UINT32_MAX; depth in
// [near, far] or the miss value).
void exercise(wr_scene scene) {
  uint64_t triangles = 0;
  wr_fuzz::check(wr_scene_num_triangles(scene, &triangles) == WR_SUCCESS && triangles > 0, "no triangles");
  float lo[3], hi[3];
  wr_fuzz::check(wr_scene_bounds(scene, lo, hi) == WR_SUCCESS, "wr_scene_bounds", wr_last_error());
  double centre[3], from[3];
  bool finite = true;
  for (int a = 0; a < 3; ++a) {
    wr_fuzz::check(std::isfinite(lo[a]) && std::isfinite(hi[a]) && lo[a] <= hi[a], "bounds");
    centre[a] = 0.5 * (double(lo[a]) + hi[a]);
    from[a] = double(lo[a]) - 1.0 - (double(hi[a]) - lo[a]);
    finite = finite && std::isfinite(float(from[a])) && std::isfinite(float(centre[a] - from[a]));
  }
  if (!finite) return;  // a scene near the float range's end: no ray from outside it is a float ray
  float o[9], d[9], t[3];
  uint32_t tri[3];
  for (int r = 0; r < 3; ++r)
    for (int a = 0; a < 3; ++a) {
      o[3 * r + a] = float(from[a]);
      d[3 * r + a] = float(centre[a] - from[a]) + (r == a ? 0.25f : 0.0f);
    }
  const wr_status s = wr_scene_intersect(scene, o, d, nullptr, 3, t, tri, nullptr);
  if (s != WR_SUCCESS) {
    // Only a direction that rounded to zero is refused.
    wr_fuzz::check(s == WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect status", wr_last_error());
    wr_fuzz::check_message(s, "wr_scene_intersect");
  } else {
    for (int r = 0; r < 3; ++r) {
      wr_fuzz::check(t[r] >= 0.0f, "intersect: t", std::to_string(t[r]));
      wr_fuzz::check(std::isinf(t[r]) ? tri[r] == UINT32_MAX : tri[r] < triangles, "intersect: triangle id");
    }
  }

  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 6, 4, 90.0f);
  desc.near_clip = 0.01f;
  desc.miss_value = -1.0f;
  wr_sensor sensor = nullptr;
  if (wr_sensor_create(scene, &desc, 2, &sensor) != WR_SUCCESS) wr_fuzz::fail("wr_sensor_create", wr_last_error());
  // Env 0 looks along +X from `from`, env 1 down onto the centre from above.
  const float poses[14] = {float(from[0]),
                           float(centre[1]),
                           float(centre[2]),
                           1,
                           0,
                           0,
                           0,
                           float(centre[0]),
                           float(centre[1]),
                           float(double(hi[2]) + 1.0 + (double(hi[2]) - lo[2])),
                           0.70710678f,
                           0,
                           0.70710678f,
                           0};
  std::vector<float> depth(2 * 6 * 4);
  const wr_status rs = wr_sensor_render(sensor, poses, depth.data(), nullptr);
  if (rs != WR_SUCCESS) {
    wr_fuzz::check(rs == WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render status", wr_last_error());  // a pose past float
  } else {
    for (float v : depth)
      if (!(v == -1.0f || (v >= desc.near_clip && v <= desc.far_clip))) wr_fuzz::fail("depth", std::to_string(v));
  }
  wr_sensor_release(sensor);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static InputFile file;
  file.write(data, size);
  const wr_scene kUnwritten = reinterpret_cast<wr_scene>(uintptr_t(0x5a5a5a50));
  wr_scene scene = kUnwritten;
  const wr_status status = wr_scene_load_obj(wr_fuzz::context(), file.path.c_str(), &scene);
  if (status == WR_SUCCESS) {
    exercise(scene);
    wr_scene_release(scene);
    return 0;
  }
  wr_fuzz::check(scene == kUnwritten, "a failed load wrote the handle");
  wr_fuzz::check(status == WR_ERROR_PARSE, "status", std::string(wr_status_string(status)) + ": " + wr_last_error());
  wr_fuzz::check_message(status, "wr_scene_load_obj");
  // "<path>: ..." or "<path>:<line>: ...", the line one of the file's.
  const std::string m = wr_last_error();
  const std::string prefix = "wr_scene_load_obj: " + file.path + ":";
  wr_fuzz::check(m.rfind(prefix, 0) == 0, "the message does not name the file", m);
  if (m.size() > prefix.size() && m[prefix.size()] >= '0' && m[prefix.size()] <= '9') {
    const uint64_t line = std::strtoull(m.c_str() + prefix.size(), nullptr, 10);
    wr_fuzz::check(line >= 1 && line <= count_lines(data, size), "the message names a line the file lacks", m);
  }
  return 0;
}
