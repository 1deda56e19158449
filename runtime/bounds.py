"""The host side of the bounds check (docs/runtime.md, "The bounds check").

A kernel compiled with the check (passes/conversion/bounds_checks.py) takes one more parameter:
the bounds record, 64-bit words that the runtime fills before every launch with the byte span of
each pointer argument and reads back after it. A bad access is skipped by the kernel and the
first one is described in the record; :meth:`BoundsRecord.failure` turns that into an
:class:`OutOfBoundsError` naming the kernel, thread, block, tensor, coordinate and offset.

The record's layout mirrors the pass's (a test keeps the two equal; the runtime imports no
compiler code).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from .abi import POINTER, KernelSpec
from .arrays import array_facts
from .dtypes import DTYPES
from .errors import OutOfBoundsError
from .layout_text import leaves, parse_layout

COUNT, SITE, PARAM, ADDRESS, BYTES, TID, CTAID, DYNAMIC_SMEM = 0, 1, 2, 3, 4, 5, 8, 11
SCRATCH, SCRATCH_BYTES = 16, 256
SPANS = 48
SHARED, SEVERAL, LOCAL = -1, -2, -3
_ALIGN = 256


class BoundsRecord:
    """The record of one loaded kernel, in host memory (the CPU kernel uses it in place; the
    GPU launcher copies it to and from a device buffer around each launch)."""

    def __init__(self, spec: KernelSpec) -> None:
        assert spec.bounds_sites is not None
        self.spec = spec
        self.words = SPANS + 2 * len(spec.params)
        self.nbytes = self.words * 8
        self._raw = ctypes.create_string_buffer(self.nbytes + _ALIGN)
        self.address = (ctypes.addressof(self._raw) + _ALIGN - 1) & ~(_ALIGN - 1)
        self.view = (ctypes.c_int64 * self.words).from_address(self.address)
        self._plans = [_span_plan(spec, i) for i in range(len(spec.params))]
        slots = {p.name: i for i, p in enumerate(spec.params)}
        self._argument_of = {slots[p.name]: j for j, p in enumerate(spec.arguments)}

    def prepare(self, values: Sequence[Any], args: Sequence[Any], dynamic_smem: int = 0) -> None:
        """Clear the report and write every pointer argument's span (from the packed values)
        and the launch's dynamic shared-memory bytes."""
        view = self.view
        ctypes.memset(self.address, 0, SPANS * 8)
        view[DYNAMIC_SMEM] = dynamic_smem
        for i, plan in enumerate(self._plans):
            if plan is None:
                continue
            lo, hi = self._span(i, plan, values, args)
            view[SPANS + 2 * i] = lo
            view[SPANS + 2 * i + 1] = hi

    def _span(self, i: int, plan: Any, values: Sequence[Any], args: Sequence[Any]) -> tuple:
        ptr = values[i]
        itemsize, modes = plan
        if modes is None:  # a raw buffer: the whole array
            facts = array_facts(args[self._argument_of[i]])
            shape, strides = facts.shape, facts.strides
        else:
            shape = [_value(e, values) for e, _ in modes]
            strides = [_value(d, values) for _, d in modes]
        if any(n <= 0 for n in shape):
            return ptr, ptr  # an empty array: no access is in bounds
        low = sum((n - 1) * d for n, d in zip(shape, strides) if d < 0)
        high = sum((n - 1) * d for n, d in zip(shape, strides) if d > 0)
        return ptr + low * itemsize, ptr + (high + 1) * itemsize

    def failure(self, values: Sequence[Any]) -> OutOfBoundsError | None:
        """The error the last launch's record describes, or None."""
        view = self.view
        count = view[COUNT]
        if count == 0:
            return None
        spec = self.spec
        sites = spec.bounds_sites or ()
        site = view[SITE]
        where = sites[site] if 0 <= site < len(sites) else f"access site {site}"
        tid = tuple(view[TID + k] for k in range(3))
        cta = tuple(view[CTAID + k] for k in range(3))
        param, address, nbytes = view[PARAM], view[ADDRESS], view[BYTES]
        head = f"kernel {spec.name!r}: out-of-bounds access by thread {tid} of block {cta}"
        if param == SHARED:
            what = f"byte address {address:#x} ({nbytes} bytes) outside its shared-memory object"
        elif param == LOCAL:
            what = f"byte address {address:#x} ({nbytes} bytes) outside the thread's own array"
        elif not 0 <= param < len(spec.params):
            what = (
                f"byte address {address:#x} ({nbytes} bytes) outside every object the pointer "
                "may point into"
            )
        else:
            what = self._describe(param, address, nbytes, values)
        more = f" ({count - 1} more bad accesses in this launch)" if count > 1 else ""
        return OutOfBoundsError(f"{head}: {where}: {what}{more}")

    def _describe(self, i: int, address: int, nbytes: int, values: Sequence[Any]) -> str:
        p = self.spec.params[i]
        itemsize, modes = self._plans[i]  # type: ignore[misc]
        lo, hi = self.view[SPANS + 2 * i], self.view[SPANS + 2 * i + 1]
        base = values[i]
        argument = self._argument_of.get(i, i)
        offset_bytes = address - base
        offset = offset_bytes // itemsize if offset_bytes % itemsize == 0 else None
        name = f"tensor {p.name!r} (argument {argument}"
        if p.layout is not None and modes is not None:
            shape = tuple(_value(e, values) for e, _ in modes)
            strides = tuple(_value(d, values) for _, d in modes)
            name += f", layout {_text(shape)}:{_text(strides)}"
        else:
            shape = strides = ()
        name += ")"
        if hi <= lo:
            extent = "is empty"
        else:
            extent = (
                f"has elements at offsets {(lo - base) // itemsize}..{(hi - base) // itemsize - 1}"
            )
        if offset is None:
            at = f"byte offset {offset_bytes} ({nbytes} bytes)"
        else:
            at = f"element offset {offset}"
            coord = coordinate(offset, shape, strides) if shape else None
            if coord is not None:
                at += f" (coordinate {_text(coord)})"
        return f"{name} {extent}; the access is at {at}"


def _text(t: tuple) -> str:
    return "(" + ",".join(str(x) for x in t) + ("," if len(t) == 1 else "") + ")"


def coordinate(offset: int, shape: Sequence[int], strides: Sequence[int]) -> tuple | None:
    """A coordinate of the layout ``shape:strides`` whose offset is ``offset``, letting the mode
    of largest stride run past its extent (how an access overruns a compact tensor); None when
    the strides cannot produce ``offset``."""
    order = sorted(range(len(shape)), key=lambda k: -abs(strides[k]))
    coord = [0] * len(shape)
    rest = offset
    for rank, k in enumerate(order):
        d = strides[k]
        if d == 0 or (shape[k] == 1 and rank):
            continue
        c = rest // d if d > 0 else -(rest // -d)
        if rank and not 0 <= c < shape[k]:
            return None
        coord[k] = c
        rest -= c * d
    return tuple(coord) if rest == 0 else None


def _value(entry: int | tuple[int], values: Sequence[Any]) -> int:
    """A static entry, or ``(slot,)``: the value of the carrier parameter in that slot."""
    return values[entry[0]] if isinstance(entry, tuple) else entry


def _span_plan(spec: KernelSpec, i: int) -> Any:
    """``(itemsize, modes)`` for pointer parameter ``i`` (None for other parameters): modes are
    the layout's (extent, stride) leaves, each static or ``(slot,)`` of its carrier; None modes
    for a raw buffer (its span is the array's)."""
    p = spec.params[i]
    if p.kind != POINTER or i == len(spec.params) - 1:
        return None
    itemsize = DTYPES[p.dtype].itemsize
    if p.layout is None:
        return itemsize, None
    slots = {q.name: k for k, q in enumerate(spec.params)}
    carriers = iter(p.dynamic)
    shape, stride = parse_layout(p.layout)
    extents = [(slots[next(carriers)],) if e is None else e for e in leaves(shape)]
    strides = [(slots[next(carriers)],) if e is None else e for e in leaves(stride)]
    return itemsize, list(zip(extents, strides))
