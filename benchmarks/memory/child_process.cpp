#include "child_process.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace wrbench {

void die(const char* format, ...) {
  std::fflush(stdout);
  std::fputs("wr-bench-memory: ", stderr);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::_Exit(1);
}

SharedRegion::SharedRegion(size_t bytes) : bytes_(bytes) {
  void* p = mmap(nullptr, bytes > 0 ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap of %zu shared bytes failed: %s", bytes, std::strerror(errno));
  data_ = p;
}

SharedRegion::~SharedRegion() {
  if (data_) munmap(data_, bytes_ > 0 ? bytes_ : 1);
}

int run_in_child(const std::function<int()>& body) {
  // Anything buffered now would be written twice: once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) die("fork failed: %s", std::strerror(errno));
  if (pid == 0) {
    const int code = body();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) die("waitpid failed: %s", std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

}  // namespace wrbench
