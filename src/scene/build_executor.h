// The BVH builder's threads (bvh_builder.cpp): a budget of spare threads, and the one place a
// build thread is started, with the one fallback when none can be: the work is done on the
// calling thread instead (std::system_error: no thread to be had), or, when starting one ran
// out of memory, the error is thrown after every thread already started has finished (a
// joinable std::thread destroyed while unwinding would end the process). Which work runs on
// which thread never changes the result: the builder's splits depend on the triangles alone.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace wr {

class BuildExecutor {
 public:
  // threads: build threads, the caller's included (0: one per hardware thread).
  explicit BuildExecutor(unsigned threads)
      : threads_(std::max(1u, threads ? threads : std::thread::hardware_concurrency())),
        spare_(static_cast<int>(threads_) - 1) {}

  unsigned threads() const { return threads_; }

  // Starts fn on *worker if a spare thread is left in the budget; false (and nothing started)
  // otherwise, or when the system has no thread to give. A started worker is handed back with
  // finish(). Out of memory while starting: thrown, the budget as it was.
  template <class Fn>
  bool start(std::thread* worker, Fn&& fn) {
    if (!take_spare()) return false;
    try {
      *worker = std::thread(std::forward<Fn>(fn));
      return true;
    } catch (const std::system_error&) {
      spare_.fetch_add(1);
      return false;
    } catch (...) {
      spare_.fetch_add(1);
      throw;
    }
  }

  // Waits for a worker that start() started and returns its thread to the budget.
  void finish(std::thread* worker) {
    worker->join();
    spare_.fetch_add(1);
  }

  // Runs fn(begin, end) over [0, n) in one chunk per build thread (the caller's included);
  // fn must not throw. A chunk whose thread cannot be started runs on the caller. Smaller n
  // than min_parallel is not worth a thread.
  template <class Fn>
  void for_each_chunk(uint32_t n, const Fn& fn, uint32_t min_parallel = 65536) {
    const uint32_t chunks = n < min_parallel ? 1u : threads_, step = (n + chunks - 1) / chunks;
    std::vector<std::thread> workers;  // the started ones
    workers.reserve(chunks);
    for (uint32_t c = 1; c < chunks; ++c) {
      const uint32_t begin = std::min(n, c * step), end = std::min(n, (c + 1) * step);
      std::thread worker;
      bool started;
      try {
        started = start(&worker, [&fn, begin, end] { fn(begin, end); });
      } catch (...) {  // out of memory starting it: the threads started read fn and this frame
        for (std::thread& w : workers) finish(&w);
        throw;
      }
      if (started) {
        workers.push_back(std::move(worker));  // reserved: cannot throw
      } else {
        fn(begin, end);
      }
    }
    fn(0, std::min(n, step));
    for (std::thread& w : workers) finish(&w);
  }

 private:
  bool take_spare() {
    int spare = spare_.load();
    while (spare > 0)
      if (spare_.compare_exchange_weak(spare, spare - 1)) return true;
    return false;
  }

  unsigned threads_;
  std::atomic<int> spare_;
};

}  // namespace wr
