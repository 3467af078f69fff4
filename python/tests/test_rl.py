"""RL helpers: poses from simulator state tensors without a copy where the layout allows, into a
reused buffer where it does not; the extreme-parkour camera preset."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import random_poses

torch = pytest.importorskip("torch")


def root_states(n: int, order: str) -> torch.Tensor:
    states = torch.zeros(n, 13)
    states[:, :7] = torch.from_numpy(random_poses(n, seed=2, order=order))
    states[:, 7:] = torch.randn(n, 6)  # velocities: must not reach the poses
    return states


def test_isaacgym_root_states_render_like_their_poses(scene: wr.Scene) -> None:
    states = root_states(8, "xyzw")
    cam = wr.Camera.pinhole(32, 24, 87.0, quat_order="xyzw")
    sensor = wr.Sensor(scene, cam, num_envs=8)
    out = torch.empty(8, 7)
    poses = wr.rl.poses_from_root_states(states, out=out)
    assert poses is out  # copied into the caller's buffer: a (N, 13) row has stride 13
    assert torch.equal(poses, states[:, :7])
    expected = sensor.render(states[:, :7].contiguous())
    assert torch.equal(sensor.render(poses), expected)
    # wxyz root states (IsaacLab's root_state_w) give the same images with a wxyz camera.
    wxyz = root_states(8, "wxyz")
    s2 = wr.Sensor(scene, cam.replace(quat_order="wxyz", mount_rotation=None), num_envs=8)
    assert torch.equal(s2.render(wr.rl.poses_from_root_states(wxyz)), expected)


def test_contiguous_poses_pass_through_without_a_copy() -> None:
    poses = torch.from_numpy(random_poses(4))
    assert wr.rl.poses_from_root_states(poses) is poses
    array = random_poses(4)
    assert wr.rl.poses_from_root_states(array) is array
    strided = np.zeros((4, 13), np.float32)
    copied = wr.rl.poses_from_root_states(strided)
    assert copied.flags.c_contiguous and copied.shape == (4, 7) and not np.shares_memory(copied, strided)


def test_a_reused_buffer_keeps_its_memory() -> None:
    out = torch.empty(6, 7)
    pointer = out.data_ptr()
    for seed in range(3):
        states = root_states(6, "xyzw") + seed
        assert wr.rl.poses_from_root_states(states, out=out).data_ptr() == pointer
        assert torch.equal(out, states[:, :7])


def test_positions_and_quaternions_apart() -> None:
    pos = torch.randn(5, 3)
    quat = torch.nn.functional.normalize(torch.randn(5, 4), dim=1)
    poses = wr.rl.poses_from_pos_quat(pos, quat)
    assert poses.shape == (5, 7) and torch.equal(poses[:, :3], pos) and torch.equal(poses[:, 3:], quat)
    mujoco_xpos, mujoco_xquat = pos.double().numpy(), quat.double().numpy()  # MuJoCo's float64
    as_f32 = wr.rl.poses_from_pos_quat(mujoco_xpos, mujoco_xquat)
    assert as_f32.dtype == np.float32


def test_helpers_name_bad_shapes() -> None:
    with pytest.raises(wr.Error, match=r"rl.poses_from_root_states: root_states has shape \(4, 5\)"):
        wr.rl.poses_from_root_states(torch.zeros(4, 5))
    with pytest.raises(wr.Error, match=r"out has shape \(3, 7\), expected \(num_envs, 7\) = \(4, 7\)"):
        wr.rl.poses_from_root_states(torch.zeros(4, 13), out=torch.zeros(3, 7))


def test_extreme_parkour_camera() -> None:
    cam = wr.rl.extreme_parkour_camera(quat_order="xyzw")
    assert (cam.width, cam.height) == (106, 60)
    assert cam.hfov == pytest.approx(87.0, rel=1e-6)
    assert cam.mount_position == (0.27, 0.0, 0.03)
    assert cam.quat_order == "xyzw" and cam.mount_rotation == (0.0, 0.0, 0.0, 1.0)
    assert (cam.depth, cam.near, cam.far, cam.miss_value) == ("plane", 0.0, 2.0, 2.0)
    down = wr.rl.extreme_parkour_camera(pitch_deg=5.0, quat_order="wxyz")
    with pytest.raises(TypeError, match="quat_order"):  # no default: the poses' order is the caller's to say
        wr.rl.extreme_parkour_camera()
    assert down.mount_rotation == pytest.approx((math.cos(math.radians(2.5)), 0.0, math.sin(math.radians(2.5)), 0.0))


def test_extreme_parkour_clipping_matches_its_processing(scene: wr.Scene) -> None:
    # extreme-parkour: depth = clip(gym_depth, -far, -near) with gym_depth = -plane depth
    # (-inf for nothing), then negated. The preset reports that directly.
    poses = torch.from_numpy(random_poses(8, order="xyzw"))
    raw = wr.Sensor(scene, wr.rl.extreme_parkour_camera(far=math.inf, quat_order="xyzw"), num_envs=8).render(poses)
    gym = -raw
    processed = -torch.clip(gym, -2.0, -0.0)
    preset = wr.Sensor(scene, wr.rl.extreme_parkour_camera(quat_order="xyzw"), num_envs=8).render(poses)
    assert torch.equal(preset, processed)
