// See backend_under_test.h. The CUDA half is compiled where the project builds with CUDA
// (WR_BUILT_WITH_CUDA); elsewhere the CUDA backend is never selected (no "cuda:<test case>" tests are registered).
#include "backend_under_test.h"

#include <catch2/catch.hpp>

#if WR_BUILT_WITH_CUDA
#include "cuda_test_support.h"
#endif

namespace wr_test {
namespace {

Backend g_backend = Backend::kCpu;

#if WR_BUILT_WITH_CUDA

using cuda_tests::Stream;  // a non-blocking stream, synchronised and destroyed on exit

// A device copy of a host array (nothing for a null one), filled on `stream`; freed on exit.
class DeviceCopy {
 public:
  DeviceCopy(const void* host, size_t bytes, cudaStream_t stream) : bytes_(bytes) {
    if (!host || bytes == 0) return;
    REQUIRE_CUDA(cudaMalloc(&device_, bytes));
    REQUIRE_CUDA(cudaMemcpyAsync(device_, host, bytes, cudaMemcpyHostToDevice, stream));
  }
  ~DeviceCopy() { cudaFree(device_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  template <class T>
  T* get() const {
    return static_cast<T*>(device_);
  }
  void copy_back(void* host, cudaStream_t stream) const {
    if (device_) REQUIRE_CUDA(cudaMemcpyAsync(host, device_, bytes_, cudaMemcpyDeviceToHost, stream));
  }

 private:
  void* device_ = nullptr;
  size_t bytes_;
};

#endif  // WR_BUILT_WITH_CUDA

}  // namespace

Backend backend_under_test() { return g_backend; }
void set_backend_under_test(Backend backend) { g_backend = backend; }

std::string why_backend_unusable() {
  wr_context context = nullptr;
  const wr_status s = create_backend_context(1, &context);
  if (s == WR_SUCCESS) {
    wr_context_release(context);
    return "";
  }
  return std::string(wr_status_string(s)) + ": " + wr_last_error();
}

wr_status create_backend_context(uint32_t cpu_threads, wr_context* out) {
  if (g_backend == Backend::kCuda) return wr_context_create(WR_DEVICE_CUDA, 0, out);
  return wr_context_create_cpu(cpu_threads, out);
}

wr_status render_on_backend(wr_sensor sensor, const float* poses, size_t pose_floats, float* region,
                            size_t region_floats, size_t out_offset) {
  REQUIRE(out_offset <= region_floats);
  if (g_backend == Backend::kCpu) return wr_sensor_render(sensor, poses, region + out_offset, nullptr);
#if WR_BUILT_WITH_CUDA
  const Stream stream;
  const DeviceCopy d_poses(poses, pose_floats * sizeof(float), stream.get());
  const DeviceCopy d_region(region, region_floats * sizeof(float), stream.get());
  const wr_status s = wr_sensor_render(sensor, d_poses.get<float>(), d_region.get<float>() + out_offset, stream.get());
  d_region.copy_back(region, stream.get());
  REQUIRE_CUDA(cudaStreamSynchronize(stream.get()));  // also where a failed kernel would report
  return s;
#else
  (void)pose_floats;
  FAIL("the CUDA backend is under test, but the tests were built without CUDA");
  return WR_ERROR_UNSUPPORTED;
#endif
}

wr_status render_ex_on_backend(wr_sensor sensor, const wr_render_args& args, uint32_t num_slots, uint32_t num_globals,
                               uint32_t pose_record) {
  if (g_backend == Backend::kCpu) return wr_sensor_render_ex(sensor, &args);
#if WR_BUILT_WITH_CUDA
  uint32_t n = 0;
  REQUIRE(wr_sensor_desc(sensor, nullptr, &n) == WR_SUCCESS);
  const size_t stride = args.pose_stride ? args.pose_stride : 7;
  const size_t pose_floats = n ? (n - 1) * stride + args.pose_offset + pose_record : 0;
  const Stream stream;
  const DeviceCopy d_poses(args.body_poses, pose_floats * sizeof(float), stream.get());
  const DeviceCopy d_intrinsics(args.intrinsics, 4ull * n * sizeof(float), stream.get());
  const DeviceCopy d_mounts(args.mounts, 7ull * n * sizeof(float), stream.get());
  const DeviceCopy d_latency(args.latency, n * sizeof(uint32_t), stream.get());
  const DeviceCopy d_update(args.update_mask, n, stream.get());
  const DeviceCopy d_reset(args.reset_mask, n, stream.get());
  const DeviceCopy d_out(args.out, static_cast<size_t>(args.out_bytes), stream.get());
  const DeviceCopy d_bad_mask(args.bad_env_mask, n, stream.get());
  const DeviceCopy d_bad_count(args.bad_env_count, sizeof(uint32_t), stream.get());
  uint32_t out_w = 0, out_h = 0;
  REQUIRE(wr_sensor_output_shape(sensor, &out_w, &out_h, nullptr, nullptr) == WR_SUCCESS);
  const DeviceCopy d_slots(args.instance_poses, 7ull * n * num_slots * sizeof(float), stream.get());
  const DeviceCopy d_globals(args.global_poses, 7ull * num_globals * sizeof(float), stream.get());
  const DeviceCopy d_ids(args.instance_ids, size_t(n) * out_w * out_h * sizeof(uint32_t), stream.get());
  const DeviceCopy d_triangles(args.triangle_ids, size_t(n) * out_w * out_h * sizeof(uint32_t), stream.get());
  const DeviceCopy d_points(args.hit_points, size_t(n) * out_w * out_h * 3 * sizeof(float), stream.get());
  const DeviceCopy d_normals(args.hit_normals, size_t(n) * out_w * out_h * 3 * sizeof(float), stream.get());
  wr_render_args d = args;
  d.triangle_ids = d_triangles.get<uint32_t>();
  d.hit_points = d_points.get<float>();
  d.hit_normals = d_normals.get<float>();
  d.instance_poses = d_slots.get<float>();
  d.global_poses = d_globals.get<float>();
  d.instance_ids = d_ids.get<uint32_t>();
  d.body_poses = d_poses.get<float>();
  d.intrinsics = d_intrinsics.get<float>();
  d.mounts = d_mounts.get<float>();
  d.latency = d_latency.get<uint32_t>();
  d.update_mask = d_update.get<uint8_t>();
  d.reset_mask = d_reset.get<uint8_t>();
  d.out = d_out.get<void>();
  d.bad_env_mask = d_bad_mask.get<uint8_t>();
  d.bad_env_count = d_bad_count.get<uint32_t>();
  d.stream = stream.get();
  const wr_status s = wr_sensor_render_ex(sensor, &d);
  d_out.copy_back(args.out, stream.get());
  d_bad_mask.copy_back(args.bad_env_mask, stream.get());
  d_bad_count.copy_back(args.bad_env_count, stream.get());
  d_ids.copy_back(args.instance_ids, stream.get());
  d_triangles.copy_back(args.triangle_ids, stream.get());
  d_points.copy_back(args.hit_points, stream.get());
  d_normals.copy_back(args.hit_normals, stream.get());
  REQUIRE_CUDA(cudaStreamSynchronize(stream.get()));
  return s;
#else
  (void)sensor, (void)num_slots, (void)num_globals, (void)pose_record;
  FAIL("the CUDA backend is under test, but the tests were built without CUDA");
  return WR_ERROR_UNSUPPORTED;
#endif
}

wr_status intersect_on_backend(wr_scene scene, const float* origins, const float* directions, const float* tmax,
                               uint64_t count, float* out_t, uint32_t* out_triangle) {
  if (g_backend == Backend::kCpu)
    return wr_scene_intersect(scene, origins, directions, tmax, count, out_t, out_triangle, nullptr);
#if WR_BUILT_WITH_CUDA
  const Stream stream;
  const size_t n = static_cast<size_t>(count);
  const DeviceCopy d_origins(origins, 3 * n * sizeof(float), stream.get());
  const DeviceCopy d_directions(directions, 3 * n * sizeof(float), stream.get());
  const DeviceCopy d_tmax(tmax, n * sizeof(float), stream.get());
  const DeviceCopy d_t(out_t, n * sizeof(float), stream.get());
  const DeviceCopy d_triangle(out_triangle, n * sizeof(uint32_t), stream.get());
  const wr_status s = wr_scene_intersect(scene, d_origins.get<float>(), d_directions.get<float>(), d_tmax.get<float>(),
                                         count, d_t.get<float>(), d_triangle.get<uint32_t>(), stream.get());
  d_t.copy_back(out_t, stream.get());
  d_triangle.copy_back(out_triangle, stream.get());
  REQUIRE_CUDA(cudaStreamSynchronize(stream.get()));
  return s;
#else
  FAIL("the CUDA backend is under test, but the tests were built without CUDA");
  return WR_ERROR_UNSUPPORTED;
#endif
}

}  // namespace wr_test
