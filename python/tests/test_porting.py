"""docs/porting.md, held: each mapping of an IsaacGym camera sensor or IsaacLab RayCasterCamera
setting to this library's is checked by building that sensor's rays from its own formulas
(re-written here from its documentation and source, in float64 NumPy), tracing them as
explicit rays through this library's scene, turning the hits into that sensor's output, and
comparing with what a Sensor made by warp_raycaster.rl renders.

Rays built two ways differ in their last bits, so a ray that grazes a step's edge may hit the
step on one side and the floor behind on the other: up to 0.2% of the pixels may disagree;
every other pixel agrees to 1e-4 relative, and the miss markers (NaN, +-inf, 0, max) sit on the
same pixels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp_raycaster as wr
from conftest import random_poses

N, W, H = 6, 40, 30


# ---- quaternion and matrix helpers, in each sensor's own convention ---------------------------

def quat_apply_wxyz(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """IsaacLab math_utils.quat_apply: rotate v (..., 3) by q (..., 4) = w, x, y, z."""
    w, xyz = q[..., :1], q[..., 1:]
    t = 2.0 * np.cross(xyz, v)
    return v + w * t + np.cross(xyz, t)


def quat_mul_wxyz(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def quat_inv_wxyz(q: np.ndarray) -> np.ndarray:
    return q * np.array([1.0, -1.0, -1.0, -1.0]) / np.sum(q * q, -1, keepdims=True)


def matrix_from_quat_wxyz(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def quat_from_matrix_wxyz(m: np.ndarray) -> np.ndarray:
    # The eigenvector of Bar-Itzhack's K matrix (J. Guidance 23(6), 2000): any rotation.
    k = np.array([[m[0, 0] - m[1, 1] - m[2, 2], m[1, 0] + m[0, 1], m[2, 0] + m[0, 2], m[2, 1] - m[1, 2]],
                  [m[1, 0] + m[0, 1], m[1, 1] - m[0, 0] - m[2, 2], m[2, 1] + m[1, 2], m[0, 2] - m[2, 0]],
                  [m[2, 0] + m[0, 2], m[2, 1] + m[1, 2], m[2, 2] - m[0, 0] - m[1, 1], m[1, 0] - m[0, 1]],
                  [m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1], m[0, 0] + m[1, 1] + m[2, 2]]]) / 3.0
    vals, vecs = np.linalg.eigh(k)
    x, y, z, w = vecs[:, np.argmax(vals)]
    q = np.array([w, x, y, z])
    return q if w >= 0 else -q


def matrix_from_euler_xyz(angles) -> np.ndarray:
    """IsaacLab math_utils.matrix_from_euler(angles, "XYZ") = Rx(a) @ Ry(b) @ Rz(c)."""
    a, b, c = angles
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return rx @ ry @ rz


def isaaclab_convert_to_world(rot_wxyz, origin: str) -> np.ndarray:
    """IsaacLab math_utils.convert_camera_frame_orientation_convention(rot, origin, "world")."""
    q = np.asarray(rot_wxyz, float)
    if origin == "world":
        return q
    if origin == "ros":  # ros -> opengl: negate the y and z columns
        m = matrix_from_quat_wxyz(q)
        m[:, 2] = -m[:, 2]
        m[:, 1] = -m[:, 1]
        q_gl = quat_from_matrix_wxyz(m)
    else:
        q_gl = q
    m = matrix_from_quat_wxyz(q_gl) @ matrix_from_euler_xyz([math.pi / 2, -math.pi / 2, 0]).T
    return quat_from_matrix_wxyz(m)


def trace(scene: wr.Scene, starts: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Distance along unit rays (N, R, 3) to the nearest hit, +inf on a miss: IsaacLab's
    raycast_mesh ray_depth, here through this library's explicit rays."""
    t, _ = scene.intersect(starts.reshape(-1, 3).astype(np.float32), directions.reshape(-1, 3).astype(np.float32))
    return t.reshape(starts.shape[:-1]).astype(np.float64)


def agree(ours: np.ndarray, theirs: np.ndarray) -> None:
    ours, theirs = ours.astype(np.float64).reshape(-1), theirs.astype(np.float64).reshape(-1)
    same_kind = (np.isnan(ours) == np.isnan(theirs)) & (np.isposinf(ours) == np.isposinf(theirs)) & \
        (np.isneginf(ours) == np.isneginf(theirs))
    finite = np.isfinite(ours) & np.isfinite(theirs)
    close = np.ones_like(ours, bool)
    close[finite] = np.abs(ours[finite] - theirs[finite]) <= 1e-4 * np.maximum(1.0, np.abs(theirs[finite]))
    bad = ~(same_kind & close)
    assert bad.mean() <= 0.002, f"{bad.sum()} of {bad.size} pixels disagree"
    assert np.isfinite(theirs).mean() > 0.2  # the comparison saw terrain


# ---- IsaacLab RayCasterCamera ------------------------------------------------------------------

def isaaclab_render(scene: wr.Scene, body_pos, body_quat, *, focal_length, horizontal_aperture, vertical_aperture,
                    h_offset, v_offset, offset_pos, offset_rot, convention, data_type, clipping, max_distance):
    # RayCasterCamera._compute_intrinsic_matrices
    if vertical_aperture is None:
        vertical_aperture = horizontal_aperture * H / W
    f_x = W * focal_length / horizontal_aperture
    f_y = H * focal_length / vertical_aperture
    c_x = h_offset * f_x + W / 2
    c_y = v_offset * f_y + H / 2
    k = np.array([[f_x, 0, c_x], [0, f_y, c_y], [0, 0, 1]])
    # patterns.pinhole_camera_pattern: pixel centres, K^-1, (x right, y down, z fwd) -> (x fwd, y left, z up)
    u, v = np.meshgrid(np.arange(W), np.arange(H), indexing="xy")
    pixels = np.stack([u.ravel() + 0.5, v.ravel() + 0.5, np.ones(W * H)], 0)
    cam = np.linalg.inv(k) @ pixels
    cam = cam[[2, 0, 1], :] * np.array([[1], [-1], [-1]])
    directions = (cam / np.linalg.norm(cam, axis=0, keepdims=True)).T  # (H*W, 3)
    # offsets and the camera's world pose (_compute_camera_world_poses)
    offset_quat = isaaclab_convert_to_world(offset_rot, convention)
    pos_w = body_pos + quat_apply_wxyz(body_quat, np.broadcast_to(offset_pos, body_pos.shape))
    quat_w = quat_mul_wxyz(body_quat, np.broadcast_to(offset_quat, body_quat.shape))
    # per-env ray buffers [N, H*W, 3] (the layout this library avoids)
    q = np.repeat(quat_w[:, None, :], W * H, 1)
    directions_w = quat_apply_wxyz(q, np.broadcast_to(directions, (len(body_pos), W * H, 3)))
    starts_w = np.repeat(pos_w[:, None, :], W * H, 1)
    ray_depth = trace(scene, starts_w, directions_w)
    with np.errstate(invalid="ignore"):
        if data_type == "distance_to_image_plane":
            out = quat_apply_wxyz(quat_inv_wxyz(q), ray_depth[:, :, None] * directions_w)[:, :, 0]
            if clipping == "max":
                out = np.clip(out, None, max_distance)
                out[np.isnan(out)] = max_distance
            elif clipping == "zero":
                out[out > max_distance] = 0.0
                out[np.isnan(out)] = 0.0
        else:
            out = ray_depth.copy()
            if clipping == "max":
                out = np.clip(out, None, max_distance)
            elif clipping == "zero":
                out[out > max_distance] = 0.0
    return out.reshape(len(body_pos), H, W)


CONVENTIONS = {
    # an offset looking forward and 20 degrees down, written in each convention
    "world": (math.cos(math.radians(10)), 0.0, math.sin(math.radians(10)), 0.0),
    "ros": None,
    "opengl": None,
}


def offset_in(convention: str) -> tuple:
    """The same physical mount (forward, 20 degrees down) as a w x y z quaternion in `convention`,
    converted with IsaacLab's own function in the other direction (world -> convention)."""
    world = np.array(CONVENTIONS["world"])
    if convention == "world":
        return tuple(world)
    # IsaacLab's inverse path: world -> opengl is R @ E; opengl -> ros negates y and z columns.
    m = matrix_from_quat_wxyz(world) @ matrix_from_euler_xyz([math.pi / 2, -math.pi / 2, 0])
    if convention == "ros":
        m[:, 1] = -m[:, 1]
        m[:, 2] = -m[:, 2]
    return tuple(quat_from_matrix_wxyz(m))


@pytest.mark.parametrize("convention", ["ros", "opengl", "world"])
@pytest.mark.parametrize("data_type", ["distance_to_image_plane", "distance_to_camera"])
@pytest.mark.parametrize("clipping", ["none", "max", "zero"])
def test_isaaclab_ray_caster_camera(scene: wr.Scene, convention: str, data_type: str, clipping: str) -> None:
    poses = random_poses(N, seed=21, order="wxyz").astype(np.float64)
    settings = dict(focal_length=18.0, horizontal_aperture=20.955, vertical_aperture=None, h_offset=0.02,
                    v_offset=-0.03, offset_pos=(0.3, 0.05, 0.1), offset_rot=offset_in(convention),
                    convention=convention, data_type=data_type, clipping=clipping, max_distance=3.0)
    theirs = isaaclab_render(scene, poses[:, :3], poses[:, 3:], **settings)
    cam = wr.rl.isaaclab_camera(W, H, focal_length=18.0, horizontal_aperture=20.955, horizontal_aperture_offset=0.02,
                                vertical_aperture_offset=-0.03, offset_pos=(0.3, 0.05, 0.1),
                                offset_rot=offset_in(convention), convention=convention, data_type=data_type,
                                depth_clipping_behavior=clipping, max_distance=3.0)
    ours = wr.Sensor(scene, cam, num_envs=N).render(poses.astype(np.float32))
    agree(ours, theirs)
    if clipping == "none":
        miss = np.nan if data_type == "distance_to_image_plane" else np.inf
        assert (np.isnan(ours) if np.isnan(miss) else np.isposinf(ours)).any()


def test_isaaclab_vertical_aperture(scene: wr.Scene) -> None:
    # A given vertical aperture: non-square pixels.
    poses = random_poses(N, seed=4).astype(np.float64)
    theirs = isaaclab_render(scene, poses[:, :3], poses[:, 3:], focal_length=24.0, horizontal_aperture=20.955,
                             vertical_aperture=12.0, h_offset=0.0, v_offset=0.0, offset_pos=(0, 0, 0),
                             offset_rot=(1, 0, 0, 0), convention="world", data_type="distance_to_camera",
                             clipping="none", max_distance=1e6)
    cam = wr.rl.isaaclab_camera(W, H, focal_length=24.0, vertical_aperture=12.0, convention="world",
                                data_type="distance_to_camera")
    assert cam.fx != pytest.approx(cam.fy)
    agree(wr.Sensor(scene, cam, num_envs=N).render(poses.astype(np.float32)), theirs)


# ---- IsaacGym camera sensors -----------------------------------------------------------------

def quat_apply_xyzw(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """gymapi.Quat.rotate: q = x, y, z, w."""
    return quat_apply_wxyz(np.concatenate([q[..., 3:], q[..., :3]], -1), v)


def isaacgym_render(scene: wr.Scene, root_states: np.ndarray, hfov_deg: float, mount_p, mount_r_xyzw,
                    near_plane: float, far_plane: float) -> np.ndarray:
    """IsaacGym's IMAGE_DEPTH of a camera attached to each body: an OpenGL perspective of
    horizontal fov hfov and aspect width/height (gym.get_camera_proj_matrix: P00 = 1/tan(hfov/2),
    P11 = P00 * width / height), rasterised at pixel centres; the camera's local frame looks
    along +x with +z up; the value is the view-space z of the hit (negative), -inf where
    nothing lies between the near and far planes."""
    p00 = 1.0 / math.tan(math.radians(hfov_deg) / 2)
    p11 = p00 * W / H
    u, v = np.meshgrid(np.arange(W), np.arange(H), indexing="xy")
    ndc_x = 2.0 * (u.ravel() + 0.5) / W - 1.0
    ndc_y = 1.0 - 2.0 * (v.ravel() + 0.5) / H
    view = np.stack([ndc_x / p00, ndc_y / p11, -np.ones(W * H)], 1)  # OpenGL view space: -z forward
    local = np.stack([-view[:, 2], -view[:, 0], view[:, 1]], 1)  # Gym camera frame: x fwd, y left, z up
    local /= np.linalg.norm(local, axis=1, keepdims=True)
    body_p, body_q = root_states[:, :3], root_states[:, 3:7]
    cam_p = body_p + quat_apply_xyzw(body_q, np.broadcast_to(mount_p, body_p.shape))
    mq = np.broadcast_to(np.asarray(mount_r_xyzw, float), body_q.shape)
    # camera_in_world = body * mount, composed as rotations of vectors
    dirs = quat_apply_xyzw(np.repeat(body_q[:, None], W * H, 1),
                           quat_apply_xyzw(np.repeat(mq[:, None], W * H, 1), np.broadcast_to(local, (len(body_p), W * H, 3))))
    # GL clips on the view-space depth: what is nearer than the near plane is not drawn (what
    # lies behind it shows), so the ray starts where it crosses that plane.
    t_near = near_plane / local[None, :, 0]
    starts = np.repeat(cam_p[:, None], W * H, 1) + t_near[..., None] * dirs
    t = t_near + trace(scene, starts, dirs)
    z_view = -t * local[None, :, 0]  # the hit's view-space z
    drawn = np.isfinite(t) & (-z_view <= far_plane)
    return np.where(drawn, z_view, -np.inf).reshape(len(body_p), H, W)


@pytest.mark.parametrize("hfov", [87.0, 60.0])
def test_isaacgym_camera_sensor(scene: wr.Scene, hfov: float) -> None:
    states = np.zeros((N, 13))
    states[:, :7] = random_poses(N, seed=9, order="xyzw")
    pitch = (0.0, math.sin(math.radians(7.5)), 0.0, math.cos(math.radians(7.5)))  # 15 degrees down, x y z w
    theirs = isaacgym_render(scene, states, hfov, (0.27, 0.0, 0.03), pitch, near_plane=0.0, far_plane=math.inf)
    cam = wr.rl.isaacgym_camera(W, H, hfov, mount_position=(0.27, 0.0, 0.03), mount_rotation=pitch)
    ours = wr.Sensor(scene, cam, num_envs=N).render(wr.rl.poses_from_root_states(states.astype(np.float32)))
    agree(-ours, theirs)  # IsaacGym's depth is negative; its -inf is our +inf
    # The vertical field of view of square pixels, not hfov * height / width:
    assert cam.vfov == pytest.approx(math.degrees(2 * math.atan(math.tan(math.radians(hfov) / 2) * H / W)))
    assert cam.vfov > hfov * H / W


def test_isaacgym_near_and_far_planes(scene: wr.Scene) -> None:
    states = np.zeros((N, 13))
    states[:, :7] = random_poses(N, seed=10, order="xyzw")
    down = (0.0, math.sin(math.radians(15)), 0.0, math.cos(math.radians(15)))
    theirs = isaacgym_render(scene, states, 87.0, (0.0, 0.0, 0.0), down, near_plane=0.6, far_plane=2.5)
    cam = wr.rl.isaacgym_camera(W, H, 87.0, near_plane=0.6, far_plane=2.5, mount_rotation=down)
    ours = wr.Sensor(scene, cam, num_envs=N).render(wr.rl.poses_from_root_states(states.astype(np.float32)))
    agree(-ours, theirs)
    assert np.isposinf(ours).any() and np.isfinite(ours).any()


def test_isaacgym_projection_matrix(scene: wr.Scene) -> None:
    # gym.get_camera_proj_matrix of a 60 degree camera gives the same intrinsics as its fov.
    p00 = 1.0 / math.tan(math.radians(30))
    proj = [[p00, 0, 0, 0], [0, p00 * W / H, 0, 0], [0, 0, 0, -1], [0, 0, 0.01, 0]]
    a = wr.rl.isaacgym_camera(W, H, 60.0)
    b = wr.rl.isaacgym_camera(W, H, 60.0, proj_matrix=proj)
    assert (b.fx, b.fy) == pytest.approx((a.fx, a.fy), rel=1e-6)


# ---- the before-and-after snippets of docs/porting.md ------------------------------------------

def _legged_gym_trimesh(heights: np.ndarray, horizontal_scale: float, vertical_scale: float):
    """legged_gym's terrain_utils.convert_heightfield_to_trimesh without a slope threshold:
    vertex (i, j) at (i hs, j hs, h[i, j] vs), two triangles per cell (its index order)."""
    rows, cols = heights.shape
    y, x = np.meshgrid(np.arange(cols) * horizontal_scale, np.arange(rows) * horizontal_scale)
    vertices = np.stack([x.ravel(), y.ravel(), heights.ravel() * vertical_scale], 1).astype(np.float32)
    triangles = np.zeros((2 * (rows - 1) * (cols - 1), 3), np.uint32)
    for i in range(rows - 1):
        ind0 = np.arange(0, cols - 1) + i * cols
        ind1, ind2 = ind0 + 1, ind0 + cols
        ind3 = ind2 + 1
        start, stop = 2 * i * (cols - 1), 2 * (i + 1) * (cols - 1)
        triangles[start:stop:2] = np.stack([ind0, ind3, ind1], 1)
        triangles[start + 1:stop:2] = np.stack([ind0, ind2, ind3], 1)
    return vertices, triangles


def test_the_porting_snippets_run() -> None:
    torch = pytest.importorskip("torch")
    import importlib.util
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "porting.md").read_text()
    blocks = re.findall(r"<!-- runs -->\n```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    rng = np.random.default_rng(1)
    heights = (rng.integers(0, 4, (40, 40)) * 20).astype(np.int16)
    terrain_vertices, terrain_triangles = _legged_gym_trimesh(heights, 0.1, 0.005)
    n = 4
    root_states = torch.zeros(n, 13)
    root_states[:, 0:2] = torch.from_numpy(rng.uniform(1.0, 3.0, (n, 2)).astype(np.float32))
    root_states[:, 2] = 0.8
    root_states[:, 6] = 1.0  # x y z w identity
    root_state_w = root_states.clone()
    root_state_w[:, 3], root_state_w[:, 6] = 1.0, 0.0  # w x y z identity
    stand_ins = {"terrain_vertices": terrain_vertices, "terrain_triangles": terrain_triangles, "num_envs": n,
                 "root_states": root_states,
                 "mesh_vertices": terrain_vertices, "mesh_faces": terrain_triangles, "root_state_w": root_state_w}
    isaacgym, isaaclab = ({**stand_ins} for _ in blocks[:2])
    exec(compile(blocks[0], "porting.md (IsaacGym)", "exec"), isaacgym)
    exec(compile(blocks[1], "porting.md (IsaacLab)", "exec"), isaaclab)
    assert isaacgym["scene"].terrain_kind == "grid"  # legged_gym's arrays are traced through their grid
    assert tuple(isaacgym["obs"].shape) == (n, 58, 87) and tuple(isaacgym["heights"].shape) == (n, 187)
    assert tuple(isaaclab["depth"].shape) == (n, 58, 87) and tuple(isaaclab["scan"].shape) == (n, 187)
    # The robots stand 0.8 m up over a field of 0 to 0.3 m: every scan ray hits, heights in range.
    for h in (isaacgym["heights"], isaaclab["scan"]):
        assert bool(((h > -0.1) & (h <= 0.31)).all())
    if importlib.util.find_spec("mujoco") is not None:
        model_path = str(pathlib.Path(__file__).resolve().parents[2] / "assets" / "mujoco" / "quadruped_parkour.xml")
        mj = {"model_path": model_path, "num_envs": n}
        exec(compile(blocks[2], "porting.md (MuJoCo)", "exec"), mj)
        assert mj["depth"].shape == (n, 60, 106)
        assert np.isfinite(mj["depth"]).mean() > 0.5  # the terrain fills the view
