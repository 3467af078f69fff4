#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the demo on the bundled parkour terrain:
# 64 robots, one depth camera each; writes a contact sheet PNG and the [N,H,W] tensor (.npy)
# to build/demo_out/. Extra arguments go to wr-demo (see `build/apps/wr-demo --help`).
#   usage: scripts/run-demo.sh [wr-demo options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs" --target wr-demo
build/apps/wr-demo --out build/demo_out "$@"
