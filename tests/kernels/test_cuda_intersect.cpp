// wr_scene_intersect on a CUDA context (the intersect kernel), through the public C API: the same
// t and triangle ids as the CPU context bit for bit, with and without tmax and out_triangle; the
// rays a CPU context rejects get NaN and UINT32_MAX without disturbing the others; host pointers are
// rejected by name and write nothing. Skips without a GPU (cuda_test_support.h).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_inputs.h"
#include "cuda_test_support.h"

using namespace wr_test::cuda_tests;

namespace {

constexpr uint32_t kNoHit = 0xFFFFFFFFu;

// n rays from above and inside the heightfield of heightfield_with_boxes (x, y in [0, 12]):
// random directions, exact axis-parallel ones (0 * inf slabs), tiny and huge direction lengths
// (t is in units of |direction|); tmax a mix of +inf, short, exactly 0 and random.
struct Rays {
  std::vector<float> origins, directions, tmax;
  size_t count() const { return tmax.size(); }
  void add(const float o[3], const float d[3], float t) {
    origins.insert(origins.end(), o, o + 3);
    directions.insert(directions.end(), d, d + 3);
    tmax.push_back(t);
  }
};

Rays random_rays(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> xy(-1.0f, 13.0f), z(-0.5f, 4.0f), dir(-1.0f, 1.0f), unit(0.0f, 1.0f);
  Rays r;
  for (size_t i = 0; i < n; ++i) {
    const float o[3] = {xy(rng), xy(rng), z(rng)};
    float d[3] = {dir(rng), dir(rng), dir(rng) - 0.4f};
    const float kind = unit(rng);
    if (kind < 0.1f) {  // exactly along an axis
      const int axis = int(unit(rng) * 3.0f) % 3;
      d[0] = d[1] = d[2] = 0.0f;
      d[axis] = unit(rng) < 0.5f ? -1.0f : 1.0f;
    } else if (kind < 0.15f) {
      for (float& c : d) c *= 1e-3f;
    } else if (kind < 0.2f) {
      for (float& c : d) c *= 1e3f;
    }
    const float tk = unit(rng);
    const float t = tk < 0.4f ? INFINITY : tk < 0.5f ? 0.0f : tk < 0.7f ? 0.5f * unit(rng) : 20.0f * unit(rng);
    r.add(o, d, t);
  }
  return r;
}

struct Hits {
  std::vector<float> t;
  std::vector<uint32_t> triangle;
};

Hits intersect_cpu(wr_scene scene, const Rays& rays, bool with_tmax) {
  Hits h{std::vector<float>(rays.count()), std::vector<uint32_t>(rays.count())};
  REQUIRE_OK(wr_scene_intersect(scene, rays.origins.data(), rays.directions.data(),
                                with_tmax ? rays.tmax.data() : nullptr, rays.count(), h.t.data(), h.triangle.data(),
                                nullptr));
  return h;
}

// The rays on the device, the outputs filled with 0xFF bytes first (no result has those bits).
struct DeviceRays {
  DeviceFloats origins, directions, tmax, t;
  DeviceBuffer<uint32_t> triangle;
  DeviceRays(const Rays& r, cudaStream_t stream)
      : origins(r.origins.size()), directions(r.directions.size()), tmax(r.count()), t(r.count()), triangle(r.count()) {
    origins.upload(r.origins, stream);
    directions.upload(r.directions, stream);
    tmax.upload(r.tmax, stream);
    t.fill_unwritten(stream);
    triangle.fill_unwritten(stream);
  }
};

size_t count_different(const std::vector<float>& want, const std::vector<float>& got) {
  size_t n = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (bits(want[i]) == bits(got[i])) continue;
    if (++n <= 5) UNSCOPED_INFO("ray " << i << ": cpu t " << want[i] << ", gpu t " << got[i]);
  }
  return n;
}

}  // namespace

TEST_CASE("cuda: wr_scene_intersect on the device equals the CPU bit for bit, with and without tmax and ids",
          "[cuda][intersect]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Context cpu = cpu_context();
  const Mesh mesh = heightfield_with_boxes(9);
  const Scene cpu_scene = make_scene(cpu.get(), mesh), gpu_scene = make_scene(gpu.get(), mesh);
  const Rays rays = random_rays(41, 20000);
  const Stream stream;

  for (const bool with_tmax : {true, false}) {
    INFO((with_tmax ? "tmax given" : "tmax NULL (+inf)"));
    const Hits want = intersect_cpu(cpu_scene.get(), rays, with_tmax);
    size_t hits = 0;
    for (uint32_t id : want.triangle) hits += id != kNoHit;
    CHECK(hits > rays.count() / 10);  // the rays do see the terrain (25-39% of them hit it)
    CHECK(hits < rays.count());

    DeviceRays d(rays, stream.get());
    REQUIRE_OK(wr_scene_intersect(gpu_scene.get(), d.origins.get(), d.directions.get(),
                                  with_tmax ? d.tmax.get() : nullptr, rays.count(), d.t.get(), d.triangle.get(),
                                  stream.get()));
    CHECK(count_different(want.t, d.t.download(stream.get())) == 0);
    CHECK(d.triangle.download(stream.get()) == want.triangle);

    // out_triangle NULL: the same t, and nothing else written.
    d.t.fill_unwritten(stream.get());
    REQUIRE_OK(wr_scene_intersect(gpu_scene.get(), d.origins.get(), d.directions.get(),
                                  with_tmax ? d.tmax.get() : nullptr, rays.count(), d.t.get(), nullptr, stream.get()));
    CHECK(count_different(want.t, d.t.download(stream.get())) == 0);
  }
}

TEST_CASE("cuda: rays a CPU context rejects get NaN and no triangle, the others their hits", "[cuda][intersect]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Context cpu = cpu_context();
  const Mesh mesh = heightfield_with_boxes(9);
  const Scene cpu_scene = make_scene(cpu.get(), mesh), gpu_scene = make_scene(gpu.get(), mesh);
  const Rays valid = random_rays(42, 2000);
  const Hits want = intersect_cpu(cpu_scene.get(), valid, true);

  // Every 7th ray made invalid in one of the ways the CPU rejects.
  Rays rays = valid;
  std::vector<bool> bad(rays.count(), false);
  int kind = 0;
  for (size_t i = 3; i < rays.count(); i += 7, ++kind) {
    bad[i] = true;
    switch (kind % 6) {
      case 0: rays.origins[3 * i + 1] = NAN; break;
      case 1: rays.origins[3 * i] = INFINITY; break;
      case 2: rays.directions[3 * i + 2] = -INFINITY; break;
      case 3: rays.directions[3 * i] = rays.directions[3 * i + 1] = rays.directions[3 * i + 2] = 0.0f; break;
      case 4: rays.tmax[i] = -1.0f; break;
      default: rays.tmax[i] = NAN; break;
    }
  }
  {
    INFO("the CPU context rejects such a batch: " << wr_last_error());
    std::vector<float> t(rays.count());
    CHECK(wr_scene_intersect(cpu_scene.get(), rays.origins.data(), rays.directions.data(), rays.tmax.data(),
                             rays.count(), t.data(), nullptr, nullptr) == WR_ERROR_INVALID_ARGUMENT);
  }
  const Stream stream;
  DeviceRays d(rays, stream.get());
  REQUIRE_OK(wr_scene_intersect(gpu_scene.get(), d.origins.get(), d.directions.get(), d.tmax.get(), rays.count(),
                                d.t.get(), d.triangle.get(), stream.get()));
  const std::vector<float> t = d.t.download(stream.get());
  const std::vector<uint32_t> triangle = d.triangle.download(stream.get());
  size_t wrong_bad = 0, wrong_good = 0;
  for (size_t i = 0; i < rays.count(); ++i) {
    if (bad[i]) {
      wrong_bad += !(std::isnan(t[i]) && triangle[i] == kNoHit);
    } else {
      wrong_good += !(bits(t[i]) == bits(want.t[i]) && triangle[i] == want.triangle[i]);
    }
  }
  CHECK(wrong_bad == 0);
  CHECK(wrong_good == 0);
}

TEST_CASE("cuda: wr_scene_intersect rejects a host pointer by name and writes nothing", "[cuda][intersect][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = heightfield_with_boxes(9);
  const Scene scene = make_scene(gpu.get(), mesh);
  const Rays rays = random_rays(43, 256);
  const Stream stream;
  DeviceRays d(rays, stream.get());
  std::vector<float> host_t(rays.count(), -3.0f);
  std::vector<uint32_t> host_triangle(rays.count(), 17u);

  struct Case {
    const char* name;
    const float *origins, *directions, *tmax;
    float* t;
    uint32_t* triangle;
  };
  const Case cases[] = {
      {"origins", rays.origins.data(), d.directions.get(), d.tmax.get(), d.t.get(), d.triangle.get()},
      {"directions", d.origins.get(), rays.directions.data(), d.tmax.get(), d.t.get(), d.triangle.get()},
      {"tmax", d.origins.get(), d.directions.get(), rays.tmax.data(), d.t.get(), d.triangle.get()},
      {"out_t", d.origins.get(), d.directions.get(), d.tmax.get(), host_t.data(), d.triangle.get()},
      {"out_triangle", d.origins.get(), d.directions.get(), d.tmax.get(), d.t.get(), host_triangle.data()},
  };
  for (const Case& c : cases) {
    INFO("host pointer for " << c.name);
    CHECK(wr_scene_intersect(scene.get(), c.origins, c.directions, c.tmax, rays.count(), c.t, c.triangle,
                             stream.get()) == WR_ERROR_INVALID_ARGUMENT);
    const std::string message = wr_last_error();
    CHECK(message.find(std::string(c.name) + " is a host pointer") != std::string::npos);
  }
  CHECK(count_unwritten(d.t.download(stream.get())) == rays.count());
  for (uint32_t id : d.triangle.download(stream.get())) CHECK(id == kNoHit);
  for (float v : host_t) CHECK(v == -3.0f);
  for (uint32_t id : host_triangle) CHECK(id == 17u);

  // And the scene still works.
  REQUIRE_OK(wr_scene_intersect(scene.get(), d.origins.get(), d.directions.get(), d.tmax.get(), rays.count(), d.t.get(),
                                d.triangle.get(), stream.get()));
  CHECK(count_unwritten(d.t.download(stream.get())) == 0);
}
