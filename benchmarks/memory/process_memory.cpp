#include "process_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace wrbench {

uint64_t page_bytes() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096u;
}

namespace {

// Fields of /proc/self/statm, in pages: size, resident, shared (file-backed + shmem).
struct Statm {
  unsigned long long size = 0, resident = 0, shared = 0;
};
Statm read_statm() {
  Statm s;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return s;
  if (std::fscanf(f, "%llu %llu %llu", &s.size, &s.resident, &s.shared) != 3) s = Statm{};
  std::fclose(f);
  return s;
}

}  // namespace

uint64_t resident_bytes() { return read_statm().resident * page_bytes(); }

uint64_t resident_anonymous_bytes() {
  const Statm s = read_statm();
  return (s.resident - s.shared) * page_bytes();
}

void pin_malloc_thresholds() {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

void release_free_heap() { malloc_trim(0); }

}  // namespace wrbench
