// The calling thread's last error message (api/api_guard.h), wr_last_error and
// wr_status_string. Compiled into wr_core (src/CMakeLists.txt), so that the C functions the unit
// tests call without libwr (the camera description helpers, api/camera_desc.cpp) report errors
// the way every C API function does.
#include <string>

#include "api/api_guard.h"

namespace wr {

std::string& last_error_message() {
  thread_local std::string message;
  return message;
}

void set_last_error(wr_status status, const char* message) {
  try {
    last_error_message() = std::string(message) + " [" + wr_status_string(status) + "]";
  } catch (...) {
    // Out of memory while reporting: keep the previous message rather than throw.
  }
}

void set_last_error(const char* function, wr_status status, const char* what) {
  try {
    set_last_error(status, (std::string(function) + ": " + what).c_str());
  } catch (...) {
    set_last_error(status, what);  // no memory for the prefix: the bare message still says what
  }
}

}  // namespace wr

extern "C" {

const char* wr_status_string(wr_status status) {
  switch (status) {
    case WR_SUCCESS: return "WR_SUCCESS";
    case WR_ERROR_INVALID_ARGUMENT: return "WR_ERROR_INVALID_ARGUMENT";
    case WR_ERROR_IO: return "WR_ERROR_IO";
    case WR_ERROR_PARSE: return "WR_ERROR_PARSE";
    case WR_ERROR_OUT_OF_MEMORY: return "WR_ERROR_OUT_OF_MEMORY";
    case WR_ERROR_UNSUPPORTED: return "WR_ERROR_UNSUPPORTED";
    case WR_ERROR_DEVICE: return "WR_ERROR_DEVICE";
    case WR_ERROR_INTERNAL: return "WR_ERROR_INTERNAL";
  }
  return "WR_STATUS_UNKNOWN";
}

const char* wr_last_error(void) { return wr::last_error_message().c_str(); }

}  // extern "C"
