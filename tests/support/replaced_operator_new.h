// Replaces every form of the global operator new / delete (C++17 [new.delete]: plain, array,
// nothrow, sized, aligned, and their combinations) with forwarders to three functions that the
// including test defines, so each allocation-counting test writes only what it counts:
//
//   void* wr_test::try_allocate(size_t size, size_t alignment) noexcept;
//       one attempt at `size` bytes aligned to `alignment` (alignof(std::max_align_t) for the
//       forms without std::align_val_t); null when out of memory.
//   void wr_test::release(void* p, size_t size) noexcept;
//       frees p (never null); `size` is what a sized delete passed, SIZE_MAX for the others.
//   void wr_test::note_aligned_new() noexcept;
//       called once per call of a std::align_val_t form of operator new, before it allocates.
//
// Replacement functions must not be inline ([replacement.functions]), so the definitions below
// are ordinary ones: include this header from exactly ONE source file of an executable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace wr_test {

void* try_allocate(size_t size, size_t alignment) noexcept;
void release(void* p, size_t size) noexcept;
void note_aligned_new() noexcept;

constexpr size_t kPlainNewAlign = alignof(std::max_align_t);  // of the forms without align_val_t

// The throwing forms follow [new.delete.single]: call the new-handler until it gives up.
inline void* new_or_throw(size_t size, size_t alignment) {
  for (;;) {
    if (void* p = try_allocate(size, alignment)) return p;
    const std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

inline void* new_or_null(size_t size, size_t alignment) noexcept {
  try {
    return new_or_throw(size, alignment);
  } catch (...) {
    return nullptr;
  }
}

inline void* aligned_new_or_throw(size_t size, std::align_val_t alignment) {
  note_aligned_new();
  return new_or_throw(size, static_cast<size_t>(alignment));
}

inline void* aligned_new_or_null(size_t size, std::align_val_t alignment) noexcept {
  note_aligned_new();
  return new_or_null(size, static_cast<size_t>(alignment));
}

inline void delete_unless_null(void* p, size_t size) noexcept {
  if (p) release(p, size);
}

}  // namespace wr_test

void* operator new(size_t n) { return wr_test::new_or_throw(n, wr_test::kPlainNewAlign); }
void* operator new[](size_t n) { return wr_test::new_or_throw(n, wr_test::kPlainNewAlign); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return wr_test::new_or_null(n, wr_test::kPlainNewAlign);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return wr_test::new_or_null(n, wr_test::kPlainNewAlign);
}
void* operator new(size_t n, std::align_val_t al) { return wr_test::aligned_new_or_throw(n, al); }
void* operator new[](size_t n, std::align_val_t al) { return wr_test::aligned_new_or_throw(n, al); }
void* operator new(size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return wr_test::aligned_new_or_null(n, al);
}
void* operator new[](size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return wr_test::aligned_new_or_null(n, al);
}

void operator delete(void* p) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete[](void* p) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete(void* p, const std::nothrow_t&) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete(void* p, size_t size) noexcept { wr_test::delete_unless_null(p, size); }
void operator delete[](void* p, size_t size) noexcept { wr_test::delete_unless_null(p, size); }
void operator delete(void* p, std::align_val_t) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete[](void* p, std::align_val_t) noexcept { wr_test::delete_unless_null(p, SIZE_MAX); }
void operator delete(void* p, size_t size, std::align_val_t) noexcept { wr_test::delete_unless_null(p, size); }
void operator delete[](void* p, size_t size, std::align_val_t) noexcept { wr_test::delete_unless_null(p, size); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  wr_test::delete_unless_null(p, SIZE_MAX);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  wr_test::delete_unless_null(p, SIZE_MAX);
}
