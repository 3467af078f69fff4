"""What a render takes besides its poses (:class:`RenderInputs`) and what :meth:`Sensor.render_hits`
returns (:class:`Hits`); the keywords ``Sensor.render`` took before 0.7, each with its new spelling."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields
from typing import Any, Dict, NamedTuple, Optional, Tuple

from ._errors import _invalid


@dataclass
class RenderInputs:
    """A render's per-env inputs (``wr_render_args``; each None, or an array on the context's
    device, C-contiguous, read in place), for :meth:`Sensor.render` and :meth:`Sensor.render_hits`.

    The RL pipeline's: ``intrinsics`` (num_envs, 4) float32 fx, fy, cx, cy per env, or
    (num_envs, 3, 3) K matrices (IsaacLab's ``set_intrinsic_matrices``: fx = K[0, 0], fy = K[1, 1],
    cx = K[0, 2], cy = K[1, 2]; a skew or a last row other than (0, 0, 1) is refused where the
    matrices are in host memory; the four values are gathered into a new (num_envs, 4) array per
    call: pass (num_envs, 4) to avoid that copy); ``mounts`` (num_envs, 7) each env's sensor pose in
    its body frame (position, quaternion in the sensor's quat_order); ``latency`` (num_envs,) int32
    frames ago (< the pipeline's history), or one int for every env; ``update_mask`` (num_envs,)
    bool: False leaves that env's output and history untouched; ``reset_mask`` (num_envs,) bool:
    True fills that env's history with this frame.

    Written by the render where given: ``bad_env_mask`` (num_envs,) bool and ``bad_env_count``
    (1,) int32, the envs whose pose, mount or intrinsics were bad (the pipeline's
    isolate_bad_poses).

    Instanced scenes (:meth:`Scene.instanced`): ``instance_poses`` (num_envs, num_slots, 7) float32,
    each env's instances in the world (position, then a quaternion in the sensor's quat_order: the
    rows of IsaacLab's ``body_link_pose_w[:, body_ids]``, or MuJoCo's ``xpos`` and ``xquat``
    concatenated), needed when the scene has slots; ``global_poses`` (num_globals, 7) float32,
    needed when it has global instances.

    ``body``: with rigid-body states (num_envs, bodies, 13) as the poses, the body the sensor rides.
    """

    intrinsics: Any = None
    mounts: Any = None
    latency: Any = None
    update_mask: Any = None
    reset_mask: Any = None
    bad_env_mask: Any = None
    bad_env_count: Any = None
    instance_poses: Any = None
    global_poses: Any = None
    body: Optional[int] = None


class Hits(NamedTuple):
    """What each output pixel (a camera's pixel, a pattern sensor's ray) of a render hit
    (:meth:`Sensor.render_hits`): arrays in the framework and on the device of the poses, shaped
    as the output plus, for points and normals, a last axis of 3; each the pixel's own ray as the
    render traced it, before noise (mujoco_warp's ``(dist, geomid, normal)``, IsaacLab's
    ``RayCasterCamera`` ``normals`` and ``RayCaster`` ``ray_hits_w``)."""

    values: Any        #: the render's output (``out``): depth, distance or height in the output's dtype
    points: Any        #: float32, where the ray hit, origin + t dir (the sensor's hit_frame); +inf for a miss
    normals: Any       #: float32, the hit triangle's unit normal facing the ray (hit_frame); 0 for a miss
    triangle_ids: Any  #: int32, the triangle within its mesh (the terrain's or the instance's); -1 for a miss
    instance_ids: Any  #: int32, the instance hit; -1 for the terrain or a miss


# The channels a render writes, as the binding names them, and their trailing dims and dtype.
CHANNELS: Tuple[Tuple[str, str, Tuple[int, ...], str], ...] = (
    ("points", "hit_points", (3,), "float32"),
    ("normals", "hit_normals", (3,), "float32"),
    ("triangle_ids", "triangle_ids", (), "int32"),
    ("instance_ids", "instance_ids", (), "int32"),
)

_INPUT_NAMES = tuple(f.name for f in fields(RenderInputs))
_CHANNEL_NAMES = tuple(c[1] for c in CHANNELS)


def deprecated_keywords(where: str, inputs: Optional[RenderInputs], kwargs: Dict[str, Any],
                        allowed: Tuple[str, ...] = ()) -> Tuple[RenderInputs, Dict[str, Any], Dict[str, Any]]:
    """Sorts the keywords ``render`` took before 0.7 (each with a DeprecationWarning that names its
    new spelling): the per-env ones into a copy of `inputs`; the channels (``instance_ids``,
    ``triangle_ids``, ``hit_points``, ``hit_normals``) and ``return_ids``, ``quat_order`` and the
    names in `allowed` into two dicts. An unknown keyword is a TypeError, as Python's own."""
    merged = RenderInputs(**{n: getattr(inputs, n) for n in _INPUT_NAMES}) if inputs is not None else RenderInputs()
    channels: Dict[str, Any] = {}
    other: Dict[str, Any] = {}
    for name, value in kwargs.items():
        if name in _INPUT_NAMES:
            _warn(where, name, f"inputs=wr.RenderInputs({name}=...)")
            if inputs is not None and getattr(inputs, name) is not None:
                raise _invalid(where, f"{name} is given both as a keyword and in inputs")
            setattr(merged, name, value)
        elif name in _CHANNEL_NAMES:
            _warn(where, name, f"render_hits(...), whose Hits holds {name} (hits=wr.Hits(...) to write into yours)")
            channels[name] = value
        elif name == "return_ids":
            _warn(where, name, "render_hits(...).instance_ids")
            other[name] = value
        elif name == "quat_order":
            _warn(where, name, "layout='poses_wxyz' or 'poses_xyzw' (or a simulator's layout)")
            other[name] = value
        elif name in allowed:
            other[name] = value
        else:
            raise TypeError(f"{where}() got an unexpected keyword argument {name!r}")
    return merged, channels, other


def _warn(where: str, name: str, instead: str) -> None:
    warnings.warn(f"{where}({name}=...) is deprecated since 0.7 and goes in 0.8: use {instead}",
                  DeprecationWarning, stacklevel=4)
