"""mjlab sensors rendered by warp_raycaster: a depth camera and a grid height scan, usable in an mjlab
scene or task config beside mjlab's own sensors (``SceneCfg.sensors``).

    from warp_raycaster.mjlab import DepthCameraCfg, HeightScanCfg
    cfg.scene.sensors += (
        DepthCameraCfg(name="depth", parent_body="robot/trunk", pos=(0.3, 0, 0.05), quat=(...),
                       fovy=58.0, width=106, height=60, far=3.0),
        HeightScanCfg(name="scan", frame=ObjRef(type="body", name="trunk", entity="robot"),
                      size=(1.6, 1.0), resolution=0.1),
    )
    ...
    env.scene["depth"].data      # (num_envs, height, width) float32 tensor, plane depth in metres
    env.scene["scan"].data       # (num_envs, num_rays) float32 tensor, distances (mjlab: -1 on a miss)

Each sensor is built from the compiled MjModel through :mod:`warp_raycaster.mujoco` (the C++
adapter's rules: the static geoms, the terrain above all, as one shared structure; the robots'
geoms as every env's instances, posed from mujoco_warp's Data) and renders all envs in one call
when its ``data`` is read (mjlab's per-step cache: once per step at most). The settings mirror
mjlab's own: ``DepthCameraCfg`` those of ``CameraSensorCfg`` (a new camera on ``parent_body`` at
``pos`` / ``quat``, or ``camera_name``), ``HeightScanCfg`` those of ``RayCastSensorCfg`` with a
``GridPatternCfg`` (mjlab's ray count and order, its yaw rule, rays from the frame's origin,
``max_distance``, ``exclude_parent_body``, ``include_geom_groups``).

On a GPU (mjlab's device 'cuda:n') the sensors render on that GPU from the Data's device arrays
(wr_gather_poses converts the poses there), into tensors on it. The tests run where mjlab is
installed (``scripts/setup.sh --mjlab`` makes ``.venv-mjlab``; mjlab pins its own MuJoCo), on the
CPU; a GPU run is the GPU check's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import torch

try:
    import mujoco
    from mjlab.sensor import ObjRef, Sensor, SensorCfg
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"warp_raycaster.mjlab needs mjlab (pip install mjlab; scripts/setup.sh --mjlab): {e}") from e

from . import Context, Pattern, RaySensor, RenderInputs
from . import mujoco as wrm
from ._errors import _invalid

__all__ = ["DepthCameraCfg", "DepthCamera", "HeightScanCfg", "HeightScan"]

_DEFAULT_FOVY = 45.0  # MuJoCo's default camera fovy, degrees (mjlab's CameraSensorCfg uses it too)




def _geomgroup(groups: Optional[Tuple[int, ...]]) -> Tuple[int, ...]:
    if groups is None:
        return (1, 1, 1, 1, 1, 1)
    return tuple(1 if g in groups else 0 for g in range(6))


def _context(device: str, threads: int, where: str) -> Context:
    """The library's context for mjlab's device: 'cpu', or 'cuda' / 'cuda:<n>' (its GPU)."""
    text = str(device)
    if text.startswith("cpu"):
        return Context("cpu", threads=threads)
    if text.startswith("cuda"):
        return Context("cuda", device=int(text.split(":")[1]) if ":" in text else 0)
    raise _invalid(where, f"device = {device!r}: must be 'cpu' or 'cuda[:n]'")


def _output(shape: Tuple[int, ...], context: Context) -> torch.Tensor:
    """The sensor's output tensor, made once on its context's device (written in place every step)."""
    return torch.empty(shape, dtype=torch.float32, device=context.device)


@dataclass
class DepthCameraCfg(SensorCfg):
    """A depth camera (mjlab's ``CameraSensorCfg`` settings; depth only).

    camera_name: an existing camera of the model to use; None makes one named ``name`` on
    ``parent_body`` (None: the world body) at ``pos`` / ``quat`` (w, x, y, z, in the parent's frame;
    MuJoCo's camera looks along its -Z with +Y up) with ``fovy`` (degrees) and width x height.
    depth: 'plane' (distance along the optical axis: mjlab's depth) or 'range'; near / far /
    miss_value as :class:`warp_raycaster.Camera`'s. enabled_geom_groups: the groups seen.
    exclude_parent_body: the camera does not see its own body's geoms (mujoco_warp's renderer
    leaves them out too). threads: the CPU threads (0: all)."""

    camera_name: Optional[str] = None
    parent_body: Optional[str] = None
    pos: Tuple[float, float, float] = (0.0, 0.0, 1.0)
    quat: Tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    fovy: Optional[float] = None
    width: int = 160
    height: int = 120
    depth: str = "plane"
    near: float = 0.0
    far: float = math.inf
    miss_value: float = math.inf
    enabled_geom_groups: Tuple[int, ...] = (0, 1, 2)
    exclude_parent_body: bool = True
    threads: int = 0

    def build(self) -> "DepthCamera":
        return DepthCamera(self)


class DepthCamera(Sensor[torch.Tensor]):
    """The sensor of a :class:`DepthCameraCfg`: ``data`` is (num_envs, height, width) float32."""

    def __init__(self, cfg: DepthCameraCfg) -> None:
        super().__init__()
        self.cfg = cfg
        self.camera_name = cfg.camera_name if cfg.camera_name is not None else cfg.name
        self.scene: Optional[wrm.Scene] = None
        self.camera: Optional[wrm.CameraSensor] = None
        self._data: Any = None
        self._out: Optional[torch.Tensor] = None

    def edit_spec(self, scene_spec: "mujoco.MjSpec", entities: dict) -> None:
        del entities
        if self.cfg.camera_name is not None:
            scene_spec.camera(self.cfg.camera_name)  # raises when there is none of that name
            return
        parent = scene_spec.body(self.cfg.parent_body) if self.cfg.parent_body is not None else scene_spec.worldbody
        if parent is None:
            raise _invalid("DepthCameraCfg", f"parent_body = {self.cfg.parent_body!r}: no such body in the scene")
        parent.add_camera(name=self.cfg.name, pos=self.cfg.pos, quat=self.cfg.quat,
                          fovy=self.cfg.fovy if self.cfg.fovy is not None else _DEFAULT_FOVY,
                          resolution=[self.cfg.width, self.cfg.height])

    def initialize(self, mj_model: "mujoco.MjModel", model: Any, data: Any, device: str) -> None:
        del model
        where = f"DepthCameraCfg {self.cfg.name!r}"
        ctx = _context(device, self.cfg.threads, where)
        self.scene = wrm.Scene(ctx, mj_model, geomgroup=_geomgroup(self.cfg.enabled_geom_groups))
        size = {} if self.cfg.camera_name is None else {"width": self.cfg.width, "height": self.cfg.height}
        self.camera = self.scene.camera(self.camera_name, num_envs=int(data.nworld), depth=self.cfg.depth,
                                        near=self.cfg.near, far=self.cfg.far, miss_value=self.cfg.miss_value,
                                        exclude_own_body=self.cfg.exclude_parent_body, **size)
        self._data = getattr(data, "struct", data)  # mjlab's DataBridge wraps mujoco_warp's Data
        self._out = _output(self.camera.shape, ctx)

    def _compute_data(self) -> torch.Tensor:
        if self.camera is None:
            raise RuntimeError(f"DepthCameraCfg {self.cfg.name!r}: the sensor is not initialised (add it to a "
                               f"scene's sensors)")
        self.camera.render(self._data, out=self._out)
        return self._out


@dataclass
class HeightScanCfg(SensorCfg):
    """A grid of parallel rays from a body's or a site's frame (mjlab's ``RayCastSensorCfg`` with a
    ``GridPatternCfg``): size (x, y) and resolution in metres, mjlab's ray count and order (x
    fastest), direction in the frame (default straight down). ray_alignment: 'base', 'yaw'
    (mjlab's yaw rule) or 'world'. Rays start at the frame's origin. value: 'distance' (along the
    ray; a ray without a hit within max_distance reads -1, as mjlab's ``RayCastData.distances``) or
    'height' (the frame's z minus the hit's, a miss reading max_distance: what mjlab's
    ``height_scan`` observation makes of its sensor). ``data``: (num_envs, num_rays) float32."""

    frame: Optional[ObjRef] = None
    size: Tuple[float, float] = (1.0, 1.0)
    resolution: float = 0.1
    direction: Tuple[float, float, float] = (0.0, 0.0, -1.0)
    ray_alignment: str = "base"
    max_distance: float = 10.0
    value: str = "distance"
    exclude_parent_body: bool = True
    include_geom_groups: Optional[Tuple[int, ...]] = (0, 1, 2)
    threads: int = 0

    def build(self) -> "HeightScan":
        return HeightScan(self)


class HeightScan(Sensor[torch.Tensor]):
    """The sensor of a :class:`HeightScanCfg`: ``data`` is (num_envs, num_rays) float32."""

    def __init__(self, cfg: HeightScanCfg) -> None:
        super().__init__()
        self.cfg = cfg
        self.scene: Optional[wrm.Scene] = None
        self.frame: Optional[wrm.Frame] = None
        self.sensor: Optional[RaySensor] = None
        self._data: Any = None
        self._out: Optional[torch.Tensor] = None

    def edit_spec(self, scene_spec: "mujoco.MjSpec", entities: dict) -> None:
        del scene_spec, entities  # the frame is the model's own body or site

    def initialize(self, mj_model: "mujoco.MjModel", model: Any, data: Any, device: str) -> None:
        del model
        cfg = self.cfg
        where = f"HeightScanCfg {cfg.name!r}"
        if cfg.frame is None or cfg.frame.type not in ("body", "xbody", "site"):
            raise _invalid(where, f"frame = {cfg.frame!r}: give an ObjRef of type 'body' (its frame), 'xbody' or "
                                  f"'site'")
        name = cfg.frame.prefixed_name()
        ctx = _context(device, cfg.threads, where)
        site = cfg.frame.type == "site"
        body_name = name if not site else mj_model.body(int(mj_model.site(name).bodyid[0])).name
        self.scene = wrm.Scene(ctx, mj_model, geomgroup=_geomgroup(cfg.include_geom_groups),
                               sensor_bodies=(body_name,) if cfg.exclude_parent_body else ())
        n = int(data.nworld)
        self.frame = self.scene.frame(**{"site" if site else "body": name}, num_envs=n,
                                      exclude_own_body=cfg.exclude_parent_body)
        pattern = Pattern.grid(cfg.size, cfg.resolution, cfg.direction, ordering="xy", count_rule="mjlab")
        if cfg.value not in ("distance", "height"):
            raise _invalid(where, f"value = {cfg.value!r}: must be 'distance' or 'height'")
        miss = -1.0 if cfg.value == "distance" else float(cfg.max_distance)
        self.sensor = RaySensor(self.scene.scene, pattern, n, alignment=cfg.ray_alignment, yaw_rule="mjlab",
                                max_distance=cfg.max_distance, value=cfg.value, miss_value=miss,
                                exclude_groups=self.frame.exclude_groups)
        self._data = getattr(data, "struct", data)  # mjlab's DataBridge wraps mujoco_warp's Data
        self._out = _output(self.sensor.shape, ctx)

    def _compute_data(self) -> torch.Tensor:
        if self.sensor is None or self.frame is None:
            raise RuntimeError(f"HeightScanCfg {self.cfg.name!r}: the sensor is not initialised (add it to a "
                               f"scene's sensors)")
        poses = self.frame.poses(self._data)
        instances = self.frame.instance_poses(self._data)
        stream = self.frame.stream(self._data) if self.scene is not None and self.scene.context.is_cuda else None
        self.sensor.render(poses, out=self._out, stream=stream,
                           inputs=RenderInputs(instance_poses=instances, global_poses=self.frame.scene.global_poses))
        return self._out
