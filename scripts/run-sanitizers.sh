#!/usr/bin/env bash
# The sanitizer runs of CI (docs/reliability.md); CUDA off in both, since nvcc does not
# instrument device or host code:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) over the library and
#         the whole C++ test suite, in build-asan/: any report fails its test.
#   tsan  ThreadSanitizer over what runs on several threads, in build-tsan/: the thread pool, the
#         BVH builder's threads, and tests/reliability/test_concurrency.cpp (sensors rendering from different
#         threads at once, handles released from other threads).
# Warnings are errors here too. Sets up the Debian packages and .venv/ first (scripts/setup.sh
# --no-package: the MuJoCo integration is built where .venv has mujoco). Prints each stage's wall time.
#   usage: scripts/run-sanitizers.sh [asan] [tsan]      (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/stage-times.sh
. scripts/cmake-generator.sh
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(asan tsan)
bash scripts/setup.sh --no-package
jobs=$(nproc 2>/dev/null || echo 2)
# RelWithDebInfo: optimised as users build it (and quick enough to test), with line numbers in
# the reports. -g1 (line tables, no variables or inlined-call records) rather than -g: the
# reports name file and line all the same, and the instrumented build, CI's longest stage, compiles
# faster (benchmarks/results/ci-stages-2026-12-07-amd-zen4.md).
common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DWR_ENABLE_CUDA=OFF -DWR_WERROR=ON
        -DWR_BUILD_TESTS=ON -DWR_BUILD_BENCHMARKS=OFF)

for run in "${runs[@]}"; do
  case "$run" in
    asan)
      echo "== AddressSanitizer + UndefinedBehaviorSanitizer: the whole test suite (build-asan/)"
      # The apps are on for the terrain generator that test_parkour_terrain links.
      choose_generator build-asan
      cmake -S . -B build-asan "${generator[@]}" "${common[@]}" -DWR_BUILD_APPS=ON -DWR_SANITIZE=address,undefined >/dev/null
      stage "ASan + UBSan build (build-asan)" cmake --build build-asan -j "$jobs"
      # detect_leaks: LeakSanitizer at each program's exit. verify_asan_link_order=0: the
      # installed-package tests link the instrumented libwr.so into an uninstrumented program,
      # where the runtime cannot come first; it still checks every access the library makes.
      ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:verify_asan_link_order=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        stage "ASan + UBSan tests (ctest, build-asan)" ctest --test-dir build-asan --output-on-failure -j "$jobs"
      ;;
    tsan)
      echo "== ThreadSanitizer: thread pool, BVH builder threads, concurrent renders and releases (build-tsan/)"
      choose_generator build-tsan
      cmake -S . -B build-tsan "${generator[@]}" "${common[@]}" -DWR_BUILD_APPS=OFF -DWR_SANITIZE=thread >/dev/null
      targets=(test_thread_pool test_bvh_builder test_concurrency)
      stage "TSan build (build-tsan)" cmake --build build-tsan -j "$jobs" --target "${targets[@]}"
      tsan_programs() {
        for t in "${targets[@]}"; do
          echo "-- $t"
          TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 "build-tsan/tests/$t"
        done
      }
      stage "TSan programs" tsan_programs
      ;;
    *)
      echo "run-sanitizers.sh: unknown run '$run' (asan, tsan)" >&2
      exit 2
      ;;
  esac
done
