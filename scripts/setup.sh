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
  python3-venv                 # .venv/ below (the benchmarks' plots)
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

# Python for the benchmarks' plots (benchmarks/memory/plot_memory.py): a virtual environment in
# .venv/ at the repository root, with matplotlib and numpy from PyPI, installed only when missing.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$root/.venv/bin/python" ]; then
  echo "setup: creating $root/.venv" >&2
  python3 -m venv "$root/.venv"
fi
if ! "$root/.venv/bin/python" -c 'import matplotlib, numpy' 2>/dev/null; then
  echo "setup: installing matplotlib and numpy into .venv" >&2
  "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check matplotlib numpy
fi
