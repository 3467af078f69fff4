// Helpers shared by the tests that go through the public C API (libwr.so): a REQUIRE that names
// the failing call and its wr_last_error(), and owning handles that release on scope exit, so a
// failed REQUIRE (which throws) leaks nothing into the next test case.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

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

// A copy of a host array starting one byte past an aligned address: an array argument the
// library must refuse as misaligned (wr.h, Conventions) before it reads or writes any of it.
template <class T>
class MisalignedCopy {
 public:
  explicit MisalignedCopy(const std::vector<T>& v) : bytes_(v.size() * sizeof(T) + 1) {
    std::memcpy(bytes_.data() + 1, v.data(), v.size() * sizeof(T));
  }
  T* get() { return reinterpret_cast<T*>(bytes_.data() + 1); }  // operator new's memory + 1
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

// A sensor for `num_envs` envs; must succeed.
inline Sensor make_sensor(wr_scene scene, const wr_camera_desc& desc, uint32_t num_envs) {
  wr_sensor s = nullptr;
  REQUIRE_OK(wr_sensor_create(scene, &desc, num_envs, &s));
  return Sensor(s);
}

}  // namespace wr_test
