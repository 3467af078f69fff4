#!/usr/bin/env bash
# The routes of a user outside this repository's .venv/, with pip's build isolation (so
# [build-system].requires in pyproject.toml must be complete): `pip install .` into a fresh virtual
# environment, then `pip wheel .` and the wheel installed into a second fresh environment with only
# its declared dependencies; in each the package is imported from outside the tree and renders a
# closed form (a camera 2 m above a plane, looking down: depth 2). The wheel reuses the install's
# build folder, so the library is compiled once. pip installs only from WHEELHOUSE (--no-index):
# scripts/setup-python.sh put the build requirements and numpy there from PyPI, so nothing is
# downloaded while the tests run. CUDA off: this checks the packaging, which is the same with it
# (the test build compiles CUDA).
#   usage: wheel_in_fresh_venv.sh PYTHON REPO_ROOT WORK_DIR WHEELHOUSE
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: wheel_in_fresh_venv.sh PYTHON REPO_ROOT WORK_DIR WHEELHOUSE" >&2; exit 2; }
python=$1 repo=$2 work=$3 wheelhouse=$4
[ -d "$wheelhouse" ] || { echo "no wheelhouse at $wheelhouse: run scripts/setup.sh"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
pip_offline=(--disable-pip-version-check --no-index --find-links "$wheelhouse")

# check VENV: imports the package from outside the tree and renders the closed form
check() {
  (cd / && "$1/bin/python" - <<'PY'
import math
import numpy as np
import warp_raycaster as wr

ctx = wr.Context("cpu", threads=1)
vertices = np.array([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], np.float32)
indices = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
down = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)  # pitch +90 degrees, w x y z
sensor = wr.Sensor(wr.Scene(ctx, vertices, indices), wr.Camera.pinhole(16, 12, 60.0, mount_rotation=down), num_envs=2)
depth = sensor.render(np.array([[0, 0, 2, 1, 0, 0, 0], [3, 4, 2, 1, 0, 0, 0]], np.float32))
assert depth.shape == (2, 12, 16), depth.shape
np.testing.assert_allclose(depth, 2.0, rtol=1e-5)
print("   imported warp_raycaster", wr.__version__, "from", wr.__file__, "and rendered depth 2 m above a plane")
PY
  )
}

"$python" -m venv "$work/install-venv"
echo "-- pip install . (build isolation, CUDA off) into a fresh venv"
CMAKE_BUILD_PARALLEL_LEVEL=2 "$work/install-venv/bin/python" -m pip install -q "${pip_offline[@]}" \
  -C cmake.define.WR_ENABLE_CUDA=OFF -C "build-dir=$work/build" "$repo"
check "$work/install-venv"

echo "-- pip wheel . (build isolation, the same build folder)"
CMAKE_BUILD_PARALLEL_LEVEL=2 "$work/install-venv/bin/python" -m pip wheel -q "${pip_offline[@]}" --no-deps \
  -w "$work/dist" -C cmake.define.WR_ENABLE_CUDA=OFF -C "build-dir=$work/build" "$repo"
wheel=$(ls "$work"/dist/warp_raycaster-*.whl)
echo "   built $(basename "$wheel")"
"$python" -m venv "$work/user-venv"
echo "-- pip install of the wheel, with its declared dependencies only, into another fresh venv"
"$work/user-venv/bin/python" -m pip install -q "${pip_offline[@]}" "$wheel"
check "$work/user-venv"
