// The library's one error type. Internal code throws StatusError with the wr_status the C
// API will return and a message naming the culprit; src/api catches it at the boundary
// (no exception crosses the C API) and stores the message for wr_last_error().
#pragma once

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

}  // namespace wr
