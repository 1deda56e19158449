"""CuTe's upcast/downcast/recast_layout for static layouts (include/cute/layout.hpp).

Atoms are defined over bits (``(thread, value) -> bit``); a copy atom used with an element
type sees them over elements. ``recast_layout(layout, old_bits, new_bits)`` is that change of
unit: ``upcast<N>`` merges N units into one (stride-1 modes shrink, other strides divide) and
``downcast<N>`` splits one unit into N.
"""

from __future__ import annotations

from math import gcd
from typing import Any

from ...algebra import Layout, LayoutError


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _map_leaves(shape: Any, stride: Any, fn: Any) -> tuple[Any, Any]:
    if isinstance(shape, tuple):
        pairs = [_map_leaves(s, d, fn) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    return fn(shape, stride)


def _static(x: Any, what: str, layout: Layout) -> int:
    if type(x) is not int:
        raise LayoutError(f"{what}({layout}): not supported for dynamic entries")
    return x


def upcast(layout: Layout, n: int) -> Layout:
    """Merge ``n`` units into one: ``upcast<n>(layout)``."""

    def leaf(s: Any, d: Any) -> tuple[Any, Any]:
        s = _static(s, "upcast", layout)
        d = _static(d, "upcast", layout)
        if d == 0:
            return s, d
        a = abs(d)
        if a % n != 0 and n % a != 0:
            raise LayoutError(
                f"upcast<{n}>({layout}): stride {d} and {n} do not divide one another"
            )
        sign = -1 if d < 0 else 1
        return _ceil_div(s, _ceil_div(n, a)), sign * _ceil_div(a, n)

    shape, stride = _map_leaves(layout.shape, layout.stride, leaf)
    return Layout(shape, stride)


def downcast(layout: Layout, n: int) -> Layout:
    """Split one unit into ``n``: ``downcast<n>(layout)``."""

    def leaf(s: Any, d: Any) -> tuple[Any, Any]:
        s = _static(s, "downcast", layout)
        d = _static(d, "downcast", layout)
        if d in (1, -1):
            return s * n, d
        return s, d * n

    shape, stride = _map_leaves(layout.shape, layout.stride, leaf)
    return Layout(shape, stride)


def recast_layout(layout: Layout, old_bits: int, new_bits: int) -> Layout:
    """The layout in units of ``new_bits`` of a layout in units of ``old_bits``."""
    g = gcd(old_bits, new_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return layout
    if num == 1:
        return downcast(layout, den)
    if den == 1:
        return upcast(layout, num)
    return downcast(upcast(layout, num), den)
