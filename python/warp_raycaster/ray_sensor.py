"""Ray patterns and pattern sensors: height scanners and LiDARs (wr_patterns.h).

A :class:`Pattern` is made once (a grid, a spherical LiDAR pattern or a table of rays) and a
:class:`RaySensor` traces it for every env from the env's pose alone: per env the library holds
nothing, and a render writes ``(num_envs, num_rays)`` values (distances, or heights as IsaacLab's
``height_scan``) through the same pipeline options as a camera (clip, normalise, dtype, history,
latency, update masks; noise on distances)::

    import warp_raycaster as wr
    scan = wr.RaySensor(scene, wr.Pattern.grid(size=(1.6, 1.0), resolution=0.1), num_envs=4096,
                        alignment="yaw", offset_position=(0, 0, 20), value="height", height_offset=0.5)
    heights = scan.render(root_poses)                          # (4096, 187)
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _wr
from ._args import _ORDER, _group_mask
from ._errors import _invalid
from ._render_args import Hits, RenderInputs, deprecated_keywords
from ._scene import Scene
from ._sensor import Sensor
from .pipeline import Pipeline
from ._wr import Dtype

_ORDERING = {"xy": 0, "ij": 1}
_COUNT_RULE = {"isaaclab": 0, "mjlab": 1}
_PLANE = {"xy": 0, "normal": 1}
_SPHERICAL_ORDER = {"channel": 0, "azimuth": 1}
_ALIGNMENT = {"base": 0, "yaw": 1, "world": 2}
_YAW_RULE = {"isaaclab": 0, "mjlab": 1}
_VALUE = {"distance": 0, "height": 1}
_HIT_FRAME = {"world": 0, "sensor": 1, "pattern": 1}


def _choice(where: str, name: str, value: str, choices: dict) -> int:
    if value not in choices:
        raise _invalid(where, f"{name} = {value!r}: must be one of {', '.join(repr(c) for c in choices)}")
    return choices[value]


class Pattern:
    """A set of rays in the pattern frame (+X forward, +Y left, +Z up): a start and a unit
    direction each (``wr_pattern``). Made by :meth:`grid`, :meth:`spherical` or :meth:`table`;
    copied into each :class:`RaySensor` made from it."""

    def __init__(self, handle: "_wr.Pattern") -> None:
        self._h = handle

    @classmethod
    def grid(cls, size: Sequence[float] = (1.6, 1.0), resolution: float = 0.1,
             direction: Sequence[float] = (0.0, 0.0, -1.0), *, ordering: str = "xy", count_rule: str = "isaaclab",
             plane: str = "xy") -> "Pattern":
        """Parallel rays from a grid of starts (a height scan): IsaacLab's ``GridPatternCfg``.

        size: (x, y) in metres; resolution: the spacing; direction: the rays' (normalised).
        ordering: 'xy' (x fastest, IsaacLab's default) or 'ij' (torch.meshgrid's default: y fastest,
        legged_gym's measured points). count_rule: 'isaaclab' (``arange(-s/2, s/2 + 1e-9, res)``:
        1.6 x 1.0 at 0.1 gives 187 rays) or 'mjlab' (``arange(-s/2, s/2 + res/2, res)``). plane: 'xy'
        (the starts in the frame's z = 0 plane, as both peers) or 'normal' (normal to the direction)."""
        where = "Pattern.grid"
        if len(size) != 2:
            raise _invalid(where, f"size has {len(size)} values, expected 2 (x, y)")
        if len(direction) != 3:
            raise _invalid(where, f"direction has {len(direction)} values, expected 3")
        return cls(_wr.Pattern.grid(float(size[0]), float(size[1]), float(resolution),
                                    _choice(where, "ordering", ordering, _ORDERING),
                                    _choice(where, "count_rule", count_rule, _COUNT_RULE),
                                    _choice(where, "plane", plane, _PLANE), tuple(float(x) for x in direction)))

    @classmethod
    def spherical(cls, channels: int = 16, vertical_fov: Sequence[float] = (-15.0, 15.0),
                  horizontal_fov: Sequence[float] = (-180.0, 180.0), horizontal_resolution: float = 0.2, *,
                  vertical_angles: Optional[Iterable[float]] = None, horizontal_count: int = 0,
                  order: str = "channel") -> "Pattern":
        """Rays from the origin over elevation x azimuth, degrees: IsaacLab's ``LidarPatternCfg``
        (16 channels over +-15 degrees at 0.2 degrees over 360: 28,800 rays).

        Elevations: `channels` evenly over vertical_fov, or `vertical_angles` as given (Bpearl,
        VLP-32). Azimuths over horizontal_fov: `horizontal_count` evenly, or with 0 IsaacLab's rule,
        ceil(range / resolution) + 1; the last is dropped where the range is 360 degrees. order:
        'channel' (ray c * azimuths + a: lidar_pattern) or 'azimuth' (ray a * channels + c:
        bpearl_pattern). Direction (cos e cos a, cos e sin a, sin e)."""
        where = "Pattern.spherical"
        angles = None
        if vertical_angles is not None:
            angles = [float(a) for a in vertical_angles]
            channels = len(angles)
        if len(vertical_fov) != 2 or len(horizontal_fov) != 2:
            raise _invalid(where, "vertical_fov and horizontal_fov are (min, max) pairs of degrees")
        return cls(_wr.Pattern.spherical(int(channels), float(vertical_fov[0]), float(vertical_fov[1]), angles,
                                         float(horizontal_fov[0]), float(horizontal_fov[1]),
                                         float(horizontal_resolution), int(horizontal_count),
                                         _choice(where, "order", order, _SPHERICAL_ORDER)))

    @classmethod
    def bpearl(cls, vertical_angles: Iterable[float], horizontal_fov: float = 360.0,
               horizontal_resolution: float = 10.0) -> "Pattern":
        """IsaacLab's ``BpearlPatternCfg``: azimuth-major rays at the given elevations (degrees),
        IsaacLab's azimuths ``arange(-fov/2, fov/2, res)`` turned by 180 degrees as its directions
        are (``-(sin(v + 90) cos h, sin(v + 90) sin h, cos(v + 90))``)."""
        count = int(math.ceil(horizontal_fov / horizontal_resolution))
        if abs(horizontal_fov - 360.0) < 1e-6:
            return cls.spherical(vertical_angles=vertical_angles, horizontal_fov=(0.0, 360.0),
                                 horizontal_count=count + 1, order="azimuth")
        end = -horizontal_fov / 2 + horizontal_resolution * (count - 1)
        return cls.spherical(vertical_angles=vertical_angles, horizontal_fov=(180.0 - horizontal_fov / 2, 180.0 + end),
                             horizontal_count=count, order="azimuth")

    @classmethod
    def rosette(cls, fov: float = 38.4, count: int = 100_000, revolutions: Sequence[float] = (0.0121, -0.0077)
                ) -> "Pattern":
        """A non-repetitive rosette of two counter-rotating prisms (the Risley-prism principle of
        Livox's Mid-40 and Avia): `count` rays within a cone of `fov` degrees, ray k deflected by
        fov / 4 degrees by each prism, the prisms at 2 pi k revolutions[i]. Read a window of it per
        frame with ``RaySensor(..., rays_per_frame=...)``. The defaults draw a rosette of that kind;
        they are not a vendor's calibrated figures."""
        if len(revolutions) != 2:
            raise _invalid("Pattern.rosette", f"revolutions has {len(revolutions)} values, expected 2")
        return cls(_wr.Pattern.rosette(float(fov), int(count), float(revolutions[0]), float(revolutions[1])))

    @classmethod
    def table(cls, directions: Any, starts: Any = None) -> "Pattern":
        """The caller's rays: directions (num_rays, 3) float32 (normalised here; none may be zero)
        and starts (num_rays, 3) float32 or None (the origin), host arrays; copied."""
        return cls(_wr.Pattern.table(directions, starts))

    @property
    def num_rays(self) -> int:
        return self._h.num_rays

    def rays(self) -> Tuple[np.ndarray, np.ndarray]:
        """(starts, directions), each (num_rays, 3) float32, in the pattern frame."""
        starts = np.empty((self.num_rays, 3), np.float32)
        directions = np.empty((self.num_rays, 3), np.float32)
        self._h.rays(starts, directions)
        return starts, directions

    def __repr__(self) -> str:
        return f"warp_raycaster.Pattern(num_rays={self.num_rays})"


class RayHits(NamedTuple):
    """What each ray of a :class:`RaySensor` render hit, beside its value (``return_hits=True``,
    deprecated since 0.7: :meth:`Sensor.render_hits` returns a :class:`Hits`, values included, for
    cameras and pattern sensors alike): arrays in the framework and on the device of the poses,
    shaped as the output plus, for points and normals, a last axis of 3."""

    points: Any        #: where the ray hit, start + t dir (the sensor's hit_frame); +inf for a miss
    normals: Any       #: the hit triangle's unit normal facing the ray (hit_frame); 0 for a miss
    triangle_ids: Any  #: int32, the triangle within its mesh (the terrain's or the instance's); -1 for a miss
    instance_ids: Any  #: int32, the instance hit; -1 for the terrain or a miss


class RaySensor(Sensor):
    """num_envs copies of a pattern sensor sharing one :class:`Pattern` and one :class:`Scene`
    (``wr_sensor_create_pattern``). Ray i of env e starts at ``S.pos + A (start_i + offset_position)``
    and runs along ``A (offset_rotation dir_i)`` (the directions stay world-fixed under 'world'
    and IsaacLab's 'yaw'), S being the body pose times the mount and A the alignment's rotation:

    alignment: 'base' (S's rotation), 'yaw' (its heading only) or 'world' (none); yaw_rule:
    'isaaclab' (the starts turned by the heading, the directions not: IsaacLab's RayCaster) or
    'mjlab' (both turned, with mjlab's fallback near +-90 degrees of pitch). offset_position:
    IsaacLab's ``cfg.offset.pos`` (a height scanner's 20 m lift); mount_*: the sensor in the body
    frame. value: 'distance' (along the ray, metres) or 'height' (S.pos.z - hit z - height_offset,
    IsaacLab's ``height_scan``). Hits count with t in [min_distance, max_distance]; a ray without
    one reads `miss_value`. A :class:`Pipeline` (dtype, clip, normalisation, history, latency,
    noise on distances) applies as for a camera; crop, resampling and edge noise do not.

    Scanning: with ``rays_per_frame`` > 0 each render traces a window of that many of the pattern's
    rays (a :meth:`Pattern.rosette`, or any pattern), env e's starting at ``(frame *
    rays_per_frame + phase_e) % num_rays`` with ``frame`` the render's ``frame=``; phase_e is 0
    (``scan_phase='zero'``, every env in step) or a hash of (scan_seed, e) (``'hashed'``).

    :meth:`render` takes the same poses and per-env arrays as :meth:`Sensor.render` (mounts;
    no intrinsics) and writes ``(num_envs, num_rays)``.

    Several frames per env on one pattern (mjlab's per-foot scans): ``frame_mounts`` (one 7-float
    mount per frame) and/or ``frame_pose_offsets`` (floats into each env's pose record of each
    frame's body pose: None packs them, poses (num_envs, num_frames, 7); with rigid-body states
    (num_envs, bodies, 13) give ``13 * body`` per frame and render with no ``body`` set, the
    state as it is). The output is then (num_envs, num_frames, num_rays) and per-env ``mounts=``
    are refused.

    Hit details (:meth:`render_hits`: a :class:`Hits`): each ray's hit point and surface normal
    (in the world, or with ``hit_frame='sensor'``, also spelled ``'pattern'``, in the aligned frame
    the starts are in: IsaacLab's ``ray_hits_w`` is the world's), the triangle and the instance it
    hit, as the render traced them (before noise); sensors without history only.
    """

    def __init__(self, scene: Scene, pattern: Pattern, num_envs: int = 1, *, alignment: str = "base",
                 yaw_rule: str = "isaaclab", mount_position: Sequence[float] = (0.0, 0.0, 0.0),
                 mount_rotation: Optional[Sequence[float]] = None,
                 offset_position: Sequence[float] = (0.0, 0.0, 0.0),
                 offset_rotation: Optional[Sequence[float]] = None, min_distance: float = 0.0,
                 max_distance: float = math.inf, value: str = "distance", height_offset: float = 0.0,
                 miss_value: float = math.inf, quat_order: str = "wxyz", pipeline: Optional[Pipeline] = None,
                 exclude_groups: Optional[Iterable[int]] = None, rays_per_frame: int = 0,
                 scan_phase: str = "zero", scan_seed: int = 0, frame_mounts: Optional[Sequence[Sequence[float]]] = None,
                 frame_pose_offsets: Optional[Sequence[int]] = None, num_frames: Optional[int] = None,
                 hit_frame: str = "world") -> None:
        where = "RaySensor"
        d = _wr.RaySensorDesc()
        if quat_order not in _ORDER:
            raise _invalid(where, f"quat_order = {quat_order!r}: must be 'wxyz' or 'xyzw'")
        d.quat_order = _ORDER[quat_order]
        for name, v, n in (("mount_position", mount_position, 3), ("offset_position", offset_position, 3),
                           ("mount_rotation", mount_rotation, 4), ("offset_rotation", offset_rotation, 4)):
            if v is None:
                continue  # all zeros: the identity in either order
            if len(v) != n:
                raise _invalid(where, f"{name} has {len(v)} values, expected {n}")
            setattr(d, name, tuple(float(x) for x in v))
        d.alignment = _choice(where, "alignment", alignment, _ALIGNMENT)
        d.yaw_rule = _choice(where, "yaw_rule", yaw_rule, _YAW_RULE)
        d.value = _choice(where, "value", value, _VALUE)
        d.min_distance, d.max_distance = float(min_distance), float(max_distance)
        d.height_offset, d.miss_value = float(height_offset), float(miss_value)
        d.rays_per_frame = int(rays_per_frame)
        mounts = [float(x) for m in frame_mounts for x in m] if frame_mounts is not None else []
        offsets = [int(o) for o in frame_pose_offsets] if frame_pose_offsets is not None else []
        if num_frames is None:
            num_frames = len(frame_mounts) if frame_mounts is not None else len(offsets) if offsets else 1
        d.num_frames = int(num_frames)
        d.scan_phase = _choice(where, "scan_phase", scan_phase, {"zero": 0, "hashed": 1})
        d.scan_seed = int(scan_seed)
        d.hit_frame = _choice(where, "hit_frame", hit_frame, _HIT_FRAME)
        self.hit_frame = hit_frame
        self.scene = scene
        self.pattern = pattern
        self.pipeline = pipeline
        self.camera = None
        self.quat_order = quat_order
        options = pipeline._options() if pipeline is not None else _wr.SensorOptions()
        options.exclude_groups = _group_mask(exclude_groups, where)
        self.exclude_groups = tuple(g for g in range(32) if options.exclude_groups >> g & 1)
        self._instanced = scene.instance_counts != (0, 0)
        self._h = _wr.Sensor(scene._h, pattern._h, d, int(num_envs), options, offsets, mounts)
        self._frames_rendered = 0
        h, w, dtype = self._h.output_shape
        self.num_frames = int(h)
        self._shape = (self._h.num_envs, w) if h == 1 else (self._h.num_envs, h, w)
        self._dtype = {Dtype.FLOAT32: "float32", Dtype.FLOAT16: "float16", Dtype.UINT16_MM: "uint16"}[dtype]

    @property
    def num_rays(self) -> int:
        """Rays per frame of a render (the pattern's, or a scanning sensor's window)."""
        return self._shape[-1]

    @property
    def shape(self) -> Tuple[int, ...]:  # type: ignore[override]
        """(num_envs, num_rays) of a render's output, or (num_envs, num_frames, num_rays)."""
        return self._shape

    def render(self, poses: Any, out: Any = None, *, stream: Any = None, frame: Optional[int] = None,
               layout: Optional[str] = None, inputs: Optional[RenderInputs] = None, **deprecated: Any) -> Any:
        """As :meth:`Sensor.render`, writing (num_envs, num_rays) (or (num_envs, num_frames,
        num_rays)); per-env ``intrinsics`` are a camera's and refused. With several frames, poses
        (num_envs, num_frames, 7) are each env's record as one row. Each ray's hit (point, normal,
        triangle, instance): :meth:`render_hits`. ``return_hits=True`` (before 0.7) still returns
        ``(out, RayHits)``, with a DeprecationWarning."""
        if deprecated.pop("return_hits", False):
            warnings.warn("RaySensor.render(return_hits=...) is deprecated since 0.7 and goes in 0.8: use "
                          "render_hits(...), whose Hits holds the values too", DeprecationWarning, stacklevel=2)
            if deprecated.get("return_ids"):
                raise _invalid("RaySensor.render", "return_ids and return_hits are both set: the hits hold the "
                                                   "instance ids")
            given = {name: deprecated.pop(name, None) for name in ("hit_points", "hit_normals", "triangle_ids",
                                                                   "instance_ids")}
            merged, _, _ = deprecated_keywords("RaySensor.render", inputs, deprecated)
            h = self.render_hits(poses, Hits(out, given["hit_points"], given["hit_normals"], given["triangle_ids"],
                                             given["instance_ids"]),
                                 stream=stream, frame=frame, layout=layout, inputs=merged)
            return h.values, RayHits(h.points, h.normals, h.triangle_ids, h.instance_ids)
        return super().render(poses, out, stream=stream, frame=frame, layout=layout, inputs=inputs, **deprecated)

    def _poses_for_render(self, poses: Any, inputs: RenderInputs, where: str) -> Any:
        if inputs.intrinsics is not None:
            raise _invalid(where, "intrinsics is set, but a pattern sensor has no intrinsics (per-env mounts are "
                                  "mounts=)")
        shape = tuple(getattr(poses, "shape", ()))
        if self.num_frames > 1 and len(shape) == 3 and inputs.body is None:
            # each env's record as one row: its frames' poses at their offsets (a view, no copy)
            poses = poses.reshape(shape[0], shape[1] * shape[2])
        return poses

    def world_rays(self, pose: Any, mount: Any = None, *, env: int = 0, frame: int = 0
                   ) -> Tuple[np.ndarray, np.ndarray]:
        """Env `env`'s world rays in frame `frame` (both matter only to a scanning sensor) for its
        body pose (7,) (and mount (7,), or None: the sensor's), as (starts, directions)
        (num_rays, 3) float32: the bits its render traces (for plotting, or to trace them yourself
        with :meth:`Scene.intersect`)."""
        pose = np.ascontiguousarray(pose, dtype=np.float32).reshape(-1)
        mount = None if mount is None else np.ascontiguousarray(mount, dtype=np.float32)
        shape = (self.num_rays, 3) if self.num_frames == 1 else (self.num_frames, self.num_rays, 3)
        starts = np.empty(shape, np.float32)
        directions = np.empty(shape, np.float32)
        self._h.world_rays(pose, mount, int(env), int(frame), starts.reshape(-1, 3), directions.reshape(-1, 3))
        return starts, directions

    def __repr__(self) -> str:
        frames = f", num_frames={self.num_frames}" if self.num_frames > 1 else ""
        return (f"warp_raycaster.RaySensor(num_envs={self.shape[0]}, num_rays={self.num_rays}{frames}, "
                f"quat_order={self.quat_order!r}, {self.context.device!r})")
