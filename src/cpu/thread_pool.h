// Persistent thread pool for the CPU backend. One job at a time runs on all threads (the
// calling thread included); tasks are claimed from an atomic counter, so the split of work
// between threads never changes what a task computes. run() allocates nothing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace wr {

class ThreadPool {
 public:
  // Called once per task index; thread_index is in [0, num_threads()).
  using TaskFn = void (*)(void* context, uint32_t task_index, unsigned thread_index);

  // num_threads counts the calling thread; 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(unsigned num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned num_threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Runs fn(context, i, thread) for every i in [0, num_tasks) and returns when all are done.
  // Concurrent callers (different sensors on different threads) take turns.
  void run(uint32_t num_tasks, TaskFn fn, void* context);

 private:
  void worker_loop(unsigned thread_index);
  void drain(unsigned thread_index);

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // one job at a time
  std::mutex state_mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  uint64_t generation_ = 0;    // bumped for every job; guarded by state_mutex_
  unsigned busy_workers_ = 0;  // workers still inside the current job; guarded by state_mutex_
  bool stopping_ = false;      // guarded by state_mutex_
  TaskFn fn_ = nullptr;
  void* context_ = nullptr;
  uint32_t num_tasks_ = 0;
  std::atomic<uint32_t> next_task_{0};
};

}  // namespace wr
