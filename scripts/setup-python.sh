#!/usr/bin/env bash
# The Python half of scripts/setup.sh (which runs it last): creates .venv/ in the repository
# with the packages the Python package, its tests, examples and benchmarks use (from PyPI), and
# installs warp_raycaster into it from this tree whenever the C++ or binding sources changed
# since the last install (a hash of them is kept in .venv/). The build folder build-python/
# persists, so a reinstall recompiles only what changed. Quiet when nothing is to be done.
# Needs only python3 (>= 3.9, with venv), CMake, a C++17 compiler and the library's own build
# needs (nvcc for the CUDA backend); no Debian package of its own.
#   WR_PYTHON=<interpreter> chooses the interpreter .venv/ is made from (default: python3).
#   --mjlab: makes .venv-mjlab/ instead, with mjlab (which pins its own MuJoCo and mujoco-warp) and
#   pytest, for warp_raycaster.mjlab's tests (python/tests/test_mjlab.py; scripts/setup.sh --mjlab).
#   --no-package: the packages from PyPI only, not warp_raycaster (scripts/run-tests.sh, whose
#   build makes the package the tests import).
# pip keeps its downloads in its cache (~/.cache/pip), so a venv made again downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
[ "${1:-}" = "--mjlab" ] && venv=.venv-mjlab
with_package=1
[ "${1:-}" = "--no-package" ] && with_package=0
py="$venv/bin/python"
# torch from PyPI (with its CUDA runtime wheels, which a CPU-only machine loads too);
# nanobind and scikit-build-core build the package without build isolation, from .venv/;
# mujoco (MuJoCo 4's Python bindings and libmujoco) is the independent truth of the height-field
# tests (its own mj_ray) and what the MuJoCo integration builds on; mujoco-warp (with warp-lang) is
# the batched simulator whose Data warp_raycaster.mujoco reads (its tests run it on the CPU).
requirements=(numpy torch pytest matplotlib nanobind "scikit-build-core>=0.10" "mujoco>=4.0" "mujoco-warp>=4.0")
# mjlab 1.6 (the Isaac Lab API on mujoco_warp) brings torch, warp-lang, mujoco and mujoco-warp 3.11.
[ "$venv" = .venv-mjlab ] && requirements=("mjlab==1.6.0" pytest nanobind "scikit-build-core>=0.10")

if [ ! -x "$py" ]; then
  echo "setup: creating $venv (${requirements[*]})" >&2
  "${WR_PYTHON:-python3}" -m venv "$venv"
fi
# The requirements, installed once per list: the list itself is the stamp.
deps_stamp="$venv/.wr-requirements"
if [ "$(cat "$deps_stamp" 2>/dev/null)" != "${requirements[*]}" ]; then
  "$py" -m pip install -q --disable-pip-version-check "${requirements[@]}"
  echo "${requirements[*]}" >"$deps_stamp"
fi

# The wheels pip needs to build the package in isolation ([build-system].requires of
# pyproject.toml, with their own dependencies) kept in $venv/wheelhouse/, so that the test of the
# `pip install .` and `pip wheel .` routes (python/tests/wheel_in_fresh_venv.sh) needs no index.
if [ "$venv" = .venv ]; then
  build_requires=$(sed -n 's/^requires = \[\(.*\)\]$/\1/p' pyproject.toml | tr -d '",')
  wheelhouse_stamp="$venv/.wr-wheelhouse"
  if [ "$(cat "$wheelhouse_stamp" 2>/dev/null)" != "$build_requires" ]; then
    # shellcheck disable=SC2086  # one word per requirement
    "$py" -m pip download -q --disable-pip-version-check -d "$venv/wheelhouse" $build_requires
    echo "$build_requires" >"$wheelhouse_stamp"
  fi
fi

[ "$with_package" = 1 ] || exit 0

# Every file the package is built from; python/tests, examples and docs are not part of it.
package_hash=$(find CMakeLists.txt pyproject.toml cmake include src kernels python integrations/mujoco/model \
                 -path python/tests -prune -o -name __pycache__ -prune -o -type f -print0 |
               LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
package_stamp="$venv/.wr-package"
# CUDA in the package only where a GPU is visible, unless WR_CUDA says (scripts/cuda-choice.sh); the
# choice is part of the stamp, so that changing it rebuilds.
. scripts/cuda-choice.sh
choose_cuda setup
package_hash="$package_hash cuda=$cuda"
if [ "$(cat "$package_stamp" 2>/dev/null)" != "$package_hash" ]; then
  echo "setup: building and installing warp_raycaster into $venv (a line a minute until it is done)" >&2
  log=$(mktemp)
  start=$SECONDS
  (while sleep 60; do echo "setup: still building warp_raycaster, $(((SECONDS - start) / 60)) min so far" >&2; done) &
  heartbeat=$!
  cuda_define=ON
  [ "$cuda" = on ] || cuda_define=OFF
  if ! "$py" -m pip install --disable-pip-version-check --no-build-isolation --no-deps \
         -C "cmake.define.WR_ENABLE_CUDA=$cuda_define" . >"$log" 2>&1; then
    kill "$heartbeat" 2>/dev/null || true
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  kill "$heartbeat" 2>/dev/null || true
  echo "setup: built and installed in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s" >&2
  rm -f "$log"
  # Imported from outside the tree, so that it is the installed package that loads.
  (cd / && "$OLDPWD/$py" -c "import warp_raycaster") || { echo "setup: the installed warp_raycaster does not import" >&2; exit 1; }
  echo "$package_hash" >"$package_stamp"
fi
