"""An RL-style training loop with torch: N robots walk over the bundled parkour terrain, each
step's depth images go through a small CNN policy, and a figure of depth images with a colour
bar is written to a PNG.

    .venv/bin/python examples/python/rl_loop.py [--envs 64] [--steps 60] [--out rl_loop_depth.png]

The shape of a legged-robot depth pipeline (extreme-parkour's: 106 x 60 camera, depth clipped to
2 m, normalised to [-0.5, 0.5]), on the CPU. On a GPU the same code runs with
``--device cuda``: the poses, the depth buffer and the network live on the GPU and the render is
enqueued on torch's current stream. The robots here are kinematic (a heading and a speed the
policy sets; the ground height from explicit rays); a simulator would supply root states
instead (warp_raycaster.rl.poses_from_root_states). The policy learns by REINFORCE to walk fast
without walking into obstacles: a toy objective, there to show the data flow, not to train a
real policy.
"""

from __future__ import annotations

import argparse
import math
import pathlib

import torch
from torch import nn

import warp_raycaster as wr

REPO = pathlib.Path(__file__).resolve().parents[2]


class DepthPolicy(nn.Module):
    """(N, 1, 60, 106) normalised depth -> mean of a Gaussian over (yaw rate, speed)."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 5, stride=2), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2), nn.ReLU(),
            nn.AdaptiveAvgPool2d((3, 5)), nn.Flatten(),
            nn.Linear(32 * 3 * 5, 64), nn.ReLU(),
            nn.Linear(64, 2))
        self.log_std = nn.Parameter(torch.full((2,), -1.0))

    def forward(self, depth: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.net(depth), self.log_std.exp())


def ground_height(scene: wr.Scene, xy: torch.Tensor, top: float) -> torch.Tensor:
    """Terrain height under each (x, y): one ray straight down per robot."""
    origins = torch.cat([xy, torch.full_like(xy[:, :1], top)], 1).contiguous()
    down = torch.zeros_like(origins)
    down[:, 2] = -1.0
    t, _ = scene.intersect(origins, down)
    return torch.where(torch.isfinite(t), top - t, torch.zeros_like(t))


def save_figure(depth: torch.Tensor, far: float, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = depth[:8].cpu().numpy()
    fig, axes = plt.subplots(2, 4, figsize=(12, 4.2), constrained_layout=True)
    for i, ax in enumerate(axes.flat):
        shown = ax.imshow(images[i], cmap="viridis_r", vmin=0.0, vmax=far)
        ax.set_title(f"env {i}")
        ax.axis("off")
    fig.colorbar(shown, ax=axes, label="depth along the optical axis (m)", shrink=0.9)
    fig.suptitle("warp_raycaster: depth images of the first 8 robots")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--horizon", type=int, default=10, help="steps per policy update")
    parser.add_argument("--device", default="cpu", help="cpu or cuda[:i]")
    parser.add_argument("--obj", default=str(REPO / "assets" / "parkour_terrain.obj"))
    parser.add_argument("--out", default="rl_loop_depth.png", help="PNG of depth images")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)

    ctx = wr.Context(str(device))
    scene = wr.Scene.from_obj(ctx, args.obj)
    (x0, y0, _), (x1, y1, z1) = scene.bounds
    far = 2.0
    cam = wr.rl.extreme_parkour_camera(pitch_deg=5.0, quat_order="wxyz", far=far)
    sensor = wr.Sensor(scene, cam, num_envs=args.envs)
    # Every buffer of the loop, made once: the library never allocates in render either.
    poses = torch.zeros(args.envs, 7, device=device)
    depth = torch.empty(sensor.shape, device=device)

    xy = torch.rand(args.envs, 2, device=device) * torch.tensor([x1 - x0 - 4, y1 - y0 - 4], device=device)
    xy += torch.tensor([x0 + 2, y0 + 2], device=device)
    heading = torch.rand(args.envs, device=device) * 2 * math.pi
    policy = DepthPolicy().to(device)
    optimiser = torch.optim.Adam(policy.parameters(), lr=3e-4)
    dt = 0.1
    log_probs, rewards = [], []

    for step in range(1, args.steps + 1):
        poses[:, 0:2] = xy
        poses[:, 2] = ground_height(scene, xy, z1 + 1.0) + 0.35
        poses[:, 3] = torch.cos(heading / 2)  # a yaw about +z, w x y z
        poses[:, 6] = torch.sin(heading / 2)
        sensor.render(poses, out=depth)  # into the same buffer every step
        observation = (depth / far - 0.5).unsqueeze(1)  # extreme-parkour's normalisation

        action_dist = policy(observation)
        action = action_dist.sample()
        log_probs.append(action_dist.log_prob(action).sum(1))
        yaw_rate, speed = action[:, 0].clamp(-1.0, 1.0), action[:, 1].clamp(0.0, 1.5)
        heading = heading + yaw_rate * dt
        step_xy = torch.stack([torch.cos(heading), torch.sin(heading)], 1) * (speed * dt).unsqueeze(1)
        xy = (xy + step_xy).clamp(torch.tensor([x0 + 1, y0 + 1], device=device),
                                  torch.tensor([x1 - 1, y1 - 1], device=device))
        # Reward speed; penalise anything nearer than 0.3 m in the middle of the image.
        h, w = depth.shape[1:]
        nearest = depth[:, h // 3: 2 * h // 3, w // 3: 2 * w // 3].amin((1, 2))
        rewards.append(speed - 2.0 * (nearest < 0.3).float())

        if step % args.horizon == 0:
            returns = torch.stack(rewards).flip(0).cumsum(0).flip(0)  # (horizon, N), undiscounted
            advantage = (returns - returns.mean()) / (returns.std() + 1e-6)
            loss = -(torch.stack(log_probs) * advantage).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            print(f"step {step:4d}: mean reward {torch.stack(rewards).mean():+.3f}, loss {loss.item():+.4f}")
            log_probs, rewards = [], []

    save_figure(depth, far, pathlib.Path(args.out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
