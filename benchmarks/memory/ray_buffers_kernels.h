// The GPU side of strategy (b), per-camera ray buffers: the two small kernels IsaacLab's
// RayCasterCamera runs around its ray cast. Built only with CUDA (WR_BUILT_WITH_CUDA); plain
// C++ declarations, device pointers, enqueued on `stream` (a cudaStream_t).
#pragma once

#include <cstdint>

namespace wrbench {

/// starts_w = R(pose) * starts_cam + position, dirs_w = R(pose) * dirs_cam, per env.
/// poses: (num_envs x 7), (w, x, y, z); starts_cam, dirs_cam, starts_w, dirs_w:
/// (num_envs x rays x 3).
void rays_to_world_cuda(const float* poses, const float* starts_cam, const float* dirs_cam, float* starts_w,
                        float* dirs_w, uint32_t num_envs, uint32_t rays, void* stream);

/// finish_ray (ray_math.h) for each of `count` rays: hits_w (count x 3) and image_plane
/// (count) from starts_w, dirs_w, dirs_cam (count x 3) and distance (count).
void finish_rays_cuda(const float* starts_w, const float* dirs_w, const float* dirs_cam, const float* distance,
                      float* hits_w, float* image_plane, uint64_t count, float near_clip, float far_clip,
                      float miss_value, void* stream);

}  // namespace wrbench
