"""warp-raycaster's pattern sensors against the peers' height scans and LiDAR, in one run: the same
terrain and poses, each workload rendered by this library and by the peer, interleaved frame by
frame, with per-ray agreement and bytes per env.

  1. Height scan (IsaacLab's locomotion default: GridPatternCfg(resolution=0.1, size=[1.6, 1.0]),
     187 rays, offset (0, 0, 20), ray_alignment="yaw", height_scan(offset=0.5) clipped to [-1, 1])
     over the bundled terrain mesh. Peer: IsaacLab's RayCaster layout on NVIDIA Warp: the pattern
     kept per env ((N, 187, 3) starts and directions), world rays made with torch every frame
     (quat_apply_yaw), Warp's mesh_query_ray kernel (IsaacLab's raycast_mesh_kernel), the height
     observation in torch. Ours: wr.rl.isaaclab_height_scan.
  2. LiDAR (IsaacLab's LidarPatternCfg: 16 channels over +-15 degrees, 0.2 degrees over 360:
     28,800 rays, base-aligned) over the same mesh, distances to 100 m. Peer: the same layout.
  3. legged_gym's measured heights (LeggedRobot._get_heights: the 187 points turned by the heading,
     three height-field samples looked up and their minimum taken, in torch) against this library's
     height scan traced through the same height field's grid (Scene.from_heightfield(terrain=
     "grid")). legged_gym's is a lookup, not a ray cast: the values differ between samples by
     design, so only the time and the bytes compare.

Usage (warp-lang from PyPI, into .venv/):

    .venv/bin/pip install warp-lang
    .venv/bin/python benchmarks/peers/pattern_peer.py [--device cpu|cuda:0] [--envs 4096]
        [--lidar-envs 64] [--out FILE.md]

On the CPU Warp runs a kernel on one thread, so this library and torch are given one thread too:
the rays/s are per core. On a GPU all run on the same device. Figures: the median of --reps
timed frames after one warm-up frame.
"""

from __future__ import annotations

import argparse
import datetime
import math
import pathlib
import platform
import subprocess
import sys
import time

import numpy as np
import torch
import warp as wp

import warp_raycaster as wr

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from warp_peer import load_obj, median_seconds, quat_apply, raycast_buffers  # noqa: E402  (the same kernel)

REPO = pathlib.Path(__file__).resolve().parents[2]


def yaw_quat(q: torch.Tensor) -> torch.Tensor:
    """IsaacLab's math_utils.yaw_quat: the heading of (w, x, y, z) quaternions."""
    w, x, y, z = q.unbind(-1)
    yaw = torch.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    zero = torch.zeros_like(yaw)
    return torch.stack([torch.cos(yaw / 2), zero, zero, torch.sin(yaw / 2)], -1)


def poses_over(n: int, lo, hi, z: float, seed: int, tilt_deg: float) -> np.ndarray:
    """(n, 7) w x y z body poses: random x, y inside [lo, hi] less 2 m, height z, any heading, rolled
    and pitched up to tilt_deg."""
    rng = np.random.default_rng(seed)
    p = np.zeros((n, 7), np.float32)
    p[:, 0] = rng.uniform(lo[0] + 2, hi[0] - 2, n)
    p[:, 1] = rng.uniform(lo[1] + 2, hi[1] - 2, n)
    p[:, 2] = z
    yaw = rng.uniform(0, 2 * math.pi, n)
    roll, pitch = np.radians(rng.uniform(-tilt_deg, tilt_deg, (2, n)))
    cr, sr, cp, sp, cy, sy = (np.cos(roll / 2), np.sin(roll / 2), np.cos(pitch / 2), np.sin(pitch / 2),
                              np.cos(yaw / 2), np.sin(yaw / 2))
    p[:, 3] = cr * cp * cy + sr * sp * sy
    p[:, 4] = sr * cp * cy - cr * sp * sy
    p[:, 5] = cr * sp * cy + sr * cp * sy
    p[:, 6] = cr * cp * sy - sr * sp * cy
    return p


def nbytes(*tensors: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


class IsaacLabRayCaster:
    """IsaacLab's RayCaster on Warp: the pattern per env (_initialize_rays_impl repeats it over the
    envs), world rays each frame (_update_buffers_impl), raycast_mesh_kernel, hits kept per env."""

    def __init__(self, mesh: wp.Mesh, pattern: wr.Pattern, n: int, offset, yaw: bool, max_dist: float,
                 tdev: torch.device, wdev) -> None:
        starts, dirs = (torch.from_numpy(a).to(tdev) for a in pattern.rays())
        r = starts.shape[0]
        self.ray_starts = (starts + torch.tensor(offset, device=tdev)).repeat(n, 1, 1)  # (N, R, 3)
        self.ray_directions = dirs.repeat(n, 1, 1)                                   # (N, R, 3)
        self.ray_hits_w = torch.empty(n * r, 3, device=tdev)
        self.ray_distance = torch.empty(n * r, device=tdev)
        self.mesh, self.n, self.r, self.yaw, self.max_dist, self.wdev = mesh, n, r, yaw, max_dist, wdev
        self.transient = 0

    def frame(self, poses: torch.Tensor):
        pos, quat = poses[:, 0:3], poses[:, 3:7]
        q = (yaw_quat(quat) if self.yaw else quat)[:, None, :].expand(self.n, self.r, 4)
        starts_w = (quat_apply(q, self.ray_starts) + pos[:, None, :]).reshape(-1, 3).contiguous()
        dirs_w = (self.ray_directions if self.yaw else quat_apply(q, self.ray_directions)).reshape(-1, 3).contiguous()
        self.transient = nbytes(starts_w) + (0 if self.yaw else nbytes(dirs_w))
        self.ray_hits_w.fill_(math.inf)
        self.ray_distance.fill_(math.inf)
        wp.launch(raycast_buffers, dim=self.n * self.r, device=self.wdev,
                  inputs=[self.mesh.id, wp.from_torch(starts_w, dtype=wp.vec3), wp.from_torch(dirs_w, dtype=wp.vec3),
                          self.max_dist, wp.from_torch(self.ray_hits_w, dtype=wp.vec3),
                          wp.from_torch(self.ray_distance)])
        wp.synchronize_device(self.wdev)

    def kept(self) -> int:
        return nbytes(self.ray_starts, self.ray_directions, self.ray_hits_w, self.ray_distance) // self.n


def agreement(a: np.ndarray, b: np.ndarray, tol: float):
    """(values that disagree, values, max |difference| over values both finite)."""
    both_inf = ~np.isfinite(a) & ~np.isfinite(b)
    both = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(both, np.abs(a - b), 0.0)
    ok = both_inf | (both & (diff <= tol))
    return int((~ok).sum()), int(a.size), float(diff.max())


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--envs", type=int, default=4096, help="envs of the height scans")
    parser.add_argument("--lidar-envs", type=int, default=64, help="envs of the LiDAR (28,800 rays each)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--obj", default=str(REPO / "assets" / "parkour_terrain.obj"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=None, help="write the results as Markdown here")
    args = parser.parse_args()

    cuda = args.device.startswith("cuda")
    tdev = torch.device(args.device)
    wp.init()
    wdev = wp.get_device(args.device)
    if not cuda:
        torch.set_num_threads(1)
    sync = (lambda: torch.cuda.synchronize(tdev)) if cuda else (lambda: None)
    ctx = wr.Context("cuda", device=tdev.index or 0) if cuda else wr.Context("cpu", threads=1)
    scene = wr.Scene.from_obj(ctx, args.obj)
    vertices, triangles = load_obj(pathlib.Path(args.obj))
    mesh = wp.Mesh(points=wp.array(vertices, dtype=wp.vec3, device=wdev),
                   indices=wp.array(triangles.reshape(-1), dtype=wp.int32, device=wdev))
    lo, hi = scene.bounds
    rows = []

    # ---- 1. the height scan over the mesh ----
    n = args.envs
    poses = torch.from_numpy(poses_over(n, lo, hi, hi[2] + 0.3, args.seed, 10.0)).to(tdev)
    ours = wr.rl.isaaclab_height_scan(scene, n)
    ours_out = torch.empty(n, 187, device=tdev)
    lab = IsaacLabRayCaster(mesh, ours.pattern, n, (0.0, 0.0, 20.0), True, 1e6, tdev, wdev)

    def lab_scan():
        lab.frame(poses)
        h = poses[:, 2:3] - lab.ray_hits_w.view(n, -1, 3)[..., 2] - 0.5
        return torch.clip(torch.nan_to_num(h, nan=-1.0), -1.0, 1.0)

    def ours_scan():
        ours.render(poses, out=ours_out)
        sync()

    lab_h = lab_scan()
    ours_scan()
    t_lab, t_ours = [], []
    for _ in range(args.reps):
        t_lab.append(timed(lambda: lab_scan()))
        t_ours.append(timed(ours_scan))
    lab_h = lab_scan()
    agree = agreement(ours_out.cpu().numpy(), lab_h.cpu().numpy(), 1e-4)
    rays = n * 187
    rows.append(("height scan, mesh", n, 187, median_seconds(t_ours), median_seconds(t_lab),
                 "Warp, IsaacLab RayCaster layout", agree, 28 + 187 * 4, lab.kept() + 28 + 187 * 4, lab.transient // n))

    # ---- 2. the LiDAR over the mesh ----
    m = args.lidar_envs
    lposes = torch.from_numpy(poses_over(m, lo, hi, hi[2] + 0.5, args.seed + 1, 10.0)).to(tdev)
    lidar = wr.RaySensor(scene, wr.Pattern.spherical(channels=16, vertical_fov=(-15, 15),
                                                     horizontal_fov=(-180, 180), horizontal_resolution=0.2),
                         m, max_distance=100.0)
    lr = lidar.num_rays
    lidar_out = torch.empty(m, lr, device=tdev)
    lab_l = IsaacLabRayCaster(mesh, lidar.pattern, m, (0.0, 0.0, 0.0), False, 100.0, tdev, wdev)

    def ours_lidar():
        lidar.render(lposes, out=lidar_out)
        sync()

    lab_l.frame(lposes)
    ours_lidar()
    t_lab, t_ours = [], []
    for _ in range(args.reps):
        t_lab.append(timed(lambda: lab_l.frame(lposes)))
        t_ours.append(timed(ours_lidar))
    agree = agreement(lidar_out.cpu().numpy(), lab_l.ray_distance.view(m, lr).cpu().numpy(), 1e-4)
    rows.append(("LiDAR 16 x 1800, mesh", m, lr, median_seconds(t_ours), median_seconds(t_lab),
                 "Warp, IsaacLab RayCaster layout", agree, 28 + lr * 4, lab_l.kept() + 28 + lr * 4,
                 lab_l.transient // m))

    # ---- 3. legged_gym's measured heights on a height field ----
    rng = np.random.default_rng(args.seed)
    nx, ny, hs, vs = 800, 800, 0.05, 0.005  # 40 x 40 m at 0.05 m, legged_gym's scales
    raw = (rng.integers(0, 40, (nx // 20, ny // 20)) * 10).repeat(20, 0).repeat(20, 1).astype(np.int16)  # steps
    field = wr.Scene.from_heightfield(ctx, raw.astype(np.float32), hs, z_scale=vs, x_fastest=False, terrain="grid")
    gposes = torch.from_numpy(poses_over(n, (0, 0), (nx * hs, ny * hs), 2.5, args.seed + 2, 10.0)).to(tdev)
    gscan = wr.rl.isaaclab_height_scan(field, n)
    g_out = torch.empty(n, 187, device=tdev)
    samples = torch.from_numpy(raw).to(tdev)
    xs = torch.arange(-0.8, 0.8 + 1e-9, 0.1, device=tdev)
    ys = torch.arange(-0.5, 0.5 + 1e-9, 0.1, device=tdev)
    gx, gy = torch.meshgrid(xs, ys, indexing="ij")
    height_points = torch.zeros(n, 187, 3, device=tdev)  # legged_gym keeps them per env
    height_points[:, :, 0], height_points[:, :, 1] = gx.flatten(), gy.flatten()
    measured = torch.empty(n, 187, device=tdev)

    def legged_gym_heights():
        # LeggedRobot._get_heights (border 0), then the observation clip(z - 0.5 - h, -1, 1).
        q = yaw_quat(gposes[:, 3:7])[:, None, :].expand(n, 187, 4)
        points = quat_apply(q, height_points) + gposes[:, None, 0:3]
        points = (points / hs).long()
        px = torch.clip(points[:, :, 0].view(-1), 0, samples.shape[0] - 2)
        py = torch.clip(points[:, :, 1].view(-1), 0, samples.shape[1] - 2)
        h = torch.min(torch.min(samples[px, py], samples[px + 1, py]), samples[px, py + 1])
        measured.copy_(h.view(n, -1) * vs)
        obs = torch.clip(gposes[:, 2:3] - 0.5 - measured, -1, 1)
        sync()
        return obs

    def ours_grid():
        gscan.render(gposes, out=g_out)
        sync()

    legged_gym_heights()
    ours_grid()
    t_lg, t_ours = [], []
    for _ in range(args.reps):
        t_lg.append(timed(legged_gym_heights))
        t_ours.append(timed(ours_grid))
    rows.append(("height scan, height field (grid)", n, 187, median_seconds(t_ours), median_seconds(t_lg),
                 "legged_gym _get_heights (torch lookup)", None, 28 + 187 * 4,
                 nbytes(height_points, measured) // n + 28 + 187 * 4, 0))

    # ---- the report ----
    cpu_name = "unknown CPU"
    try:
        cpu_name = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    device_text = torch.cuda.get_device_name(tdev) if cuda else f"{cpu_name}, one thread for each"
    script = pathlib.Path(sys.argv[0]).resolve()
    shown = script.relative_to(REPO) if script.is_relative_to(REPO) else script
    lines = [f"# Pattern sensors vs the peers' height scans and LiDAR, from Python — {datetime.date.today()}", "",
             f"- Device: {args.device} ({device_text}); Python {platform.python_version()}, torch {torch.__version__}, "
             f"warp-lang {wp.config.version}, warp_raycaster {wr.__version__} (libwr at commit {commit}).",
             f"- Command: `.venv/bin/python {' '.join([str(shown)] + sys.argv[1:])}` (from the repository root)",
             f"- Mesh: `{pathlib.Path(args.obj).name}`, {scene.num_triangles:,} triangles; height field: "
             f"{nx} x {ny} samples at {hs} m (steps of 1 m, legged_gym's scales), traced through its grid.",
             f"- Median of {args.reps} frames after one warm-up, the two renderers interleaved.", "",
             "| workload | envs | rays / env | ours ms | peer | peer ms | peer / ours | rays disagreeing | "
             "max abs diff | bytes per env, ours | bytes per env, peer (kept) | peer's each frame |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, envs, r, t_o, t_p, peer, agree, ours_b, peer_b, peer_t in rows:
        a = f"{agree[0]} of {agree[1]:,}" if agree else "(a lookup)"
        d = f"{agree[2]:.2e}" if agree else ""
        lines.append(f"| {name} | {envs:,} | {r:,} | {t_o * 1e3:.2f} | {peer} | {t_p * 1e3:.2f} | {t_p / t_o:.2f} | "
                     f"{a} | {d} | {ours_b:,} | {peer_b:,} | {peer_t:,} |")
    lines += ["", "Bytes per env, float32: ours are the caller's pose (28) and output (rays x 4); inside the library "
              f"`per_env_bytes` = {ours.memory()['per_env_bytes']} (the pattern is shared: "
              f"{ours.memory()['tags']['ray_template']['host_bytes']:,} B for the scan, "
              f"{lidar.memory()['tags']['ray_template']['host_bytes']:,} B for the LiDAR). IsaacLab's layout keeps per "
              "env the pattern's starts and directions (rays, 3) each, the world hits (rays, 3) and the distances, "
              "plus the pose and output; each frame it makes the world starts (and, base-aligned, directions). "
              "legged_gym keeps its height points (187, 3) and measured heights per env.", "",
              "Agreement: both miss, or both within 1e-4 (heights, metres; distances). Warp's ray/triangle "
              "test is not watertight, so a ray along a shared edge can differ."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
