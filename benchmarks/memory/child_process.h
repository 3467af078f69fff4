// One measurement per child process, and the shared memory children report through.
//
// Why fork: every (strategy, N) starts from the same fresh copy of the parent, so nothing a
// previous measurement allocated and freed can linger in the heap and hide (or inflate) this
// one's RSS delta; and on a GPU each child gets its own CUDA context, so the driver's
// free-memory figure starts clean too. The parent never touches the library or CUDA (a
// CUDA context does not survive fork), it only orchestrates and aggregates.
#pragma once

#include <cstddef>
#include <functional>

namespace wrbench {

/// Anonymous MAP_SHARED memory: written by a forked child, read by the parent afterwards.
/// Zero-filled; pages are only made resident by whoever touches them.
class SharedRegion {
 public:
  explicit SharedRegion(size_t bytes);  // exits the program when mmap fails
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

/// Runs body() in a forked child and waits for it. The child ends with _exit(body()) (no
/// atexit handlers or static destructors of the parent's state). Returns the child's exit
/// code, or -signal when it was killed (e.g. -9 by the OOM killer).
int run_in_child(const std::function<int()>& body);

/// Prints "wr-bench-memory: <message>" to stderr and ends the process with status 1 (in a
/// child, the parent sees that status). A benchmark has nothing to recover.
[[noreturn]] void die(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace wrbench
