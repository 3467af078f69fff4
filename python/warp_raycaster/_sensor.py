"""warp_raycaster.Sensor: num_envs cameras over one scene, and its render."""

from __future__ import annotations

import operator
from typing import Any, Dict, Iterable, Optional, Tuple

from . import _frameworks, _wr
from ._args import _group_mask
from ._camera import Camera
from ._errors import _invalid
from ._render_args import CHANNELS, Hits, RenderInputs, deprecated_keywords
from ._scene import Scene
from ._context import Context
from ._wr import Dtype
from .pipeline import Pipeline

# Named pose layouts (Sensor.render's layout=): the quaternion order and the floats of a row.
_LAYOUTS = {
    "isaacgym_root_states": ("xyzw", 13),
    "isaacgym_rigid_body_states": ("xyzw", 13),
    "isaaclab_root_state_w": ("wxyz", 13),
    "isaaclab_body_state_w": ("wxyz", 13),
    "poses_wxyz": ("wxyz", 7),
    "poses_xyzw": ("xyzw", 7),
}


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
               layout: Optional[str] = None, inputs: Optional[RenderInputs] = None, **deprecated: Any) -> Any:
        """Renders every env (whose update_mask allows) into `out` and returns it.

        poses: float32, C-contiguous, on the context's device (host memory for a CPU context,
        that GPU's memory for a CUDA one), read in place: (num_envs, 7) position x, y, z and a
        quaternion in the camera's quat_order (normalised before use); or simulator state whose
        rows start with a pose, such as IsaacGym's root states (num_envs, 13) (position, xyzw
        quaternion, velocities); or rigid-body states (num_envs, bodies, 13) with
        ``inputs.body`` the sensor's body. No copy is made in any of these layouts.

        layout (optional): what `poses` is, by name, so that its quaternion order travels with it:
        ``"isaacgym_root_states"`` (num_envs, 13) and ``"isaacgym_rigid_body_states"``
        (num_envs, bodies, 13) (x y z w); ``"isaaclab_root_state_w"`` (num_envs, 13) and
        ``"isaaclab_body_state_w"`` (num_envs, bodies, 13) (IsaacLab 2.x: w x y z);
        ``"poses_wxyz"`` and ``"poses_xyzw"`` (num_envs, 7). A layout whose order is not the
        sensor's, or whose last axis is not `poses`'s, raises :class:`Error` naming both.

        out: the output's shape (:attr:`shape`) of :attr:`dtype`, C-contiguous, written where
        updated; when None a new array is allocated in the framework of `poses` and on its device.

        stream (CUDA contexts): where the work is enqueued, an int (cudaStream_t), a
        torch.cuda.Stream or a CuPy stream; by default torch's current stream (CuPy's for CuPy
        arrays). The call returns before the work is done, as a torch kernel does; `out` must stay
        alive until that stream reaches it.

        frame: the frame number of the noise (and of a scanning sensor's window),
        0 <= frame < 2**64: a replayed frame reproduces its bits. **Without frame= each render
        takes the next number of the sensor's own count** (:attr:`frames_rendered`: 0, 1, 2, ...),
        so the noise differs from step to step by default; a render with frame= leaves the count as
        it is. Under CUDA graph capture the frame number is captured with the launch: a replayed
        graph replays that frame (its noise included).

        inputs: the per-env inputs (:class:`RenderInputs`: per-env intrinsics and mounts, latency,
        update and reset masks, the bad-env reports, an instanced scene's poses, the body).

        A bad pose on the host raises :class:`Error` naming the env and writes nothing (unless the
        pipeline isolates bad poses); on a CUDA context that env's output is NaN. A bad instance
        pose is named with its env and slot, in the same way. What each pixel hit (its point,
        normal, triangle and instance): :meth:`render_hits`.

        Before 0.7 the per-env inputs and the hit arrays were keywords of their own (``latency=``,
        ``instance_poses=``, ``instance_ids=``, ``return_ids=``, ``quat_order=``, ...): they still
        work, each with a DeprecationWarning naming its new spelling, until 0.8.
        """
        where = f"{type(self).__name__}.render"
        inputs, channels, other = deprecated_keywords(where, inputs, deprecated)
        ids = channels.get("instance_ids")
        if ids is None and other.get("return_ids"):
            ids, finish_ids = _frameworks.empty_like(poses, self.shape, "int32", self.context.device, where)
            channels["instance_ids"] = ids
        else:
            finish_ids = _frameworks._same
        out = self._render(where, poses, out, stream, frame, layout, other.get("quat_order"), inputs, channels)
        if ids is not None:  # (before 0.7: instance_ids or return_ids returned (out, ids))
            return out, finish_ids(ids)
        return out

    def render_hits(self, poses: Any, hits: Optional[Hits] = None, *, stream: Any = None,
                    frame: Optional[int] = None, layout: Optional[str] = None,
                    inputs: Optional[RenderInputs] = None, fields: Optional[Iterable[str]] = None) -> Hits:
        """Renders as :meth:`render` does and returns, beside the output, what each output pixel
        (a camera's pixel, a pattern sensor's ray) hit, as a :class:`Hits`: its point, its
        triangle's unit normal facing the ray (in the world, or with the sensor's
        ``hit_frame="sensor"`` in its own frame), the triangle and the instance, each its own ray as
        the render traced it, before noise. `hits`: a :class:`Hits` whose arrays (any may be None)
        are written in place (``values`` is `out`); the others are made beside the poses. `fields`
        (optional): the names of the Hits fields to make, the others None (``("instance_ids",)``
        alone keeps the CPU's SIMD packets, which every other field turns off). Needs an output
        whose every pixel is one camera pixel's (no resampling, no edge dropout) and no history; a
        sensor with either raises :class:`Error` naming it."""
        where = f"{type(self).__name__}.render_hits"
        given = hits if hits is not None else Hits(None, None, None, None, None)
        wanted = set(f for f, _, _, _ in CHANNELS) if fields is None else set(fields)
        unknown = wanted - set(f for f, _, _, _ in CHANNELS)
        if unknown:
            raise _invalid(where, f"fields holds {sorted(unknown)!r}: the fields are "
                                  f"{', '.join(repr(f) for f, _, _, _ in CHANNELS)}")
        made = {}
        arrays = {}
        for field, name, dims, dtype in CHANNELS:
            value = getattr(given, field)
            if value is None and field not in wanted:
                continue
            if value is None:
                value, made[field] = _frameworks.empty_like(poses, self.shape + dims, dtype, self.context.device,
                                                            where)
            arrays[name] = value
        values = self._render(where, poses, given.values, stream, frame, layout, None,
                              inputs if inputs is not None else RenderInputs(), arrays)
        finished = {field: made[field](arrays[name]) if field in made else arrays.get(name)
                    for field, name, _, _ in CHANNELS}
        return Hits(values, **finished)

    def _poses_for_render(self, poses: Any, inputs: RenderInputs, where: str) -> Any:
        """The poses as the binding reads them (a pattern sensor of several frames reshapes them)."""
        return poses

    def _render(self, where: str, poses: Any, out: Any, stream: Any, frame: Optional[int], layout: Optional[str],
                quat_order: Optional[str], inputs: RenderInputs, channels: Dict[str, Any]) -> Any:
        # The one render of render and render_hits: checks what the binding cannot (the layout and
        # its order, the frame, the body of rigid-body states), then one call of the binding, from
        # whose arguments the library derives which parts of the pipeline it runs.
        poses = self._poses_for_render(poses, inputs, where)
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
        latency, intrinsics, body = inputs.latency, inputs.intrinsics, inputs.body
        if not isinstance(latency, bool) and (isinstance(latency, int) or (
                getattr(latency, "shape", None) == () and hasattr(latency, "__index__"))):
            latency = self._scalar_latency(operator.index(latency), poses, where)
        if intrinsics is not None and tuple(getattr(intrinsics, "shape", ()))[1:] == (3, 3):
            intrinsics = _frameworks.intrinsics_from_k(intrinsics, where)
        finish = _frameworks._same
        if out is None:
            out, finish = _frameworks.empty_like(poses, self.shape, self._dtype, self.context.device, where)
        handle = self.scene._stream(poses, stream, where)
        shape = tuple(getattr(poses, "shape", ()))
        if len(shape) == 3:
            if body is None or not 0 <= int(body) < shape[1] or shape[2] < 7:
                raise _invalid(where, f"poses has shape {shape}: (num_envs, bodies, 13) state needs inputs.body in "
                                      f"[0, {shape[1] if len(shape) > 1 else 0})")
            stride, offset = shape[1] * shape[2], int(body) * shape[2]
        elif body is not None:
            raise _invalid(where, f"poses has shape {shape}: inputs.body needs (num_envs, bodies, 13) rigid-body "
                                  f"states")
        elif len(shape) == 2 and shape[1] > 7:
            stride, offset = shape[1], 0
        else:  # (num_envs, 7) poses; or not an array, or of another shape: the binding names what is wrong
            stride, offset = 0, 0
        if stride and shape[0] != self.num_envs:
            raise _invalid(where, f"poses has {shape[0]} rows, the sensor {self.num_envs} envs")
        self._h.render(poses, out, handle, pose_stride=stride, pose_offset=offset, intrinsics=intrinsics,
                       mounts=inputs.mounts, frame=int(frame), latency=latency, update_mask=inputs.update_mask,
                       reset_mask=inputs.reset_mask, bad_env_count=inputs.bad_env_count,
                       bad_env_mask=inputs.bad_env_mask, instance_poses=inputs.instance_poses,
                       global_poses=inputs.global_poses, function=where, **channels)
        return finish(out)

    def world_rays(self, pose: Any, mount: Any = None, *, env: int = 0, frame: int = 0) -> Tuple[Any, Any]:
        """Env `env`'s world rays for its body pose (7,) (and mount (7,), or None: the camera's), as
        (starts, directions) (out_height, out_width, 3) float32 NumPy arrays: each output pixel's
        ray, the bits its render traces (``wr_sensor_world_rays``; every start the camera's
        position). With near 0 and far +inf, :meth:`Scene.intersect` of these rays finds each
        pixel's hit as :meth:`render_hits` reports it. Refused for an output that resamples or
        drops edges. Host arrays."""
        import numpy as np

        pose = np.ascontiguousarray(pose, dtype=np.float32).reshape(-1)
        mount = None if mount is None else np.ascontiguousarray(mount, dtype=np.float32)
        shape = tuple(self.shape[1:]) + (3,)
        starts = np.empty(shape, np.float32)
        directions = np.empty(shape, np.float32)
        self._h.world_rays(pose, mount, int(env), int(frame), starts.reshape(-1, 3), directions.reshape(-1, 3))
        return starts, directions

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
