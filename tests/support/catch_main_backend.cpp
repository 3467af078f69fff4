// Catch2 v2's session for the test programs that run on either backend (backend_under_test.h),
// with one option of its own:
//   --wr-backend cpu|cuda    the backend every test of this run uses (default: cpu)
// On cuda without a usable GPU it prints why and exits with kSkipExitCode before any test (CTest
// reports the tests skipped), or fails when WR_REQUIRE_GPU is set.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend_under_test.h"

int main(int argc, char* argv[]) {
  Catch::Session session;
  std::string backend = "cpu";
  using Catch::clara::Opt;
  session.cli(session.cli() |
              Opt(backend, "cpu|cuda")["--wr-backend"]("the warp-raycaster backend these tests run on"));
  if (const int rc = session.applyCommandLine(argc, argv)) return rc;
  if (backend == "cuda") {
    wr_test::set_backend_under_test(wr_test::Backend::kCuda);
  } else if (backend != "cpu") {
    std::fprintf(stderr, "--wr-backend: '%s' is neither cpu nor cuda\n", backend.c_str());
    return 2;
  }
  // Listing the tests (CTest's discovery at build time) needs no device.
  const Catch::ConfigData& config = session.configData();
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters;
  if (!listing && wr_test::backend_under_test() != wr_test::Backend::kCpu) {
    const std::string why = wr_test::why_backend_unusable();
    if (!why.empty()) {
      const char* required = std::getenv("WR_REQUIRE_GPU");
      if (required && *required && std::strcmp(required, "0") != 0) {
        std::printf("FAILED: WR_REQUIRE_GPU is set but the %s backend cannot be used: %s\n", backend.c_str(),
                    why.c_str());
        return 1;
      }
      std::printf("skipped: the %s backend cannot be used here: %s\n", backend.c_str(), why.c_str());
      return wr_test::kSkipExitCode;
    }
  }
  return session.run();
}
