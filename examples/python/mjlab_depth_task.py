"""mjlab's Go1 rough-terrain velocity task with a depth camera and the height scan rendered by
warp_raycaster: the task's own config (mjlab.tasks.velocity), two sensors added to its scene, the
actor's height scan read from warp_raycaster's and a depth image added to its observations; then a
few environment steps on the CPU.

    from warp_raycaster.mjlab import DepthCameraCfg, HeightScanCfg
    cfg.scene.sensors += (DepthCameraCfg(name="head_depth", parent_body="robot/trunk", ...),
                          HeightScanCfg(name="wr_scan", frame=ObjRef("body", "trunk", "robot"), ...))
    cfg.observations["actor"].terms["depth"] = ObservationTermCfg(func=depth_image, ...)

Run in the environment that has mjlab (scripts/setup.sh --mjlab):
    .venv-mjlab/bin/python examples/python/mjlab_depth_task.py [--envs 4] [--steps 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import torch
import warp as wp
from mjlab.envs import ManagerBasedRlEnv
from mjlab.managers.observation_manager import ObservationTermCfg
from mjlab.sensor import ObjRef
from mjlab.tasks.velocity.config.go1.env_cfgs import unitree_go1_rough_env_cfg

from warp_raycaster.mjlab import DepthCameraCfg, HeightScanCfg

# extreme-parkour's depth camera on the Go1's trunk: 0.27 m ahead, 20 degrees down, 87 x 58 degrees
# at 106 x 60 (MuJoCo's camera looks along its -Z with +Y up; this quaternion turns it to the trunk's
# +X, pitched down).
HEAD_QUAT = (0.5792280, 0.4055798, -0.4055798, -0.5792280)
FAR = 2.0  # metres: the depth the policy sees is clipped here and scaled to [0, 1]


def depth_image(env: ManagerBasedRlEnv, sensor_name: str, far: float) -> torch.Tensor:
    """The camera's plane depth clipped to [0, far] and scaled to [0, 1], flattened: (B, H * W)."""
    depth = env.scene[sensor_name].data
    return (torch.nan_to_num(depth, posinf=far).clamp(0.0, far) / far).reshape(depth.shape[0], -1)


def scan_heights(env: ManagerBasedRlEnv, sensor_name: str) -> torch.Tensor:
    """The height scan as mjlab's height_scan observation makes it (frame z - hit z; a miss reads
    max_distance): HeightScanCfg(value="height") renders exactly that."""
    return env.scene[sensor_name].data


def make_cfg(num_envs: int):
    cfg = unitree_go1_rough_env_cfg()
    cfg.scene.num_envs = num_envs
    # A small terrain (2 x 3 tiles) so that a CPU run starts quickly.
    generator = cfg.scene.terrain.terrain_generator
    cfg.scene.terrain.terrain_generator = dataclasses.replace(generator, num_rows=2, num_cols=3, border_width=2.0)
    scan = next(s for s in cfg.scene.sensors if s.name == "terrain_scan")
    cfg.scene.sensors = tuple(cfg.scene.sensors) + (
        DepthCameraCfg(name="head_depth", parent_body="robot/trunk", pos=(0.27, 0.0, 0.03), quat=HEAD_QUAT,
                       fovy=58.0, width=106, height=60, far=FAR),
        HeightScanCfg(name="wr_scan", frame=ObjRef(type="body", name="trunk", entity="robot"),
                      size=scan.pattern.size, resolution=scan.pattern.resolution, ray_alignment=scan.ray_alignment,
                      max_distance=scan.max_distance, value="height",
                      include_geom_groups=scan.include_geom_groups),
    )
    actor = cfg.observations["actor"].terms
    actor["height_scan"] = dataclasses.replace(actor["height_scan"], func=scan_heights,
                                               params={"sensor_name": "wr_scan"})
    actor["depth"] = ObservationTermCfg(func=depth_image, params={"sensor_name": "head_depth", "far": FAR})
    return cfg


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10)
    args = ap.parse_args()
    wp.config.quiet = True

    env = ManagerBasedRlEnv(make_cfg(args.envs), device="cpu")
    obs, _ = env.reset()
    actions = torch.zeros(env.num_envs, env.action_manager.total_action_dim)
    sensor_s = 0.0
    t0 = time.perf_counter()
    for _ in range(args.steps):
        obs, reward, terminated, truncated, _ = env.step(actions)
        t = time.perf_counter()
        _ = env.scene["head_depth"].data  # cached: the observation read it already this step
        sensor_s += time.perf_counter() - t
    total = time.perf_counter() - t0
    depth = env.scene["head_depth"].data
    actor = obs["actor"]
    print(f"mjlab_depth_task: {args.envs} Go1 envs, {args.steps} steps on the CPU in {total:.2f} s; "
          f"actor observation {tuple(actor.shape)} (depth {tuple(depth.shape)} of it); "
          f"{100 * torch.isfinite(depth).float().mean():.1f}% of the pixels see the terrain")
    ok = actor.shape == (args.envs, actor.shape[1]) and bool(torch.isfinite(actor).all())
    return 0 if ok and torch.isfinite(depth).any() else 1


if __name__ == "__main__":
    sys.exit(main())
