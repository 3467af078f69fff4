// Helpers shared by the tests that go through the public C API (libwr.so): a REQUIRE that names
// the failing call and its wr_last_error(), and owning handles that release on scope exit, so a
// failed REQUIRE (which throws) leaks nothing into the next test case.
#pragma once

#include <cstdint>
#include <memory>

#include <catch2/catch.hpp>

#include <wr/wr.h>

// REQUIRE(call == WR_SUCCESS), with the call's text, status and message in the failure report.
#define REQUIRE_OK(call)                                                      \
  do {                                                                        \
    const wr_status s_ = (call);                                              \
    INFO(#call << " -> " << wr_status_string(s_) << ": " << wr_last_error()); \
    REQUIRE(s_ == WR_SUCCESS);                                                \
  } while (0)

namespace wr_test {

struct ContextRelease {
  void operator()(wr_context c) const { wr_context_release(c); }
};
struct SceneRelease {
  void operator()(wr_scene s) const { wr_scene_release(s); }
};
struct SensorRelease {
  void operator()(wr_sensor s) const { wr_sensor_release(s); }
};
using Context = std::unique_ptr<wr_context_, ContextRelease>;
using Scene = std::unique_ptr<wr_scene_, SceneRelease>;
using Sensor = std::unique_ptr<wr_sensor_, SensorRelease>;

// A CPU context with `threads` worker threads (0: one per hardware thread); must succeed.
inline Context make_context(uint32_t threads) {
  wr_context c = nullptr;
  REQUIRE_OK(wr_context_create_cpu(threads, &c));
  return Context(c);
}

// A sensor for `num_envs` envs; must succeed.
inline Sensor make_sensor(wr_scene scene, const wr_camera_desc& desc, uint32_t num_envs) {
  wr_sensor s = nullptr;
  REQUIRE_OK(wr_sensor_create(scene, &desc, num_envs, &s));
  return Sensor(s);
}

}  // namespace wr_test
