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
from .pipeline import Noise, Pipeline
from ._context import Context
from ._scene import Scene
from ._camera import Camera
from ._render_args import Hits, RenderInputs
from ._sensor import Sensor
from .ray_sensor import Pattern, RayHits, RaySensor
from . import rl

__all__ = [
    "Camera",
    "Context",
    "CpuPath",
    "DepthKind",
    "Error",
    "Hits",
    "MemoryTag",
    "Noise",
    "Pattern",
    "Pipeline",
    "QuatOrder",
    "RayHits",
    "RaySensor",
    "RenderInputs",
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
