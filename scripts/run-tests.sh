#!/usr/bin/env bash
# Sets up (Debian packages, .venv/), builds everything with warnings as errors, and runs the
# whole test suite with CTest: the C++ tests and the Python package's pytest files. Works
# without a GPU: GPU tests skip with a printed reason, and the CUDA sources are still compiled
# wherever nvcc exists. Builds in its own folder, so that
# -Werror never reaches the demo's build/ and neither command rebuilds the other's.
# Prints each stage's wall time (scripts/stage-times.sh).
#   usage: scripts/run-tests.sh [build-dir]      (default: build-tests)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/stage-times.sh
. scripts/cmake-generator.sh
build="${1:-build-tests}"
# .venv/ with its PyPI packages; the package itself is built below, once, by this build.
stage "setup (Debian packages, .venv)" bash scripts/setup.sh --no-package
jobs=$(nproc 2>/dev/null || echo 2)
# The Python extension too, against .venv/'s interpreter (setup.sh made it): CTest runs pytest
# on the package laid out in "$build"/python, built from these sources like every C++ test.
choose_generator "$build"
build_tests() {
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWR_WERROR=ON -DWR_BUILD_TESTS=ON -DWR_BUILD_APPS=ON \
    -DWR_BUILD_BENCHMARKS=ON -DWR_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
  cmake --build "$build" -j "$jobs"
}
stage "build ($build)" build_tests
stage "tests (ctest, $build)" ctest --test-dir "$build" --output-on-failure -j "$jobs"
# CTest says only that a test was skipped; why is in its output: the GPU tests print "skipped: ...".
grep -h '^skipped: ' "$build/Testing/Temporary/LastTest.log" 2>/dev/null | sort | uniq -c || true
