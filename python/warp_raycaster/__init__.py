"""warp_raycaster: batched depth images for thousands of simulated robots from one shared BVH
and one shared camera ray template.

    import warp_raycaster as wr
    ctx = wr.Context("cpu", threads=0)                 # wr.Context("cuda", device=0)
    scene = wr.Scene.from_obj(ctx, "assets/parkour_terrain.obj")
    cam = wr.Camera.pinhole(width=106, height=60, hfov=87.0, mount_position=(0.27, 0.0, 0.03))
    sensor = wr.Sensor(scene, cam, num_envs=64)
    depth = sensor.render(poses)        # poses (64, 7) float32 -> depth (64, 60, 106), same framework
    sensor.render(poses, out=depth)     # into the caller's array, no copy

Arrays are never copied: any object that speaks DLPack, ``__cuda_array_interface__`` or the
buffer protocol (torch tensors on CPU and CUDA, NumPy, CuPy, JAX) is read or written where it
is, and must already have the dtype, shape, C-contiguity, 4-byte alignment and device the call
states (float32 throughout; a mismatch raises :class:`Error` naming the argument). Outputs go
into ``out=`` or into a new array of the input's framework on the input's device. On a CUDA
context the work is enqueued on ``stream=`` or, by default, on torch's current stream (CuPy's
for CuPy arrays) and the call returns before it is done, like a torch kernel. The GIL is
released while the library works. Conventions (frames, pixel centres, quaternions, depth
kinds) are those of the C API, ``include/wr/wr.h``.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

from . import _frameworks
from ._errors import Error
from ._wr import (
    CpuPath,
    DepthKind,
    Dtype,
    MemoryTag,
    QuatOrder,
    Status,
    __version__,
    cpu_path_string,
    last_error,
    library_path,
    memory_tag_string,
    status_string,
)
from . import _wr
from .pipeline import Noise, Pipeline

__all__ = [
    "Camera",
    "Context",
    "CpuPath",
    "DepthKind",
    "Error",
    "MemoryTag",
    "Noise",
    "Pattern",
    "Pipeline",
    "QuatOrder",
    "RayHits",
    "RaySensor",
    "Scene",
    "Sensor",
    "Status",
    "__version__",
    "cpu_path_string",
    "last_error",
    "library_path",
    "memory_tag_string",
    "rl",
    "status_string",
]

_INVALID = Status.ERROR_INVALID_ARGUMENT


def _invalid(where: str, message: str) -> Error:
    return Error(f"{where}: {message} [WR_ERROR_INVALID_ARGUMENT]", _INVALID)


def _group_mask(groups: Optional[Iterable[int]], where: str) -> int:
    """The bit mask of instance groups (each 0-31) the C API takes (``exclude_groups``)."""
    if groups is None:
        return 0
    if isinstance(groups, (int, bool)) or not hasattr(groups, "__iter__"):
        raise _invalid(where, f"exclude_groups = {groups!r}: pass the groups as a sequence, e.g. ({groups!r},) "
                              f"(wr_sensor_options' bit mask is _wr.SensorOptions.exclude_groups)")
    mask = 0
    for g in groups:
        try:
            g = operator.index(g)
        except TypeError:
            raise _invalid(where, f"exclude_groups holds {g!r}, not a group number (0-31)") from None
        if not 0 <= g < 32:
            raise _invalid(where, f"exclude_groups holds {g}: groups are 0-31")
        mask |= 1 << g
    return mask


def _index_list(values: Any, name: str, where: str) -> list:
    """Non-negative integers (prototype indices or groups) from a sequence, a NumPy array or a
    tensor, as a list the binding copies into the C tables (which check their ranges)."""
    if values is None:
        return []
    if isinstance(values, (int, bool)) or not hasattr(values, "__iter__"):
        raise _invalid(where, f"{name} = {values!r}: expected a sequence of integers, one per instance")
    out = []
    for i, v in enumerate(values):
        try:
            v = operator.index(v)
        except TypeError:
            raise _invalid(where, f"{name}[{i}] = {v!r}: not an integer") from None
        if not 0 <= v <= 0xFFFFFFFF:
            raise _invalid(where, f"{name}[{i}] = {v}: must be a non-negative index")
        out.append(v)
    return out


# ---- Context ---------------------------------------------------------------------------------


class Context:
    """A device: a CPU thread pool, or one CUDA GPU, and its allocator (``wr_context``).

    ``Context("cpu", threads=0)``: 0 threads means one per hardware thread; depth is
    bit-identical whatever the count. ``Context("cuda", device=0)`` (or ``"cuda:1"``, or a
    ``torch.device``): raises :class:`Error` with ``Status.ERROR_UNSUPPORTED`` where the
    library was built without CUDA or no GPU is present.
    """

    def __init__(self, kind: Any = "cpu", *, threads: int = 0, device: Optional[int] = None) -> None:
        text = str(kind)
        name, _, index = text.partition(":")
        if name not in ("cpu", "cuda"):
            raise _invalid("Context", f"kind = {text!r}: must be 'cpu' or 'cuda' (or 'cuda:<index>')")
        ordinal = int(index) if index else 0
        if device is not None:
            if index and int(index) != device:
                raise _invalid("Context", f"{text!r} and device={device} name different GPUs")
            ordinal = device
        if name == "cpu":
            if device is not None:
                raise _invalid("Context", "device= is a CUDA device index; a CPU context takes threads=")
            self._h = _wr.Context(_wr.Device.CPU, 0, threads)
        else:
            if threads:
                raise _invalid("Context", "threads= sizes a CPU thread pool; a CUDA context takes none")
            self._h = _wr.Context(_wr.Device.CUDA, ordinal, 0)

    @property
    def device(self) -> str:
        """'cpu' or 'cuda:<index>', as torch names devices (``torch.empty(..., device=ctx.device)``)."""
        return "cpu" if self._h.device == _wr.Device.CPU else f"cuda:{self._h.ordinal}"

    @property
    def is_cuda(self) -> bool:
        return self._h.device == _wr.Device.CUDA

    @property
    def num_threads(self) -> int:
        """Threads a render runs on (1 for a CUDA context's host side)."""
        return self._h.num_threads

    @property
    def cpu_path(self) -> str:
        """How a CPU context's sensors trace: 'scalar', 'avx2' or 'avx512' (the one in use).
        Set 'auto', 'scalar', 'avx2' or 'avx512' (or a :class:`CpuPath`); every path gives
        bit-identical depth. :class:`Error` on a CUDA context or a path this CPU lacks."""
        return cpu_path_string(self._h.cpu_path)

    @cpu_path.setter
    def cpu_path(self, path: Union[str, CpuPath]) -> None:
        if isinstance(path, str):
            try:
                path = CpuPath[path.upper()]
            except KeyError:
                raise _invalid("Context.cpu_path", f"{path!r}: must be 'auto', 'scalar', 'avx2' or 'avx512'") from None
        self._h.cpu_path = path

    def __repr__(self) -> str:
        extra = f", threads={self.num_threads}" if not self.is_cuda else ""
        return f"warp_raycaster.Context({self.device!r}{extra})"


# ---- Scene -----------------------------------------------------------------------------------


class Scene:
    """An immutable triangle mesh (a BVH, or a grid), shared by every sensor and env (``wr_scene``).

    ``Scene(ctx, vertices, indices)``: vertices (num_vertices, 3) float32 (x, y, z in metres,
    all finite) and indices (num_triangles, 3) int32 or uint32 (each < num_vertices; winding
    does not matter: both faces are hit), C-contiguous. The library copies both; it reads them
    from host memory, so arrays on a GPU are first copied to the host (scene creation is a
    one-time cost). ``Scene.from_obj(ctx, path)`` loads a Wavefront OBJ file,
    ``Scene.from_heightfield(ctx, heights, spacing)`` takes a height field (as a BVH, or traced
    through its grid), ``Scene.from_grid_mesh(ctx, vertices, indices)`` legged_gym's grid meshes
    through theirs. A scene keeps
    its context alive. ``Scene.instanced(ctx, terrain, prototypes, slot_prototypes, ...)`` adds
    moving geometry (robot links, obstacles) posed at every render.
    """

    terrain: Optional["Scene"] = None
    prototypes: Tuple["Scene", ...] = ()

    def __init__(self, context: Context, vertices: Any, indices: Any) -> None:
        self.context = context
        self._h = _wr.Scene(context._h, _frameworks.to_host(vertices), _frameworks.to_host(indices))

    @classmethod
    def from_obj(cls, context: Context, path: Any) -> "Scene":
        """Loads a Wavefront OBJ file: every shape merged into one mesh, polygons triangulated.
        :class:`Error` with ``Status.ERROR_IO`` names a missing file, ``ERROR_PARSE`` the file and
        line of malformed content."""
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.load_obj(context._h, str(path))
        return scene

    @classmethod
    def from_heightfield(cls, context: Context, heights: Any, spacing: Union[float, Tuple[float, float]] = 1.0, *,
                         z_scale: float = 1.0, origin: Tuple[float, float, float] = (0.0, 0.0, 0.0),
                         base_depth: float = 0.0, x_fastest: bool = True, terrain: str = "auto") -> "Scene":
        """A scene from a height field, triangulated as MuJoCo triangulates its hfield (so depth
        matches ``mj_ray``); ``wr_scene_create_heightfield`` in wr.h says it exactly.

        heights: 2-D float32 (copied; on a GPU first copied to the host). With ``x_fastest``,
        ``heights[iy, ix]`` (num_y, num_x): MuJoCo's ``hfield_data`` as (nrow, ncol). Without,
        ``heights[ix, iy]`` (num_x, num_y): IsaacGym / legged_gym's ``height_field_raw``
        (``astype(np.float32)``, ``spacing=horizontal_scale``, ``z_scale=vertical_scale``).
        Sample (ix, iy) is at ``origin + (ix spacing_x, iy spacing_y, z_scale height)``; spacing
        is one float for both axes or ``(spacing_x, spacing_y)``. ``base_depth > 0`` closes the
        surface into a solid down to ``origin[2] - base_depth`` (MuJoCo's ``size[3]``).

        terrain: how the scene holds and traces the triangles (``wr_terrain_kind``): ``"grid"``
        traces the grid itself (a tenth of the BVH's memory, height scans several times faster,
        camera rays on the CPU about as fast as the BVH's SIMD packets and on a GPU several
        times slower, LiDAR rows slower; the same hits bit for bit), ``"bvh"`` a BVH over the
        triangles, ``"auto"`` the BVH today. :attr:`terrain_kind` says which it is.
        """
        sx, sy = (spacing, spacing) if isinstance(spacing, (int, float)) else spacing
        kinds = {"auto": 0, "bvh": 1, "grid": 2}
        if terrain not in kinds:
            raise _invalid("Scene.from_heightfield", f"terrain = {terrain!r}: must be 'auto', 'bvh' or 'grid'")
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_heightfield(context._h, _frameworks.to_host(heights), bool(x_fastest), float(sx),
                                                float(sy), float(z_scale), tuple(float(v) for v in origin),
                                                float(base_depth), kinds[terrain])
        return scene

    @classmethod
    def from_grid_mesh(cls, context: Context, vertices: Any, indices: Any) -> "Scene":
        """A scene from a grid-topology mesh, traced through its grid (``wr_scene_create_grid_mesh``):
        the ``vertices, triangles`` legged_gym's and IsaacLab's ``convert_heightfield_to_trimesh``
        return, unchanged (vertices moved by a slope threshold included). Hits, triangle ids and
        bounds are those of ``Scene(ctx, vertices, indices)``, bit for bit, in about an eighth of
        its memory where few vertices are moved (legged_gym's terrains). :class:`Error` names the
        first triangle out of that layout."""
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_grid_mesh(context._h, _frameworks.to_host(vertices),
                                              _frameworks.to_host(indices))
        return scene

    @classmethod
    def instanced(cls, context: Context, terrain: "Scene", prototypes: Sequence["Scene"], slot_prototypes: Any,
                  slot_groups: Any = None, global_prototypes: Any = None, global_groups: Any = None) -> "Scene":
        """A scene with moving geometry ("instances") over a static terrain
        (``wr_scene_create_instanced``; wr.h's "Moving geometry" section says it all).

        terrain: a mesh :class:`Scene` (static). prototypes: mesh scenes, each in its own frame with
        its BVH built once (a robot's link, an obstacle). Every env has ``len(slot_prototypes)``
        instances ("slots"): slot i of every env is a copy of prototype ``slot_prototypes[i]``,
        posed per env at every render (``instance_poses`` (num_envs, num_slots, 7) of
        :meth:`Sensor.render` and :meth:`intersect`); every env also sees the global instances,
        ``global_prototypes[j]`` each, posed once per render (``global_poses`` (num_globals, 7)).
        Env e sees the terrain, its own slots and the globals, never another env's slots. Each
        instance has a group 0-31 (``slot_groups`` / ``global_groups``, one per instance, or None:
        all 0) that a sensor or a ray query may exclude (``exclude_groups``). Instance ids: the
        slots 0 .. num_slots - 1, then the globals num_slots ... (-1 for the terrain or a miss).

        Tables are sequences of integers (lists, NumPy arrays, tensors), copied. Every scene must be
        a mesh scene of `context`; the new scene keeps the terrain and the prototypes alive
        (``scene.terrain``, ``scene.prototypes``), so the caller may drop its references.
        :class:`Error` names the entry at fault (``desc->slot_prototypes[3] ...``).
        """
        where = "Scene.instanced"
        if not isinstance(terrain, Scene):
            raise _invalid(where, f"terrain is a {type(terrain).__name__}, not a warp_raycaster.Scene")
        if isinstance(prototypes, Scene) or not hasattr(prototypes, "__iter__"):
            raise _invalid(where, "prototypes must be a sequence of warp_raycaster.Scene")
        prototypes = tuple(prototypes)
        for i, p in enumerate(prototypes):
            if not isinstance(p, Scene):
                raise _invalid(where, f"prototypes[{i}] is a {type(p).__name__}, not a warp_raycaster.Scene")
        if global_groups is not None and global_prototypes is None:
            raise _invalid(where, "global_groups is given without global_prototypes")
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_instanced(
            context._h, terrain._h, [p._h for p in prototypes],
            _index_list(slot_prototypes, "slot_prototypes", where),
            None if slot_groups is None else _index_list(slot_groups, "slot_groups", where),
            _index_list(global_prototypes, "global_prototypes", where),
            None if global_groups is None else _index_list(global_groups, "global_groups", where))
        scene.terrain = terrain
        scene.prototypes = prototypes
        return scene

    @property
    def instance_counts(self) -> Tuple[int, int]:
        """(num_slots, num_globals): instances per env and global instances; (0, 0) for a mesh scene."""
        return self._h.instance_counts

    @property
    def num_triangles(self) -> int:
        """Triangles as given, degenerate ones included."""
        return self._h.num_triangles

    @property
    def build_seconds(self) -> float:
        """Seconds the BVH or grid build took (validation and file parsing excluded)."""
        return self._h.build_seconds

    @property
    def terrain_kind(self) -> str:
        """``"bvh"`` or ``"grid"``: how the scene's terrain is held and traced (an instanced
        scene's: its terrain's)."""
        return self._h.terrain_kind

    @property
    def bounds(self) -> Tuple[Tuple[float, float, float], Tuple[float, float, float]]:
        """((min x, y, z), (max x, y, z)) of the triangles' corners, metres."""
        return self._h.bounds

    def memory(self) -> Dict[str, Any]:
        """Bytes the scene holds (BVH, triangles), from the library's ledger: ``host_bytes``,
        ``device_bytes``, ``shared_bytes``, ``per_env_bytes`` and ``tags``, a dict from tag name
        ('bvh_nodes', ...) to its ``host_bytes`` and ``device_bytes``."""
        return self._h.memory()

    def intersect(self, origins: Any, directions: Any, tmax: Any = None, *, out_t: Any = None,
                  out_triangle: Any = None, triangles: bool = True, stream: Any = None,
                  num_envs: Optional[int] = None, instance_poses: Any = None, global_poses: Any = None,
                  quat_order: Optional[str] = None, exclude_groups: Optional[Iterable[int]] = None,
                  out_instance: Any = None, instances: bool = False) -> Tuple[Any, ...]:
        """Nearest hit of each of `count` explicit rays (height scanners, LiDAR patterns, probes).

        origins, directions: (count, 3) float32. Directions need not be unit: t is in units of
        |direction|. tmax: (count,) float32, a float for every ray, or None (+inf).
        Returns ``(t, triangle)``: t (count,) float32, +inf where nothing is hit within tmax;
        triangle (count,) int32, the index of the input triangle, -1 where nothing is hit (None
        when ``triangles=False``). ``out_t`` / ``out_triangle`` (int32, or uint32 to get the C
        API's 0xFFFFFFFF misses) are written instead of new arrays. On a CPU context a
        non-finite origin or direction, a zero direction or a negative tmax raises
        :class:`Error` naming the ray; on a CUDA context that ray gets t = NaN.

        Instanced scenes (:meth:`instanced`; ``wr_scene_intersect_ex``): the rays are `num_envs`
        consecutive blocks of count / num_envs rays, or origins and directions are (num_envs,
        rays_per_env, 3) (IsaacLab's ``ray_starts_w`` layout; then t and the ids are (num_envs,
        rays_per_env)). Block e sees the terrain, env e's slots, posed by ``instance_poses``
        (num_envs, num_slots, 7) float32, and the global instances, ``global_poses`` (num_globals,
        7) float32 (each needed when the scene has such instances; position, then a quaternion in
        `quat_order`, 'wxyz' by default, or 'xyzw'), less the groups in `exclude_groups` (a
        sequence of group numbers). triangle is then the triangle within the mesh hit (the
        terrain's or the instance's prototype's). With ``instances=True`` (or `out_instance`
        given, int32 or uint32) the result is ``(t, triangle, instance)``: the instance id each ray
        hit, -1 for the terrain or a miss. A bad instance pose raises :class:`Error` naming its
        env and slot on a CPU context; on a CUDA context that env's rays get t = NaN.
        """
        where = "Scene.intersect"
        device = self.context.device
        shape = tuple(getattr(origins, "shape", ()))
        blocks = len(shape) == 3
        lead = shape[:2] if blocks else (_leading_extent(origins),)
        extended = (blocks or num_envs is not None or instance_poses is not None or global_poses is not None or
                    quat_order is not None or exclude_groups is not None or out_instance is not None or instances
                    or self.instance_counts != (0, 0))
        if tmax is not None and isinstance(tmax, (int, float)):
            tmax = _frameworks.full_like(origins, lead, float(tmax), device, where)
        finish_t = finish_tri = finish_inst = _frameworks._same
        if out_t is None:
            out_t, finish_t = _frameworks.empty_like(origins, lead, "float32", device, where)
        if out_triangle is None and triangles:
            out_triangle, finish_tri = _frameworks.empty_like(origins, lead, "int32", device, where)
        if out_instance is None and instances:
            out_instance, finish_inst = _frameworks.empty_like(origins, lead, "int32", device, where)
        stream_ptr = self._stream(origins, stream, where)
        if not extended:
            self._h.intersect(origins, directions, tmax, out_t, out_triangle, stream_ptr)
            return finish_t(out_t), (finish_tri(out_triangle) if out_triangle is not None else None)
        order = "wxyz" if quat_order is None else quat_order
        if order not in _ORDER:
            raise _invalid(where, f"quat_order = {quat_order!r}: must be 'wxyz' or 'xyzw'")
        envs = 0
        if num_envs is not None:
            try:
                envs = operator.index(num_envs)
            except TypeError:
                envs = -1
            if isinstance(num_envs, bool) or not 1 <= envs <= 0xFFFFFFFF:
                raise _invalid(where, f"num_envs = {num_envs!r}: must be a positive integer")
        self._h.intersect_ex(origins, directions, tmax, envs, instance_poses, global_poses,
                             _ORDER[order], _group_mask(exclude_groups, where), out_t, out_triangle, out_instance,
                             stream_ptr)
        t = finish_t(out_t)
        tri = finish_tri(out_triangle) if out_triangle is not None else None
        if out_instance is None:
            return t, tri
        return t, tri, finish_inst(out_instance)

    def _stream(self, ref: Any, stream: Any, where: str) -> int:
        if not self.context.is_cuda:
            return 0
        if stream is None:
            return _frameworks.default_stream(ref, self.context.device)
        return _frameworks.stream_handle(stream, where)

    def __repr__(self) -> str:
        slots, globals_ = self.instance_counts
        extra = f", {slots} slots per env, {globals_} global instances" if slots or globals_ else ""
        return f"warp_raycaster.Scene({self.num_triangles} triangles{extra}, {self.context.device!r})"


def _leading_extent(a: Any) -> int:
    shape = getattr(a, "shape", None)
    if shape is None or len(shape) == 0:
        cai = getattr(a, "__cuda_array_interface__", None)
        shape = cai["shape"] if isinstance(cai, dict) else None
    if shape is None:
        try:
            shape = memoryview(a).shape
        except TypeError:
            shape = None
    if not shape:
        return 0  # the binding names the argument and what it expected
    return int(shape[0])


# ---- Camera ----------------------------------------------------------------------------------

_DEPTH = {"plane": DepthKind.PLANE, "range": DepthKind.RANGE}
_ORDER = {"wxyz": QuatOrder.WXYZ, "xyzw": QuatOrder.XYZW}
# Named pose layouts (Sensor.render's layout=): the quaternion order and the floats of a row.
_LAYOUTS = {
    "isaacgym_root_states": ("xyzw", 13),
    "isaacgym_rigid_body_states": ("xyzw", 13),
    "isaaclab_root_state_w": ("wxyz", 13),
    "isaaclab_body_state_w": ("wxyz", 13),
    "poses_wxyz": ("wxyz", 7),
    "poses_xyzw": ("xyzw", 7),
}


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

    def __post_init__(self) -> None:
        if self.depth not in _DEPTH:
            raise _invalid("Camera", f"depth = {self.depth!r}: must be 'plane' or 'range'")
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
        return d

    @classmethod
    def _from_desc(cls, d: "_wr.CameraDesc") -> "Camera":
        depth = "plane" if d.depth_kind == DepthKind.PLANE else "range"
        order = "wxyz" if d.quat_order == QuatOrder.WXYZ else "xyzw"
        return cls(width=d.width, height=d.height, fx=d.fx, fy=d.fy, cx=d.cx, cy=d.cy, near=d.near_clip,
                   far=d.far_clip, miss_value=d.miss_value, depth=depth, quat_order=order,
                   mount_position=d.mount_position, mount_rotation=d.mount_rotation)


# ---- Sensor ----------------------------------------------------------------------------------


class Sensor:
    """num_envs cameras sharing one :class:`Camera` and one :class:`Scene` (``wr_sensor``).

    Creation builds the ray template (one direction per pixel, shared by every env) and
    allocates everything a render needs: :meth:`render` never allocates inside the library
    and never synchronises. Without a `pipeline` the only per-env bytes are the caller's: its
    pose (28 B) and its image (height * width * 4 B). With a :class:`Pipeline` the output is
    what the policy reads (cropped, resampled, normalised, in its dtype, delayed), and the library
    holds per env only what the pipeline implies (its history; on a GPU the crop's image where
    it resamples). A sensor keeps its scene alive; objects may be released in any order.

    On an instanced scene (:meth:`Scene.instanced`) every render takes the instances' poses, and
    ``exclude_groups`` (a sequence of group numbers 0-31) names the instance groups this camera
    does not see: a head camera its own head link, a terrain-only camera the whole robot.
    """

    def __init__(self, scene: Scene, camera: Camera, num_envs: int = 1, *,
                 pipeline: Optional[Pipeline] = None, exclude_groups: Optional[Iterable[int]] = None) -> None:
        self.scene = scene
        self.pipeline = pipeline
        options = pipeline._options() if pipeline is not None else _wr.SensorOptions()
        options.exclude_groups = _group_mask(exclude_groups, "Sensor")
        self.exclude_groups: Tuple[int, ...] = tuple(g for g in range(32) if options.exclude_groups >> g & 1)
        self._instanced = scene.instance_counts != (0, 0)
        self._h = _wr.Sensor(scene._h, camera._desc(), int(num_envs), options)
        self._frames_rendered = 0
        self.camera = Camera._from_desc(self._h.desc)
        self.quat_order: str = self.camera.quat_order
        h, w, dtype = self._h.output_shape
        self._shape = (self._h.num_envs, h, w)
        self._dtype = {Dtype.FLOAT32: "float32", Dtype.FLOAT16: "float16", Dtype.UINT16_MM: "uint16"}[dtype]

    @property
    def num_envs(self) -> int:
        return self._h.num_envs

    @property
    def frames_rendered(self) -> int:
        """The frame number the next :meth:`render` without ``frame=`` takes (its renders so far)."""
        return self._frames_rendered

    @property
    def shape(self) -> Tuple[int, int, int]:
        """(num_envs, height, width) of a render's output: the camera's, or the pipeline's."""
        return self._shape

    @property
    def dtype(self) -> str:
        """The output's dtype: 'float32', 'float16' or 'uint16' (the pipeline's)."""
        return self._dtype

    @property
    def context(self) -> Context:
        return self.scene.context

    def render(self, poses: Any, out: Any = None, *, stream: Any = None, frame: Optional[int] = None,
               body: Optional[int] = None,
               intrinsics: Any = None, mounts: Any = None, latency: Any = None, update_mask: Any = None,
               reset_mask: Any = None, bad_env_mask: Any = None, bad_env_count: Any = None,
               instance_poses: Any = None, global_poses: Any = None, instance_ids: Any = None,
               return_ids: bool = False, quat_order: Optional[str] = None, triangle_ids: Any = None,
               hit_points: Any = None, hit_normals: Any = None, layout: Optional[str] = None) -> Any:
        """Renders every env (whose update_mask allows) and returns `out` (``(out, instance_ids)``
        with ``return_ids=True`` or `instance_ids` given).

        poses: float32, C-contiguous, on the context's device (host memory for a CPU context,
        that GPU's memory for a CUDA one), read in place: (num_envs, 7) position x, y, z and a
        quaternion in the camera's quat_order (normalised before use); or simulator state whose
        rows start with a pose, such as IsaacGym's root states (num_envs, 13) (position, xyzw
        quaternion, velocities); or rigid-body states (num_envs, bodies, 13) with `body` the
        camera's body. No copy is made in any of these layouts.

        out: (num_envs, height, width) of :attr:`dtype`, C-contiguous, written where updated;
        when None a new array is allocated in the framework of `poses` and on its device.

        The RL pipeline's per-render arrays (each None, or (num_envs, ...) on the same device):
        intrinsics (num_envs, 4) fx, fy, cx, cy per env, or (num_envs, 3, 3) K matrices (IsaacLab's
        ``set_intrinsic_matrices``: fx = K[0, 0], fy = K[1, 1], cx = K[0, 2], cy = K[1, 2], rays
        through pixel centres as there; a skew or a last row other than (0, 0, 1) is refused
        where the matrices are in host memory; the four values are gathered into a new (num_envs, 4)
        array per call: pass (num_envs, 4) to avoid that copy); mounts (num_envs, 7) each env's
        camera pose in its body frame; latency (num_envs,) int32 frames ago (< the pipeline's
        history), or one int for every env (its array made once per value and kept);
        update_mask (num_envs,) bool: False leaves that env's output and history untouched;
        reset_mask (num_envs,) bool: True fills that env's history with this frame. frame: the
        frame number of the noise (and of a scanning sensor's window), 0 <= frame < 2**64: a
        replayed frame reproduces its bits. **Without frame= each render takes the next number of
        the sensor's own count** (:attr:`frames_rendered`: 0, 1, 2, ...), so the noise differs from
        step to step by default; a render with frame= leaves the count as it is. Under CUDA graph
        capture the frame number is captured with the launch: a replayed graph replays that frame
        (its noise included); capture one graph per frame parity you need, or render outside the
        graph where the noise must change. bad_env_mask (num_envs,) bool
        and bad_env_count (1,) int32 are written with the envs whose pose, mount or intrinsics
        were bad (the pipeline's isolate_bad_poses).

        stream (CUDA contexts): where the work is enqueued, an int (cudaStream_t), a
        torch.cuda.Stream or a CuPy stream; by default torch's current stream (CuPy's for
        CuPy arrays). The call returns before the work is done, as a torch kernel does; `out`
        must stay alive until that stream reaches it.

        Instanced scenes (:meth:`Scene.instanced`): instance_poses (num_envs, num_slots, 7)
        float32, each env's instances in the world (position, then a quaternion in the camera's
        quat_order: for instance the rows of IsaacLab's ``body_link_pose_w`` (num_envs, bodies, 7,
        w x y z) the slots are, ``body_link_pose_w[:, body_ids]``, or MuJoCo's ``xpos`` and ``xquat``
        concatenated), read in place, needed when the scene has slots; global_poses
        (num_globals, 7) float32, needed when it has global instances. instance_ids (num_envs,
        height, width) int32 or uint32 is written with the instance each pixel's ray hit (-1, or
        0xFFFFFFFF, for the terrain or nothing; before noise); ``return_ids=True`` allocates it
        (int32) beside `out`. Ids need an output whose every pixel is one camera pixel's: no
        resampling, no edge dropout, history 1.

        quat_order ('wxyz' or 'xyzw', optional): the order of the quaternions in `poses` (and the
        instances'), as the caller knows it; a render whose order differs from the sensor's camera
        raises :class:`Error` naming both, where it would otherwise render rotated images.
        layout (optional): what `poses` is, by name, so that its order travels with it:
        ``"isaacgym_root_states"`` (num_envs, 13) and ``"isaacgym_rigid_body_states"``
        (num_envs, bodies, 13) (x y z w); ``"isaaclab_root_state_w"`` (num_envs, 13) and
        ``"isaaclab_body_state_w"`` (num_envs, bodies, 13) (w x y z); ``"poses_wxyz"`` and
        ``"poses_xyzw"`` (num_envs, 7). A layout whose order is not the sensor's, or whose last axis
        is not `poses`'s, raises :class:`Error` naming both.

        A bad pose on the host raises :class:`Error` naming the env and writes nothing (unless
        the pipeline isolates bad poses); on a CUDA context that env's output is NaN. A bad
        instance pose is named with its env and slot, in the same way.

        triangle_ids, hit_points, hit_normals: a pattern sensor's hit details
        (:meth:`RaySensor.render`); a camera refuses them.
        """
        where = "Sensor.render"
        if layout is not None:
            if layout not in _LAYOUTS:
                raise _invalid(where, f"layout = {layout!r}: must be one of {', '.join(repr(k) for k in _LAYOUTS)}")
            order, width = _LAYOUTS[layout]
            shape = tuple(getattr(poses, "shape", ()))
            if not shape or shape[-1] != width:
                raise _invalid(where, f"layout = {layout!r} has rows of {width} floats, but poses has shape {shape}")
            if quat_order is not None and quat_order != order:
                raise _invalid(where, f"quat_order = {quat_order!r} and layout = {layout!r} ({order}) disagree")
            quat_order = order
        if quat_order is not None and quat_order != self.quat_order:
            raise _invalid(where, f"quat_order = {quat_order!r}: the poses are {quat_order}, but this sensor reads "
                                  f"{self.quat_order} (its camera's quat_order): make the sensor with "
                                  f"quat_order={quat_order!r}")
        if frame is None:
            frame = self._frames_rendered
            self._frames_rendered += 1
        elif isinstance(frame, bool) or not isinstance(frame, int) or not 0 <= frame < 2 ** 64:
            raise _invalid(where, f"frame = {frame!r}: must be an int in [0, 2**64) (or None: the sensor's own "
                                  f"count, {self._frames_rendered} next)")
        if not isinstance(latency, bool) and (isinstance(latency, int) or (
                getattr(latency, "shape", None) == () and hasattr(latency, "__index__"))):
            latency = self._scalar_latency(operator.index(latency), poses, where)
        if intrinsics is not None and tuple(getattr(intrinsics, "shape", ()))[1:] == (3, 3):
            intrinsics = _frameworks.intrinsics_from_k(intrinsics, where)
        finish = finish_ids = _frameworks._same
        if out is None:
            out, finish = _frameworks.empty_like(poses, self.shape, self._dtype, self.context.device, where)
        with_ids = return_ids or instance_ids is not None
        if instance_ids is None and return_ids:
            instance_ids, finish_ids = _frameworks.empty_like(poses, self.shape, "int32", self.context.device, where)
        handle = self.scene._stream(poses, stream, where)
        # One entry of the binding for every render: the library derives which parts of the
        # pipeline it runs from the sensor and these arguments.
        shape = tuple(getattr(poses, "shape", ()))
        if len(shape) == 3:
            if body is None or not 0 <= int(body) < shape[1] or shape[2] < 7:
                raise _invalid(where, f"poses has shape {shape}: (num_envs, bodies, 13) state needs body= in "
                                      f"[0, {shape[1] if len(shape) > 1 else 0})")
            stride, offset = shape[1] * shape[2], int(body) * shape[2]
        elif body is not None:
            raise _invalid(where, f"poses has shape {shape}: body= needs (num_envs, bodies, 13) rigid-body states")
        elif len(shape) == 2 and shape[1] > 7:
            stride, offset = shape[1], 0
        else:  # (num_envs, 7) poses; or not an array, or of another shape: the binding names what is wrong
            stride, offset = 0, 0
        if stride and shape[0] != self.num_envs:
            raise _invalid(where, f"poses has {shape[0]} rows, the sensor {self.num_envs} envs")
        self._h.render(poses, out, handle, pose_stride=stride, pose_offset=offset, intrinsics=intrinsics,
                       mounts=mounts, frame=int(frame), latency=latency, update_mask=update_mask,
                       reset_mask=reset_mask, bad_env_count=bad_env_count, bad_env_mask=bad_env_mask,
                       instance_poses=instance_poses, global_poses=global_poses, instance_ids=instance_ids,
                       triangle_ids=triangle_ids, hit_points=hit_points, hit_normals=hit_normals)
        if with_ids:
            return finish(out), finish_ids(instance_ids)
        return finish(out)

    def _scalar_latency(self, value: int, poses: Any, where: str) -> Any:
        # One int for every env: a (num_envs,) int32 array beside the poses, made once per value,
        # framework and device and kept (a render makes no array for it after the first).
        if not 0 <= value < 2 ** 31:
            raise _invalid(where, f"latency = {value}: frames ago, must be 0 or more (and < the pipeline's history)")
        cache = self.__dict__.setdefault("_latency_arrays", {})
        device = str(getattr(poses, "device", self.context.device))
        key = (value, _frameworks.framework(poses), device)
        if key not in cache:
            cache[key] = _frameworks.full_like(poses, (self.num_envs,), value, self.context.device, where, "int32")
        return cache[key]

    def stack_overflows(self) -> int:
        """Rays that overflowed the fixed traversal stack since creation (finished exactly by a
        slower walk; non-zero only means an unusually deep BVH). Synchronises on CUDA."""
        return self._h.stack_overflows()

    def memory(self) -> Dict[str, Any]:
        """Bytes the sensor holds beyond its scene (ray template, counters, the pipeline's
        history and images), as :meth:`Scene.memory` reports them; ``per_env_bytes``: what each
        env adds inside the library (0 without a pipeline: each env's pose and image are the
        caller's)."""
        return self._h.memory()

    def __repr__(self) -> str:
        n, h, w = self.shape
        return (f"warp_raycaster.Sensor(num_envs={n}, {w}x{h}, depth={self.camera.depth!r}, "
                f"quat_order={self.quat_order!r}, {self.context.device!r})")


from .ray_sensor import Pattern, RayHits, RaySensor  # noqa: E402  (uses the classes above)
from . import rl  # noqa: E402  (uses the classes above)
