"""warp_raycaster.mjlab's sensors against mjlab's own in one mjlab scene, in one run: N Go1 robots on
mjlab's rough terrain (2 x 3 tiles of ROUGH_TERRAINS_CFG), moved and tilted before every step, each
sensed both ways on the same mujoco_warp Data:

  - a 106 x 60 depth camera on the trunk: mjlab's CameraSensor (mujoco_warp's batched renderer,
    through ``sim.sense()``) against DepthCameraCfg;
  - IsaacLab's 187-ray height scan: mjlab's RayCastSensor with GridPatternCfg(1.6 x 1.0, 0.1),
    yaw-aligned (``sim.sense()``) against HeightScanCfg.

Each peer is alone in its own scene (``sim.sense()`` renders every sensor of a scene at once), ours
beside it. Reported per step: time (median of --reps, interleaved), per-pixel / per-ray agreement,
bytes per env (mjlab's: its sensor context's Warp arrays at N and at 1; ours: the caller's poses and
output, the library's own per env from sensor.memory()).

Run in the environment that has mjlab (scripts/setup.sh --mjlab):
    .venv-mjlab/bin/python benchmarks/peers/mjlab_peer.py [--envs 16] [--reps 10] [--out FILE.md]
Both on the CPU device: Warp runs a CPU kernel on one thread, so this library gets one thread too.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import pathlib
import platform
import statistics
import sys
import time

import mujoco
import numpy as np
import torch
import warp as wp
from mjlab.asset_zoo.robots.unitree_go1.go1_constants import get_go1_robot_cfg
from mjlab.scene import Scene, SceneCfg
from mjlab.sensor import CameraSensorCfg, GridPatternCfg, ObjRef, RayCastSensorCfg
from mjlab.sim import Simulation, SimulationCfg
from mjlab.terrains import TerrainEntityCfg
from mjlab.terrains.config import ROUGH_TERRAINS_CFG

import warp_raycaster as wr
from warp_raycaster.mjlab import DepthCameraCfg, HeightScanCfg

import peer_report  # noqa: E402  (beside this file)

REPO = pathlib.Path(__file__).resolve().parents[2]
W, H = 106, 60
HEAD_QUAT = (0.5792280, 0.4055798, -0.4055798, -0.5792280)  # looking along the trunk's +X, 20 degrees down
TRUNK = ObjRef(type="body", name="trunk", entity="robot")


def warp_bytes(obj, seen=None) -> int:
    """Bytes of every Warp array reachable from obj's attributes, each counted once."""
    seen = set() if seen is None else seen
    total = 0
    for value in (vars(obj).values() if hasattr(obj, "__dict__") else ()):
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if id(v) in seen:
                continue
            if isinstance(v, wp.array):
                seen.add(id(v))
                total += v.capacity
            elif hasattr(v, "__dict__") and not isinstance(v, (type, torch.Tensor)):
                seen.add(id(v))
                total += warp_bytes(v, seen)
    return total


def build(n: int, sensors):
    terrain = TerrainEntityCfg(terrain_type="generator",
                               terrain_generator=dataclasses.replace(ROUGH_TERRAINS_CFG, num_rows=2, num_cols=3,
                                                                     border_width=2.0, seed=3))
    cfg = SceneCfg(num_envs=n, terrain=terrain, entities={"robot": get_go1_robot_cfg()}, sensors=sensors)
    scene = Scene(cfg, device="cpu")
    sim = Simulation(num_envs=n, cfg=SimulationCfg(), spec=scene.spec, device="cpu")
    scene.initialize(mj_model=sim.mj_model, model=sim.model, data=sim.data)
    sim.set_sensor_context(scene.sensor_context)
    return scene, sim


def place(sim, n: int, rng) -> None:
    q = sim.data.qpos[:].clone()
    q[:, 0:2] = torch.from_numpy(rng.uniform(-5.0, 5.0, (n, 2))).float()
    q[:, 2] = torch.from_numpy(rng.uniform(0.6, 0.9, n)).float()
    yaw, tilt = rng.uniform(-np.pi, np.pi, n), rng.uniform(-0.15, 0.15, (n, 2))
    quat = np.stack([np.cos(yaw / 2), tilt[:, 0], tilt[:, 1], np.sin(yaw / 2)], 1)
    q[:, 3:7] = torch.from_numpy(quat / np.linalg.norm(quat, axis=1, keepdims=True)).float()
    sim.data.qpos[:] = q
    sim.forward()


def run(kind: str, n: int, reps: int, seed: int) -> dict:
    if kind == "camera":
        peer_cfg = CameraSensorCfg(name="peer", parent_body="robot/trunk", pos=(0.27, 0.0, 0.03), quat=HEAD_QUAT,
                                   fovy=58.0, width=W, height=H, data_types=("depth",), use_textures=False)
        ours_cfg = DepthCameraCfg(name="ours", camera_name="peer", width=W, height=H, threads=1)
    else:
        peer_cfg = RayCastSensorCfg(name="peer", frame=TRUNK, ray_alignment="yaw",
                                    pattern=GridPatternCfg(size=(1.6, 1.0), resolution=0.1), max_distance=5.0,
                                    include_geom_groups=(0,))
        ours_cfg = HeightScanCfg(name="ours", frame=TRUNK, size=(1.6, 1.0), resolution=0.1, ray_alignment="yaw",
                                 max_distance=5.0, include_geom_groups=(0,), threads=1)
    scene, sim = build(n, (peer_cfg, ours_cfg))
    rng = np.random.default_rng(seed)
    peer, ours = scene["peer"], scene["ours"]

    def peer_step():
        sim.sense()
        peer.update(0.0)
        d = peer.data
        return d.depth[..., 0] if kind == "camera" else d.distances

    def ours_step():
        ours.update(0.0)
        return ours.data

    place(sim, n, rng)
    peer_step()
    ours_step()  # warm-up
    peer_s, ours_s, agree, total, max_diff = [], [], 0, 0, 0.0
    for _ in range(reps):
        place(sim, n, rng)
        t = time.perf_counter()
        theirs = peer_step().numpy().copy()
        peer_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        mine = ours_step().numpy()
        ours_s.append(time.perf_counter() - t)
        if kind == "camera":
            hit = np.isfinite(mine)
            ok = np.where(hit, np.abs(mine - theirs) <= 1e-4 * np.maximum(theirs, 1.0), theirs == 0)
        else:
            hit = theirs >= 0
            ok = np.where(hit, np.abs(mine - theirs) <= 1e-4 * np.maximum(theirs, 1.0), mine < 0)
        agree += int(ok.sum())
        total += ok.size
        both = hit & (theirs != 0) if kind == "camera" else hit & (mine >= 0)
        if both.any():
            max_diff = max(max_diff, float(np.abs(mine - theirs)[both].max()))
    context = scene.sensor_context
    inside = (ours.camera.sensor if kind == "camera" else ours.sensor).memory()["per_env_bytes"]
    outputs = ours.data.numel() // n * 4
    slots = ours.scene.num_slots
    return {"peer_ms": statistics.median(peer_s) * 1e3, "ours_ms": statistics.median(ours_s) * 1e3,
            "agree": agree, "total": total, "max_diff": max_diff, "context_bytes": warp_bytes(context),
            "ours_per_env": 28 + 28 * slots + outputs, "inside": inside, "slots": slots,
            "rays": ours.data.numel()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    wp.config.quiet = True
    rows = {}
    for kind in ("camera", "scan"):
        r = run(kind, args.envs, args.reps, seed=11)
        one = run(kind, 1, 1, seed=12)
        r["peer_per_env"] = (r["context_bytes"] - one["context_bytes"]) / max(args.envs - 1, 1)
        rows[kind] = r
    import mjlab
    commit = peer_report.commit()
    cpu_name = peer_report.cpu_name()
    lines = [f"# warp_raycaster.mjlab vs mjlab's own sensors, from Python — {datetime.date.today()}", ""]
    lines.append(f"- Device: cpu ({cpu_name}, one thread for each); Python {platform.python_version()}, mjlab "
                 f"{getattr(mjlab, '__version__', '1.6.0')}, mujoco {mujoco.__version__}, warp-lang {wp.config.version}, "
                 f"warp_raycaster {wr.__version__} (libwr at commit {commit}).")
    lines.append(f"- Command: `.venv-mjlab/bin/python benchmarks/peers/mjlab_peer.py {' '.join(sys.argv[1:])}`")
    lines.append(f"- Scene: {args.envs} Go1 robots on mjlab's rough terrain (ROUGH_TERRAINS_CFG, 2 x 3 tiles, "
                 "border 2 m), moved and tilted before every step; median of "
                 f"{args.reps} steps after one warm-up, the two interleaved.")
    lines.append("")
    lines.append("| sensor | mjlab ms / step | ours ms / step | ours / mjlab speed | agreeing | largest difference (m) "
                 "| mjlab bytes per env | ours bytes per env |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    names = {"camera": f"depth camera {W} x {H} (CameraSensor vs DepthCameraCfg)",
             "scan": "height scan, 187 rays (RayCastSensor vs HeightScanCfg)"}
    for kind, r in rows.items():
        lines.append(f"| {names[kind]} | {r['peer_ms']:.2f} | {r['ours_ms']:.2f} | {r['peer_ms'] / r['ours_ms']:.1f}x | "
                     f"{r['agree']:,} of {r['total']:,} | {r['max_diff']:.2g} | "
                     f"{r['peer_per_env']:,.0f} | {r['ours_per_env']:,} ({r['inside']} inside the library) |")
    lines.append("")
    lines.append("Agreeing: both miss, or both hit within 1e-4 relative (1e-4 m below 1 m); the largest difference is "
                 "over the pixels or rays both hit. mjlab's bytes per env: its "
                 "sensor context's Warp arrays (render buffers, rays, hits) for N envs minus those for one, over N - 1. "
                 "Ours: each env's pose (28 B) and its robot's instance poses (28 B each) kept by the wrapper, and "
                 "the output; the library's own per-env bytes as its ledger reports them. Time: mjlab's "
                 "`sim.sense()` and the read of the sensor's data, against our sensor's render (its `data`).")
    peer_report.emit(lines, args.out)


if __name__ == "__main__":
    main()
