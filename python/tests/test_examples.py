"""The examples in examples/python/ run, and the torch.distributed one gives, with 2 gloo ranks
under torchrun, the same bytes as one process."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO, SMALL_TERRAIN

EXAMPLES = REPO / "examples" / "python"


def run(args: list, cwd) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_quickstart(tmp_path) -> None:
    out = run([EXAMPLES / "quickstart.py", "--obj", SMALL_TERRAIN], tmp_path)
    assert "depth: (16, 60, 106) float32" in out and "per env inside the library 0 B" in out


def test_rl_loop_writes_a_figure(tmp_path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    png = tmp_path / "depth.png"
    out = run([EXAMPLES / "rl_loop.py", "--envs", 8, "--steps", 4, "--horizon", 2, "--obj", SMALL_TERRAIN,
               "--out", png], tmp_path)
    assert "step    4" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000


def test_isaacgym_loop_runs_every_rl_feature(tmp_path) -> None:
    pytest.importorskip("torch")
    out = run([EXAMPLES / "isaacgym_loop.py", "--envs", 8, "--steps", 12, "--obj", SMALL_TERRAIN], tmp_path)
    assert "step   10: depth (8, 58, 87) torch.float16" in out
    assert "13 physics steps of 8 envs: 32 camera renders at the policy rate" in out  # 8 at start, 2 per step after
    own = float(out.split("self-occlusion: ")[1].split("%")[0])
    assert own > 0 and "(0 trunk pixels)" in out
    assert "height scan 0 B" in out


def test_distributed_two_gloo_ranks_equal_one_process(tmp_path) -> None:
    pytest.importorskip("torch")
    common = [EXAMPLES / "distributed.py", "--envs", 37, "--obj", SMALL_TERRAIN, "--cpu"]  # 37: uneven shards
    run([*common, "--out", tmp_path / "one.npy"], tmp_path)
    out = run(["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", *common,
               "--out", tmp_path / "two.npy"], tmp_path)
    assert "rank 1/2 (gloo, cpu)" in out
    one, two = np.load(tmp_path / "one.npy"), np.load(tmp_path / "two.npy")
    assert one.shape == two.shape == (37, 60, 106)
    assert one.tobytes() == two.tobytes()
    assert np.isfinite(one).mean() > 0.5
