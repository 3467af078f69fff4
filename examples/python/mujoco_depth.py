"""Depth images of MuJoCo simulations with warp_raycaster: the Python version of wr-mujoco-demo.

N simulations of ``assets/mujoco/quadruped_parkour.xml`` (one quadruped with a head camera on the
parkour terrain) are stepped with the ``mujoco`` package; after every step the N head cameras are
rendered in one ``CameraSensor.render_hits`` call, the terrain as the scene's static mesh and each
robot's links as its env's instances, so that every camera sees its own legs. Finally some pixels are compared
with ``mujoco.mj_ray`` on the same simulation state.

The scene and the camera come from warp_raycaster.mujoco, the C++ adapter's own code over the
model's arrays: the static geoms (the terrain mesh) merged into the scene's terrain, every moving
geom (the robot's links) a slot of each env posed from ``geom_xpos`` / ``geom_xmat``, the head camera
with MuJoCo's intrinsics posed from ``cam_xpos`` / ``cam_xmat``, its own body's geoms hidden from it
(``exclude_own_body``, as mj_ray's bodyexclude). The contact-only geometry of group 3 (the terrain's
height field and boxes, the feet) is seen by neither the sensor nor mj_ray (geomgroup 1 1 1 0 0 0).

Run from the repository root, against the package in .venv (scripts/setup.sh) or a build of it
(python/CMakeLists.txt lays it out in <build>/python):
    .venv/bin/python examples/python/mujoco_depth.py
    PYTHONPATH=build-tests/python .venv/bin/python examples/python/mujoco_depth.py --envs 16 --steps 50
"""

import argparse
import math
import os
import sys
import time

import mujoco
import numpy as np

import warp_raycaster as wr
from warp_raycaster import mujoco as wrm

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "assets", "mujoco", "quadruped_parkour.xml")
GEOMGROUP = np.array([1, 1, 1, 0, 0, 0], np.uint8)  # what the camera sees: MuJoCo's visible groups 0-2
LEGS = ("FL", "FR", "RL", "RR")


def head_body(m, head):
    """The body that carries the camera (whose geoms it does not see)."""
    return int(m.cam_bodyid[head.id])


def trot(m, stand, t, phase, ctrl):
    """wr-mujoco-demo's trot: diagonal legs in phase, a 0.4 s cycle, the front thighs swung high."""
    for leg, name in enumerate(LEGS):
        hip, knee = m.actuator(f"{name}_hip").id, m.actuator(f"{name}_knee").id
        front = leg < 2
        s = math.sin(2 * math.pi * t / 0.4 + phase + (0.0 if leg in (0, 3) else math.pi))
        ctrl[hip] = stand[hip] - ((0.7 if front else 0.3) if s > 0 else 0.15) * s
        ctrl[knee] = stand[knee] + (0.8 if front else -0.8) * max(s, 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--check-pixels", type=int, default=2000,
                    help="random pixels of the last frame against mj_ray (and up to 500 on the legs)")
    ap.add_argument("--out", default=None, help="write depth.npy (float32 [N, H, W]) here")
    args = ap.parse_args()
    rng = np.random.default_rng(1)

    m = mujoco.MjModel.from_xml_path(args.model)
    key = m.key("stand").id
    ds = [mujoco.MjData(m) for _ in range(args.envs)]
    mujoco.mj_resetDataKeyframe(m, ds[0], key)
    mujoco.mj_forward(m, ds[0])
    ctx = wr.Context("cpu")
    scene = wrm.Scene(ctx, m, geomgroup=GEOMGROUP)
    head = scene.camera("head", num_envs=args.envs, exclude_own_body=True)
    # The terrain's extent: its static mesh's vertices, posed at qpos0.
    terrain = [g for g in range(m.ngeom) if m.body_weldid[m.geom_bodyid[g]] == 0
               and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH and GEOMGROUP[m.geom_group[g]]]
    verts = np.concatenate([m.mesh_vert[m.mesh_vertadr[m.geom_dataid[g]]:][:m.mesh_vertnum[m.geom_dataid[g]]]
                            @ ds[0].geom_xmat[g].reshape(3, 3).T + ds[0].geom_xpos[g] for g in terrain])
    lo, hi = verts.min(axis=0), verts.max(axis=0)

    # Start positions as wr-mujoco-demo's: a random position and yaw on the inner 80% of the terrain
    # where the contact surface (group 3) is level within 3 cm from 0.5 m behind the trunk to 1 m ahead
    # and 0.4 m to either side (probed by mj_ray straight down, the template robot far above), the
    # most level of 200 tries otherwise.
    probe = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, probe, key)
    probe.qpos[2] = hi[2] + 100
    mujoco.mj_forward(m, probe)
    contact = np.array([0, 0, 0, 1, 0, 0], np.uint8)
    geom = np.zeros(1, np.int32)
    # The keyframe's trunk height above the lowest point of the robot (its feet), and a drop of 2 cm.
    lowest = min(ds[0].geom_xpos[g, 2] - (m.geom_size[g, 0] if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE
                                          else m.geom_rbound[g])
                 for g in range(m.ngeom) if m.body_weldid[m.geom_bodyid[g]] != 0)
    stand_height = ds[0].qpos[2] - lowest + 0.02
    probes = [(-0.5 + 0.3 * a, -0.4 + 0.4 * b) for a in range(6) for b in range(3)]
    top = hi[2] + 1.0
    for d in ds:
        best = None
        for _ in range(200):
            x, y = (rng.uniform(lo[i] + 0.1 * (hi[i] - lo[i]), hi[i] - 0.1 * (hi[i] - lo[i])) for i in (0, 1))
            yaw = rng.uniform(-math.pi, math.pi)
            c, s = math.cos(yaw), math.sin(yaw)
            z = [top - t if t >= 0 else lo[2] for t in
                 (mujoco.mj_ray(m, probe, np.array([x + fx * c - fy * s, y + fx * s + fy * c, top]),
                                np.array([0.0, 0, -1]), contact, 1, -1, geom) for fx, fy in probes)]
            if best is None or max(z) - min(z) < best[0]:
                best = (max(z) - min(z), x, y, yaw, max(z))
            if best[0] <= 0.03:
                break
        _, x, y, yaw, ground = best
        mujoco.mj_resetDataKeyframe(m, d, key)
        d.qpos[:3] = (x, y, ground + stand_height)
        d.qpos[3:7] = (math.cos(yaw / 2), 0, 0, math.sin(yaw / 2))
    phases = rng.uniform(0, 2 * math.pi, args.envs)
    stand = m.key_ctrl[key].copy()
    for e, d in enumerate(ds):  # the legs where the trot puts them at t = 0
        trot(m, stand, 0.0, phases[e], d.ctrl)
        d.qpos[m.jnt_qposadr[m.actuator_trnid[:, 0]]] = d.ctrl
        mujoco.mj_forward(m, d)

    depth = np.zeros(head.shape, np.float32)
    ids = np.zeros(head.shape, np.int32)
    # What each pixel hit (render_hits), written into these arrays: the depth and the instance (slot)
    # ids alone (fields=: the other channels would take the CPU off its SIMD packets).
    hits = wr.Hits(values=depth, points=None, normals=None, triangle_ids=None, instance_ids=ids)
    sim_s = render_s = 0.0
    for step in range(args.steps):
        t0 = time.perf_counter()
        for e, d in enumerate(ds):
            trot(m, stand, d.time, phases[e], d.ctrl)
            mujoco.mj_step(m, d)
            mujoco.mj_fwdPosition(m, d)  # positions of the new state (mj_step leaves the previous ones)
        t1 = time.perf_counter()
        # poses from the N MjData (the cameras', the robots' geoms), one render
        head.render_hits(ds, hits, fields=("instance_ids",))
        t2 = time.perf_counter()
        sim_s, render_s = sim_s + t1 - t0, render_s + t2 - t1

    # The robot's own geoms other than its camera body's: the legs.
    slot_bodies = m.geom_bodyid[np.array(scene.slot_geoms)]
    legs = (ids >= 0) & (slot_bodies[np.maximum(ids, 0)] != head_body(m, head))
    print(f"mujoco_depth: {args.envs} simulations of {os.path.basename(args.model)}, {args.steps} steps; "
          f"{scene.num_static_geoms} static geoms in the terrain, {scene.num_slots} robot geoms per env")
    print(f"  per step: MuJoCo {1e3 * sim_s / args.steps:.2f} ms (mj_step per simulation, from Python), "
          f"poses + render {1e3 * render_s / args.steps:.2f} ms (one CameraSensor.render_hits)")
    seeing = int(legs.any(axis=(1, 2)).sum())
    print(f"  last frame: {100 * np.isfinite(depth).mean():.1f}% of pixels hit, "
          f"{100 * legs.mean():.2f}% show the robot's own legs ({seeing} of {args.envs} robots)")

    # Random pixels of the last frame and up to 500 of those on the legs against mj_ray on the same
    # state, the rays in double from wr.h's pixel convention; plane depth = the distance along the
    # unit ray times its forward component.
    cam = head.camera
    pixels = [(rng.integers(args.envs), rng.integers(cam.height), rng.integers(cam.width))
              for _ in range(args.check_pixels)]
    leg_pixels = np.argwhere(legs)
    pixels += [tuple(p) for p in leg_pixels[rng.permutation(len(leg_pixels))[:500]]]
    agree = 0
    for e, v, u in pixels:
        d = ds[e]
        c = np.array([1.0, -((u + 0.5) - cam.cx) / cam.fx, -((v + 0.5) - cam.cy) / cam.fy])
        c /= np.linalg.norm(c)
        R = d.cam_xmat[head.id].reshape(3, 3)
        direction = -R[:, 2] * c[0] - R[:, 0] * c[1] + R[:, 1] * c[2]
        t = mujoco.mj_ray(m, d, d.cam_xpos[head.id], direction, GEOMGROUP, 1, head_body(m, head), geom)
        want = t * c[0] if t >= 0 else math.inf
        got = float(depth[e, v, u])
        agree += (not math.isfinite(want) and not math.isfinite(got)) or (
            math.isfinite(want) and math.isfinite(got) and abs(got - want) <= 1e-4 * want)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        np.save(os.path.join(args.out, "depth.npy"), depth)
    share = agree / len(pixels)
    print(f"agreement with mj_ray: {100 * share:.2f}% of {len(pixels)} pixels ({args.check_pixels} random, "
          f"{len(pixels) - args.check_pixels} on the legs; N={args.envs})")
    return 0 if share >= 0.999 else 1


if __name__ == "__main__":
    sys.exit(main())
