"""warp-raycaster against mujoco_warp's own batched depth renderer, in one run: the same MuJoCo model
(assets/mujoco/quadruped_parkour.xml: the parkour terrain mesh and a quadruped with a head camera),
the same N worlds of one mujoco_warp Data (each robot moved near its start and turned), the head camera at its 106 x 60 resolution, then per-pixel
agreement, time per step and bytes per env.

  1. mujoco_warp: ``create_render_context(model, nworld=N, render_depth=True)`` once (its BVH of the
     geoms and per-world buffers), then per step ``refit_bvh``, ``render(m, d, rc)`` and ``get_depth`` into an
     (N, H, W) array: plane depth, the camera's own body not seen (mujoco_warp's renderer leaves it
     out), the visible groups 0-2.
  2. This library: ``warp_raycaster.mujoco.Scene(ctx, model).camera("head", exclude_own_body=True)``,
     per step ``render(d)`` reading the same Data's Warp arrays in place.

Usage (mujoco and mujoco-warp from PyPI, in .venv/ through scripts/setup.sh):

    .venv/bin/python benchmarks/peers/mujoco_warp_peer.py [--envs 16] [--reps 20] [--out FILE.md]

Both run on the CPU device here: Warp runs a CPU kernel on one thread, so this library gets one thread
too (``wr.Context("cpu", threads=1)``). The figures are the median of --reps timed steps after one
warm-up step, the two interleaved step by step; each step first moves every world's robot
(``kinematics``, ``com_pos``, ``camlight`` from new qpos), untimed.
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import platform
import statistics
import sys
import time

import mujoco
import mujoco_warp as mjw
import numpy as np
import warp as wp

import warp_raycaster as wr
from warp_raycaster import mujoco as wrm

import peer_report  # noqa: E402  (beside this file)

REPO = pathlib.Path(__file__).resolve().parents[2]
MODEL = REPO / "assets" / "mujoco" / "quadruped_parkour.xml"


def warp_bytes(obj, seen=None) -> int:
    """Bytes of every Warp array reachable from obj's attributes (a RenderContext), each counted once."""
    seen = set() if seen is None else seen
    total = 0
    for value in vars(obj).values():
        items = value if isinstance(value, (list, tuple)) else [value]
        for v in items:
            if isinstance(v, wp.array) and id(v) not in seen:
                seen.add(id(v))
                total += v.capacity
            elif hasattr(v, "__dict__") and not isinstance(v, (wp.array, type)) and id(v) not in seen:
                seen.add(id(v))
                total += warp_bytes(v, seen)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--out", default=None, help="write the results as Markdown here")
    args = parser.parse_args()
    wp.config.quiet = True
    n = args.envs

    m = mujoco.MjModel.from_xml_path(str(MODEL))
    key = m.key("stand").id
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, key)
    mujoco.mj_forward(m, d)
    cam_id = m.camera("head").id
    w, h = (int(x) for x in m.cam_resolution[cam_id])
    rng = np.random.default_rng(1)

    with wp.ScopedDevice("cpu"):
        model = mjw.put_model(m)
        data = mjw.put_data(m, d, nworld=n)
        t0 = time.perf_counter()
        rc = mjw.create_render_context(m, nworld=n, cam_res=(w, h), render_rgb=False, render_depth=True,
                                       use_textures=False, use_shadows=False, enabled_geom_groups=[0, 1, 2])
        peer_build_s = time.perf_counter() - t0
        peer_out = wp.zeros((n, h, w), dtype=float)
    ctx = wr.Context("cpu", threads=1)
    t0 = time.perf_counter()
    scene = wrm.Scene(ctx, m, geomgroup=(1, 1, 1, 0, 0, 0))
    ours_build_s = time.perf_counter() - t0
    head = scene.camera("head", num_envs=n, exclude_own_body=True)
    ours_out = np.empty(head.shape, np.float32)
    far = 1000.0  # get_depth divides by this and clamps to [0, 1]: metres below it are kept

    def move() -> None:
        """Every world's robot moved within a metre of the keyframe's start (level ground: a robot
        dropped into an obstacle would put its camera inside the terrain) and turned; its legs as the
        keyframe's."""
        q = np.tile(d.qpos, (n, 1))
        q[:, 0:2] += rng.uniform(-1.0, 1.0, (n, 2))
        yaw = rng.uniform(-np.pi, np.pi, n)
        q[:, 3], q[:, 6] = np.cos(yaw / 2), np.sin(yaw / 2)
        q[:, 4:6] = 0.0
        with wp.ScopedDevice("cpu"):
            data.qpos.assign(q.astype(np.float32))
            mjw.kinematics(model, data)
            mjw.com_pos(model, data)
            mjw.camlight(model, data)

    def peer_step() -> None:
        with wp.ScopedDevice("cpu"):
            mjw.refit_bvh(model, data, rc)  # the moved geoms (mujoco_warp's render does not refit)
            mjw.render(model, data, rc)
            mjw.get_depth(rc, 0, far, peer_out)
            wp.synchronize()

    def ours_step() -> None:
        head.render(data, out=ours_out)

    def timed(fn) -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    move()
    peer_step()  # warm-up: Warp compiles its kernels on first launch
    ours_step()
    peer_s, ours_s = [], []
    within_4 = within_3 = both_hit = pixels = 0
    max_diff = 0.0
    for _ in range(args.reps):
        move()
        peer_s.append(timed(peer_step))
        ours_s.append(timed(ours_step))
        theirs = peer_out.numpy() * far
        theirs = np.where(theirs >= far, np.inf, theirs)  # clamped: nothing hit
        ours = ours_out
        hit = np.isfinite(ours) & np.isfinite(theirs)
        miss = ~np.isfinite(ours) & ~np.isfinite(theirs)
        diff = np.abs(ours - theirs)
        within_4 += int((miss | (hit & (diff <= 1e-4 * np.maximum(theirs, 1.0)))).sum())
        within_3 += int((miss | (hit & (diff <= 1e-3 * np.maximum(theirs, 1.0)))).sum())
        both_hit += int(hit.sum())
        pixels += ours.size
        if hit.any():
            max_diff = max(max_diff, float(diff[hit].max()))

    peer_ms, ours_ms = statistics.median(peer_s) * 1e3, statistics.median(ours_s) * 1e3
    rays = n * w * h
    # Bytes per env: the render context's arrays at N and at 1 (one more world costs the difference
    # over N - 1), against this library's per-env state (inside: sensor.memory(); outside: the poses
    # the wrapper keeps and the image).
    with wp.ScopedDevice("cpu"):
        rc1 = mjw.create_render_context(m, nworld=1, cam_res=(w, h), render_rgb=False, render_depth=True,
                                        use_textures=False, use_shadows=False, enabled_geom_groups=[0, 1, 2])
    peer_n, peer_1 = warp_bytes(rc), warp_bytes(rc1)
    peer_per_env = (peer_n - peer_1) / max(n - 1, 1)
    mem = head.sensor.memory()
    ours_per_env = 28 + 28 * scene.num_slots + 4 * w * h

    cpu_name = peer_report.cpu_name()
    commit = peer_report.commit()
    lines = [f"# warp-raycaster vs mujoco_warp's batched depth renderer, from Python — {datetime.date.today()}", ""]
    lines.append(f"- Device: cpu ({cpu_name}, one thread for each); Python {platform.python_version()}, mujoco "
                 f"{mujoco.__version__}, mujoco-warp {getattr(mjw, '__version__', '4.0.0')}, warp-lang "
                 f"{wp.config.version}, warp_raycaster {wr.__version__} (libwr at commit {commit}).")
    lines.append(f"- Command: `.venv/bin/python benchmarks/peers/mujoco_warp_peer.py {' '.join(sys.argv[1:])}` "
                 "(from the repository root)")
    lines.append(f"- Model: `assets/mujoco/quadruped_parkour.xml` ({m.ngeom} geoms; the terrain mesh of "
                 f"{int(m.mesh_facenum.sum()):,} triangles), the head camera {w} x {h}, {n} worlds of one "
                 f"mujoco_warp Data, each robot moved within 1 m of its start and turned before every step; plane depth, the camera's "
                 f"own body not seen, groups 0-2. Build: ours {ours_build_s * 1e3:.0f} ms (`wrm.Scene`), "
                 f"mujoco_warp's render context {peer_build_s * 1e3:.0f} ms.")
    lines.append(f"- Median of {args.reps} steps after one warm-up, the two interleaved.")
    lines.append("")
    lines.append("| renderer | ms / step | rays/s | ours / it | bytes per env |")
    lines.append("|---|---:|---:|---:|---:|")
    lines.append(f"| warp-raycaster `wrm.Scene(...).camera(...).render(data)` | {ours_ms:.2f} | "
                 f"{rays / (ours_ms / 1e3) / 1e6:.2f} M | 1.00 | {ours_per_env:,} (pose 28 + {scene.num_slots} "
                 f"instance poses + image; inside the library {mem['per_env_bytes']}) |")
    lines.append(f"| mujoco_warp `refit_bvh` + `render` + `get_depth` | {peer_ms:.2f} | {rays / (peer_ms / 1e3) / 1e6:.2f} M | "
                 f"{peer_ms / ours_ms:.2f} | {peer_per_env:,.0f} (its render context; + image {4 * w * h:,} "
                 f"from get_depth) |")
    lines.append("")
    lines.append(f"Agreement over {pixels:,} pixels ({args.reps} steps): {100 * within_4 / pixels:.3f}% agree within "
                 f"1e-4 relative (1e-4 m below 1 m), {100 * within_3 / pixels:.3f}% within 1e-3; both hit on "
                 f"{both_hit:,}; the largest difference where both hit {max_diff:.3g} m. A pixel agrees when both "
                 "miss or both hit within the bound. mujoco_warp renders with fast math (its default) and "
                 "intersects MuJoCo's primitives analytically; this library traces the same geoms as triangles "
                 "(the robot's boxes exactly, the terrain as the compiled mesh).")
    lines.append("")
    lines.append(f"Bytes per env: the render context's Warp arrays are {peer_1:,} B for 1 world and {peer_n:,} B for "
                 f"{n}; one more world costs the difference over {n - 1}. This library holds "
                 f"{mem['per_env_bytes']} B per env inside; the wrapper keeps each env's camera pose and its "
                 f"{scene.num_slots} instance poses (float32 x 7), and the image is the caller's.")
    peer_report.emit(lines, args.out)


if __name__ == "__main__":
    main()
