// Catch2 v2's main, compiled once for every test executable: Catch2's own session, then the
// exit status kSkipExitCode when a test case skipped and none failed (test_skip.h says why).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "test_skip.h"

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  const std::vector<std::string>& skipped = wr_test::skip_reasons();
  if (failed != 0 || skipped.empty()) return failed;
  // Catch2 counted them as passed: the exit status is what says they were not.
  std::printf("%zu test case(s) of this run checked nothing here (exit status %d: skipped):\n", skipped.size(),
              wr_test::kSkipExitCode);
  for (const std::string& why : skipped) std::printf("skipped: %s\n", why.c_str());
  return wr_test::kSkipExitCode;
}
