// The backend that the public-API tests against independent truth run on: closed-form scenes
// (test_sensor), brute force (test_scene_intersect) and Embree (test_reference_embree). By
// default the CPU; with `--wr-backend cuda` (catch_main_backend.cpp) a CUDA context on device 0,
// so that the very same checks vouch for the GPU path against the very same truth. CTest runs
// each of those test cases a second time that way, named "cuda:<test case>" (tests/CMakeLists.txt); without
// a usable GPU the program exits with kSkipExitCode before any test and CTest reports them
// skipped, unless WR_REQUIRE_GPU is set (scripts/gpu-check.sh), which makes that a failure.
//
// The tests keep their arrays on the host. On the CPU the helpers below pass them to the library
// as they are; on CUDA they hand the library device copies of every array (the outputs' current
// contents included, so a pixel the kernel does not write keeps the test's fill value, and guard
// elements around an output are checked on the device too) and copy the outputs back once the
// stream has finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <wr/wr.h>

#include "test_skip.h"  // kSkipExitCode

namespace wr_test {

enum class Backend { kCpu, kCuda };

// What the tests of this process run on (set once by main, before any test).
Backend backend_under_test();
void set_backend_under_test(Backend backend);

// Empty when the backend under test can be used here; otherwise why not (the library's error).
std::string why_backend_unusable();

// wr_context_create for the backend under test: a CPU context with cpu_threads workers (0: one
// per hardware thread), or a CUDA context on device 0 (cpu_threads is not used there).
wr_status create_backend_context(uint32_t cpu_threads, wr_context* out);

// wr_sensor_render with host arrays: poses (pose_floats = num_envs x 7 floats) and an output
// region of region_floats floats, of which the image (num_envs x height x width) starts at
// region + out_offset. Returns the library's status; the region holds what the render wrote.
wr_status render_on_backend(wr_sensor sensor, const float* poses, size_t pose_floats, float* region,
                            size_t region_floats, size_t out_offset = 0);

// wr_sensor_render_ex with `args` as a caller fills it with host arrays: on CUDA every array it
// points to is copied to the device first (its size from the sensor's env count, stride and
// output; the instance poses' from the scene's num_slots and num_globals), the outputs (out,
// bad_env_mask, bad_env_count, instance_ids) copied back after the stream finished. pose_record:
// the floats the render reads of an env's record from its pose_offset on (a pattern sensor with
// several frames: its largest frame pose offset + 7), so that the last env's copy holds them all.
wr_status render_ex_on_backend(wr_sensor sensor, const wr_render_args& args, uint32_t num_slots = 0,
                               uint32_t num_globals = 0, uint32_t pose_record = 7);

// wr_scene_intersect with host arrays: origins, directions (count x 3), tmax (count, or null),
// out_t (count), out_triangle (count, or null).
wr_status intersect_on_backend(wr_scene scene, const float* origins, const float* directions, const float* tmax,
                               uint64_t count, float* out_t, uint32_t* out_triangle);

}  // namespace wr_test
