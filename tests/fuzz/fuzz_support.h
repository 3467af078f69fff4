// Shared by the libFuzzer harnesses of tests/fuzz (fuzz_*.cpp): reading typed values out of the
// fuzzer's bytes, the check that turns a broken contract into a crash the fuzzer records, and the
// one CPU context every input runs on.
//
// Each harness defines LLVMFuzzerTestOneInput and checks the C API's contract (wr.h) on what it
// got back: a status from the documented set, a message that starts with the function's name,
// outputs within their documented ranges. Built two ways (tests/fuzz/CMakeLists.txt): with
// libFuzzer's main by scripts/run-fuzz.sh, and with replay_main.cpp in the normal test suite,
// where it replays the seed corpus and every input a fuzzer ever crashed on.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <wr/wr.h>

namespace wr_fuzz {

// A broken contract: printed, then abort(), which libFuzzer reports as a crash and saves the
// input of.
[[noreturn]] inline void fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "wr_fuzz: contract broken: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

inline void check(bool ok, const char* what, const std::string& detail = "") {
  if (!ok) fail(what, detail);
}

// A failed call's message must start with "<function>: " and end with "[<status name>]".
inline void check_message(wr_status status, const char* function) {
  const std::string m = wr_last_error();
  const std::string tail = std::string("[") + wr_status_string(status) + "]";
  check(m.rfind(std::string(function) + ": ", 0) == 0, "the message does not start with the function", m);
  check(m.size() >= tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0,
        "the message does not end with its status", m);
  for (unsigned char c : m) check(c >= 0x20 && c != 0x7f, "the message holds a control byte", m);
}

// wr.h's rule for a pose (a body's or an instance's): all 7 values finite, the quaternion not zero.
inline bool pose_valid(const float* p) {
  bool nonzero = false;
  for (int i = 0; i < 7; ++i)
    if (!std::isfinite(p[i])) return false;
  for (int i = 3; i < 7; ++i) nonzero = nonzero || p[i] != 0.0f;
  return nonzero;
}

// Reads values front to back; past the end every read gives zeros, so any input is usable.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t left() const { return size_ - pos_; }
  template <class T>
  T take() {
    T v{};
    unsigned char buf[sizeof(T)] = {};
    const size_t n = left() < sizeof(T) ? left() : sizeof(T);
    if (n) std::memcpy(buf, data_ + pos_, n);
    pos_ += n;
    std::memcpy(&v, buf, sizeof v);
    return v;
  }
  uint32_t below(uint32_t n) { return n ? take<uint32_t>() % n : 0; }  // in [0, n)
  // A float that is often one of the values that break arithmetic: NaN, the infinities, the
  // largest finite values, denormals, the signed zeros; else some plain values; else raw bits.
  float special_float() {
    static const float kSpecial[] = {__builtin_nanf(""),
                                     __builtin_inff(),
                                     -__builtin_inff(),
                                     3.4028235e38f,
                                     -3.4028235e38f,
                                     1e30f,
                                     -1e30f,
                                     1e-45f,
                                     -1e-45f,
                                     1.1754942e-38f,
                                     0.0f,
                                     -0.0f,
                                     1e-30f,
                                     1e20f,
                                     1e-20f,
                                     4096.0f};
    static const float kPlain[] = {1.0f, -1.0f, 0.5f, 2.0f, 10.0f, 0.1f, -3.0f, 100.0f};
    const uint8_t kind = take<uint8_t>();
    if (kind < 64) return kSpecial[kind % (sizeof kSpecial / sizeof kSpecial[0])];
    if (kind < 160) return kPlain[kind % (sizeof kPlain / sizeof kPlain[0])];
    return take<float>();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// One CPU context of one thread for every input: no thread starts per input (the thread pool and
// its TSan-checked concurrency are tests/reliability/test_concurrency.cpp's), and the BVH builds on the
// calling thread. Never released: LeakSanitizer sees it reachable.
inline wr_context context() {
  static const wr_context c = [] {
    wr_context made = nullptr;
    if (wr_context_create_cpu(1, &made) != WR_SUCCESS) fail("wr_context_create_cpu", wr_last_error());
    return made;
  }();
  return c;
}

// A room seen from inside, on context(): a floor, a wall, a ramp and a tiny far triangle. Made
// once; never released (as the context).
inline wr_scene room_scene() {
  static const wr_scene s = [] {
    const float v[] = {-100, -100, 0,   8,    -100, 0,    8,   100, 0,    -100, 100, 0,    8, -100,
                       -100, 8,    100, -100, 8,    100,  100, 8,   -100, 100,  4,   -1,   0, 4,
                       1,    0,    6,   0,    1.5f, 1e6f, 0,   0,   1e6f, 1,    0,   1e6f, 0, 1};
    const uint32_t i[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10, 11, 12, 13};
    wr_scene made = nullptr;
    if (wr_scene_create(context(), v, sizeof v / 12, i, sizeof i / 12, &made) != WR_SUCCESS)
      fail("wr_scene_create", wr_last_error());
    return made;
  }();
  return s;
}

}  // namespace wr_fuzz
