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
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Optional, Tuple, Union

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
    "Pipeline",
    "QuatOrder",
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
    """An immutable triangle mesh and its BVH, shared by every sensor and env (``wr_scene``).

    ``Scene(ctx, vertices, indices)``: vertices (num_vertices, 3) float32 (x, y, z in metres,
    all finite) and indices (num_triangles, 3) int32 or uint32 (each < num_vertices; winding
    does not matter: both faces are hit), C-contiguous. The library copies both; it reads them
    from host memory, so arrays on a GPU are first copied to the host (scene creation is a
    one-time cost). ``Scene.from_obj(ctx, path)`` loads a Wavefront OBJ file,
    ``Scene.from_heightfield(ctx, heights, spacing)`` triangulates a height field. A scene keeps
    its context alive.
    """

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
                         base_depth: float = 0.0, x_fastest: bool = True) -> "Scene":
        """A scene from a height field, triangulated as MuJoCo triangulates its hfield (so depth
        matches ``mj_ray``); ``wr_scene_create_heightfield`` in wr.h says it exactly.

        heights: 2-D float32 (copied; on a GPU first copied to the host). With ``x_fastest``,
        ``heights[iy, ix]`` (num_y, num_x): MuJoCo's ``hfield_data`` as (nrow, ncol). Without,
        ``heights[ix, iy]`` (num_x, num_y): IsaacGym / legged_gym's ``height_field_raw``
        (``astype(np.float32)``, ``spacing=horizontal_scale``, ``z_scale=vertical_scale``).
        Sample (ix, iy) is at ``origin + (ix spacing_x, iy spacing_y, z_scale height)``; spacing
        is one float for both axes or ``(spacing_x, spacing_y)``. ``base_depth > 0`` closes the
        surface into a solid down to ``origin[2] - base_depth`` (MuJoCo's ``size[3]``).
        """
        sx, sy = (spacing, spacing) if isinstance(spacing, (int, float)) else spacing
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_heightfield(context._h, _frameworks.to_host(heights), bool(x_fastest), float(sx),
                                                float(sy), float(z_scale), tuple(float(v) for v in origin),
                                                float(base_depth))
        return scene

    @property
    def num_triangles(self) -> int:
        """Triangles as given, degenerate ones included."""
        return self._h.num_triangles

    @property
    def build_seconds(self) -> float:
        """Seconds the BVH build took (validation and file parsing excluded)."""
        return self._h.build_seconds

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
                  out_triangle: Any = None, triangles: bool = True, stream: Any = None) -> Tuple[Any, Any]:
        """Nearest hit of each of `count` explicit rays (height scanners, LiDAR patterns, probes).

        origins, directions: (count, 3) float32. Directions need not be unit: t is in units of
        |direction|. tmax: (count,) float32, a float for every ray, or None (+inf).
        Returns ``(t, triangle)``: t (count,) float32, +inf where nothing is hit within tmax;
        triangle (count,) int32, the index of the input triangle, -1 where nothing is hit (None
        when ``triangles=False``). ``out_t`` / ``out_triangle`` (int32, or uint32 to get the C
        API's 0xFFFFFFFF misses) are written instead of new arrays. On a CPU context a
        non-finite origin or direction, a zero direction or a negative tmax raises
        :class:`Error` naming the ray; on a CUDA context that ray gets t = NaN.
        """
        where = "Scene.intersect"
        device = self.context.device
        count = _leading_extent(origins)
        if tmax is not None and isinstance(tmax, (int, float)):
            tmax = _frameworks.full_like(origins, count, float(tmax), device, where)
        finish_t = finish_tri = _frameworks._same
        if out_t is None:
            out_t, finish_t = _frameworks.empty_like(origins, (count,), "float32", device, where)
        if out_triangle is None and triangles:
            out_triangle, finish_tri = _frameworks.empty_like(origins, (count,), "int32", device, where)
        stream_ptr = self._stream(origins, stream, where)
        self._h.intersect(origins, directions, tmax, out_t, out_triangle, stream_ptr)
        return finish_t(out_t), (finish_tri(out_triangle) if out_triangle is not None else None)

    def _stream(self, ref: Any, stream: Any, where: str) -> int:
        if not self.context.is_cuda:
            return 0
        if stream is None:
            return _frameworks.default_stream(ref, self.context.device)
        return _frameworks.stream_handle(stream, where)

    def __repr__(self) -> str:
        return f"warp_raycaster.Scene({self.num_triangles} triangles, {self.context.device!r})"


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
        (near, far, miss_value, depth, quat_order, mount_position, mount_rotation) as keywords."""
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
    """

    def __init__(self, scene: Scene, camera: Camera, num_envs: int = 1, *,
                 pipeline: Optional[Pipeline] = None) -> None:
        self.scene = scene
        self.pipeline = pipeline
        options = pipeline._options() if pipeline is not None else _wr.SensorOptions()
        self._h = _wr.Sensor(scene._h, camera._desc(), int(num_envs), options)
        self.camera = Camera._from_desc(self._h.desc)
        h, w, dtype = self._h.output_shape
        self._shape = (self._h.num_envs, h, w)
        self._dtype = {Dtype.FLOAT32: "float32", Dtype.FLOAT16: "float16", Dtype.UINT16_MM: "uint16"}[dtype]

    @property
    def num_envs(self) -> int:
        return self._h.num_envs

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

    def render(self, poses: Any, out: Any = None, *, stream: Any = None, frame: int = 0, body: Optional[int] = None,
               intrinsics: Any = None, mounts: Any = None, latency: Any = None, update_mask: Any = None,
               reset_mask: Any = None, bad_env_mask: Any = None, bad_env_count: Any = None) -> Any:
        """Renders every env (whose update_mask allows) and returns `out`.

        poses: float32, C-contiguous, on the context's device (host memory for a CPU context,
        that GPU's memory for a CUDA one), read in place: (num_envs, 7) position x, y, z and a
        quaternion in the camera's quat_order (normalised before use); or simulator state whose
        rows start with a pose, such as IsaacGym's root states (num_envs, 13) (position, xyzw
        quaternion, velocities); or rigid-body states (num_envs, bodies, 13) with `body` the
        camera's body. No copy is made in any of these layouts.

        out: (num_envs, height, width) of :attr:`dtype`, C-contiguous, written where updated;
        when None a new array is allocated in the framework of `poses` and on its device.

        The RL pipeline's per-render arrays (each None, or (num_envs, ...) on the same device):
        intrinsics (num_envs, 4) fx, fy, cx, cy per env; mounts (num_envs, 7) each env's camera
        pose in its body frame; latency (num_envs,) int32 frames ago (< the pipeline's history);
        update_mask (num_envs,) bool: False leaves that env's output and history untouched;
        reset_mask (num_envs,) bool: True fills that env's history with this frame. frame: the
        frame number of the noise (a replayed frame reproduces). bad_env_mask (num_envs,) bool
        and bad_env_count (1,) int32 are written with the envs whose pose, mount or intrinsics
        were bad (the pipeline's isolate_bad_poses).

        stream (CUDA contexts): where the work is enqueued, an int (cudaStream_t), a
        torch.cuda.Stream or a CuPy stream; by default torch's current stream (CuPy's for
        CuPy arrays). The call returns before the work is done, as a torch kernel does; `out`
        must stay alive until that stream reaches it.

        A bad pose on the host raises :class:`Error` naming the env and writes nothing (unless
        the pipeline isolates bad poses); on a CUDA context that env's output is NaN.
        """
        where = "Sensor.render"
        finish = _frameworks._same
        if out is None:
            out, finish = _frameworks.empty_like(poses, self.shape, self._dtype, self.context.device, where)
        handle = self.scene._stream(poses, stream, where)
        plain = (self.pipeline is None and body is None and frame == 0 and
                 all(a is None for a in (intrinsics, mounts, latency, update_mask, reset_mask, bad_env_mask,
                                         bad_env_count)))
        shape = tuple(getattr(poses, "shape", ()))
        state = len(shape) == 3 or (len(shape) == 2 and shape[1] > 7)
        if plain and not state:  # (num_envs, 7) poses, or anything else the binding names the fault of
            self._h.render(poses, out, handle)
            return finish(out)
        if len(shape) == 3:
            if body is None or not 0 <= int(body) < shape[1] or shape[2] < 7:
                raise _invalid(where, f"poses has shape {shape}: (num_envs, bodies, 13) state needs body= in "
                                      f"[0, {shape[1] if len(shape) > 1 else 0})")
            stride, offset = shape[1] * shape[2], int(body) * shape[2]
        elif body is not None:
            raise _invalid(where, f"poses has shape {shape}: body= needs (num_envs, bodies, 13) rigid-body states")
        elif len(shape) == 2 and shape[1] >= 7:
            stride, offset = shape[1], 0
        else:
            stride, offset = 7, 0  # not an array, or of another shape: the binding names what is wrong
        if len(shape) >= 2 and shape[0] != self.num_envs:
            raise _invalid(where, f"poses has {shape[0]} rows, the sensor {self.num_envs} envs")
        self._h.render_ex(poses, stride, offset, out, intrinsics, mounts, int(frame), latency, update_mask,
                          reset_mask, bad_env_count, bad_env_mask, handle)
        return finish(out)

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
        return f"warp_raycaster.Sensor(num_envs={n}, {w}x{h}, depth={self.camera.depth!r}, {self.context.device!r})"


from . import rl  # noqa: E402  (uses the classes above)
