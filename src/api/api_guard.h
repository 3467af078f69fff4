// Error capture at the C boundary: every API body runs inside api_guard, which turns any
// exception into a wr_status and stores its message for wr_last_error() on this thread.
// No exception ever crosses into the caller.
#pragma once

#include <new>
#include <string>

#include <wr/wr.h>

#include "errors/status_error.h"  // fail, and the argument checks every C function uses

namespace wr {

// The calling thread's last error message ("" until a call fails).
std::string& last_error_message();

// Stores "<message> [<status name>]"; messages from the library already start with the
// C function's name.
void set_last_error(wr_status status, const char* message);

// For failures that did not come as a StatusError: prefixes the C function's name.
void set_last_error(const char* function, wr_status status, const char* what);

template <class Body>
wr_status api_guard(const char* function, Body&& body) noexcept {
  try {
    body();
    return WR_SUCCESS;
  } catch (const StatusError& e) {
    set_last_error(e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error(function, WR_ERROR_OUT_OF_MEMORY, "out of host memory");
    return WR_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(function, WR_ERROR_INTERNAL, e.what());
    return WR_ERROR_INTERNAL;
  } catch (...) {
    set_last_error(function, WR_ERROR_INTERNAL, "unknown exception");
    return WR_ERROR_INTERNAL;
  }
}

}  // namespace wr
