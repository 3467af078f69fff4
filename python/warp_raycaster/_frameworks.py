"""Which framework an array belongs to, how to allocate an output beside it, which CUDA stream
to enqueue on.

No framework is imported here: an array can only be a torch tensor if torch is already in
``sys.modules``, so looking there costs nothing and keeps ``import warp_raycaster`` light.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Tuple

from ._errors import _invalid


# (framework, module, array type): the frameworks whose arrays get outputs of their own kind.
_KINDS = (("torch", "torch", "Tensor"), ("numpy", "numpy", "ndarray"), ("cupy", "cupy", "ndarray"),
          ("jax", "jax", "Array"))


def framework(a: Any) -> str:
    """'torch', 'numpy', 'cupy', 'jax' or 'other' (any other DLPack / CAI / buffer object)."""
    for kind, module_name, type_name in _KINDS:
        module = sys.modules.get(module_name)
        if module is not None and isinstance(a, getattr(module, type_name)):
            return kind
    return "other"


def _dtype(module: Any, name: str) -> Any:
    return getattr(module, name)  # float32 / int32 exist under these names in all four


def empty_like(ref: Any, shape: Tuple[int, ...], dtype: str, device: str, where: str) -> Tuple[Any, Callable[[Any], Any]]:
    """An uninitialised C-contiguous array of `shape` and `dtype` ('float32' or 'int32') in
    the framework of `ref` on `device` ('cpu' or 'cuda:<i>', the context's), and the function
    that turns it into what the caller gets back (the identity, except for JAX, whose arrays
    are immutable: the library writes a NumPy / torch buffer that is then handed to JAX
    through DLPack)."""
    kind = framework(ref)
    cuda = device.startswith("cuda")
    if kind == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=_dtype(torch, dtype), device=ref.device), _same
    if kind == "numpy" and not cuda:
        np = sys.modules["numpy"]
        return np.empty(shape, dtype=dtype), _same
    if kind == "cupy":
        cp = sys.modules["cupy"]
        with cp.cuda.Device(ref.device.id):
            return cp.empty(shape, dtype=dtype), _same
    buffer = _plain_buffer(shape, dtype, device, where)
    if kind == "jax":
        jnp = sys.modules["jax"].numpy
        return buffer, lambda b: jnp.from_dlpack(b)
    return buffer, _same


def _same(a: Any) -> Any:
    return a


def _plain_buffer(shape: Tuple[int, ...], dtype: str, device: str, where: str) -> Any:
    # Host: NumPy. A CUDA device: torch, else CuPy, whichever is installed.
    if not device.startswith("cuda"):
        import numpy as np

        return np.empty(shape, dtype=dtype)
    try:
        import torch

        return torch.empty(shape, dtype=_dtype(torch, dtype), device=device)
    except ImportError:
        pass
    try:
        import cupy as cp

        with cp.cuda.Device(int(device.split(":")[1])):
            return cp.empty(shape, dtype=dtype)
    except ImportError:
        raise _invalid(where, f"no framework to allocate the output on {device} (install torch or cupy, or "
                              f"pass out=)") from None


def stream_handle(stream: Any, where: str) -> int:
    """A cudaStream_t as an integer from an int, a torch.cuda.Stream (``cuda_stream``), a CuPy
    stream (``ptr``) or any object with ``__cuda_stream__`` (the CUDA stream protocol)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    protocol = getattr(stream, "__cuda_stream__", None)
    if callable(protocol):
        return int(protocol()[1])  # (version, handle)
    raise _invalid(where, f"stream must be an int (cudaStream_t), a torch.cuda.Stream or a CuPy stream, "
                          f"not {type(stream).__name__}")


def default_stream(ref: Any, device: str) -> int:
    """The stream a CUDA call enqueues on when none is given: CuPy's current stream for a CuPy
    array, else torch's current stream on the context's device when torch is loaded (the
    stream its kernels, and so the caller's producers and consumers, run on), else 0 (the
    legacy default stream)."""
    if framework(ref) == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    torch = sys.modules.get("torch")
    if torch is not None:
        return torch.cuda.current_stream(torch.device(device)).cuda_stream
    return 0


def to_host(a: Any) -> Any:
    """A host copy of a CUDA array (scene meshes are read from host memory on every context);
    a host array as it is."""
    kind = framework(a)
    if kind == "torch" and a.device.type != "cpu":
        return a.cpu()
    if kind == "cupy":
        return a.get()
    if kind == "jax":
        import numpy as np

        return np.asarray(a)
    return a


def full_like(ref: Any, shape: Tuple[int, ...], value: float, device: str, where: str,
              dtype: str = "float32") -> Any:
    """An array of `shape` and `dtype` filled with `value` beside `ref` (a scalar tmax, a scalar
    latency)."""
    out, _ = empty_like(ref, shape, dtype, device, where)
    out[...] = value
    return out


def intrinsics_from_k(k: Any, where: str) -> Any:
    """(N, 4) float32 fx, fy, cx, cy gathered from (N, 3, 3) K matrices, in k's framework and on
    its device; K's skew and last row checked where k is in host memory (reading a device array
    would synchronise)."""
    kind = framework(k)
    if kind == "torch":
        torch = sys.modules["torch"]
        if k.device.type == "cpu":
            _check_k(k.detach().numpy(), where)
        return torch.stack([k[:, 0, 0], k[:, 1, 1], k[:, 0, 2], k[:, 1, 2]], dim=1).to(torch.float32).contiguous()
    if kind == "cupy":
        cp = sys.modules["cupy"]
        return cp.ascontiguousarray(cp.stack([k[:, 0, 0], k[:, 1, 1], k[:, 0, 2], k[:, 1, 2]], axis=1), dtype="float32")
    import numpy as np

    host = np.asarray(k)
    _check_k(host, where)
    out = np.ascontiguousarray(np.stack([host[:, 0, 0], host[:, 1, 1], host[:, 0, 2], host[:, 1, 2]], axis=1),
                               dtype=np.float32)
    return sys.modules["jax"].numpy.asarray(out) if kind == "jax" else out


def _check_k(k: Any, where: str) -> None:
    import numpy as np

    skew = (k[:, 0, 1] != 0) | (k[:, 1, 0] != 0)
    bad = np.nonzero(skew | (k[:, 2, 0] != 0) | (k[:, 2, 1] != 0) | (k[:, 2, 2] != 1))[0]
    if bad.size:
        e = int(bad[0])
        matrix = np.array2string(np.asarray(k[e]), separator=", ", max_line_width=10 ** 6).replace("\n", "")
        raise _invalid(where, f"intrinsics[{e}] = {matrix}: a K matrix is "
                              f"[[fx, 0, cx], [0, fy, cy], [0, 0, 1]] (no skew)")
