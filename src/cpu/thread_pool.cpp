#include "cpu/thread_pool.h"

namespace wr {

ThreadPool::ThreadPool(unsigned num_threads) {
  if (num_threads == 0) num_threads = std::thread::hardware_concurrency();
  if (num_threads == 0) num_threads = 1;
  workers_.reserve(num_threads - 1);
  try {
    for (unsigned i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  } catch (...) {
    // Could not start every thread: stop those that did start, then report.
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain(unsigned thread_index) {
  for (;;) {
    const uint32_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (task >= num_tasks_) return;
    fn_(context_, task, thread_index);
  }
}

void ThreadPool::run(uint32_t num_tasks, TaskFn fn, void* context) {
  if (num_tasks == 0) return;
  std::lock_guard<std::mutex> job(job_mutex_);
  if (workers_.empty()) {
    for (uint32_t i = 0; i < num_tasks; ++i) fn(context, i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    fn_ = fn;
    context_ = context;
    num_tasks_ = num_tasks;
    next_task_.store(0, std::memory_order_relaxed);
    busy_workers_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock<std::mutex> lock(state_mutex_);
  done_.wait(lock, [this] { return busy_workers_ == 0; });
}

void ThreadPool::worker_loop(unsigned thread_index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(state_mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain(thread_index);
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (--busy_workers_ == 0) done_.notify_one();
  }
}

}  // namespace wr
