"""Argument helpers shared by the package's classes: quaternion orders by name, instance groups
as the C API's bit mask, index lists, an array's leading extent."""

from __future__ import annotations

import operator
from typing import Any, Iterable, Optional

from ._errors import _invalid
from ._wr import QuatOrder

_ORDER = {"wxyz": QuatOrder.WXYZ, "xyzw": QuatOrder.XYZW}


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
