"""warp_raycaster.Context: a device (a CPU thread pool or one CUDA GPU) and its allocator."""

from __future__ import annotations

from typing import Any, Optional, Union

from . import _wr
from ._errors import _invalid
from ._wr import CpuPath, cpu_path_string


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
