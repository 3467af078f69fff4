#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the demo on the bundled parkour terrain: 64 robots,
# one depth camera each (a contact sheet PNG and the [N,H,W] tensor, .npy), then the same robots'
# height scans and LiDARs (wr-demo --height-scan, --lidar: a picture and a .npy each), all into
# build/demo_out/. With arguments, wr-demo runs once with them instead (`build/apps/wr-demo --help`).
# WR_DEMO_BUILD names another build folder than build/ (the tests run this script so).
# build/ is the user's Release build: no -Werror, no tests (scripts/run-tests.sh builds those in
# build-tests/), only the demo built; the benchmarks can be built there too.
# CUDA: compiled only where a GPU is visible (nvidia-smi lists one), since its kernels for four GPU
# generations take minutes to compile and without a GPU the demo renders on the CPU all the same.
# WR_CUDA=on builds the CUDA backend anyway (nvcc needed), WR_CUDA=off never; default auto
# (scripts/cuda-choice.sh).
#   usage: [WR_CUDA=auto|on|off] scripts/run-demo.sh [wr-demo options...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cuda-choice.sh
choose_cuda run-demo
bash scripts/setup.sh --no-python  # the demo is C++: no .venv/ (torch) for it
jobs=$(nproc 2>/dev/null || echo 2)
build="${WR_DEMO_BUILD:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWR_WERROR=OFF -DWR_BUILD_TESTS=OFF -DWR_BUILD_APPS=ON \
  -DWR_ENABLE_CUDA="$([ "$cuda" = on ] && echo ON || echo OFF)" >/dev/null
cmake --build "$build" -j "$jobs" --target wr-demo
if [ $# -gt 0 ]; then
  exec "$build/apps/wr-demo" --out "$build/demo_out" "$@"
fi
"$build/apps/wr-demo" --out "$build/demo_out"
echo
"$build/apps/wr-demo" --out "$build/demo_out" --height-scan
echo
"$build/apps/wr-demo" --out "$build/demo_out" --lidar
