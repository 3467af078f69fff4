"""Helpers for RL training loops: poses from simulator state tensors, cameras set up as
IsaacGym's camera sensors, IsaacLab's RayCasterCamera and extreme-parkour's depth camera are,
and height scans as IsaacLab's RayCaster and legged_gym's measured heights observe them.

docs/porting.md maps every setting of those sensors to this library's; python/tests/
test_porting.py holds each mapping by building the other convention's rays from its own
formulas and comparing.

Poses and copies: :meth:`warp_raycaster.Sensor.render` reads simulator state in place: a
contiguous (num_envs, 13) root state tensor, or (num_envs, bodies, 13) rigid-body states with
``inputs=wr.RenderInputs(body=b)``, pass straight to it with no copy. The helpers below are for layouts it cannot read as
they are (positions and quaternions held apart), and for users who want a packed (num_envs, 7).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple

from . import _frameworks
from ._camera import Camera
from ._scene import Scene
from .pipeline import Pipeline
from .ray_sensor import Pattern, RaySensor
from ._errors import _invalid

__all__ = [
    "extreme_parkour_camera",
    "extreme_parkour_pipeline",
    "isaacgym_camera",
    "isaaclab_camera",
    "isaaclab_height_scan",
    "isaaclab_lidar",
    "legged_gym_height_scan",
    "poses_from_pos_quat",
    "poses_from_root_states",
]


# ---- poses -----------------------------------------------------------------------------------


def _is_contiguous_f32(a: Any) -> bool:
    kind = _frameworks.framework(a)
    if kind == "torch":
        import torch

        return a.dtype == torch.float32 and a.is_contiguous()
    if kind in ("numpy", "cupy"):
        return str(a.dtype) == "float32" and bool(a.flags.c_contiguous)
    return False


def _out_for(where: str, src: Any, n: int, out: Any) -> Any:
    if out is not None:
        if tuple(out.shape) != (n, 7):
            raise _invalid(where, f"out has shape {tuple(out.shape)}, expected (num_envs, 7) = ({n}, 7)")
        return out
    kind = _frameworks.framework(src)
    if kind == "torch":
        import torch

        return torch.empty((n, 7), dtype=torch.float32, device=src.device)
    if kind == "cupy":
        import cupy

        return cupy.empty((n, 7), dtype="float32")
    import numpy

    return numpy.empty((n, 7), dtype="float32")


def poses_from_root_states(root_states: Any, out: Any = None) -> Any:
    """Body poses (num_envs, 7) from root states (num_envs, >= 7): position (3) then the
    quaternion (4), as both IsaacGym's root state tensor (num_envs, 13: position, quaternion
    x y z w, linear and angular velocity; use a sensor with quat_order='xyzw') and IsaacLab's
    ``root_state_w`` (num_envs, 13, quaternion w x y z; quat_order='wxyz') lay them out, or
    MuJoCo's free-joint ``qpos`` rows (x y z, then w x y z).

    Sensor.render takes a contiguous (num_envs, 13) root state tensor itself, with no copy; this
    copies columns 0..6 into `out` ((num_envs, 7) float32, allocated beside root_states when None;
    pass the same buffer every step and nothing is allocated) for code that wants packed poses.
    An input that already is a contiguous float32 (num_envs, 7) is returned as it is, no copy.
    Works on torch tensors, NumPy and CuPy arrays, on any device. Returns the poses.

    For IsaacGym's tensor of every actor, select the robots first, e.g.
    ``root_states.view(num_envs, num_actors, 13)[:, 0]``.
    """
    where = "rl.poses_from_root_states"
    shape = tuple(root_states.shape)
    if len(shape) != 2 or shape[1] < 7:
        raise _invalid(where, f"root_states has shape {shape}, expected (num_envs, >= 7)")
    if shape[1] == 7 and out is None and _is_contiguous_f32(root_states):
        return root_states
    out = _out_for(where, root_states, shape[0], out)
    out[...] = root_states[:, :7]
    return out


def poses_from_pos_quat(positions: Any, quaternions: Any, out: Any = None) -> Any:
    """Body poses (num_envs, 7) from positions (num_envs, 3) and quaternions (num_envs, 4) held
    apart (IsaacLab's ``root_pos_w`` and ``root_quat_w``, w x y z; MuJoCo's ``xpos`` and
    ``xquat``, w x y z): copied side by side into `out` ((num_envs, 7) float32, allocated when
    None; reuse it every step). The quaternion order is kept: use a sensor whose quat_order
    matches (IsaacLab, MuJoCo: 'wxyz'). Returns the poses."""
    where = "rl.poses_from_pos_quat"
    p, q = tuple(positions.shape), tuple(quaternions.shape)
    if len(p) != 2 or p[1] != 3 or len(q) != 2 or q[1] != 4 or p[0] != q[0]:
        raise _invalid(where, f"positions {p} and quaternions {q}: expected (num_envs, 3) and (num_envs, 4)")
    out = _out_for(where, positions, p[0], out)
    out[:, 0:3] = positions
    out[:, 3:7] = quaternions
    return out


# ---- quaternion helpers (w, x, y, z), for mounts --------------------------------------------


def _qmul(a: Sequence[float], b: Sequence[float]) -> Tuple[float, float, float, float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def _quat_from_matrix(m: Sequence[Sequence[float]]) -> Tuple[float, float, float, float]:
    # Shepperd's method (J. Guidance and Control 1(3), 1978): the largest of the four squares.
    t = m[0][0] + m[1][1] + m[2][2]
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        return (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    if m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2])
        return ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    if m[1][1] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2])
        return ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    s = 2.0 * math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1])
    return ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)


# This library's camera frame (IsaacLab's "world" convention) is x forward, y left, z up. The
# columns of each matrix are those three axes written in the other convention's camera frame:
#   ros    (x right, y down, z forward): forward = +z, left = -x, up = -y
#   opengl (x right, y up, z backward):  forward = -z, left = -x, up = +y
# so R_ours = R_theirs * M, i.e. mount = offset_rot * q(M).
_CONVENTION_FIX = {
    "world": (1.0, 0.0, 0.0, 0.0),
    "ros": _quat_from_matrix(((0.0, -1.0, 0.0), (0.0, 0.0, -1.0), (1.0, 0.0, 0.0))),
    "opengl": _quat_from_matrix(((0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (-1.0, 0.0, 0.0))),
}


def _pitch_wxyz(pitch_deg: float) -> Tuple[float, float, float, float]:
    # About the body's +Y axis: a positive pitch turns +X (forward) towards -Z, i.e. looks down.
    half = math.radians(pitch_deg) / 2.0
    return (math.cos(half), 0.0, math.sin(half), 0.0)


def _in_order(q_wxyz: Sequence[float], order: str) -> Tuple[float, float, float, float]:
    w, x, y, z = q_wxyz
    return (w, x, y, z) if order == "wxyz" else (x, y, z, w)


# ---- cameras -------------------------------------------------------------------------------


def extreme_parkour_camera(pitch_deg: float = 0.0, *, quat_order: str, far: float = 2.0,
                           **settings: Any) -> Camera:
    """The depth camera of extreme-parkour (Cheng et al., "Extreme Parkour with Legged Robots",
    ICRA 2024; its legged_gym config ``depth``): 106 x 60 pixels, 87 degrees horizontal field
    of view, mounted 0.27 m ahead of and 0.03 m above the base, pitched by `pitch_deg` (that
    config draws it per env from [-5, 5] degrees; positive looks down).

    Depth is 'plane' (IsaacGym's, sign flipped to positive), and misses read `far` (its far_clip,
    2 m; IsaacGym's -inf clipped by ``torch.clip(depth, -far, -near)``). With
    :func:`extreme_parkour_pipeline` a sensor's output is what its policy reads; per-env pitches
    go in as ``mounts=`` of the render. quat_order is required, because the policy runs on more
    than one simulator: 'xyzw' for IsaacGym's root states (extreme-parkour's own), 'wxyz' for
    IsaacLab's, MuJoCo's and this library's default; a wrong order gives no error, only wrong
    images. Other Camera settings as keywords."""
    return Camera.pinhole(106, 60, 87.0, mount_position=(0.27, 0.0, 0.03),
                          mount_rotation=_in_order(_pitch_wxyz(pitch_deg), quat_order), quat_order=quat_order,
                          depth="plane", near=0.0, far=far, miss_value=far, **settings)


def extreme_parkour_pipeline(*, far: float = 2.0, history: int = 2, dis_noise: float = 0.0) -> "Pipeline":
    """extreme-parkour's ``process_depth_image`` and depth buffer, fused into the render: crop
    ``[:-2, 4:-4]`` (98 x 58 of the 106 x 60 image), clip to [0, far], torchvision's
    ``Resize((58, 87), BICUBIC)`` on a tensor without antialiasing (= ``interpolate(mode=
    "bicubic", align_corners=False)``), ``(d - 0) / (far - 0) - 0.5``, no clamp (so the bicubic
    overshoot past +-0.5 is kept, as there), and a history of `history` frames (its buffer_len 2;
    render with ``latency=1`` for the previous frame it feeds the policy). dis_noise: its per-env
    offset of every pixel, uniform in [-dis_noise, dis_noise] per frame. Use with
    :func:`extreme_parkour_camera`; the output is (num_envs, 58, 87) float32."""
    from .pipeline import Noise, Pipeline

    return Pipeline(crop=(4, 0, 98, 58), out_size=(87, 58), resample="bicubic", clip=(0.0, far),
                    normalize=(0.0, far, -0.5), history=history, noise=Noise(env_offset=dis_noise))


def isaacgym_camera(width: int, height: int, horizontal_fov: float, *, near_plane: float = 0.0,
                    far_plane: float = math.inf, mount_position: Sequence[float] = (0.0, 0.0, 0.0),
                    mount_rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0), proj_matrix: Any = None) -> Camera:
    """A camera that sees what an IsaacGym camera sensor (``gymapi.CameraProperties``, attached
    with ``attach_camera_to_body``) sees, with positive depth.

    IsaacGym's image is the negative z-depth: ``gym_depth = -depth`` of this camera, and
    pixels with nothing within the far plane read -inf there (+inf here). ``horizontal_fov``
    is in degrees (the property is degrees, whatever its docstring says); pixels are square,
    so the vertical field of view is 2 atan(tan(hfov / 2) * height / width), not
    hfov * height / width. ``proj_matrix`` (``gym.get_camera_proj_matrix``, 4 x 4), when
    given, sets fx = P[0][0] * width / 2 and fy = P[1][1] * height / 2 instead, exactly as
    that camera renders. The mount is the camera's local transform in the body (position,
    quaternion x y z w as ``gymapi.Quat``); poses are IsaacGym root states (quat_order
    'xyzw'). near_plane / far_plane clip as IsaacGym's do: nearer geometry is not drawn,
    farther reads as a miss.
    """
    camera = Camera.pinhole(width, height, horizontal_fov, quat_order="xyzw", depth="plane", near=near_plane,
                            far=far_plane, mount_position=tuple(mount_position), mount_rotation=tuple(mount_rotation))
    if proj_matrix is not None:
        camera = camera.replace(fx=float(proj_matrix[0][0]) * width / 2.0, fy=float(proj_matrix[1][1]) * height / 2.0)
    return camera


def isaaclab_camera(width: int, height: int, *, focal_length: float = 24.0, horizontal_aperture: float = 20.955,
                    vertical_aperture: Optional[float] = None, horizontal_aperture_offset: float = 0.0,
                    vertical_aperture_offset: float = 0.0, offset_pos: Sequence[float] = (0.0, 0.0, 0.0),
                    offset_rot: Sequence[float] = (1.0, 0.0, 0.0, 0.0), convention: str = "ros",
                    data_type: str = "distance_to_image_plane", depth_clipping_behavior: str = "none",
                    max_distance: float = 1e6) -> Camera:
    """A camera equal to an IsaacLab ``RayCasterCamera`` with a ``PinholeCameraPatternCfg``
    (the arguments are those config fields, with their defaults).

    Intrinsics as that pattern computes them: fx = width * focal_length / horizontal_aperture,
    fy = height * focal_length / vertical_aperture (vertical_aperture None keeps square pixels:
    horizontal_aperture * height / width), cx = horizontal_aperture_offset * fx + width / 2,
    cy = vertical_aperture_offset * fy + height / 2; rays through pixel centres.
    ``offset_rot`` (w x y z) is read in `convention` ('ros', 'opengl' or 'world') and turned
    into this library's camera frame (its 'world' convention: x forward, y left, z up).
    'distance_to_image_plane' is depth 'plane', 'distance_to_camera' is 'range'.
    depth_clipping_behavior: 'none' keeps every hit, misses NaN (image plane) or +inf (camera);
    'max' reports max_distance beyond it and for misses; 'zero' reports 0 there.
    Poses: IsaacLab's w x y z (quat_order 'wxyz')."""
    where = "rl.isaaclab_camera"
    if convention not in _CONVENTION_FIX:
        raise _invalid(where, f"convention = {convention!r}: must be 'ros', 'opengl' or 'world'")
    kinds = {"distance_to_image_plane": "plane", "distance_to_camera": "range"}
    if data_type not in kinds:
        raise _invalid(where, f"data_type = {data_type!r}: must be 'distance_to_image_plane' or 'distance_to_camera'")
    if vertical_aperture is None:
        vertical_aperture = horizontal_aperture * height / width
    fx = width * focal_length / horizontal_aperture
    fy = height * focal_length / vertical_aperture
    cx = horizontal_aperture_offset * fx + width / 2.0
    cy = vertical_aperture_offset * fy + height / 2.0
    if depth_clipping_behavior == "none":
        far, miss = math.inf, (math.nan if data_type == "distance_to_image_plane" else math.inf)
    elif depth_clipping_behavior == "max":
        far, miss = max_distance, max_distance
    elif depth_clipping_behavior == "zero":
        far, miss = max_distance, 0.0
    else:
        raise _invalid(where, f"depth_clipping_behavior = {depth_clipping_behavior!r}: must be 'none', 'max' or 'zero'")
    mount = _qmul(tuple(float(v) for v in offset_rot), _CONVENTION_FIX[convention])
    return Camera(width=width, height=height, fx=fx, fy=fy, cx=cx, cy=cy, near=0.0, far=far, miss_value=miss,
                  depth=kinds[data_type], quat_order="wxyz", mount_position=tuple(offset_pos), mount_rotation=mount)


# ---- height scans --------------------------------------------------------------------------


def isaaclab_height_scan(scene: Scene, num_envs: int, *, size: Sequence[float] = (1.6, 1.0),
                         resolution: float = 0.1, lift: float = 20.0, offset: float = 0.5,
                         max_distance: float = 1e6, quat_order: str = "wxyz", **settings: Any) -> RaySensor:
    """IsaacLab's height scanner and its ``height_scan`` observation, in one sensor: the
    locomotion tasks' ``RayCasterCfg(offset=OffsetCfg(pos=(0, 0, 20)), ray_alignment="yaw",
    pattern_cfg=GridPatternCfg(resolution=0.1, size=[1.6, 1.0]), max_distance=1e6)`` attached to
    the base, read by ``mdp.height_scan(offset=0.5)`` = sensor z - hit z - 0.5 and clipped to
    [-1, 1] by the observation term's ``clip=(-1.0, 1.0)``. A ray that hits nothing reads -1 (IsaacLab's
    hit is inf there, its height -inf, clipped). Renders (num_envs, 187) from root poses
    (num_envs, 7 or 13, w x y z: ``root_state_w``). Other RaySensor settings as keywords."""
    return RaySensor(scene, Pattern.grid(size=size, resolution=resolution), num_envs, alignment="yaw",
                     yaw_rule="isaaclab", offset_position=(0.0, 0.0, lift), value="height", height_offset=offset,
                     max_distance=max_distance, miss_value=-1.0, quat_order=quat_order,
                     pipeline=Pipeline(clip=(-1.0, 1.0)), **settings)


def legged_gym_height_scan(scene: Scene, num_envs: int, *, measured_points_x: Sequence[float] = tuple(
        round(-0.8 + 0.1 * i, 1) for i in range(17)), measured_points_y: Sequence[float] = tuple(
        round(-0.5 + 0.1 * i, 1) for i in range(11)), lift: float = 20.0, quat_order: str = "xyzw",
        **settings: Any) -> RaySensor:
    """legged_gym's measured heights (``LeggedRobot._get_heights`` with the default
    ``measured_points_x`` and ``_y``), as rays: the points meshgrid(x, y) (indexing 'ij': y
    fastest) turned by the base's heading (``quat_apply_yaw``), each traced straight down from
    `lift` above the base. The observation ``clip(root z - 0.5 - heights, -1, 1) * 5`` is then
    ``clip(render, -1, 1) * 5`` of this sensor's heights (root z - hit z - 0.5). legged_gym reads the
    heights from its height field's samples at the points (the nearest samples' minimum), not a
    ray: on a triangle mesh of the same field the two differ between samples. Renders
    (num_envs, 187) from IsaacGym root states (num_envs, 13, x y z w)."""
    xs = [float(x) for x in measured_points_x]
    ys = [float(y) for y in measured_points_y]
    starts = [(x, y, lift) for x in xs for y in ys]
    import numpy as np

    return RaySensor(scene, Pattern.table(np.tile(np.float32([0, 0, -1]), (len(starts), 1)),
                                          np.asarray(starts, np.float32)), num_envs, alignment="yaw",
                     yaw_rule="isaaclab", value="height", height_offset=0.5, miss_value=-1.0, quat_order=quat_order,
                     pipeline=Pipeline(clip=(-1.0, 1.0)), **settings)


def isaaclab_lidar(scene: Scene, num_envs: int, *, channels: int = 32,
                   vertical_fov_range: Sequence[float] = (-15.0, 15.0),
                   horizontal_fov_range: Sequence[float] = (-180.0, 180.0), horizontal_res: float = 0.2,
                   max_distance: float = 1e6, offset_pos: Sequence[float] = (0.0, 0.0, 0.0),
                   offset_rot: Sequence[float] = (1.0, 0.0, 0.0, 0.0), ray_alignment: str = "base",
                   quat_order: str = "wxyz", **settings: Any) -> RaySensor:
    """IsaacLab's ``RayCasterCfg`` with a ``LidarPatternCfg`` (the arguments are those config
    fields, with their defaults): channels evenly over vertical_fov_range, azimuths by
    ``lidar_pattern``'s rule (the duplicate at 360 degrees dropped), ``offset`` as the pattern
    frame's (``offset_pos`` added to the starts, ``offset_rot`` w x y z turning the directions, as
    its ``_initialize_rays_impl`` does), ray_alignment 'base', 'yaw' (IsaacLab's rule) or
    'world'. Renders distances (num_envs, rays), +inf where nothing is hit within max_distance
    (IsaacLab's ``ray_hits_w`` are inf there). Other RaySensor settings as keywords."""
    pattern = Pattern.spherical(channels=channels, vertical_fov=tuple(vertical_fov_range),
                                horizontal_fov=tuple(horizontal_fov_range), horizontal_resolution=horizontal_res)
    return RaySensor(scene, pattern, num_envs, alignment=ray_alignment, yaw_rule="isaaclab",
                     offset_position=tuple(offset_pos), offset_rotation=_in_order(tuple(offset_rot), quat_order),
                     max_distance=max_distance, quat_order=quat_order, **settings)
