"""warp_raycaster.mjlab's sensors in an mjlab scene (Go1 on mjlab's rough terrain: stairs as boxes,
slopes, waves and rough ground as height fields), against mjlab's own sensors on the same state:
the depth camera against mjlab's CameraSensor (mujoco_warp's renderer) per pixel, the height scan
against mjlab's RayCastSensor with the same grid per ray, after moving and turning every robot.

mjlab pins its own MuJoCo (3.11 for mjlab 1.6), so this runs in .venv-mjlab (scripts/setup.sh
--mjlab; the CTest test pytest:test_mjlab_venv runs it there when that environment exists) and
skips elsewhere, saying why."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

mjlab = pytest.importorskip("mjlab", reason="mjlab is not installed here: scripts/setup.sh --mjlab makes "
                                            ".venv-mjlab, where this file runs")
torch = pytest.importorskip("torch")
wp = pytest.importorskip("warp")

from mjlab.asset_zoo.robots.unitree_go1.go1_constants import get_go1_robot_cfg  # noqa: E402
from mjlab.scene import Scene, SceneCfg  # noqa: E402
from mjlab.sensor import CameraSensorCfg, GridPatternCfg, ObjRef, RayCastSensorCfg  # noqa: E402
from mjlab.sim import Simulation, SimulationCfg  # noqa: E402
from mjlab.terrains import TerrainEntityCfg  # noqa: E402
from mjlab.terrains.config import ROUGH_TERRAINS_CFG  # noqa: E402

import warp_raycaster as wr  # noqa: E402
from warp_raycaster.mjlab import DepthCameraCfg, HeightScanCfg  # noqa: E402

N = 6
W, H = 64, 48
# The head camera: 0.3 m ahead of the trunk's origin, looking forward and 20 degrees down (MuJoCo's
# camera looks along its -Z with +Y up: x right = -y of the trunk, z back = -x of the trunk).
PITCH = np.radians(20.0)


def camera_quat() -> tuple:
    base = np.array([0.5, 0.5, -0.5, -0.5])  # camera -Z along the trunk's +X, +Y along its +Z
    half = PITCH / 2  # then pitched down about the camera's own +X (right)
    tilt = np.array([np.cos(half), -np.sin(half), 0.0, 0.0])
    w1, x1, y1, z1 = base
    w2, x2, y2, z2 = tilt
    q = (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
         w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)
    return tuple(float(v) for v in q)


@pytest.fixture(scope="module")
def world():
    wp.config.quiet = True
    trunk = ObjRef(type="body", name="trunk", entity="robot")
    terrain = TerrainEntityCfg(terrain_type="generator",
                               terrain_generator=dataclasses.replace(ROUGH_TERRAINS_CFG, num_rows=2, num_cols=3,
                                                                     border_width=2.0, seed=3))
    cfg = SceneCfg(num_envs=N, terrain=terrain, entities={"robot": get_go1_robot_cfg()}, sensors=(
        DepthCameraCfg(name="depth", parent_body="robot/trunk", pos=(0.3, 0.0, 0.05), quat=camera_quat(),
                       fovy=58.0, width=W, height=H, threads=2),
        CameraSensorCfg(name="mj_depth", camera_name="depth", width=W, height=H, data_types=("depth",),
                        use_textures=False),
        HeightScanCfg(name="scan", frame=trunk, size=(1.6, 1.0), resolution=0.1, ray_alignment="yaw",
                      max_distance=5.0, include_geom_groups=(0,)),
        RayCastSensorCfg(name="mj_scan", frame=trunk, ray_alignment="yaw",
                         pattern=GridPatternCfg(size=(1.6, 1.0), resolution=0.1), max_distance=5.0,
                         include_geom_groups=(0,)),
        HeightScanCfg(name="heights", frame=trunk, size=(1.6, 1.0), resolution=0.1, ray_alignment="yaw",
                      max_distance=5.0, value="height", include_geom_groups=(0,)),
    ))
    scene = Scene(cfg, device="cpu")
    sim = Simulation(num_envs=N, cfg=SimulationCfg(), spec=scene.spec, device="cpu")
    scene.initialize(mj_model=sim.mj_model, model=sim.model, data=sim.data)
    sim.set_sensor_context(scene.sensor_context)
    return scene, sim


def place_robots(scene, sim, seed: int) -> None:
    """Every robot somewhere on the terrain, turned and tilted a little, then the positions and
    mjlab's sensing (its renderer and ray casts) for that state."""
    rng = np.random.default_rng(seed)
    qpos = sim.data.qpos
    q = qpos[:].clone()
    q[:, 0:2] = torch.from_numpy(rng.uniform(-5.0, 5.0, (N, 2))).float()
    q[:, 2] = torch.from_numpy(rng.uniform(0.6, 0.9, N)).float()
    yaw, tilt = rng.uniform(-np.pi, np.pi, N), rng.uniform(-0.15, 0.15, (N, 2))
    quat = np.stack([np.cos(yaw / 2), tilt[:, 0], tilt[:, 1], np.sin(yaw / 2)], 1)
    q[:, 3:7] = torch.from_numpy(quat / np.linalg.norm(quat, axis=1, keepdims=True)).float()
    qpos[:] = q
    sim.forward()
    sim.sense()
    scene.update(0.0)


@pytest.mark.parametrize("seed", [1, 2])
def test_depth_camera_agrees_with_mjlabs_camera_sensor(world, seed: int) -> None:
    scene, sim = world
    place_robots(scene, sim, seed)
    ours = scene["depth"].data.numpy()
    theirs = scene["mj_depth"].data.depth[..., 0].numpy()
    assert ours.shape == theirs.shape == (N, H, W)
    hit = np.isfinite(ours)
    assert hit.mean() > 0.5, "the cameras see the terrain"
    # mujoco_warp's renderer: plane depth; a pixel without a hit reads 0 there.
    agree = np.where(hit, np.abs(ours - theirs) <= 1e-4 * np.maximum(theirs, 1.0), theirs == 0)
    # Silhouette pixels of curved robot geoms (spheres of the feet) may differ by the tessellation.
    assert agree.mean() >= 0.995, (agree.mean(), np.abs(ours - theirs)[hit & ~agree][:10])


@pytest.mark.parametrize("seed", [3, 4])
def test_height_scan_agrees_with_mjlabs_ray_cast_sensor(world, seed: int) -> None:
    scene, sim = world
    place_robots(scene, sim, seed)
    ours = scene["scan"].data.numpy()
    theirs = scene["mj_scan"].data.distances.numpy()
    assert ours.shape == theirs.shape == (N, 187)
    hit = theirs >= 0
    assert hit.mean() > 0.9
    np.testing.assert_array_equal(ours < 0, ~hit)  # misses read -1 in both
    np.testing.assert_allclose(ours[hit], theirs[hit], rtol=1e-4, atol=1e-5)


def test_heights_are_mjlabs_height_scan_observation(world) -> None:
    scene, sim = world
    place_robots(scene, sim, 7)
    mj = scene["mj_scan"].data
    # mjlab.envs.mdp.height_scan: the frame's z minus the hit's; a miss reads max_distance.
    expected = (mj.frame_pos_w[:, :, 2:3] - mj.hit_pos_w[..., 2].view(N, 1, -1)).view(N, -1)
    expected = torch.where(mj.distances < 0, torch.full_like(expected, 5.0), expected).numpy()
    np.testing.assert_allclose(scene["heights"].data.numpy(), expected, rtol=1e-4, atol=2e-5)


def test_the_example_task_runs() -> None:
    import os
    import pathlib
    import subprocess
    import sys

    repo = pathlib.Path(os.environ.get("WR_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
    run = subprocess.run([sys.executable, str(repo / "examples" / "python" / "mjlab_depth_task.py"), "--envs", "2",
                          "--steps", "3"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "actor observation (2, " in run.stdout


def test_the_sensors_write_in_place_and_refuse_bad_settings(world) -> None:
    scene, sim = world
    place_robots(scene, sim, 5)
    first = scene["depth"].data
    place_robots(scene, sim, 6)
    again = scene["depth"].data
    assert again.data_ptr() == first.data_ptr()  # the same tensor, rewritten: nothing allocated per step
    sensor = DepthCameraCfg(name="tpu_cam", width=8, height=8).build()
    with pytest.raises(wr.Error, match="device = 'tpu:0': must be 'cpu' or 'cuda"):
        sensor.initialize(sim.mj_model, sim.model, sim.data, "tpu:0")
    scan = HeightScanCfg(name="bad", frame=ObjRef(type="joint", name="x")).build()
    with pytest.raises(wr.Error, match="frame = .*give an ObjRef of type 'body'"):
        scan.initialize(sim.mj_model, sim.model, sim.data, "cpu")
