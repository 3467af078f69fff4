// What the C API allows from several threads at once (wr.h, "Threads"), written so that
// ThreadSanitizer (scripts/run-sanitizers.sh) can see every access: different sensors render
// from different threads at once (plain ones and ones running the RL pipeline, whose scratch is
// per render thread), on one shared context and scene or on contexts of their own;
// explicit rays are traced next to renders; a context's CPU path changes while its sensors
// render; handles are released from threads other than the one that made them, in any order,
// while a sensor that keeps them alive still renders; and a scene large enough to build its BVH
// on several threads does so. Each case also checks its results (bit for bit against a render
// made by one thread alone), so in the normal suite it is a test of its own.
//
// Catch2's assertion macros are not thread-safe: worker threads only count what went wrong, and
// the main thread asserts afterwards.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "c_api_world.h"
#include "random_scenes.h"

using namespace wr_test::c_api;

namespace {

// A sensor, its poses and the image it renders when nothing else runs. Sensors with odd k run
// the RL pipeline (wr_sensor_render_ex): a bicubic resample from per-thread camera images, noise,
// a history ring written by every render; each round renders the same frame, so the same output.
struct Rendering {
  wr_sensor sensor = nullptr;
  bool pipeline = false;
  uint32_t out_floats_per_env = 0;
  std::vector<float> poses, expected;
};

wr_status render_into(const Rendering& r, std::vector<float>* out) {
  if (!r.pipeline) return wr_sensor_render(r.sensor, r.poses.data(), out->data(), nullptr);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = r.poses.data();
  a.frame = 7;
  a.out = out->data();
  a.out_bytes = out->size() * sizeof(float);
  return wr_sensor_render_ex(r.sensor, &a);
}

Rendering make_rendering(wr_scene scene, uint32_t k) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 20 + 6 * k, 14 + 3 * k, 70.0f + 10.0f * float(k));
  d.depth_kind = (k % 2) ? WR_DEPTH_RANGE : WR_DEPTH_PLANE;
  Rendering r;
  r.pipeline = k % 2 == 1;
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  if (r.pipeline) {
    o.crop_x = 1, o.crop_width = d.width - 2, o.out_width = 11, o.out_height = 7, o.resample = WR_RESAMPLE_BICUBIC;
    o.history_length = 2, o.noise.seed = 9, o.noise.dropout_probability = 0.1f, o.noise.range_sigma[0] = 0.01f;
  }
  REQUIRE(wr_sensor_create_ex(scene, &d, &o, 3 + k, &r.sensor) == WR_SUCCESS);
  uint32_t w = 0, h = 0;
  REQUIRE(wr_sensor_output_shape(r.sensor, &w, &h, nullptr, nullptr) == WR_SUCCESS);
  r.out_floats_per_env = w * h;
  r.poses = room_poses(3 + k);
  r.expected.assign(size_t(3 + k) * r.out_floats_per_env, kSentinel);
  REQUIRE(render_into(r, &r.expected) == WR_SUCCESS);
  return r;
}

// Renders r `rounds` times; the number of renders that failed or differed from r.expected.
int render_rounds(const Rendering& r, int rounds) {
  int wrong = 0;
  std::vector<float> out(r.expected.size());
  for (int i = 0; i < rounds; ++i) {
    std::fill(out.begin(), out.end(), kSentinel);
    if (render_into(r, &out) != WR_SUCCESS || !same_bits(out, r.expected)) ++wrong;
  }
  return wrong;
}

wr_scene room_scene(wr_context c) {
  wr_scene s = nullptr;
  REQUIRE(wr_scene_create(c, kRoomVertices.data(), kRoomVertices.size() / 3, kRoomIndices.data(),
                          kRoomIndices.size() / 3, &s) == WR_SUCCESS);
  return s;
}

// Explicit rays straight down from above the room's floor: every one hits it at t = 1 + i % 3.
struct DownRays {
  std::vector<float> o, d;
  explicit DownRays(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      o.insert(o.end(), {-50.0f + float(i % 50), -20.0f + float(i % 40), 1.0f + float(i % 3)});
      d.insert(d.end(), {0.0f, 0.0f, -1.0f});
    }
  }
  size_t size() const { return o.size() / 3; }
};

}  // namespace

TEST_CASE("concurrency: sensors of one context and scene render from different threads at once", "[concurrency]") {
  wr_context c = nullptr;
  REQUIRE(wr_context_create_cpu(3, &c) == WR_SUCCESS);
  wr_scene s = room_scene(c);
  std::vector<Rendering> r;
  for (uint32_t k = 0; k < 4; ++k) r.push_back(make_rendering(s, k));

  // Two threads per sensor would break "one sensor renders from one thread at a time"; one each.
  std::vector<int> wrong(r.size(), 0);
  std::atomic<int> wrong_rays{0};
  std::vector<std::thread> threads;
  for (size_t k = 0; k < r.size(); ++k) threads.emplace_back([&, k] { wrong[k] = render_rounds(r[k], 10); });
  // Explicit rays through the same scene and the same thread pool, meanwhile.
  const DownRays rays(700);
  std::vector<float> t_ref(rays.size());
  std::vector<uint32_t> tri_ref(rays.size());
  REQUIRE(wr_scene_intersect(s, rays.o.data(), rays.d.data(), nullptr, rays.size(), t_ref.data(), tri_ref.data(),
                             nullptr) == WR_SUCCESS);
  for (size_t j = 0; j < rays.size(); ++j) {
    CHECK(std::fabs(t_ref[j] - (1.0f + float(j % 3))) < 1e-5f);
    CHECK(tri_ref[j] <= 1);  // the floor's two triangles
  }
  threads.emplace_back([&] {
    std::vector<float> t(rays.size());
    std::vector<uint32_t> tri(rays.size());
    for (int i = 0; i < 10; ++i) {
      if (wr_scene_intersect(s, rays.o.data(), rays.d.data(), nullptr, rays.size(), t.data(), tri.data(), nullptr) !=
              WR_SUCCESS ||
          !same_bits(t, t_ref) || tri != tri_ref)
        ++wrong_rays;
    }
  });
  for (std::thread& t : threads) t.join();
  for (size_t k = 0; k < r.size(); ++k) {
    INFO("sensor " << k);
    CHECK(wrong[k] == 0);
  }
  CHECK(wrong_rays.load() == 0);
  for (Rendering& x : r) wr_sensor_release(x.sensor);
  wr_scene_release(s);
  wr_context_release(c);
}

TEST_CASE("concurrency: sensors of different contexts render at once while another context's path changes",
          "[concurrency]") {
  // Three contexts (one a single thread: no pool workers), a scene and a sensor on each.
  const uint32_t thread_counts[3] = {1, 2, 4};
  wr_context c[3];
  wr_scene s[3];
  std::vector<Rendering> r;
  for (int i = 0; i < 3; ++i) {
    REQUIRE(wr_context_create_cpu(thread_counts[i], &c[i]) == WR_SUCCESS);
    s[i] = room_scene(c[i]);
    r.push_back(make_rendering(s[i], uint32_t(i)));
  }
  // Every path gives bit-identical depth (wr.h), so switching the path of the context the
  // third sensor renders on, while it renders, must not change a single image.
  std::atomic<bool> done{false};
  std::atomic<int> bad_switch{0};
  std::thread switcher([&] {
    const wr_cpu_path paths[2] = {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AUTO};
    for (int i = 0; !done.load(); ++i) {
      if (wr_context_set_cpu_path(c[2], paths[i % 2]) != WR_SUCCESS) ++bad_switch;
      std::this_thread::yield();
    }
  });
  std::vector<int> wrong(3, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&, i] { wrong[i] = render_rounds(r[i], 12); });
  for (std::thread& t : threads) t.join();
  done.store(true);
  switcher.join();
  CHECK(bad_switch.load() == 0);
  for (int i = 0; i < 3; ++i) {
    INFO("context " << i);
    CHECK(wrong[i] == 0);
    wr_sensor_release(r[i].sensor);
    wr_scene_release(s[i]);
    wr_context_release(c[i]);
  }
}

TEST_CASE("concurrency: handles are released from other threads while a sensor that keeps them renders",
          "[concurrency]") {
  for (int round = 0; round < 4; ++round) {
    INFO("round " << round);
    wr_context c = nullptr;
    REQUIRE(wr_context_create_cpu(2, &c) == WR_SUCCESS);
    wr_scene s = room_scene(c);
    Rendering a = make_rendering(s, 0), b = make_rendering(s, 1);

    // Thread A renders sensor a; meanwhile thread B drops the caller's scene and context handles
    // (a and b keep them alive) and then sensor b, rendered once more first. The last release,
    // which tears down the scene and the context's thread pool, happens on thread A: never the
    // thread that created them.
    std::atomic<int> wrong{0};
    std::atomic<bool> b_released{false};
    std::thread thread_a([&] {
      wrong += render_rounds(a, 4);
      while (!b_released.load()) wrong += render_rounds(a, 1);
      wrong += render_rounds(a, 2);
      wr_sensor_release(a.sensor);
    });
    std::thread thread_b([&] {
      if (round % 2) {
        wr_context_release(c);
        wr_scene_release(s);
      } else {
        wr_scene_release(s);
        wr_context_release(c);
      }
      wrong += render_rounds(b, 3);
      wr_sensor_release(b.sensor);
      b_released.store(true);
    });
    thread_b.join();
    thread_a.join();
    CHECK(wrong.load() == 0);
  }
}

TEST_CASE("concurrency: every handle released at once from threads of its own", "[concurrency]") {
  wr_context c = nullptr;
  REQUIRE(wr_context_create_cpu(2, &c) == WR_SUCCESS);
  wr_scene s = room_scene(c);
  std::vector<Rendering> r;
  for (uint32_t k = 0; k < 3; ++k) r.push_back(make_rendering(s, k));
  // The reference counts decide which thread frees the scene and the context: whichever comes
  // last, at run time.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (Rendering& x : r) {
    threads.emplace_back([&wrong, &x] {
      wrong += render_rounds(x, 2);
      wr_sensor_release(x.sensor);
    });
  }
  threads.emplace_back([s] { wr_scene_release(s); });
  threads.emplace_back([c] { wr_context_release(c); });
  for (std::thread& t : threads) t.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("concurrency: a BVH built on several threads gives the same images as one built on one", "[concurrency]") {
  // Past the builder's thresholds for threads of its own (a parallel pass over the triangles,
  // subtrees on their own threads, the root's halves laid out at once).
  const wr_test::SoupScene soup = wr_test::random_heightfield(5, 200, 40.0f);  // 80,000 triangles
  std::vector<float> images[2];
  const uint32_t threads[2] = {1, 4};
  for (int i = 0; i < 2; ++i) {
    wr_context c = nullptr;
    REQUIRE(wr_context_create_cpu(threads[i], &c) == WR_SUCCESS);
    wr_scene s = nullptr;
    REQUIRE(wr_scene_create(c, soup.vertices.data(), soup.vertices.size() / 3, soup.indices.data(),
                            soup.num_triangles(), &s) == WR_SUCCESS);
    wr_camera_desc d;
    wr_camera_desc_pinhole(&d, 32, 24, 90.0f);
    wr_sensor sensor = nullptr;
    REQUIRE(wr_sensor_create(s, &d, 4, &sensor) == WR_SUCCESS);
    std::vector<float> poses;
    for (int e = 0; e < 4; ++e) {
      const auto q = yaw_pitch(40.0 * e, 30.0);
      poses.insert(poses.end(), {5.0f + 8.0f * float(e), 10.0f, 3.0f, q[0], q[1], q[2], q[3]});
    }
    images[i] = render_ok(sensor, poses);
    wr_sensor_release(sensor);
    wr_scene_release(s);
    wr_context_release(c);
  }
  CHECK(same_bits(images[0], images[1]));
  size_t hits = 0;
  for (float x : images[0]) hits += std::isfinite(x) ? 1 : 0;
  CHECK(hits > images[0].size() / 2);
}
