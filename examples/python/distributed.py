"""Many processes, one shard of the envs each, with torch.distributed: how training grows past
one GPU (or one CPU socket).

    .venv/bin/torchrun --standalone --nproc-per-node=2 examples/python/distributed.py [--envs 256]

Every rank loads the same terrain, builds its own sensor for its shard of the envs (rank r of
W renders envs [r * N / W, (r + 1) * N / W)), renders on its own device (CUDA: the GPU of its
LOCAL_RANK, backend NCCL; CPU: backend gloo, the host's threads split between the local ranks),
and the shards are gathered on every rank with all_gather. With ``--out file.npy`` rank 0 writes
the whole (N, 60, 106) batch: the same bytes one process rendering all N envs writes, as
python/tests/test_examples.py checks with 2 gloo ranks against 1.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib

import numpy as np
import torch
import torch.distributed as dist

import warp_raycaster as wr

REPO = pathlib.Path(__file__).resolve().parents[2]


def all_poses(n: int, bounds, seed: int) -> torch.Tensor:
    """(n, 7) poses every rank computes alike (same seed): a grid of robots with random yaw."""
    (x0, y0, _), (x1, y1, z1) = bounds
    g = torch.Generator().manual_seed(seed)
    poses = torch.zeros(n, 7)
    poses[:, 0] = x0 + 2 + torch.rand(n, generator=g) * (x1 - x0 - 4)
    poses[:, 1] = y0 + 2 + torch.rand(n, generator=g) * (y1 - y0 - 4)
    poses[:, 2] = z1 + 0.5  # above everything, looking slightly down
    yaw = torch.rand(n, generator=g) * 2 * math.pi
    poses[:, 3] = torch.cos(yaw / 2)
    poses[:, 6] = torch.sin(yaw / 2)
    return poses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=256, help="envs across all ranks")
    parser.add_argument("--obj", default=str(REPO / "assets" / "parkour_terrain.obj"))
    parser.add_argument("--out", default=None, help="rank 0 writes the gathered depth here (.npy)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", action="store_true", help="gloo on the CPU even where CUDA is present")
    args = parser.parse_args()

    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    use_cuda = torch.cuda.is_available() and not args.cpu
    if use_cuda:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        ctx = wr.Context("cuda", device=local_rank)
        backend = "nccl"
    else:
        device = torch.device("cpu")
        # The host's cores shared between this host's ranks (depth does not depend on it).
        ctx = wr.Context("cpu", threads=max(1, (os.cpu_count() or 1) // local_world))
        backend = "gloo"
    if world > 1:
        dist.init_process_group(backend)

    scene = wr.Scene.from_obj(ctx, args.obj)
    cam = wr.rl.extreme_parkour_camera(pitch_deg=30.0, quat_order="wxyz", far=float("inf"))
    per_rank = -(-args.envs // world)  # all_gather wants equal shards: the last is padded
    poses = all_poses(args.envs, scene.bounds, args.seed)
    poses = torch.cat([poses, poses[-1:].expand(per_rank * world - args.envs, 7)])
    mine = poses[rank * per_rank:(rank + 1) * per_rank].contiguous().to(device)
    sensor = wr.Sensor(scene, cam, num_envs=per_rank)
    depth = sensor.render(mine)  # this rank's shard, on this rank's device

    if world > 1:
        shards = [torch.empty_like(depth) for _ in range(world)]
        dist.all_gather(shards, depth)
        everything = torch.cat(shards)[: args.envs]
    else:
        everything = depth[: args.envs]
    print(f"rank {rank}/{world} ({backend}, {device}): rendered envs [{rank * per_rank}, "
          f"{min((rank + 1) * per_rank, args.envs)}); gathered {tuple(everything.shape)}, "
          f"{torch.isfinite(everything).float().mean().item() * 100:.0f}% of pixels hit")
    if rank == 0 and args.out:
        np.save(args.out, everything.cpu().numpy())
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
