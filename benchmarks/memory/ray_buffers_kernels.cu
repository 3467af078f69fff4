#include "ray_buffers_kernels.h"

#include <cuda_runtime.h>

#include "child_process.h"
#include "ray_math.h"

namespace wrbench {
namespace {

constexpr unsigned kBlock = 256;

__global__ void rays_to_world_kernel(const float* poses, const float* starts_cam, const float* dirs_cam,
                                     float* starts_w, float* dirs_w, uint32_t num_envs, uint32_t rays) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;  // env * rays + ray
  if (i >= uint64_t(num_envs) * rays) return;
  const float* p = poses + 7 * (i / rays);
  float r[9];
  quat_wxyz_to_matrix(p[3], p[4], p[5], p[6], r);
  float s[3];
  rotate(r, starts_cam + 3 * i, s);
  starts_w[3 * i] = s[0] + p[0];
  starts_w[3 * i + 1] = s[1] + p[1];
  starts_w[3 * i + 2] = s[2] + p[2];
  rotate(r, dirs_cam + 3 * i, dirs_w + 3 * i);
}

__global__ void finish_rays_kernel(const float* starts_w, const float* dirs_w, const float* dirs_cam,
                                   const float* distance, float* hits_w, float* image_plane, uint64_t count,
                                   float near_clip, float far_clip, float miss_value) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  image_plane[i] = finish_ray(starts_w + 3 * i, dirs_w + 3 * i, dirs_cam + 3 * i, distance[i], near_clip, far_clip,
                              miss_value, hits_w + 3 * i);
}

void check_launch(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) die("%s launch failed: %s (%s)", kernel, cudaGetErrorName(err), cudaGetErrorString(err));
}

unsigned blocks_for(uint64_t count) { return unsigned((count + kBlock - 1) / kBlock); }

}  // namespace

void rays_to_world_cuda(const float* poses, const float* starts_cam, const float* dirs_cam, float* starts_w,
                        float* dirs_w, uint32_t num_envs, uint32_t rays, void* stream) {
  const uint64_t count = uint64_t(num_envs) * rays;
  rays_to_world_kernel<<<blocks_for(count), kBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      poses, starts_cam, dirs_cam, starts_w, dirs_w, num_envs, rays);
  check_launch("rays_to_world_kernel");
}

void finish_rays_cuda(const float* starts_w, const float* dirs_w, const float* dirs_cam, const float* distance,
                      float* hits_w, float* image_plane, uint64_t count, float near_clip, float far_clip,
                      float miss_value, void* stream) {
  finish_rays_kernel<<<blocks_for(count), kBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      starts_w, dirs_w, dirs_cam, distance, hits_w, image_plane, count, near_clip, far_clip, miss_value);
  check_launch("finish_rays_kernel");
}

}  // namespace wrbench
