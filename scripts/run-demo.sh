#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the demo on the bundled parkour terrain:
# 64 robots, one depth camera each; writes a contact sheet PNG and the [N,H,W] tensor (.npy)
# to build/demo_out/. Extra arguments go to wr-demo (see `build/apps/wr-demo --help`).
# build/ is the user's Release build: no -Werror, no tests (scripts/run-tests.sh builds those in
# build-tests/), only the demo built; the benchmarks can be built there too.
#   usage: scripts/run-demo.sh [wr-demo options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --no-python  # the demo is C++: no .venv/ (torch) for it
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWR_WERROR=OFF -DWR_BUILD_TESTS=OFF -DWR_BUILD_APPS=ON >/dev/null
cmake --build build -j "$jobs" --target wr-demo
build/apps/wr-demo --out build/demo_out "$@"
