#!/usr/bin/env bash
# Installs what warp-raycaster builds and tests with, and only what is missing: the Debian
# packages, then (unless --no-python) the Python virtual environment .venv/ of this checkout
# with numpy, torch, pytest, matplotlib and mujoco from PyPI and the warp_raycaster package built from
# this tree. Idempotent and quiet when everything is already there. Needs root (or sudo) only
# when a Debian package has to be installed. Nothing is downloaded at configure or build time:
# this is the one place dependencies come from.
#   usage: scripts/setup.sh [--no-python | --no-package | --mjlab]
# --no-package makes .venv/ with its PyPI packages but does not build warp_raycaster into it:
# scripts/run-tests.sh builds the extension in its own build, and the tests import it from there,
# so that it is compiled once.
# --mjlab also makes .venv-mjlab/ (mjlab 1.6 and its pinned MuJoCo 3.11, for warp_raycaster.mjlab's
# tests; a few GB from PyPI, so not part of the default set-up).
set -euo pipefail
cd "$(dirname "$0")/.."
with_python=1
[ "${1:-}" = "--no-python" ] && with_python=0
python_args=()
[ "${1:-}" = "--no-package" ] && python_args=(--no-package)
if [ "${1:-}" = "--mjlab" ]; then
  bash "$0"
  exec bash scripts/setup-python.sh --mjlab
fi

packages=(
  cmake g++ make ninja-build   # build (Ninja: scripts/cmake-generator.sh)
  libeigen3-dev                # host-side math (tests, demo, benchmarks)
  libtinyobjloader-dev         # an OBJ reader independent of libwr's (benchmarks/peers)
  catch2                       # tests (Catch2 v2)
  libbenchmark-dev             # Google Benchmark (benchmarks/)
  libstb-dev                   # stb_image_write (demo PNG)
  libcli11-dev                 # command-line parsing (apps/, benchmarks/)
  libembree-dev                # independent reference ray tracer (tests, peer benchmarks)
  pkg-config                   # the installed warp_raycaster.pc is checked (test_find_package)
  python3-venv python3-dev     # .venv/ and the headers the Python extension compiles against
  clang-14 libclang-rt-14-dev  # libFuzzer and Clang's sanitizer runtimes (scripts/run-fuzz.sh)
  clang-format-14              # the sources' style, checked by the tests (scripts/check-format.sh)
  valgrind                     # instruction and cache-miss counts (scripts/callgrind-vs-embree.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "$with_python" = 1 ] || exit 0
exec bash scripts/setup-python.sh "${python_args[@]}"
