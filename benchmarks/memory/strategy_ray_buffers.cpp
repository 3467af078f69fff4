// Strategy (b): per-camera ray buffers, laid out as IsaacLab's RayCasterCamera lays them out
// (isaaclab/sensors/ray_caster/ray_caster_camera.py, _initialize_rays_impl): every env holds
// its own copy of every ray, in the camera frame and again in the world frame, and the
// intermediate results of the cast. Per ray and env, float32:
//
//     ray starts, camera frame      [R, 3]  12 B   (IsaacLab: ray_starts)
//     ray directions, camera frame  [R, 3]  12 B   (ray_directions)
//     ray starts, world frame       [R, 3]  12 B   (_ray_starts_w)
//     ray directions, world frame   [R, 3]  12 B   (_ray_directions_w)
//     hit points, world frame       [R, 3]  12 B   (ray_hits_w)
//     hit distances                 [R]      4 B   (_ray_distance)
//     distance to the image plane   [R]      4 B   (_distance_to_image_plane_wp)
//     output image                  [R]      4 B   (output["distance_to_image_plane"])
//                                           ----
//                                           72 B per ray per env, R = H * W
//
// Every frame: each env's rays are turned into the world frame by its pose (on the CPU here
// on a host context; by a small kernel on the GPU), traced with wr_scene_intersect in one
// batch of N * R rays, then hits and image-plane distances are written and copied to the
// output, as IsaacLab's kernels do.
#include <vector>

#include "ray_math.h"
#include "strategy.h"
#include "workload.h"
#if WR_BUILT_WITH_CUDA
#include "ray_buffers_kernels.h"
#endif

namespace wrbench {
namespace {

class RayBuffers final : public Strategy {
 public:
  explicit RayBuffers(const StrategyInput& in)
      : in_(in),
        rays_(uint64_t(in.desc.width) * in.desc.height),
        count_(uint64_t(in.num_envs) * rays_),
        poses_(in.space, uint64_t(in.num_envs) * 7 * sizeof(float)),
        starts_cam_(in.space, count_ * 3 * sizeof(float)),
        dirs_cam_(in.space, count_ * 3 * sizeof(float)),
        starts_w_(in.space, count_ * 3 * sizeof(float)),
        dirs_w_(in.space, count_ * 3 * sizeof(float)),
        hits_w_(in.space, count_ * 3 * sizeof(float)),
        distance_(in.space, count_ * sizeof(float)),
        image_plane_(in.space, count_ * sizeof(float)),
        output_(in.space, count_ * sizeof(float)) {
    poses_.upload(in.host_poses, poses_.bytes());
    // The pinhole pattern, repeated for every env as IsaacLab's pattern function returns
    // it: starts at the camera origin (zero, as allocated), directions through the pixel
    // centres.
    const std::vector<float> dirs = camera_ray_directions(in.desc);  // (R x 3)
    const uint64_t env_bytes = rays_ * 3 * sizeof(float);
    for (uint32_t env = 0; env < in.num_envs; ++env) dirs_cam_.upload(dirs.data(), env_bytes, env * env_bytes);
  }

  void render_frame() override {
    const uint32_t n = in_.num_envs, r = uint32_t(rays_);
    if (in_.space == Space::kHost) {
      rays_to_world_host(n, r);
    } else {
#if WR_BUILT_WITH_CUDA
      rays_to_world_cuda(poses_.as<float>(), starts_cam_.as<float>(), dirs_cam_.as<float>(), starts_w_.as<float>(),
                         dirs_w_.as<float>(), n, r, in_.stream);
#endif
    }
    WR_CHECK(wr_scene_intersect(in_.scene, starts_w_.as<float>(), dirs_w_.as<float>(), nullptr, count_,
                                distance_.as<float>(), nullptr, in_.stream));
    if (in_.space == Space::kHost) {
      finish_rays_host();
    } else {
#if WR_BUILT_WITH_CUDA
      finish_rays_cuda(starts_w_.as<float>(), dirs_w_.as<float>(), dirs_cam_.as<float>(), distance_.as<float>(),
                       hits_w_.as<float>(), image_plane_.as<float>(), count_, in_.desc.near_clip, in_.desc.far_clip,
                       in_.desc.miss_value, in_.stream);
#endif
    }
    copy_bytes(output_, 0, image_plane_, 0, output_.bytes(), in_.stream);
    synchronize(in_.space, in_.stream);
  }

  ByteCount library_bytes() const override { return ByteCount{}; }  // no sensor: only the scene
  ByteCount own_bytes() const override {
    ByteCount b;
    for (const Buffer* buf :
         {&poses_, &starts_cam_, &dirs_cam_, &starts_w_, &dirs_w_, &hits_w_, &distance_, &image_plane_, &output_})
      b.add(in_.space, buf->bytes());
    return b;
  }
  void read_output(float* host) const override { output_.download(host, output_.bytes()); }

 private:
  // One thread, as a simple CPU port of IsaacLab's transform kernel would run; it is a few
  // percent of a frame next to the trace, which runs on the context's thread pool.
  void rays_to_world_host(uint32_t n, uint32_t r) {
    const float* poses = poses_.as<float>();
    const float *starts_cam = starts_cam_.as<float>(), *dirs_cam = dirs_cam_.as<float>();
    float *starts_w = starts_w_.as<float>(), *dirs_w = dirs_w_.as<float>();
    for (uint32_t env = 0; env < n; ++env) {
      const float* p = poses + 7 * size_t(env);
      float rot[9];
      quat_wxyz_to_matrix(p[3], p[4], p[5], p[6], rot);
      for (uint64_t i = uint64_t(env) * r, end = i + r; i < end; ++i) {
        float s[3];
        rotate(rot, starts_cam + 3 * i, s);
        starts_w[3 * i] = s[0] + p[0], starts_w[3 * i + 1] = s[1] + p[1], starts_w[3 * i + 2] = s[2] + p[2];
        rotate(rot, dirs_cam + 3 * i, dirs_w + 3 * i);
      }
    }
  }

  void finish_rays_host() {
    const float *starts_w = starts_w_.as<float>(), *dirs_w = dirs_w_.as<float>(), *dirs_cam = dirs_cam_.as<float>();
    const float* distance = distance_.as<float>();
    float *hits = hits_w_.as<float>(), *image_plane = image_plane_.as<float>();
    for (uint64_t i = 0; i < count_; ++i)
      image_plane[i] = finish_ray(starts_w + 3 * i, dirs_w + 3 * i, dirs_cam + 3 * i, distance[i], in_.desc.near_clip,
                                  in_.desc.far_clip, in_.desc.miss_value, hits + 3 * i);
  }

  StrategyInput in_;
  uint64_t rays_, count_;                                      // R per env; N * R in all
  Buffer poses_;                                               // (N x 7), the caller's, as in every strategy
  Buffer starts_cam_, dirs_cam_, starts_w_, dirs_w_, hits_w_;  // (N x R x 3) each
  Buffer distance_, image_plane_, output_;                     // (N x R) each
};

}  // namespace

std::unique_ptr<Strategy> make_ray_buffers(const StrategyInput& in) { return std::make_unique<RayBuffers>(in); }

}  // namespace wrbench
