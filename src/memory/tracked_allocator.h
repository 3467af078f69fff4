// std::allocator that records what it hands out in a MemoryLedger under one tag, so that
// std::vector can hold the library's big arrays and still be accounted to the byte.
// A null ledger records nothing (tools and tests that build a BVH on its own).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "memory/memory_ledger.h"

namespace wr {

template <class T>
class TrackedAllocator {
 public:
  using value_type = T;
  // Moving or swapping a vector moves its memory and the ledger entry that records it
  // together; copies are recorded in the ledger of the copy's allocator.
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_copy_assignment = std::false_type;

  TrackedAllocator() noexcept = default;
  TrackedAllocator(MemoryLedger* ledger, MemoryTag tag) noexcept : ledger_(ledger), tag_(tag) {}
  template <class U>
  TrackedAllocator(const TrackedAllocator<U>& other) noexcept : ledger_(other.ledger()), tag_(other.tag()) {}

  // Arrays of 2 MiB and more start on a 2 MiB boundary, so that where Linux hands out
  // transparent huge pages by itself (THP "always") they can be backed by them. They do not
  // ask for them (madvise(MADV_HUGEPAGE)): with Debian's default THP settings, asking made the
  // median BVH build slower (a fault in an madvised range compacts memory on the spot when no
  // huge page is free) and traversal no faster
  // (benchmarks/results/cpu-design-decisions-2026-11-30.md).
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    T* p = static_cast<T*>(::operator new(bytes, std::align_val_t(alignment(bytes))));
    if (ledger_) ledger_->add(MemorySpace::kHost, tag_, bytes);
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (ledger_) ledger_->remove(MemorySpace::kHost, tag_, n * sizeof(T));
    ::operator delete(p, std::align_val_t(alignment(n * sizeof(T))));
  }

  // resize() and the size constructor leave trivial elements uninitialised (default-, not
  // value-initialised): every array of the library is written whole right after it is sized,
  // and zeroing 10-20 MB first would cost a serial pass (and its page faults) for nothing.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_default_constructible<U>::value)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  MemoryLedger* ledger() const noexcept { return ledger_; }
  MemoryTag tag() const noexcept { return tag_; }

  template <class U>
  bool operator==(const TrackedAllocator<U>& o) const noexcept {
    return ledger_ == o.ledger() && tag_ == o.tag();
  }
  template <class U>
  bool operator!=(const TrackedAllocator<U>& o) const noexcept {
    return !(*this == o);
  }

 private:
  static constexpr std::size_t kHugePage = std::size_t(2) << 20;
  static std::size_t alignment(std::size_t bytes) { return bytes >= kHugePage ? kHugePage : alignof(T); }

  MemoryLedger* ledger_ = nullptr;
  MemoryTag tag_ = MemoryTag::kObjects;
};

template <class T>
using TrackedVector = std::vector<T, TrackedAllocator<T>>;

}  // namespace wr
