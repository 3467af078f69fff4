// Which parts of the pipeline a render uses is derived in one place (sensor/render_call.cpp) from
// the sensor and the call: a sensor without options and a call without per-env inputs renders the
// plain image; any per-env input, or any option, the pipeline's; a scene with instances, through
// them. Every field of PerEnvInputs counts without being listed, so that a field added there
// reaches every backend's instantiation (checked here field by field, whatever the fields are).
#include <catch2/catch.hpp>

#include <cstring>

#include "sensor/camera_model.h"
#include "sensor/pattern_model.h"
#include "sensor/pipeline_options.h"
#include "sensor/ray_pattern.h"
#include "sensor/render_call.h"

namespace {

wr::SensorPipeline pipeline_of(const wr_sensor_options* options) {
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 16, 9, 80.0f);
  return wr::make_sensor_pipeline("test", desc, options);
}

}  // namespace

static_assert(sizeof(wr::PerEnvInputs) % sizeof(void*) == 0, "PerEnvInputs holds pointers only");

TEST_CASE("a call without per-env inputs on a sensor without options renders the plain image") {
  const wr::SensorPipeline plain = pipeline_of(nullptr);
  REQUIRE_FALSE(plain.active);
  wr::PipelineCall c{};
  c.pose_stride = 13;  // poses read in place from simulator state are still the plain render's
  c.pose_offset = 3;
  c.frame = 5;
  const wr::RenderFeatureSet f = wr::render_features(plain, c);
  CHECK_FALSE(f.pipeline);
  CHECK_FALSE(f.instances);
}

TEST_CASE("every per-env input, set alone, makes the render the pipeline's") {
  const wr::SensorPipeline plain = pipeline_of(nullptr);
  const size_t words = sizeof(wr::PerEnvInputs) / sizeof(void*);
  REQUIRE(words >= 7);  // intrinsics, mounts, latency, the two masks in, the count and mask out
  for (size_t w = 0; w < words; ++w) {
    INFO("PerEnvInputs word " << w);
    wr::PipelineCall c{};
    alignas(8) static unsigned char somewhere[8];
    void* p = somewhere;
    std::memcpy(reinterpret_cast<unsigned char*>(static_cast<wr::PerEnvInputs*>(&c)) + w * sizeof(void*), &p, sizeof p);
    CHECK(wr::has_per_env_inputs(c));
    CHECK(wr::render_features(plain, c).pipeline);
  }
}

TEST_CASE("every output channel, set alone, makes the render the pipeline's (its output stage writes them)") {
  const wr::SensorPipeline plain = pipeline_of(nullptr);
  static_assert(sizeof(wr::OutputChannels) % sizeof(void*) == 0, "OutputChannels holds pointers only");
  const size_t words = sizeof(wr::OutputChannels) / sizeof(void*);
  REQUIRE(words == 4);  // instance ids, triangle ids, points, normals
  for (size_t w = 0; w < words; ++w) {
    INFO("OutputChannels word " << w);
    wr::PipelineCall c{};
    alignas(8) static unsigned char somewhere[8];
    void* p = somewhere;
    std::memcpy(reinterpret_cast<unsigned char*>(&c.channels) + w * sizeof(void*), &p, sizeof p);
    CHECK_FALSE(wr::has_per_env_inputs(c));  // outputs, not inputs
    CHECK(wr::any_channel(c.channels));
    CHECK(wr::wants_surface(c.channels) == (w != 0));
    CHECK(wr::render_features(plain, c).pipeline);
  }
}

TEST_CASE("a sensor whose options are on renders through the pipeline whatever the call") {
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.dtype = WR_DTYPE_FLOAT16;
  const wr::SensorPipeline p = pipeline_of(&o);
  REQUIRE(p.active);
  const wr::PipelineCall c{};
  CHECK(wr::render_features(p, c).pipeline);
}

TEST_CASE("a scene whose table has instances renders through them, and only then") {
  const wr::SensorPipeline plain = pipeline_of(nullptr);
  wr::PipelineCall c{};
  c.instances.num_globals = 1;
  CHECK(wr::render_features(plain, c).instances);
  CHECK_FALSE(wr::render_features(plain, c).pipeline);
  c.instances = wr::InstanceView{};
  CHECK_FALSE(wr::render_features(plain, c).instances);
}

TEST_CASE("make_render_call carries every per-env array of wr_render_args into the call") {
  const wr::SensorPipeline plain = pipeline_of(nullptr);
  alignas(16) static float poses[7 * 2], out[2 * 16 * 9], intrinsics[2 * 4], mounts[2 * 7];
  alignas(16) static uint32_t latency[2], count, ids[2 * 16 * 9];
  alignas(16) static uint8_t update[2], reset[2], mask[2];
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses;
  a.out = out;
  a.out_bytes = sizeof out;
  a.intrinsics = intrinsics;
  a.mounts = mounts;
  a.latency = latency;
  a.update_mask = update;
  a.reset_mask = reset;
  a.bad_env_count = &count;
  a.bad_env_mask = mask;
  a.instance_ids = ids;
  const wr::RenderCall r = wr::make_render_call("test", plain, 2, wr::InstanceView{}, wr::TerrainKind::kBvh, a,
                                                wr::ArgumentsAs::kArgsStruct);
  // A pattern sensor's call (no intrinsics, which are a camera's) with its hit details.
  alignas(16) static uint32_t triangles[2 * 16 * 9];
  alignas(16) static float points[3 * 2 * 16 * 9], normals[3 * 2 * 16 * 9];
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.grid_size[0] = 1.5, pd.grid_size[1] = 0.8;  // 16 x 9 rays
  wr_ray_sensor_desc sd;
  wr_ray_sensor_desc_init(&sd);
  wr_camera_desc camera;
  const wr::SensorPipeline pattern =
      wr::make_pattern_pipeline("test", sd, wr::make_ray_pattern("test", pd), nullptr, &camera);
  wr_render_args b = a;
  b.intrinsics = nullptr;
  b.triangle_ids = triangles;
  b.hit_points = points;
  b.hit_normals = normals;
  const wr::RenderCall rp = wr::make_render_call("test", pattern, 2, wr::InstanceView{}, wr::TerrainKind::kBvh, b,
                                                 wr::ArgumentsAs::kArgsStruct);
  CHECK(rp.call.channels.triangle_ids == triangles);
  CHECK(rp.call.channels.hit_points == points);
  CHECK(rp.call.channels.hit_normals == normals);
  CHECK(r.call.channels.instance_ids == ids);
  const wr::PerEnvInputs& in = r.call;
  CHECK(in.intrinsics == intrinsics);
  CHECK(in.mounts == mounts);
  CHECK(in.latency == latency);
  CHECK(in.update_mask == update);
  CHECK(in.reset_mask == reset);
  CHECK(in.bad_env_count == &count);
  CHECK(in.bad_env_mask == mask);
  // Field by field above; as a whole: nothing of PerEnvInputs is left unset by both calls.
  const void* const* words = reinterpret_cast<const void* const*>(&in);
  const void* const* pattern_words =
      reinterpret_cast<const void* const*>(static_cast<const wr::PerEnvInputs*>(&rp.call));
  for (size_t w = 0; w < sizeof(wr::PerEnvInputs) / sizeof(void*); ++w)
    CHECK((words[w] != nullptr || pattern_words[w] != nullptr));
  CHECK(r.features.pipeline);
}
