// Skipping a test case that cannot check what it is for on this machine (a GPU test without a
// usable GPU), so that CTest reports it skipped rather than passed.
//
// Catch2 v2 has no SKIP: a test case that returns early passes. So a skipping case says why
// (WARN, printed in its log) and records it here; the test program's main (catch_main.cpp) then
// exits with kSkipExitCode when nothing failed, which CTest turns into "Skipped" through the
// test's SKIP_RETURN_CODE property, and prints the reasons as lines starting "skipped: ".
// A process that ran one skipped case among others that passed is reported skipped as a whole:
// something it was asked to check went unchecked.
//
// Every test program runs with `--warn NoAssertions` (tests/CMakeLists.txt), which fails a test
// case that asserted nothing. A skipped case has checked nothing by design, and says so through
// the exit status instead; so WR_SKIP_TEST_CASE counts one passing assertion (SUCCEED), which
// keeps NoAssertions for the cases that really pass having checked nothing.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace wr_test {

// The exit status that makes CTest report a test as skipped (its SKIP_RETURN_CODE property).
constexpr int kSkipExitCode = 77;

// Why each skipped test case of this process was skipped, in the order they ran.
inline std::vector<std::string>& skip_reasons() {
  static std::vector<std::string> reasons;
  return reasons;
}

}  // namespace wr_test

// Ends the calling test case as skipped, with `why` (a stream expression) in its log.
#define WR_SKIP_TEST_CASE(why)                                          \
  do {                                                                  \
    std::ostringstream wr_skip_why_;                                    \
    wr_skip_why_ << why;                                                \
    WARN("skipped: " << wr_skip_why_.str());                            \
    wr_test::skip_reasons().push_back(wr_skip_why_.str());              \
    SUCCEED("skipped, reported through the exit status (test_skip.h)"); \
    return;                                                             \
  } while (0)
