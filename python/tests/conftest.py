"""Shared fixtures of the Python package's tests.

CTest runs each test file against the package laid out in the build tree
(WR_PYTHON_PACKAGE_DIR, on PYTHONPATH); run by hand, ``.venv/bin/python -m pytest python/tests``
tests the package installed in .venv/. WR_SOURCE_DIR is the repository (assets, examples).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import warp_raycaster as wr

REPO = pathlib.Path(os.environ.get("WR_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SMALL_TERRAIN = REPO / "assets" / "parkour_small.obj"   # 12 x 12 m, 7368 triangles
TERRAIN = REPO / "assets" / "parkour_terrain.obj"       # 40 x 40 m, 320,504 triangles


def pytest_configure(config: pytest.Config) -> None:
    # Under CTest the package must be the build tree's, not one installed elsewhere.
    expected = os.environ.get("WR_PYTHON_PACKAGE_DIR")
    if expected:
        got = pathlib.Path(wr.__file__).resolve().parent
        if got != pathlib.Path(expected).resolve():
            raise pytest.UsageError(f"testing warp_raycaster from {got}, expected the build tree's {expected}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Under CTest (WR_PYTEST_SKIP_CODE): a file whose every test skipped exits with that code,
    # so that CTest reports it skipped rather than passed.
    code = os.environ.get("WR_PYTEST_SKIP_CODE")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    # (A file skipped as a whole at import, pytest.importorskip at module level, ends as "no tests
    # collected", exit status 5.)
    if code and exitstatus in (0, 5) and reporter is not None:
        stats = reporter.stats
        if stats.get("skipped") and not stats.get("passed") and not stats.get("failed"):
            session.exitstatus = int(code)


def random_poses(n: int, seed: int = 0, *, extent: float = 12.0, height: float = 0.5,
                 order: str = "wxyz") -> np.ndarray:
    """(n, 7) float32 body poses over a terrain of `extent` metres: x, y inside it with a 1 m
    margin, z `height` above 0, a random yaw and a small random pitch."""
    rng = np.random.default_rng(seed)
    poses = np.empty((n, 7), np.float32)
    poses[:, 0:2] = rng.uniform(1.0, extent - 1.0, size=(n, 2))
    poses[:, 2] = height
    yaw = rng.uniform(-np.pi, np.pi, n)
    pitch = rng.uniform(-0.2, 0.2, n)
    # q = yaw about z, then pitch about y (w, x, y, z)
    cy, sy, cp, sp = np.cos(yaw / 2), np.sin(yaw / 2), np.cos(pitch / 2), np.sin(pitch / 2)
    w, x, y, z = cy * cp, -sy * sp, cy * sp, sy * cp
    quat = np.stack([w, x, y, z], 1) if order == "wxyz" else np.stack([x, y, z, w], 1)
    poses[:, 3:7] = quat
    return poses


@pytest.fixture(scope="session")
def ctx() -> wr.Context:
    return wr.Context("cpu", threads=2)


@pytest.fixture(scope="session")
def scene(ctx: wr.Context) -> wr.Scene:
    return wr.Scene.from_obj(ctx, SMALL_TERRAIN)


@pytest.fixture
def camera() -> wr.Camera:
    return wr.Camera.pinhole(width=32, height=24, hfov=87.0, mount_position=(0.27, 0.0, 0.03))


@pytest.fixture
def sensor(scene: wr.Scene, camera: wr.Camera) -> wr.Sensor:
    return wr.Sensor(scene, camera, num_envs=8)


def cuda_context_or_skip() -> wr.Context:
    """A CUDA context, or a skip saying why there is none."""
    torch = pytest.importorskip("torch", reason="CUDA cases use torch tensors")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device (torch.cuda.is_available() is False)")
    try:
        return wr.Context("cuda", device=0)
    except wr.Error as e:
        pytest.skip(f"no CUDA context: {e}")
