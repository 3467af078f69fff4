"""An IsaacGym-style RL loop with every headline feature of the library on the path a policy reads:

- the simulator's root states ``(N, 13)`` (position, quaternion x y z w, velocities) read in place,
  no copy, by every sensor;
- extreme-parkour's depth camera and preprocessing fused into the render
  (``rl.extreme_parkour_camera`` + ``rl.extreme_parkour_pipeline``: crop, clip, bicubic resize,
  normalise, a 2-frame history read one frame late), in float16, into a preallocated tensor;
- domain randomisation per env: each env's camera pitch (``mounts`` of ``wr.RenderInputs``, redrawn
  at reset from [-5, 5] degrees, as extreme-parkour draws it) and intrinsics (``intrinsics``, fx and
  fy +-5 %);
- noise (a per-env depth offset, extreme-parkour's ``dis_noise``) that changes every render
  without the caller counting frames;
- the camera rendered at the policy rate: physics at 200 Hz, the policy and its camera at 50 Hz,
  each env on its own phase, through ``update_mask`` (the others keep their last image and
  history), and ``reset_mask`` for the envs the episode resets;
- self-occlusion: each robot's trunk and four legs are instances (``Scene.instanced``); the camera
  does not see its own trunk (``exclude_groups``) but does see its legs;
- IsaacLab's height scan on the same robots (``rl.isaaclab_height_scan``: 187 rays, the robot
  excluded), read from the same root states.

The robots here are kinematic (they walk forward, turn a little, trot their legs): a simulator
would supply the root and link states. On a GPU the same code runs with ``--device cuda``.

    .venv/bin/python examples/python/isaacgym_loop.py [--envs 64] [--steps 40] [--obj FILE]
"""

from __future__ import annotations

import argparse
import math
import pathlib
import time

import numpy as np
import torch

import warp_raycaster as wr

REPO = pathlib.Path(__file__).resolve().parents[2]
TRUNK, LEG = 1, 2  # instance groups: the camera excludes its own trunk, the height scan the whole robot


def box(ctx: wr.Context, hx: float, hy: float, hz: float) -> wr.Scene:
    v = np.array([[sx * hx, sy * hy, sz * hz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)], np.float32)
    f = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
                  [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.uint32)
    return wr.Scene(ctx, v, f)


def quat_xyzw_yaw(yaw: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(yaw)
    return torch.stack([zero, zero, torch.sin(yaw / 2), torch.cos(yaw / 2)], -1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=40, help="physics steps (200 Hz)")
    parser.add_argument("--obj", default=str(REPO / "assets" / "parkour_terrain.obj"))
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    dev = torch.device(args.device)
    n = args.envs
    ctx = wr.Context("cuda", device=dev.index or 0) if dev.type == "cuda" else wr.Context("cpu")
    terrain = wr.Scene.from_obj(ctx, args.obj)
    # Each env's robot: its trunk and four legs, posed per render (x y z w, as the root states).
    robot = wr.Scene.instanced(ctx, terrain, [box(ctx, 0.25, 0.1, 0.06), box(ctx, 0.03, 0.03, 0.2)],
                               slot_prototypes=[0, 1, 1, 1, 1], slot_groups=[TRUNK, LEG, LEG, LEG, LEG])

    camera = wr.rl.extreme_parkour_camera(quat_order="xyzw")
    pipeline = wr.rl.extreme_parkour_pipeline(dis_noise=0.02)
    pipeline.dtype = "float16"
    depth_sensor = wr.Sensor(robot, camera, n, pipeline=pipeline, exclude_groups=[TRUNK])
    scan = wr.rl.isaaclab_height_scan(robot, n, quat_order="xyzw", exclude_groups=[TRUNK, LEG])
    obs_depth = torch.empty(depth_sensor.shape, dtype=torch.float16, device=dev)  # (N, 58, 87), reused
    obs_heights = torch.empty(scan.shape, device=dev)                              # (N, 187), reused

    # The simulator's state: root states (N, 13) and the robots' link poses (N, 5, 7), x y z w.
    (lo, hi) = terrain.bounds
    g = torch.Generator().manual_seed(0)
    root_states = torch.zeros(n, 13, device=dev)
    root_states[:, 0] = lo[0] + 2 + (hi[0] - lo[0] - 4) * torch.rand(n, generator=g)
    root_states[:, 1] = lo[1] + 2 + (hi[1] - lo[1] - 4) * torch.rand(n, generator=g)
    yaw = 2 * math.pi * torch.rand(n, generator=g).to(dev)
    links = torch.zeros(n, 5, 7, device=dev)
    # Domain randomisation: each env's camera pitch (its mount) and intrinsics.
    def draw_mounts(envs: torch.Tensor, mounts: torch.Tensor) -> None:
        pitch = torch.deg2rad(torch.empty(len(envs)).uniform_(-5.0, 5.0, generator=g)).to(dev)
        mounts[envs, 0:3] = torch.tensor([0.27, 0.0, 0.03], device=dev)
        mounts[envs, 3:7] = torch.stack([torch.zeros_like(pitch), torch.sin(pitch / 2), torch.zeros_like(pitch),
                                         torch.cos(pitch / 2)], -1)  # about +y, x y z w
    mounts = torch.zeros(n, 7, device=dev)
    draw_mounts(torch.arange(n), mounts)
    base = torch.tensor([camera.fx, camera.fy, camera.cx, camera.cy], device=dev)
    intrinsics = base * torch.cat([1 + 0.05 * (2 * torch.rand(n, 2, generator=g) - 1), torch.ones(n, 2)], 1).to(dev)
    latency = torch.ones(n, dtype=torch.int32, device=dev)  # the policy reads the previous frame
    phase = torch.arange(n, device=dev) % 4                  # each env's policy step on its own phase
    reset = torch.zeros(n, dtype=torch.bool, device=dev)

    ground = torch.zeros(n, device=dev)
    render_ms, own_leg_pixels, updated = 0.0, 0, 0
    for step in range(args.steps + 1):
        # ---- "physics" (200 Hz): walk forward, turn, trot; stand on the ground under the base ----
        dt = 0.005
        yaw += 0.4 * dt * torch.sin(0.1 * step + torch.arange(n, device=dev))
        root_states[:, 0] += 0.8 * dt * torch.cos(yaw)
        root_states[:, 1] += 0.8 * dt * torch.sin(yaw)
        root_states[:, 2] = ground + 0.38
        root_states[:, 3:7] = quat_xyzw_yaw(yaw)
        c, s = torch.cos(yaw), torch.sin(yaw)
        links[:, 0, 0:3] = root_states[:, 0:3]
        links[:, :, 3:7] = root_states[:, None, 3:7]
        # front legs reach forward, into the bottom of the camera's image as they swing
        for k, (fx, fy) in enumerate(((0.3, 0.1), (0.3, -0.1), (-0.2, 0.14), (-0.2, -0.14))):
            swing = 0.08 * math.sin(0.3 * step + math.pi * (k % 2))
            lx, ly = fx + swing, fy
            links[:, 1 + k, 0] = root_states[:, 0] + c * lx - s * ly
            links[:, 1 + k, 1] = root_states[:, 1] + s * lx + c * ly
            links[:, 1 + k, 2] = root_states[:, 2] - 0.2
        # ---- the policy rate: envs whose phase is due render, the others keep their image ----
        due = (phase == step % 4) | (step == 0)  # every env renders at the episodes' start
        reset = due & (step > 0) & (torch.rand(n, generator=g).to(dev) < 0.05)  # a few episodes end
        if reset.any():
            draw_mounts(reset.nonzero().flatten().cpu(), mounts)
        t0 = time.perf_counter()
        depth_sensor.render(root_states, out=obs_depth,
                            inputs=wr.RenderInputs(mounts=mounts, intrinsics=intrinsics, latency=latency,
                                                   update_mask=due, reset_mask=reset, instance_poses=links))
        scan.render(root_states, out=obs_heights, inputs=wr.RenderInputs(instance_poses=links))
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        render_ms += (time.perf_counter() - t0) * 1e3
        updated += int(due.sum())
        ground = root_states[:, 2] - 0.5 - obs_heights[:, 93]  # the scan's centre: sensor z - hit z - 0.5
        ground = torch.where(obs_heights[:, 93] > -1.0, ground, torch.zeros_like(ground))
        if step % 10 == 0:
            d = obs_depth.float()
            print(f"step {step:4d}: depth {tuple(obs_depth.shape)} {obs_depth.dtype} in [{d.min():.3f}, {d.max():.3f}], "
                  f"heights {tuple(obs_heights.shape)} in [{obs_heights.min():.3f}, {obs_heights.max():.3f}], "
                  f"{int(due.sum())} envs rendered, {int(reset.sum())} reset")
    # Self-occlusion: where the camera sees its own legs (an image of the same robots, with ids).
    plain = wr.Sensor(robot, camera, n, exclude_groups=[TRUNK])
    ids = plain.render_hits(root_states, inputs=wr.RenderInputs(mounts=mounts, instance_poses=links)).instance_ids
    own_leg_pixels = float((ids >= 1).float().mean())
    assert bool(torch.isfinite(obs_depth.float()).all()), "a policy input is not finite"
    print(f"{args.steps + 1} physics steps of {n} envs: {updated} camera renders at the policy rate, "
          f"{render_ms / (args.steps + 1):.2f} ms per step for the depth and the height scan")
    print(f"self-occlusion: {100 * own_leg_pixels:.1f}% of pixels show the robot's own legs, none its trunk "
          f"({int((ids == 0).sum())} trunk pixels)")
    print(f"memory inside the library per env: depth {depth_sensor.memory()['per_env_bytes']} B (its history), "
          f"height scan {scan.memory()['per_env_bytes']} B")


if __name__ == "__main__":
    main()
