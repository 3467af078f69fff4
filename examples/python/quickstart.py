"""Quickstart with NumPy: 16 robots over the bundled parkour terrain, one depth camera each.

    .venv/bin/python examples/python/quickstart.py [--obj assets/parkour_small.obj]

Renders a (16, 60, 106) float32 depth batch, renders it again into the same array (no
allocation, no copy), traces explicit rays straight down (a height scan), and prints what the
library holds in memory.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

import warp_raycaster as wr

REPO = pathlib.Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obj", default=str(REPO / "assets" / "parkour_terrain.obj"), help="terrain mesh (OBJ)")
    args = parser.parse_args()

    ctx = wr.Context("cpu", threads=0)  # wr.Context("cuda", device=0) with CUDA arrays
    scene = wr.Scene.from_obj(ctx, args.obj)
    lo, hi = scene.bounds
    print(f"scene: {scene.num_triangles} triangles, BVH built in {scene.build_seconds * 1e3:.1f} ms")

    # The extreme-parkour depth camera: 106 x 60, 87 degrees, 0.27 m ahead of the base.
    cam = wr.Camera.pinhole(width=106, height=60, hfov=87.0, mount_position=(0.27, 0.0, 0.03),
                            depth="plane", quat_order="wxyz", near=0.0, far=float("inf"))
    num_envs = 16
    sensor = wr.Sensor(scene, cam, num_envs=num_envs)

    # Body poses (num_envs, 7): x, y, z, then a unit quaternion w, x, y, z (here a yaw).
    side = int(np.ceil(np.sqrt(num_envs)))
    xs = np.linspace(lo[0] + 2.0, hi[0] - 2.0, side)
    ys = np.linspace(lo[1] + 2.0, hi[1] - 2.0, side)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)[:num_envs]
    yaw = np.linspace(0.0, 2.0 * np.pi, num_envs, endpoint=False)
    poses = np.zeros((num_envs, 7), np.float32)
    poses[:, 0:2] = grid

    # Stand each robot 0.4 m above the ground under it: one explicit ray per robot, downwards.
    origins = np.column_stack([grid, np.full(num_envs, hi[2] + 1.0)]).astype(np.float32)
    down = np.tile(np.float32([0.0, 0.0, -1.0]), (num_envs, 1))
    t, triangle = scene.intersect(origins, down)
    ground = np.where(np.isfinite(t), origins[:, 2] - t, 0.0)
    poses[:, 2] = ground + 0.4
    poses[:, 3] = np.cos(yaw / 2)
    poses[:, 6] = np.sin(yaw / 2)

    depth = sensor.render(poses)  # a new (16, 60, 106) float32 NumPy array
    print(f"depth: {depth.shape} {depth.dtype}, {np.isfinite(depth).mean() * 100:.0f}% of pixels hit, "
          f"nearest {np.nanmin(depth):.2f} m")
    poses[:, 0] += 0.5  # every robot steps 0.5 m along +x ...
    sensor.render(poses, out=depth)  # ... and the next frame overwrites the same array
    print(f"after a step: nearest {np.nanmin(depth):.2f} m")

    scene_bytes = scene.memory()["host_bytes"] + scene.memory()["device_bytes"]
    sensor_bytes = sensor.memory()["host_bytes"] + sensor.memory()["device_bytes"]
    print(f"memory: scene {scene_bytes / 2**20:.1f} MiB (shared), sensor {sensor_bytes / 2**10:.1f} KiB (shared), "
          f"per env inside the library {sensor.memory()['per_env_bytes']} B; "
          f"per env outside: pose {poses[0].nbytes} B + image {depth[0].nbytes} B")


if __name__ == "__main__":
    main()
