#!/usr/bin/env bash
# Installs the Debian packages warp-raycaster builds with, and only those that are missing.
# Idempotent and quiet when everything is already there. Needs root (or sudo) only when
# something has to be installed. Nothing is downloaded at configure or build time: this is
# the one place dependencies come from.
set -euo pipefail

packages=(
  cmake g++ make               # build
  libeigen3-dev                # host-side math (tests, demo, benchmarks)
  libtinyobjloader-dev         # OBJ reading: its header, compiled into libwr (src/scene)
  catch2                       # tests (Catch2 v2)
  libbenchmark-dev             # Google Benchmark (benchmarks/)
  libstb-dev                   # stb_image_write (demo PNG)
  libcli11-dev                 # command-line parsing (apps/, benchmarks/)
  libembree-dev                # independent reference ray tracer (tests, peer benchmarks)
  pkg-config                   # the installed warp_raycaster.pc is checked (test_find_package)
  clang-14 libclang-rt-14-dev  # libFuzzer and Clang's sanitizer runtimes (scripts/run-fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
