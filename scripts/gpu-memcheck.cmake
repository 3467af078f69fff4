# The tests labelled memcheck (tests/CMakeLists.txt) under compute-sanitizer's memcheck, through
# CTest's own memcheck support (MEMORYCHECK_TYPE CudaSanitizer, CMake >= 3.19), on a build tree
# or on a bundle of scripts/gpu-bundle.sh (any folder with a CTestTestfile.cmake). Run by
# scripts/gpu-check.sh:
#   ctest -S scripts/gpu-memcheck.cmake -DBINARY_DIR=<folder> -DSANITIZER=<compute-sanitizer>
# Prints "gpu-memcheck: return value R, defects N": N is the number of errors CTest read in the
# sanitizer's reports (invalid accesses, leaks, ...), R is non-zero when a test failed under it.
# CUDA API errors are not counted (--report-api-errors no): some tests provoke them on purpose
# and check them themselves; memcheck is here for the kernels' memory accesses.
cmake_minimum_required(VERSION 3.19)
if(NOT BINARY_DIR OR NOT SANITIZER)
  message(FATAL_ERROR "usage: ctest -S gpu-memcheck.cmake -DBINARY_DIR=<folder> -DSANITIZER=<compute-sanitizer>")
endif()
set(CTEST_SOURCE_DIRECTORY "${BINARY_DIR}")  # ctest_start wants one; nothing is configured or built
set(CTEST_BINARY_DIRECTORY "${BINARY_DIR}")
set(CTEST_SITE "gpu-check")
set(CTEST_BUILD_NAME "memcheck")
set(CTEST_MEMORYCHECK_TYPE CudaSanitizer)
set(CTEST_MEMORYCHECK_COMMAND "${SANITIZER}")
set(CTEST_MEMORYCHECK_COMMAND_OPTIONS "--tool memcheck --leak-check full --report-api-errors no")
ctest_start(Experimental QUIET)
ctest_memcheck(INCLUDE_LABEL "^memcheck$" RETURN_VALUE result DEFECT_COUNT defects)
message("gpu-memcheck: return value ${result}, defects ${defects}")
