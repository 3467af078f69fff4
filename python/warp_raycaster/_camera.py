"""warp_raycaster.Camera: the pinhole camera model every env of a sensor shares."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Tuple

from . import _wr
from ._args import _ORDER
from ._errors import _invalid
from ._wr import DepthKind, QuatOrder

_DEPTH = {"plane": DepthKind.PLANE, "range": DepthKind.RANGE}
_HIT_FRAME = {"world": 0, "sensor": 1}  # wr_hit_frame


@dataclass
class Camera:
    """A pinhole camera model shared by every env of a sensor (``wr_camera_desc``).

    Intrinsics in pixels: fx, fy > 0; principal point cx, cy. The ray of pixel (u, v) (u the
    column, v the row from the top) passes through the pixel centre:
    ``d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)`` in the camera frame
    (+X forward along the optical axis, +Y left, +Z up).

    depth: 'plane' (distance along the optical axis, the z-depth of REP 118) or 'range'
    (Euclidean distance along the ray). They differ off-axis: use the one your policy was
    trained with. near / far bound the reported value (metres, 0 <= near < far, far may be
    inf): geometry nearer than `near` does not occlude, and a pixel whose nearest hit reports
    a value outside [near, far], or that hits nothing, holds `miss_value` (default +inf, REP
    117; any float, NaN included).

    quat_order: 'wxyz' (IsaacLab, MuJoCo; the default) or 'xyzw' (IsaacGym root states), of
    the body poses and of mount_rotation. mount_position (3, metres) and mount_rotation (4) are
    the camera's pose in the body frame: camera_in_world = body_in_world * mount.

    hit_frame: the frame of :meth:`Sensor.render_hits`' points and normals, 'world' (the
    default; IsaacLab's ``RayCasterCamera`` ``normals``) or 'sensor' (the camera's frame above,
    at the camera).
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    near: float = 0.0
    far: float = math.inf
    miss_value: float = math.inf
    depth: str = "plane"
    quat_order: str = "wxyz"
    mount_position: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    mount_rotation: Optional[Tuple[float, float, float, float]] = field(default=None)
    hit_frame: str = "world"

    def __post_init__(self) -> None:
        if self.depth not in _DEPTH:
            raise _invalid("Camera", f"depth = {self.depth!r}: must be 'plane' or 'range'")
        if self.hit_frame not in _HIT_FRAME:
            raise _invalid("Camera", f"hit_frame = {self.hit_frame!r}: must be 'world' or 'sensor'")
        if self.quat_order not in _ORDER:
            raise _invalid("Camera", f"quat_order = {self.quat_order!r}: must be 'wxyz' or 'xyzw'")
        if self.mount_rotation is None:  # the identity, in the chosen order
            self.mount_rotation = (1.0, 0.0, 0.0, 0.0) if self.quat_order == "wxyz" else (0.0, 0.0, 0.0, 1.0)
        self.mount_position = tuple(float(x) for x in self.mount_position)  # type: ignore[assignment]
        self.mount_rotation = tuple(float(x) for x in self.mount_rotation)  # type: ignore[assignment]
        if len(self.mount_position) != 3:
            raise _invalid("Camera", f"mount_position has {len(self.mount_position)} values, expected 3 (x, y, z)")
        if len(self.mount_rotation) != 4:
            raise _invalid("Camera", f"mount_rotation has {len(self.mount_rotation)} values, expected 4 (a quaternion "
                                     f"in {self.quat_order} order)")

    @classmethod
    def pinhole(cls, width: int, height: int, hfov: float, **settings: Any) -> "Camera":
        """Square pixels from a horizontal field of view in degrees (``wr_camera_desc_pinhole``):
        fx = fy = (width / 2) / tan(hfov / 2), principal point at the image centre. The vertical
        field of view this implies is 2 atan(tan(hfov / 2) * height / width). Other settings
        (near, far, miss_value, depth, quat_order, mount_position, mount_rotation) as keywords.

        An hfov below 3.2 is refused as most likely radians (every field of view in radians is
        below pi: 87 degrees is 1.518); the C API's own guard stops below 1 degree."""
        if isinstance(hfov, (int, float)) and 0 < hfov < 3.2:
            raise _invalid("Camera.pinhole", f"hfov = {hfov!r}: is that radians? hfov is in degrees "
                                             f"({hfov!r} rad = {math.degrees(hfov):.4g} degrees: pass "
                                             f"math.degrees(...)); a camera narrower than 3.2 degrees is not "
                                             f"a robot's depth camera")
        d = _wr.camera_desc_pinhole(int(width), int(height), float(hfov))
        return cls(width=d.width, height=d.height, fx=d.fx, fy=d.fy, cx=d.cx, cy=d.cy, **settings)

    @property
    def hfov(self) -> float:
        """Horizontal field of view in degrees: 2 atan(width / (2 fx)) (centred principal point)."""
        return math.degrees(2.0 * math.atan(self.width / (2.0 * self.fx)))

    @property
    def vfov(self) -> float:
        """Vertical field of view in degrees: 2 atan(height / (2 fy)) (centred principal point)."""
        return math.degrees(2.0 * math.atan(self.height / (2.0 * self.fy)))

    def replace(self, **changes: Any) -> "Camera":
        """A copy with some settings changed."""
        return replace(self, **changes)

    def _desc(self) -> "_wr.CameraDesc":
        d = _wr.CameraDesc()
        d.width, d.height = int(self.width), int(self.height)
        d.fx, d.fy, d.cx, d.cy = float(self.fx), float(self.fy), float(self.cx), float(self.cy)
        d.near_clip, d.far_clip, d.miss_value = float(self.near), float(self.far), float(self.miss_value)
        d.depth_kind = _DEPTH[self.depth]
        d.quat_order = _ORDER[self.quat_order]
        d.mount_position = self.mount_position
        d.mount_rotation = self.mount_rotation
        d.hit_frame = _HIT_FRAME[self.hit_frame]
        return d

    @classmethod
    def _from_desc(cls, d: "_wr.CameraDesc") -> "Camera":
        depth = "plane" if d.depth_kind == DepthKind.PLANE else "range"
        order = "wxyz" if d.quat_order == QuatOrder.WXYZ else "xyzw"
        return cls(width=d.width, height=d.height, fx=d.fx, fy=d.fy, cx=d.cx, cy=d.cy, near=d.near_clip,
                   far=d.far_clip, miss_value=d.miss_value, depth=depth, quat_order=order,
                   mount_position=d.mount_position, mount_rotation=d.mount_rotation,
                   hit_frame="sensor" if d.hit_frame == _HIT_FRAME["sensor"] else "world")
