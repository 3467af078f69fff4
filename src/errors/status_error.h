// The library's one error type. Internal code throws StatusError with the wr_status the C
// API will return and a message naming the culprit; src/api catches it at the boundary
// (no exception crosses the C API) and stores the message for wr_last_error().
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <wr/wr.h>

namespace wr {

class StatusError : public std::runtime_error {
 public:
  StatusError(wr_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  wr_status status() const noexcept { return status_; }

 private:
  wr_status status_;
};

[[noreturn]] inline void fail(wr_status status, const std::string& message) { throw StatusError(status, message); }

// "%g" of v, for messages.
inline std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

// Throws WR_ERROR_INVALID_ARGUMENT "<function>: <name> is not aligned to <n> bytes ..." when the
// array p (not null) is not aligned to its elements (wr.h, Conventions): the CPU would read it
// anyway, but a GPU's misaligned load is a fault that breaks the whole CUDA context.
template <class T>
void require_element_aligned(const char* function, const T* p, const char* name) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + " is not aligned to " +
                                        std::to_string(alignof(T)) + " bytes, the size of its elements");
}

// Throws WR_ERROR_INVALID_ARGUMENT "<function>: <name> is NULL" when p is null.
inline void require_non_null(const char* function, const void* p, const char* name) {
  if (!p) fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + " is NULL");
}

// An array argument: not null, and aligned to its elements (require_element_aligned).
template <class T>
void require_array(const char* function, const T* p, const char* name) {
  require_non_null(function, p, name);
  require_element_aligned(function, p, name);
}

}  // namespace wr
