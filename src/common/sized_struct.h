// The C API's structs that carry their size (wr.h, "Conventions": struct_size, set by each
// struct's _init function), read the one way every function reads them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "common/status_error.h"

namespace wr {

// A copy of a caller's struct: fields past its struct_size read as 0 (a caller built against an
// older wr.h). A size below 4, or larger than this library's struct (a newer wr.h), is refused
// naming `name` ("<function>: <name>->struct_size = ...").
template <class T>
T read_sized_struct(const char* function, const T* p, const char* name) {
  uint32_t size;
  std::memcpy(&size, p, sizeof size);  // struct_size is every such struct's first field
  if (size < sizeof(uint32_t) || size > sizeof(T))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + "->struct_size = " + std::to_string(size) +
                                        ": must be in [4, " + std::to_string(sizeof(T)) +
                                        "] (set by its _init function; a larger one comes from a newer wr.h)");
  T copy;
  std::memset(&copy, 0, sizeof copy);
  std::memcpy(&copy, p, size);
  return copy;
}

}  // namespace wr
