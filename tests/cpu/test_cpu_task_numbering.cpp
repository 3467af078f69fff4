// The CPU backend's thread-pool task numbering (32-bit task indices, thread_pool.h) at the size
// limits: the tasks of a render (cpu_render_tasks, up to the sensor's 2^32 - 1 pixels and image
// sides below 2^31) and of
// explicit rays (cpu_intersect_rays_per_task, up to the API's 2^40 rays) stay below 2^32 and
// cover every tile or ray exactly once. Plain arithmetic: nothing of those sizes is allocated.
#include <cstdint>
#include <limits>

#include <catch2/catch.hpp>

#include "cpu/cpu_intersect.h"
#include "cpu/cpu_render.h"

namespace {

constexpr uint64_t kMaxTasks = std::numeric_limits<uint32_t>::max();

}  // namespace

TEST_CASE("cpu task numbering: renders up to 2^32 - 1 pixels fit the pool's task numbers", "[size_limits]") {
  struct Size {
    uint32_t width, height, num_envs;
  };
  const Size sizes[] = {
      {1, 1, 4294967295u}, {2, 1, 2147483647u}, {8, 8, 67108863u}, {9, 9, 53024287u},
      {65536, 65535, 1},   {65535, 65537, 1},   {65536, 1, 65535}, {1, 65535, 65537},
      {2147483647u, 1, 2}, {1, 2147483647u, 2}, {106, 60, 675294}, {3, 5, 7},
  };
  for (const Size& s : sizes) {
    REQUIRE(uint64_t(s.width) * s.height * s.num_envs < (1ull << 32));
    REQUIRE((s.width < (1u << 31) && s.height < (1u << 31)));
    for (unsigned threads : {1u, 2u, 3u, 64u, 4096u}) {
      INFO(s.num_envs << " x " << s.height << " x " << s.width << ", " << threads << " threads");
      const wr::CpuRenderTasks t = wr::cpu_render_tasks(s.width, s.height, s.num_envs, threads);
      // kCpuTileSize-square tiles, or rows of kCpuTileSize^2 pixels in a one-row area.
      CHECK(t.tile_w == (s.height == 1 ? wr::kCpuTileSize * wr::kCpuTileSize : wr::kCpuTileSize));
      CHECK(t.tile_h == (s.height == 1 ? 1 : wr::kCpuTileSize));
      const uint64_t tiles_y = (uint64_t(s.height) + t.tile_h - 1) / t.tile_h;
      CHECK(t.tiles_x == (uint64_t(s.width) + t.tile_w - 1) / t.tile_w);
      CHECK(uint64_t(t.tiles_per_env) == t.tiles_x * tiles_y);
      CHECK(t.num_tasks <= kMaxTasks);
      CHECK(t.num_tasks == uint64_t(t.tasks_per_env) * s.num_envs);
      // Every tile of an env in exactly one of its tasks.
      CHECK(t.tiles_per_task >= 1);
      CHECK(uint64_t(t.tasks_per_env) * t.tiles_per_task >= t.tiles_per_env);
      CHECK(uint64_t(t.tasks_per_env - 1) * t.tiles_per_task < t.tiles_per_env);
    }
  }
}

TEST_CASE("cpu task numbering: up to 2^40 explicit rays fit the pool's task numbers", "[size_limits]") {
  for (const uint64_t count : {1ull, 255ull, 256ull, 257ull, 1000000ull, (1ull << 40) - 256, (1ull << 40) - 255,
                               (1ull << 40) - 1, 1ull << 40}) {
    INFO(count << " rays");
    const uint64_t per_task = wr::cpu_intersect_rays_per_task(count);
    const uint64_t tasks = (count + per_task - 1) / per_task;
    CHECK(per_task >= 256);
    CHECK(tasks <= kMaxTasks);
    CHECK(tasks * per_task >= count);
    CHECK((tasks - 1) * per_task < count);
    if (count <= (1ull << 40) - 256) CHECK(per_task == 256);  // the usual size where it fits
  }
}
