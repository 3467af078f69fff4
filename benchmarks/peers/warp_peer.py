"""warp-raycaster against NVIDIA Warp's mesh_query_ray, in one run: the same terrain, poses and
106 x 60 camera rendered three ways, then per-pixel agreement, rays/s and bytes per env.

  1. IsaacLab's RayCasterCamera layout: per-env ray buffers. Every frame the shared pattern is
     turned into world rays for each env with torch (``ray_starts_w``, ``ray_directions_w``,
     (N, H*W, 3) each), Warp's raycast kernel (one thread per ray, IsaacLab's
     ``raycast_mesh_kernel``) writes hits and distances, and torch turns the distances into
     distance_to_image_plane.
  2. A shared-template Warp kernel: one thread per (env, pixel) reads the (H*W, 3) template and
     the env's pose, as this library does, and calls mesh_query_ray.
  3. This library: Sensor.render.

Usage (warp-lang from PyPI, into .venv/):

    .venv/bin/pip install warp-lang
    .venv/bin/python benchmarks/peers/warp_peer.py [--device cpu|cuda:0] [--envs 64] [--out FILE.md]

On the CPU Warp runs a kernel on one thread, so this library and torch are given one thread too
(``wr.Context("cpu", threads=1)``, ``torch.set_num_threads(1)``): the rays/s are per core. On a
GPU all three run on the same device and stream. The figures are the median of --reps timed
frames after one warm-up frame, the three ways interleaved frame by frame.
"""

from __future__ import annotations

import argparse
import datetime
import math
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import warp as wp

import warp_raycaster as wr

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_obj(path: pathlib.Path):
    """Vertices (V, 3) float32 and triangles (T, 3) int32 of a triangulated OBJ (v and f lines;
    f entries may be v, v/vt or v/vt/vn, 1-based)."""
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                vertices.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("f "):
                idx = [int(p.split("/")[0]) - 1 for p in line.split()[1:]]
                for k in range(1, len(idx) - 1):  # a fan, as tinyobjloader triangulates
                    faces.append([idx[0], idx[k], idx[k + 1]])
    return np.asarray(vertices, np.float32), np.asarray(faces, np.int32)


def make_poses(n: int, bounds, seed: int) -> np.ndarray:
    """(n, 7) w x y z poses over the terrain: random x, y, 0.5 m above its top, random yaw."""
    (x0, y0, _), (x1, y1, z1) = bounds
    rng = np.random.default_rng(seed)
    poses = np.zeros((n, 7), np.float32)
    poses[:, 0] = rng.uniform(x0 + 2, x1 - 2, n)
    poses[:, 1] = rng.uniform(y0 + 2, y1 - 2, n)
    poses[:, 2] = z1 + 0.5
    yaw = rng.uniform(0, 2 * math.pi, n)
    poses[:, 3] = np.cos(yaw / 2)
    poses[:, 6] = np.sin(yaw / 2)
    return poses


# ---- torch quaternion helpers (w, x, y, z), IsaacLab's math_utils.quat_apply / quat_mul ----

def quat_apply(q: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    xyz = q[..., 1:]
    t = 2.0 * torch.linalg.cross(xyz, v, dim=-1)
    return v + q[..., :1] * t + torch.linalg.cross(xyz, t, dim=-1)


def quat_mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def quat_inv(q: torch.Tensor) -> torch.Tensor:
    return q * torch.tensor([1.0, -1.0, -1.0, -1.0], device=q.device)


# ---- Warp kernels ----------------------------------------------------------------------------

@wp.kernel(enable_backward=False)
def raycast_buffers(mesh: wp.uint64, ray_starts: wp.array(dtype=wp.vec3), ray_directions: wp.array(dtype=wp.vec3),
                    max_dist: float, ray_hits: wp.array(dtype=wp.vec3), ray_distance: wp.array(dtype=float)):
    # IsaacLab's raycast_mesh_kernel: one thread per ray of the per-env buffers.
    tid = wp.tid()
    q = wp.mesh_query_ray(mesh, ray_starts[tid], ray_directions[tid], max_dist)
    if q.result:
        ray_hits[tid] = ray_starts[tid] + q.t * ray_directions[tid]
        ray_distance[tid] = q.t


@wp.kernel(enable_backward=False)
def render_shared_template(mesh: wp.uint64, directions: wp.array(dtype=wp.vec3), poses: wp.array(dtype=float, ndim=2),
                           mount_p: wp.vec3, mount_q: wp.quat, num_pixels: int, max_dist: float,
                           miss: float, depth: wp.array(dtype=float)):
    # One thread per (env, pixel): the env's camera pose from its body pose and the shared mount,
    # the pixel's direction from the shared template (its argument is not named "template": that is
    # a C++ keyword in the code Warp generates); writes plane depth (t * d_cam.x).
    tid = wp.tid()
    env = tid / num_pixels
    pixel = tid - env * num_pixels
    body_p = wp.vec3(poses[env, 0], poses[env, 1], poses[env, 2])
    body_q = wp.normalize(wp.quat(poses[env, 4], poses[env, 5], poses[env, 6], poses[env, 3]))  # Warp: x y z w
    cam_q = body_q * mount_q
    origin = body_p + wp.quat_rotate(body_q, mount_p)
    d_cam = directions[pixel]
    q = wp.mesh_query_ray(mesh, origin, wp.quat_rotate(cam_q, d_cam), max_dist)
    value = miss
    if q.result:
        value = q.t * d_cam[0]
    depth[tid] = value


def median_seconds(samples):
    return statistics.median(samples)


def agreement(a: np.ndarray, b: np.ndarray):
    """(pixels that disagree, pixels, max |difference| over pixels both hit). Agree: both miss,
    or both hit within 1e-4 relative (1e-4 m below 1 m)."""
    both_miss = ~np.isfinite(a) & ~np.isfinite(b)
    both_hit = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore"):  # inf - inf where both miss; those are masked out
        diff = np.where(both_hit, np.abs(a - b), 0.0)
    close = both_hit & (diff <= 1e-4 * np.maximum(1.0, np.abs(a)))
    return int((~(both_miss | close)).sum()), int(a.size), float(diff.max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--width", type=int, default=106)
    parser.add_argument("--height", type=int, default=60)
    parser.add_argument("--hfov", type=float, default=87.0)
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
        torch.set_num_threads(1)  # Warp's CPU kernels run on one thread: the same for all

    # ---- the scene, three times: ours, Warp's (same vertices and triangles) ----
    ctx = wr.Context("cuda", device=tdev.index or 0) if cuda else wr.Context("cpu", threads=1)
    t0 = time.perf_counter()
    scene = wr.Scene.from_obj(ctx, args.obj)
    ours_load_s = time.perf_counter() - t0
    vertices, triangles = load_obj(pathlib.Path(args.obj))
    assert len(triangles) == scene.num_triangles, "the OBJ reader here and the library's disagree"
    t0 = time.perf_counter()
    mesh = wp.Mesh(points=wp.array(vertices, dtype=wp.vec3, device=wdev),
                   indices=wp.array(triangles.reshape(-1), dtype=wp.int32, device=wdev))
    wp.synchronize_device(wdev)
    warp_build_s = time.perf_counter() - t0

    n, w, h = args.envs, args.width, args.height
    num_pixels = w * h
    cam = wr.Camera.pinhole(w, h, args.hfov, mount_position=(0.27, 0.0, 0.03),
                            mount_rotation=(math.cos(math.radians(10)), 0.0, math.sin(math.radians(10)), 0.0))
    sensor = wr.Sensor(scene, cam, num_envs=n)
    poses = torch.from_numpy(make_poses(n, scene.bounds, args.seed)).to(tdev)
    miss = math.inf
    max_dist = 1e6  # IsaacLab's raycast distance

    # The shared template (H*W, 3): the library's pixel-centre formula, unit directions.
    u, v = np.meshgrid(np.arange(w), np.arange(h))
    d = np.stack([np.ones(num_pixels), -(u.ravel() + 0.5 - cam.cx) / cam.fx, -(v.ravel() + 0.5 - cam.cy) / cam.fy], 1)
    template = torch.from_numpy((d / np.linalg.norm(d, axis=1, keepdims=True)).astype(np.float32)).to(tdev)
    mount_p = torch.tensor(cam.mount_position, device=tdev)
    mount_q = torch.tensor(cam.mount_rotation, device=tdev)

    # ---- 1. IsaacLab's layout: its persistent per-env buffers (RayCasterCamera._create_buffers
    # and _initialize_rays_impl: the pattern per env, world rays, hits, distance, output) ----
    ray_starts = torch.zeros(n, num_pixels, 3, device=tdev)              # pattern starts (N, H*W, 3)
    ray_directions = template.expand(n, num_pixels, 3).contiguous()      # pattern directions (N, H*W, 3)
    ray_hits_w = torch.empty(n * num_pixels, 3, device=tdev)
    ray_distance = torch.empty(n * num_pixels, device=tdev)
    lab_out = torch.empty(n, h, w, device=tdev)
    lab_buffers = {"ray_starts": ray_starts, "ray_directions": ray_directions, "ray_hits_w": ray_hits_w,
                   "ray_distance": ray_distance, "output": lab_out}

    def isaaclab_frame():
        quat_w = quat_mul(poses[:, 3:7], mount_q.expand(n, 4))
        pos_w = poses[:, 0:3] + quat_apply(poses[:, 3:7], mount_p.expand(n, 3))
        q = quat_w[:, None, :].expand(n, num_pixels, 4)
        starts_w = (quat_apply(q, ray_starts) + pos_w[:, None, :]).reshape(-1, 3).contiguous()
        dirs_w = quat_apply(q, ray_directions).reshape(-1, 3).contiguous()
        ray_distance.fill_(math.inf)
        t0 = time.perf_counter()
        wp.launch(raycast_buffers, dim=n * num_pixels, device=wdev,
                  inputs=[mesh.id, wp.from_torch(starts_w, dtype=wp.vec3), wp.from_torch(dirs_w, dtype=wp.vec3),
                          max_dist, wp.from_torch(ray_hits_w, dtype=wp.vec3), wp.from_torch(ray_distance)])
        wp.synchronize_device(wdev)
        kernel_s = time.perf_counter() - t0
        with torch.no_grad():
            plane = quat_apply(quat_inv(q).reshape(-1, 4), ray_distance[:, None] * dirs_w)[:, 0]
        lab_out.copy_(plane.view(n, h, w))
        return kernel_s, (starts_w, dirs_w)

    # ---- 2. shared-template Warp kernel ----
    warp_out = torch.empty(n * num_pixels, device=tdev)
    poses_wp = wp.from_torch(poses)
    template_wp = wp.from_torch(template, dtype=wp.vec3)
    mount_q_xyzw = wp.quat(cam.mount_rotation[1], cam.mount_rotation[2], cam.mount_rotation[3], cam.mount_rotation[0])

    def warp_shared_frame():
        wp.launch(render_shared_template, dim=n * num_pixels, device=wdev,
                  inputs=[mesh.id, template_wp, poses_wp, wp.vec3(*cam.mount_position), mount_q_xyzw, num_pixels,
                          max_dist, miss, wp.from_torch(warp_out)])
        wp.synchronize_device(wdev)

    # ---- 3. this library ----
    ours_out = torch.empty(n, h, w, device=tdev)

    def ours_frame():
        sensor.render(poses, out=ours_out)
        if cuda:
            torch.cuda.synchronize(tdev)

    def timed(fn):
        t0 = time.perf_counter()
        r = fn()
        return time.perf_counter() - t0, r

    # Warm-up (Warp compiles its kernels on first launch), then interleaved timed frames.
    isaaclab_frame()
    warp_shared_frame()
    ours_frame()
    lab_total, lab_kernel, shared, ours = [], [], [], []
    transient = None
    for _ in range(args.reps):
        s, (kernel_s, transient) = timed(isaaclab_frame)
        lab_total.append(s)
        lab_kernel.append(kernel_s)
        shared.append(timed(warp_shared_frame)[0])
        ours.append(timed(ours_frame)[0])

    rays = n * num_pixels
    rate = {k: rays / median_seconds(v) for k, v in
            {"ours": ours, "shared": shared, "lab_kernel": lab_kernel, "lab_total": lab_total}.items()}
    ours_np = ours_out.cpu().numpy()
    agree_lab = agreement(ours_np, lab_out.cpu().numpy())
    agree_shared = agreement(ours_np, warp_out.view(n, h, w).cpu().numpy())

    # ---- bytes per env (float32 throughout) ----
    pose_b, image_b = 7 * 4, num_pixels * 4
    lab_persistent = sum(t.numel() * t.element_size() for t in lab_buffers.values()) / n
    lab_transient = sum(t.numel() * t.element_size() for t in transient) / n  # world rays, each frame
    shared_template_b = template.numel() * 4  # once, for every env
    ours_memory = sensor.memory()

    lines = []
    lines.append(f"# warp-raycaster vs NVIDIA Warp mesh_query_ray, from Python — {datetime.date.today()}")
    lines.append("")
    cpu_name = "unknown CPU"
    try:
        cpu_name = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    device_text = torch.cuda.get_device_name(tdev) if cuda else f"{cpu_name}, one thread for each"
    lines.append(f"- Device: {args.device} ({device_text}); Python {platform.python_version()}, "
                 f"torch {torch.__version__}, warp-lang {wp.config.version}, warp_raycaster {wr.__version__} "
                 f"(libwr at commit {commit}).")
    script = pathlib.Path(sys.argv[0]).resolve()
    shown = script.relative_to(REPO) if script.is_relative_to(REPO) else script
    lines.append(f"- Command: `.venv/bin/python {' '.join([str(shown)] + sys.argv[1:])}` (from the repository root)")
    lines.append(f"- Scene: `{pathlib.Path(args.obj).name}`, {scene.num_triangles:,} triangles. BVH build: "
                 f"ours {scene.build_seconds * 1e3:.0f} ms (load + build {ours_load_s * 1e3:.0f} ms), "
                 f"Warp's `wp.Mesh` {warp_build_s * 1e3:.0f} ms.")
    lines.append(f"- Workload: {n} envs, {w} x {h} pinhole, {args.hfov:g} degrees, mounted 0.27 m ahead and "
                 f"pitched 20 degrees down; {rays:,} rays a frame; plane depth; median of {args.reps} "
                 f"frames after one warm-up, the three interleaved.")
    lines.append("")
    lines.append("| renderer | ms / frame | rays/s | ours / it | pixels disagreeing with ours | max abs diff (m) | bytes per env |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    lines.append(f"| warp-raycaster `Sensor.render` | {median_seconds(ours) * 1e3:.1f} | {rate['ours'] / 1e6:.2f} M | 1.00 | "
                 f"- | - | {pose_b + image_b:,} (pose {pose_b} + image {image_b:,}) |")
    lines.append(f"| Warp, shared template (one thread per env x pixel) | {median_seconds(shared) * 1e3:.1f} | "
                 f"{rate['shared'] / 1e6:.2f} M | {rate['ours'] / rate['shared']:.2f} | {agree_shared[0]} of {agree_shared[1]:,} | "
                 f"{agree_shared[2]:.2e} | {pose_b + image_b:,} (+ template {shared_template_b:,} once) |")
    lines.append(f"| Warp, IsaacLab RayCasterCamera layout: raycast kernel only | {median_seconds(lab_kernel) * 1e3:.1f} | "
                 f"{rate['lab_kernel'] / 1e6:.2f} M | {rate['ours'] / rate['lab_kernel']:.2f} | | | |")
    lines.append(f"| Warp, IsaacLab layout: whole frame (torch world rays + kernel + image plane) | "
                 f"{median_seconds(lab_total) * 1e3:.1f} | {rate['lab_total'] / 1e6:.2f} M | "
                 f"{rate['ours'] / rate['lab_total']:.2f} | {agree_lab[0]} of {agree_lab[1]:,} | {agree_lab[2]:.2e} | "
                 f"{lab_persistent + pose_b:,.0f} kept + {lab_transient:,.0f} each frame |")
    lines.append("")
    lines.append("Bytes per env: what each way holds for one more env, float32. Ours: the caller's pose and image; "
                 f"inside the library `per_env_bytes` = {ours_memory['per_env_bytes']} (its template, "
                 f"{ours_memory['tags']['ray_template']['host_bytes'] + ours_memory['tags']['ray_template']['device_bytes']:,} B, "
                 "is shared). IsaacLab's layout keeps per env the pattern's starts and directions "
                 "(N, H*W, 3) each, the world hits (H*W, 3), the distances (H*W) and the output (H*W), plus the pose; "
                 "each frame it also makes the world starts and directions (H*W, 3) each.")
    lines.append("")
    lines.append("Agreement: a pixel agrees when both miss or both hit within 1e-4 relative (1e-4 m below 1 m). "
                 "Warp's ray/triangle test is not watertight (this library's is: Woop et al. 2013), so a ray "
                 "through a shared edge may slip through on its side; the difference column is over pixels both hit.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
