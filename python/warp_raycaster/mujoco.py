"""MuJoCo models from Python: a scene and depth cameras (and the frames of height scanners and
LiDARs) from a ``mujoco.MjModel``, rendered for N envs from ``MjData``, batch arrays or
mujoco_warp's ``Data`` in one call.

The model is read through its arrays (``geom_type``, ``geom_size``, ``mesh_vert``, ``hfield_data``,
``cam_fovy``, ...), never through MuJoCo's C structs, so the ``mujoco`` package of any version from
3.3 on works, not only the MuJoCo the C++ library was built against. The arrays go to the same C++
code as the C++ adapter's (``integrations/mujoco/model/model_scene.h``: one tessellation, one set of
rules): the static geoms (of bodies welded to the world) merged into the terrain at qpos0, every
other geom a slot of each env posed from ``geom_xpos`` / ``geom_xmat``, cameras with MuJoCo's
intrinsics posed from ``cam_xpos`` / ``cam_xmat``, the geoms mj_ray sees (``geomgroup``, transparent
geoms) and its own-body exclusion. What the C++ header says of shapes, groups, intrinsics and
frames holds here word for word.

    import mujoco, warp_raycaster as wr
    from warp_raycaster import mujoco as wrm
    model = mujoco.MjModel.from_xml_path("robot.xml")
    datas = [mujoco.MjData(model) for _ in range(N)]
    scene = wrm.Scene(wr.Context("cpu"), model)
    head = scene.camera("head", num_envs=N, exclude_own_body=True)
    for d in datas: mujoco.mj_step(model, d)
    depth = head.render(datas)                 # (N, height, width) float32

Poses come from, per render: a list of N ``MjData`` (or one for N = 1); mujoco_warp's ``Data``
(``nworld`` = N; its Warp arrays are read where they lie, on the CPU or the context's GPU); or the
batch arrays as keywords, ``geom_xpos`` (N, ngeom, 3), ``geom_xmat`` (N, ngeom, 9 or 3, 3),
``cam_xpos``, ``cam_xmat`` (N, ncam, ...), NumPy or tensors, float32 or float64. The matrices become poses through
``wr_gather_poses`` into buffers the sensor made once (no allocation per render), on the host for a
CPU context and on the GPU for a CUDA one, where mujoco_warp's Data (or tensors) on that GPU are read
in place; the inputs are never copied. On a GPU the poses are gathered and the image rendered on the
caller's ``stream=``, else on mujoco_warp's stream for its Data, else on torch's current stream.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _frameworks, _wr
from . import Camera as _Camera
from . import Context, RenderInputs, Scene as _Scene, Sensor
from ._errors import _invalid

__all__ = ["Scene", "CameraSensor", "Frame", "model_arrays"]

# MuJoCo's arrays the scene reads, with MuJoCo's element types (mjtNum is float64).
_FIELDS: Dict[str, Any] = {
    "geom_type": np.int32, "geom_size": np.float64, "geom_dataid": np.int32, "geom_bodyid": np.int32,
    "geom_group": np.int32, "geom_matid": np.int32, "geom_rgba": np.float32, "mat_rgba": np.float32,
    "body_weldid": np.int32, "mesh_vert": np.float32, "mesh_face": np.int32, "mesh_vertadr": np.int32,
    "mesh_vertnum": np.int32, "mesh_faceadr": np.int32, "mesh_facenum": np.int32, "hfield_size": np.float64,
    "hfield_nrow": np.int32, "hfield_ncol": np.int32, "hfield_adr": np.int32, "hfield_data": np.float32,
    "cam_bodyid": np.int32, "cam_resolution": np.int32, "cam_fovy": np.float64, "cam_intrinsic": np.float32,
    "cam_sensorsize": np.float32, "site_bodyid": np.int32, "name_geomadr": np.int32, "name_bodyadr": np.int32,
    "name_camadr": np.int32, "name_siteadr": np.int32, "name_meshadr": np.int32, "name_hfieldadr": np.int32,
}


def model_arrays(model: Any) -> "_wr.MujocoModel":
    """The arrays of `model` (a ``mujoco.MjModel``) the scene reads, with every geom's pose at
    qpos0 (``mj_kinematics`` on a fresh ``MjData``, through the model's own ``mujoco`` module)."""
    where = "mujoco.Scene"
    missing = [f for f in ("geom_type", "geom_size", "body_weldid", "names") if not hasattr(model, f)]
    if missing:
        raise _invalid(where, f"model is a {type(model).__name__} without {', '.join(missing)}: expected a "
                              f"mujoco.MjModel (mujoco_warp's Model: pass the MjModel it was made from)")
    arrays = {}
    for name, dtype in _FIELDS.items():
        arrays[name] = np.ascontiguousarray(np.asarray(getattr(model, name)), dtype=dtype)
    # cam_projection (MuJoCo 3.3.1 on) or cam_orthographic (before): 0 is perspective in both.
    proj = getattr(model, "cam_projection", None)
    if proj is None:
        proj = getattr(model, "cam_orthographic", np.zeros(model.ncam, np.int32))
    arrays["cam_projection"] = np.ascontiguousarray(np.asarray(proj), dtype=np.int32)
    import mujoco  # the bindings of the model's MuJoCo: its own kinematics at qpos0

    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    arrays["geom_xpos0"] = np.ascontiguousarray(data.geom_xpos, dtype=np.float64)
    arrays["geom_xmat0"] = np.ascontiguousarray(data.geom_xmat, dtype=np.float64)
    names = model.names if isinstance(model.names, bytes) else bytes(np.asarray(model.names).tobytes())
    zfar_extent = float(model.vis.map.zfar) * float(model.stat.extent)
    return _wr.MujocoModel(arrays, names, zfar_extent)


def _is_warp_data(data: Any) -> bool:
    return hasattr(data, "nworld") and hasattr(data, "geom_xpos") and not isinstance(data, (list, tuple))


def _mjdata_list(data: Any, num_envs: int, where: str) -> Sequence[Any]:
    datas = [data] if hasattr(data, "geom_xpos") and not _is_warp_data(data) else list(data)
    if len(datas) != num_envs:
        raise _invalid(where, f"data has {len(datas)} MjData: the sensor has num_envs = {num_envs}")
    return datas


_IDENTITY = (0.0,) * 9  # wr_pose_gather_desc.frame: all zero is the identity


def _stream_for(data: Any, ref: Any, context: Context) -> int:
    """The CUDA stream a render of `data` goes on when the caller names none: mujoco_warp's own (Warp's
    current stream on the context's GPU) for its Data, so that the poses are read after the simulation
    wrote them; else the one Sensor.render would take (torch's current stream). 0 on a CPU context."""
    if not context.is_cuda:
        return 0
    if _is_warp_data(data):
        import warp as wp

        return int(wp.get_stream(context.device).cuda_stream)
    return _frameworks.default_stream(ref, context.device)


class _Poses:
    """A sensor's own pose buffer (num_envs, count, 7) on its context's device, the index table of its
    items (geoms, a camera, a site or body) and how each input form fills it: through
    wr_gather_poses, on the host for a CPU context, on the GPU for a CUDA one."""

    def __init__(self, context: Context, items: Sequence[int], num_items: int, num_envs: int, pos: str, mat: str,
                 frame: Sequence[float] = _IDENTITY) -> None:
        self._ctx, self._num_items, self._pos, self._mat = context, int(num_items), pos, mat
        self._frame = tuple(float(v) for v in frame)
        if context.is_cuda:
            import torch  # the buffers of a GPU context live in torch's memory on its device

            self.out = torch.zeros((num_envs, len(items), 7), dtype=torch.float32, device=context.device)
            self._indices = torch.tensor(list(items), dtype=torch.int32, device=context.device)
        else:
            self.out = np.zeros((num_envs, len(items), 7), np.float32)
            self._indices = np.asarray(list(items), np.uint32)

    def _gather(self, xpos: Any, xmat: Any, out: Any, where: str, stream: int = 0) -> None:
        _wr.gather_poses(self._ctx._h, xpos, xmat, self._indices, out, self._frame, _wr.QuatOrder.WXYZ, stream,
                         self._num_items, where, self._pos, self._mat)

    def from_data(self, data: Any, where: str, stream: int = 0) -> Any:
        n = self.out.shape[0]
        if _is_warp_data(data):
            if int(data.nworld) != n:
                raise _invalid(where, f"data.nworld = {data.nworld}: the sensor has num_envs = {n}")
            self._gather(getattr(data, self._pos), getattr(data, self._mat), self.out, where, stream)
            return self.out
        if self._ctx.is_cuda:
            raise _invalid(where, "MjData lives in host memory and the context is on a GPU: give mujoco_warp's Data "
                                  "or batch arrays on that GPU")
        for e, d in enumerate(_mjdata_list(data, n, where)):
            self._gather(getattr(d, self._pos), getattr(d, self._mat), self.out[e:e + 1], where)
        return self.out

    def from_arrays(self, xpos: Any, xmat: Any, where: str, stream: int = 0) -> Any:
        if xpos is None or xmat is None:
            raise _invalid(where, f"give data, or both {self._pos} and {self._mat}")
        self._gather(xpos, xmat, self.out, where, stream)
        return self.out


class Scene:
    """A MuJoCo model as a scene (``wr_mujoco::Scene``): the static geoms as the terrain, the moving
    ones as every env's slots.

    geomgroup: mj_ray's (6 flags, a geom of a group that is 0 is not seen; None: all seen).
    tolerance: the largest distance in metres between a curved primitive and its triangles.
    plane_half_extent: the half-size of planes of size 0 (0: the model's zfar * extent).
    skip_unsupported: leave SDF geoms out (listed in ``skipped``) rather than fail.
    sensor_bodies: moving bodies (by name) given a group of their own, so that a frame on them can
    exclude them (a height scanner on the base, as mjlab's exclude_parent_body).
    terrain: ``"auto"`` or ``"bvh"``: the static geoms merged into one BVH; ``"grid"``: the largest
    static hfield (unturned) traced as a grid (about a tenth of the BVH's memory, height scans looked up
    by cell), the other static geoms beside it as one global instance (:attr:`global_poses`).
    """

    _TERRAINS = {"auto": 0, "bvh": 1, "grid": 2}

    def __init__(self, context: Context, model: Any, *, geomgroup: Optional[Sequence[int]] = None,
                 tolerance: float = 1e-3, plane_half_extent: float = 0.0, skip_unsupported: bool = False,
                 sensor_bodies: Iterable[str] = (), terrain: str = "auto") -> None:
        if not isinstance(context, Context):
            raise _invalid("mujoco.Scene", f"context is a {type(context).__name__}, not a warp_raycaster.Context")
        if terrain not in self._TERRAINS:
            raise _invalid("mujoco.Scene", f"terrain = {terrain!r}: must be 'auto', 'bvh' or 'grid'")
        groups = [1] * 6 if geomgroup is None else [int(g) for g in geomgroup]
        self.context = context
        self.model = model
        self._m = model_arrays(model)
        self._h = _wr.MujocoScene.build(context._h, self._m, groups, float(tolerance), float(plane_half_extent),
                                        bool(skip_unsupported), [str(b) for b in sensor_bodies],
                                        self._TERRAINS[terrain])
        # The global instances' poses (the identity), on the context's device, made once.
        self._globals: Any = None
        if self._h.num_globals:
            identity = [[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]] * self._h.num_globals
            if context.is_cuda:
                import torch

                self._globals = torch.tensor(identity, dtype=torch.float32, device=context.device)
            else:
                self._globals = np.asarray(identity, np.float32)
        # The wr.Scene that sensors render (instanced where the model has moving geoms).
        scene = _Scene.__new__(_Scene)
        scene.context = context
        scene._h = self._h.scene
        self.scene = scene
        self._counts = self._m.counts

    @property
    def num_slots(self) -> int:
        """Moving geoms seen: each env's instances (slot i is geom ``slot_geoms[i]``)."""
        return self._h.num_slots

    @property
    def global_poses(self) -> Any:
        """(num_globals, 7) float32 on the context's device, or None: the global instance of the static geoms
        beside a grid terrain, at the identity; pass it as ``global_poses`` to a render of this scene
        (:meth:`CameraSensor.render` does)."""
        return self._globals

    @property
    def grid_geom(self) -> int:
        """The hfield geom traced as the grid (``terrain="grid"``), else -1."""
        return self._h.grid_geom

    @property
    def slot_geoms(self) -> Tuple[int, ...]:
        return tuple(self._h.slot_geoms)

    @property
    def num_static_geoms(self) -> int:
        return self._h.num_static_geoms

    @property
    def skipped(self) -> Tuple[str, ...]:
        return tuple(self._h.skipped)

    def body_group(self, body: int) -> int:
        """The instance group of `body`'s slots: 0, or its own (a moving body with a camera, or one of
        sensor_bodies)."""
        return self._h.body_group(int(body))

    def instance_poses(self, data: Any = None, out: Any = None, *, geom_xpos: Any = None,
                       geom_xmat: Any = None) -> Any:
        """(N, num_slots, 7) float32: each slot's geom pose (x, y, z, w, qx, qy, qz) from `data` (N
        MjData, or mujoco_warp's Data) or the batch arrays, into `out` (made when None)."""
        where = "mujoco.Scene.instance_poses"
        if data is not None:
            n = int(data.nworld) if _is_warp_data(data) else 1 if hasattr(data, "geom_xpos") else len(data)
        elif geom_xpos is None or geom_xmat is None:
            raise _invalid(where, "give data, or both geom_xpos and geom_xmat")
        else:
            n = int(np.shape(geom_xpos)[0]) if np.ndim(geom_xpos) == 3 else 1
        poses = self._slot_poses(n)
        if out is not None:
            poses.out = out
        return poses.from_data(data, where) if data is not None else poses.from_arrays(geom_xpos, geom_xmat, where)

    def _slot_poses(self, num_envs: int) -> _Poses:
        return _Poses(self.context, self.slot_geoms, self._h.num_geoms, num_envs, "geom_xpos", "geom_xmat")

    def camera(self, camera: Union[str, int], num_envs: int = 1, *, width: Optional[int] = None,
               height: Optional[int] = None, depth: str = "plane", near: float = 0.0, far: float = math.inf,
               miss_value: float = math.inf, exclude_own_body: bool = False, pipeline: Any = None) -> "CameraSensor":
        """A depth sensor of num_envs copies of the model's camera `camera` (name or id), with MuJoCo's
        intrinsics (fovy, or focal / sensorsize / principal) at its resolution or width x height.
        exclude_own_body: the camera does not see its own body's geoms (mj_ray's bodyexclude)."""
        return CameraSensor(self, camera, num_envs, width=width, height=height, depth=depth, near=near, far=far,
                            miss_value=miss_value, exclude_own_body=exclude_own_body, pipeline=pipeline)

    def frame(self, *, site: Union[str, int, None] = None, body: Union[str, int, None] = None,
              num_envs: int = 1, exclude_own_body: bool = False) -> "Frame":
        """The frame of a site or a body (``objtype="xbody"``: the body's frame, not its inertial one)
        for a pattern sensor (:class:`warp_raycaster.RaySensor`): its poses per env, and the
        exclude_groups that hide its body when exclude_own_body."""
        if (site is None) == (body is None):
            raise _invalid("mujoco.Scene.frame", "give one of site= or body=")
        return Frame(self, site if site is not None else body, site is not None, num_envs, exclude_own_body)

    def __repr__(self) -> str:
        grid = f", geom {self.grid_geom} as a grid" if self.grid_geom >= 0 else ""
        return (f"warp_raycaster.mujoco.Scene({self._counts['ngeom']} geoms: {self.num_static_geoms} static in the "
                f"terrain{grid}, {self.num_slots} moving slots)")


class CameraSensor:
    """A :class:`warp_raycaster.Sensor` of one MJCF camera for N envs, and its pose buffers.

    ``camera``: the :class:`warp_raycaster.Camera` (MuJoCo's intrinsics, wxyz poses, identity
    mount: an env's pose is the camera's own, MuJoCo's frame turned into the library's).
    ``sensor``: the sensor that renders; :meth:`render` takes every keyword of its render
    (``out``, ``frame``, ``stream``, ``inputs=wr.RenderInputs(latency=..., update_mask=...)``);
    what each pixel hit: ``sensor.render_hits`` with this object's poses and instance poses.
    """

    def __init__(self, scene: Scene, camera: Union[str, int], num_envs: int, *, width: Optional[int],
                 height: Optional[int], depth: str, near: float, far: float, miss_value: float,
                 exclude_own_body: bool, pipeline: Any) -> None:
        if depth not in ("plane", "range"):
            raise _invalid("mujoco.Scene.camera", f"depth = {depth!r}: must be 'plane' or 'range'")
        if (width is None) != (height is None):
            raise _invalid("mujoco.Scene.camera", "give width and height, or neither (the camera's resolution)")
        kind = _wr.DepthKind.PLANE if depth == "plane" else _wr.DepthKind.RANGE
        self.scene = scene
        self._h = scene._h.camera(camera if isinstance(camera, (str, int)) else str(camera), int(width or 0),
                                  int(height or 0), kind, float(near), float(far), float(miss_value),
                                  bool(exclude_own_body))
        self.id: int = self._h.id
        self.name: str = self._h.name
        # The adapter's all-zero mount is the identity (wr.h); said as one here.
        self.camera = _Camera._from_desc(self._h.desc).replace(mount_rotation=(1.0, 0.0, 0.0, 0.0))
        groups = [g for g in range(32) if self._h.exclude_groups >> g & 1]
        self.sensor = Sensor(scene.scene, self.camera, int(num_envs), pipeline=pipeline, exclude_groups=groups)
        self._cam = _Poses(scene.context, [self.id], self._h.num_cameras, self.sensor.num_envs, "cam_xpos", "cam_xmat",
                           _wr.MUJOCO_CAMERA_FRAME)
        self._inst = scene._slot_poses(self.sensor.num_envs)

    @property
    def num_envs(self) -> int:
        return self.sensor.num_envs

    @property
    def shape(self) -> Tuple[int, int, int]:
        return self.sensor.shape

    def poses(self, data: Any = None, *, cam_xpos: Any = None, cam_xmat: Any = None) -> np.ndarray:
        """(N, 7) float32 camera poses (the sensor's own buffer, rewritten) from `data` or the arrays."""
        where = "mujoco.CameraSensor.poses"
        out = self._cam.from_data(data, where) if data is not None else self._cam.from_arrays(cam_xpos, cam_xmat,
                                                                                              where)
        return out.reshape(self.num_envs, 7)

    def render(self, data: Any = None, out: Any = None, *, geom_xpos: Any = None, geom_xmat: Any = None,
               cam_xpos: Any = None, cam_xmat: Any = None, **render_args: Any) -> Any:
        """Renders every env: (N, height, width) (or the pipeline's output), as
        :meth:`warp_raycaster.Sensor.render` returns it, from `data` (N MjData, or mujoco_warp's Data)
        or the batch arrays (geom_xpos / geom_xmat needed only when the model has moving geoms)."""
        where = "mujoco.CameraSensor.render"
        poses, stream, inputs = self._call(where, data, geom_xpos, geom_xmat, cam_xpos, cam_xmat, render_args)
        return self.sensor.render(poses, out, stream=stream, inputs=inputs, **render_args)

    def render_hits(self, data: Any = None, hits: Any = None, *, geom_xpos: Any = None, geom_xmat: Any = None,
                    cam_xpos: Any = None, cam_xmat: Any = None, **render_args: Any) -> Any:
        """What each pixel hit, as :meth:`warp_raycaster.Sensor.render_hits` returns it (a
        :class:`warp_raycaster.Hits`: the depth, points, normals, triangle ids and instance ids: a
        geom's slot, mapped to its geom by ``scene.slot_geoms``), from the poses :meth:`render`
        takes; ``fields=`` as there."""
        where = "mujoco.CameraSensor.render_hits"
        poses, stream, inputs = self._call(where, data, geom_xpos, geom_xmat, cam_xpos, cam_xmat, render_args)
        return self.sensor.render_hits(poses, hits, stream=stream, inputs=inputs, **render_args)

    def _call(self, where: str, data: Any, geom_xpos: Any, geom_xmat: Any, cam_xpos: Any, cam_xmat: Any,
              render_args: Dict[str, Any]) -> Tuple[Any, Any, RenderInputs]:
        # The camera poses, the stream and the render's inputs (the instances' poses joined to the
        # caller's inputs=) of a render from `data` or the batch arrays. On a GPU the poses are
        # gathered, and the image rendered, on the caller's stream (stream=), else on mujoco_warp's
        # own for its Data, else the default stream.
        ctx = self.scene.context
        stream = render_args.pop("stream", None)
        handle = (_frameworks.stream_handle(stream, where) if stream is not None
                  else _stream_for(data, cam_xpos if data is None else data, ctx))
        if data is not None:
            if any(a is not None for a in (geom_xpos, geom_xmat, cam_xpos, cam_xmat)):
                raise _invalid(where, "give data or the pose arrays, not both")
            poses = self._cam.from_data(data, where, handle)
            inst = self._inst.from_data(data, where, handle) if self.scene.num_slots else None
        else:
            poses = self._cam.from_arrays(cam_xpos, cam_xmat, where, handle)
            inst = self._inst.from_arrays(geom_xpos, geom_xmat, where, handle) if self.scene.num_slots else None
        given = render_args.pop("inputs", None)
        poses_of = {"instance_poses": inst, "global_poses": self.scene.global_poses}
        inputs = dataclasses.replace(given, **poses_of) if given is not None else RenderInputs(**poses_of)
        return poses.reshape(self.num_envs, 7), handle if ctx.is_cuda else None, inputs

    def __repr__(self) -> str:
        label = repr(self.name) if self.name else f"camera {self.id}"
        h, w = self.shape[1], self.shape[2]
        return f"warp_raycaster.mujoco.CameraSensor({label}, {self.num_envs} envs, {w} x {h})"


class Frame:
    """A site's or a body's frame for a pattern sensor: ``poses(data)`` (N, 7) wxyz, and
    ``exclude_groups`` for :class:`warp_raycaster.RaySensor` (its body, when exclude_own_body). Render
    with ``inputs=wr.RenderInputs(instance_poses=frame.instance_poses(data),
    global_poses=frame.scene.global_poses)``."""

    def __init__(self, scene: Scene, which: Union[str, int], site: bool, num_envs: int,
                 exclude_own_body: bool) -> None:
        self.scene = scene
        self._h = scene._h.frame(which, bool(site), bool(exclude_own_body))
        self.is_site: bool = self._h.is_site
        self.id: int = self._h.id
        self.name: str = self._h.name
        self.body: int = self._h.body
        self.exclude_groups: Tuple[int, ...] = tuple(g for g in range(32) if self._h.exclude_groups >> g & 1)
        pos, mat = ("site_xpos", "site_xmat") if site else ("xpos", "xmat")
        self._poses = _Poses(scene.context, [self.id], self._h.num_items, int(num_envs), pos, mat)
        self._inst = scene._slot_poses(int(num_envs))

    def stream(self, data: Any = None) -> int:
        """On a GPU, the CUDA stream to render this frame's sensor on for `data` (mujoco_warp's own for its
        Data, else torch's current one), as :meth:`poses` gathers on it; 0 on the CPU."""
        return _stream_for(data, data, self.scene.context)

    def poses(self, data: Any = None, *, xpos: Any = None, xmat: Any = None) -> Any:
        """(N, 7) float32 frame poses (x, y, z, w, qx, qy, qz; this frame's own buffer, rewritten) from
        `data` (N MjData, or mujoco_warp's Data) or site_xpos / site_xmat (xpos / xmat for a body)
        batch arrays; on a GPU, gathered on :meth:`stream`."""
        where = "mujoco.Frame.poses"
        stream = self.stream(data if data is not None else xpos)
        out = (self._poses.from_data(data, where, stream) if data is not None
               else self._poses.from_arrays(xpos, xmat, where, stream))
        return out.reshape(out.shape[0], 7)

    def instance_poses(self, data: Any = None, *, geom_xpos: Any = None, geom_xmat: Any = None) -> Any:
        """(N, num_slots, 7) float32: the scene's instance poses (this frame's own buffer, rewritten) from
        the same `data` or the batch arrays, for the pattern sensor's render; None without moving geoms."""
        if not self.scene.num_slots:
            return None
        where = "mujoco.Frame.instance_poses"
        stream = self.stream(data if data is not None else geom_xpos)
        return (self._inst.from_data(data, where, stream) if data is not None
                else self._inst.from_arrays(geom_xpos, geom_xmat, where, stream))
