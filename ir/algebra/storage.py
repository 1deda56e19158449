"""How many elements an allocation must hold for every offset a layout can produce.

CuTe sizes storage by ``cosize`` (the largest offset + 1). For a plain layout that is exact,
but a swizzled layout ``Sw<B,M,S> o offset o L`` maps its offsets through the swizzle, which
can move an offset near the top of ``L``'s codomain past ``cosize(L)``: ``Sw<1,2,3>`` over
``(6,7):(7,1)`` (cosize 42) sends 40 and 41 to 44 and 45. CuTe's ``cosize`` of a composed
layout is its inner layout's, so an allocation sized by it can be overrun; shared memory and
register fragments are sized by :func:`storage_cosize` instead.

The bound: a swizzle only changes the bits of its ZZZ field (``Swizzle.zzz_mask``), so
``sw(x) <= x | zzz_mask`` and, as ``x | m`` is monotone in ``x``, every offset in
``[0, hi]`` maps into ``[0, hi | zzz_mask]``. That is the cosize rounded up to a multiple of
``2**z`` (``z``: the top of the ZZZ field), which leaves the usual tiles (whole swizzle
blocks) unchanged. Small static layouts get the exact largest offset of their image.
"""

from __future__ import annotations

from typing import Any

from . import intops
from . import inttuple as it
from .composed import ComposedLayout
from .errors import LayoutError
from .layout import Layout, cosize
from .swizzle import Swizzle

__all__ = ["storage_cosize"]

# Static layouts up to this many elements are enumerated for the exact largest offset.
_EXACT_LIMIT = 1 << 14


def storage_cosize(layout: Any) -> Any:
    """Elements an allocation of ``layout`` must hold: its largest offset + 1, swizzles and
    composed offsets included (``cosize`` for a plain layout). Symbolic for symbolic layouts."""
    if not isinstance(layout, ComposedLayout):
        return cosize(layout)
    exact = _exact_storage(layout)
    if exact is not None:
        return exact
    outer = layout.outer
    if not isinstance(outer, Swizzle):
        raise LayoutError(
            f"not supported: sizing an allocation of {layout} (only swizzles are supported as "
            "the outer function of a composed layout of dynamic or large size)"
        )
    end = layout.offset + storage_cosize(layout.inner)  # inner offsets lie in [0, end)
    if outer.is_identity():
        return end
    block = 1 << outer.zzz_mask.bit_length()
    if type(end) is int:
        return -(-end // block) * block
    return intops.ceil_div(end, block) * block


_MEMO: dict[ComposedLayout, int] = {}
_MEMO_SIZE = 1024


def _exact_storage(layout: ComposedLayout) -> int | None:
    """The largest offset + 1 of a static layout small enough to enumerate, else None.

    Enumerating a swizzled shared-memory tile costs milliseconds (tens of thousands of
    offsets), so the answer is memoised per layout (a static layout: its equality is that of
    its integers, and the answer depends on nothing else)."""
    n = it.product(layout.shape)  # (layout.size(x) misses nested composed layouts)
    if type(n) is not int or n > _EXACT_LIMIT or not _static(layout):
        return None
    if n == 0:
        return 0
    found = _MEMO.get(layout)
    if found is None:
        found = max(_offsets(layout)) + 1
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[layout] = found
    return found


def _offsets(layout: Any) -> list[int]:
    """Every offset of a static layout (in no particular order)."""
    if isinstance(layout, ComposedLayout):
        inner = _offsets(layout.inner)
        outer, base = layout.outer, layout.offset
        if isinstance(outer, Swizzle) and outer.shift >= 0:  # Swizzle.__call__, inlined
            y, sh = outer.yyy_mask, outer.shift
            return [x ^ ((x & y) >> sh) for x in (base + o for o in inner)]
        return [layout.apply_outer(base + o) for o in inner]
    out = [0]
    for s, d in zip(it.flatten_to_tuple(layout.shape), it.flatten_to_tuple(layout.stride)):
        out = [o + k * d for k in range(s) for o in out]
    return out


def _static(layout: Any) -> bool:
    if isinstance(layout, Layout):
        flat = it.flatten_to_tuple(layout.shape) + it.flatten_to_tuple(layout.stride)
        return all(type(x) is int for x in flat)
    if isinstance(layout, ComposedLayout):
        outer = layout.outer
        static_outer = isinstance(outer, Swizzle) or _static(outer)
        return static_outer and type(layout.offset) is int and _static(layout.inner)
    return False
