// CPU thread pool (src/cpu/thread_pool): every task runs exactly once, for any thread count,
// repeatedly, and concurrent callers take turns without losing tasks.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "cpu/thread_pool.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<unsigned> max_thread{0};
  explicit Counts(size_t n) : hits(n) {}
};

void count_task(void* context, uint32_t task, unsigned thread) {
  auto* c = static_cast<Counts*>(context);
  c->hits[task].fetch_add(1);
  unsigned m = c->max_thread.load();
  while (thread > m && !c->max_thread.compare_exchange_weak(m, thread)) {
  }
}

}  // namespace

TEST_CASE("every task runs exactly once, for 1..8 threads and many jobs") {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    wr::ThreadPool pool(threads);
    REQUIRE(pool.num_threads() == threads);
    for (uint32_t n : {0u, 1u, 5u, 1000u, 100000u}) {
      Counts c(n);
      pool.run(n, count_task, &c);
      int wrong = 0;
      for (auto& h : c.hits) wrong += h.load() != 1;
      CHECK(wrong == 0);
      CHECK(c.max_thread.load() < threads);
    }
  }
}

TEST_CASE("0 threads means one per hardware thread") {
  wr::ThreadPool pool(0);
  CHECK(pool.num_threads() == std::max(1u, std::thread::hardware_concurrency()));
}

TEST_CASE("concurrent callers take turns and lose nothing") {
  wr::ThreadPool pool(3);
  Counts a(50000), b(50000);
  std::thread other([&] {
    for (int i = 0; i < 20; ++i) pool.run(50000, count_task, &b);
  });
  for (int i = 0; i < 20; ++i) pool.run(50000, count_task, &a);
  other.join();
  int wrong = 0;
  for (auto& h : a.hits) wrong += h.load() != 20;
  for (auto& h : b.hits) wrong += h.load() != 20;
  CHECK(wrong == 0);
}
