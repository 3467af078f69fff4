// The C API's structs that carry their size (wr.h, "Conventions": struct_size, set by each
// struct's _init function), read the one way every function reads them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "errors/status_error.h"

namespace wr {

// The caller's struct_size of *p, checked: a size below 4, or larger than this library's struct
// (a newer wr.h), is refused naming `name` ("<function>: <name>->struct_size = ...") and what
// sets it (`set_by`: the struct's _init function, or wr_camera_desc_pinhole).
template <class T>
uint32_t sized_struct_size(const char* function, const T* p, const char* name, const char* set_by) {
  uint32_t size;
  std::memcpy(&size, p, sizeof size);  // struct_size is every such struct's first field
  if (size < sizeof(uint32_t) || size > sizeof(T))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + "->struct_size = " + std::to_string(size) +
                                        ": must be in [4, " + std::to_string(sizeof(T)) + "] (set by " + set_by +
                                        "; a larger one comes from a newer wr.h)");
  return size;
}

// A copy of a caller's struct: fields past its struct_size read as 0 (a caller built against an
// older wr.h), and struct_size is this library's.
template <class T>
T read_sized_struct(const char* function, const T* p, const char* name, const char* set_by = "its _init function") {
  const uint32_t size = sized_struct_size(function, p, name, set_by);
  T copy;
  std::memset(&copy, 0, sizeof copy);
  std::memcpy(&copy, p, size);
  copy.struct_size = sizeof copy;
  return copy;
}

// Writes `value` into a caller's struct as far as its struct_size reaches (checked before anything
// is written), keeping that struct_size.
template <class T>
void write_sized_struct(const char* function, T* p, const T& value, const char* name, const char* set_by) {
  const uint32_t size = sized_struct_size(function, p, name, set_by);
  T copy = value;
  copy.struct_size = size;
  std::memcpy(p, &copy, size);
}

}  // namespace wr
