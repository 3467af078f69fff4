"""warp_raycaster.Error: a failed call, with the library's message and its status.

Pure Python, importing nothing at module level, so that the extension can raise it
(python/src/module.cpp looks it up here) without an import cycle.
"""

from __future__ import annotations


class Error(RuntimeError):
    """A failed call of the library.

    ``message`` is the C API's ``wr_last_error()`` text of the failed call (the function,
    the argument, file and line, or env at fault, and the status name); ``status`` is its
    ``wr_status`` as a :class:`warp_raycaster.Status`. Checks the Python binding makes
    itself (an array's dtype, shape, contiguity, alignment or device) raise it too, with
    ``Status.ERROR_INVALID_ARGUMENT`` and a message naming the Python argument.
    """

    def __init__(self, message: str, status: int) -> None:
        try:
            from ._wr import Status

            status = Status(status)
        except (ImportError, ValueError):  # an unknown value stays an int
            pass
        # Both in args, so that the error pickles (torch.distributed, multiprocessing).
        super().__init__(message, status)
        self.message = message
        self.status = status

    def __str__(self) -> str:
        return self.message


# wr.h's WR_ERROR_INVALID_ARGUMENT (Error makes it a Status).
_INVALID_ARGUMENT = 1


def _invalid(where: str, message: str) -> Error:
    """The error of a bad argument the Python layer finds itself: ``"<where>: <message>
    [WR_ERROR_INVALID_ARGUMENT]"``, as the library words its own."""
    return Error(f"{where}: {message} [WR_ERROR_INVALID_ARGUMENT]", _INVALID_ARGUMENT)
