"""README.md's examples, held: its C block is examples/c/quickstart.c (which CTest builds and runs
as example_c_quickstart), and its Python block runs as written, with stand-ins for what a simulator
would give it (IsaacGym's root states, IsaacLab's, the step count), from the repository root."""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch

ROOT = Path(os.environ.get("WR_SOURCE_DIR", Path(__file__).resolve().parents[2]))
N = 64


def code_blocks(language: str) -> list:
    return re.findall(r"^```%s\n(.*?)^```" % language, (ROOT / "README.md").read_text(), re.S | re.M)


def test_the_c_example_is_examples_c_quickstart() -> None:
    source = (ROOT / "examples" / "c" / "quickstart.c").read_text()
    shown = source[source.index("\n#include") + 1:]  # the file after its header comment
    assert code_blocks("c") == [shown]


def root_states(quat_w_first: bool) -> torch.Tensor:
    """(N, 13) root states: position, unit quaternion, linear and angular velocity; robots in a row
    over the bundled terrain, each yawed a little."""
    states = torch.zeros(N, 13)
    states[:, 0] = 2.0 + 0.5 * torch.arange(N)
    states[:, 1] = 20.0
    states[:, 2] = 0.6
    yaw = 0.05 * torch.arange(N)
    w, z = torch.cos(yaw / 2), torch.sin(yaw / 2)
    if quat_w_first:  # IsaacLab 2.x's root_state_w: w x y z
        states[:, 3], states[:, 6] = w, z
    else:  # IsaacGym's root states: x y z w
        states[:, 6], states[:, 5] = w, z
    return states


def test_the_python_example_runs() -> None:
    (block,) = code_blocks("python")
    names = {"root_states": root_states(False), "root_states_wxyz": root_states(True), "step": 3}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the block names assets/ relative to the repository root
    try:
        exec(compile(block, "README.md's Python block", "exec"), names)
    finally:
        os.chdir(cwd)
    assert tuple(names["depth"].shape) == (N, 60, 106)
    assert tuple(names["obs"].shape) == tuple(names["sensor"].shape)
    assert tuple(names["heights"].shape) == (N, 187)
    # the robots stand on the terrain: each camera sees it, each scan's rays hit it
    assert torch.isfinite(torch.as_tensor(names["depth"])).float().mean() > 0.5
    assert torch.isfinite(torch.as_tensor(names["heights"])).all()
