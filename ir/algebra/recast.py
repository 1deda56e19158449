"""CuTe's change of element unit: ``upcast<N>``, ``downcast<N>`` and ``recast_layout``.

A layout over elements of one width seen over elements of another (CuTe's ``layout.hpp``,
``swizzle.hpp`` and ``layout_composed.hpp``):

- ``upcast(layout, n)`` merges ``n`` units into one. Per leaf: a static stride-0 mode is kept;
  a static stride ``d`` (``d % n == 0`` or ``n % d == 0``) gives shape ``ceil_div(s,
  ceil_div(n, |d|))`` and stride ``signum(d) * ceil_div(|d|, n)`` (so the stride-1 mode shrinks
  and the others divide); a dynamic stride is divided by ``n`` (CuTe's ``safe_div``: here the
  division must be provable). A swizzle ``Swizzle<B,M,S>`` becomes ``Swizzle<B,M-log2 n,S>``
  (or ``Swizzle<max(B+M-log2 n,0),0,S>`` when ``M`` runs out); a composed layout upcasts its
  three parts.
- ``downcast(layout, n)`` splits one unit into ``n``: a static stride +-1 mode grows ``n`` times,
  every other stride is multiplied by ``n``; a layout needs a static stride-1 mode (CuTe's
  ``has_int1`` assertion). ``Swizzle<B,M,S>`` becomes ``Swizzle<B,M+log2 n,S>``.
- ``recast_layout(layout, old_bits, new_bits)``: CuTe's ``recast_layout<Old, New>``: with
  ``new/old = num/den`` in lowest terms, downcast by ``den`` after upcasting by ``num``.

Offsets of composed layouts are divided (upcast, exactly) or multiplied (downcast).
"""

from __future__ import annotations

from math import gcd
from typing import Any

from . import intops
from . import inttuple as it
from .composed import ComposedLayout
from .errors import LayoutError
from .layout import Layout
from .swizzle import Swizzle


def _check_n(n: Any, what: str) -> int:
    if type(n) is not int or n < 1:
        raise LayoutError(f"{what}: N must be a positive static integer, got {n!r}")
    return n


def _log2(n: int, what: str) -> int:
    if n & (n - 1):
        raise LayoutError(f"{what}: N must be a power of two for a swizzle, got {n}")
    return n.bit_length() - 1


def _map_leaves(shape: Any, stride: Any, fn: Any) -> tuple[Any, Any]:
    if isinstance(shape, tuple):
        pairs = [_map_leaves(s, d, fn) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    return fn(shape, stride)


def _exact_div(x: Any, n: int, what: str) -> Any:
    if type(x) is int:
        if x % n:
            raise LayoutError(f"{what}: {x} is not a multiple of {n}")
        return x // n
    intops.require_divides(n, x, what)
    return x // n


def upcast(layout: Any, n: int) -> Any:
    """Merge ``n`` units into one: CuTe's ``upcast<n>(layout)`` (layouts, swizzles, composed
    layouts and integer offsets)."""
    what = f"upcast<{n}>({layout})"
    n = _check_n(n, what)
    if isinstance(layout, Swizzle):
        new_m = layout.base - _log2(n, what)
        if new_m >= 0:
            return Swizzle(layout.bits, new_m, layout.shift)
        return Swizzle(max(layout.bits + new_m, 0), 0, layout.shift)
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(
            upcast(layout.outer, n), upcast(layout.offset, n), upcast(layout.inner, n)
        )
    if type(layout) is int or it.is_symbolic(layout):
        return _exact_div(layout, n, f"{what}: the offset")
    if isinstance(layout, tuple):
        return tuple(upcast(x, n) for x in layout)
    if not isinstance(layout, Layout):
        raise LayoutError(f"upcast<{n}>: expected a layout, got {layout!r}")

    def leaf(s: Any, d: Any) -> tuple[Any, Any]:
        if type(d) is int:
            if d == 0:
                return s, d
            a = abs(d)
            if a % n != 0 and n % a != 0:
                raise LayoutError(f"{what}: the stride {d} and {n} do not divide one another")
            sign = -1 if d < 0 else 1
            return intops.ceil_div(s, -(-n // a)), sign * -(-a // n)
        if it.is_symbolic(d):  # dynamic stride: CuTe assumes (here: proves) d % n == 0
            return s, _exact_div(d, n, f"{what}: the dynamic stride")
        raise LayoutError(f"{what}: cannot upcast the stride {d}")

    shape, stride = _map_leaves(layout.shape, layout.stride, leaf)
    return Layout(shape, stride)


def _has_int1(stride: Any) -> bool:
    if isinstance(stride, tuple):
        return any(_has_int1(d) for d in stride)
    return type(stride) is int and stride == 1


def downcast(layout: Any, n: int) -> Any:
    """Split one unit into ``n``: CuTe's ``downcast<n>(layout)``."""
    what = f"downcast<{n}>({layout})"
    n = _check_n(n, what)
    if isinstance(layout, Swizzle):
        return Swizzle(layout.bits, layout.base + _log2(n, what), layout.shift)
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(
            downcast(layout.outer, n), downcast(layout.offset, n), downcast(layout.inner, n)
        )
    if type(layout) is int or it.is_symbolic(layout):
        return layout * n
    if isinstance(layout, tuple):
        return tuple(downcast(x, n) for x in layout)
    if not isinstance(layout, Layout):
        raise LayoutError(f"downcast<{n}>: expected a layout, got {layout!r}")
    if n > 1 and not _has_int1(layout.stride):
        raise LayoutError(f"{what}: downcast requires a static stride-1 mode")

    def leaf(s: Any, d: Any) -> tuple[Any, Any]:
        if type(d) is int and d in (1, -1):
            return s * n, d
        if type(d) is int or it.is_symbolic(d):
            return s, d * n
        raise LayoutError(f"{what}: cannot downcast the stride {d}")

    shape, stride = _map_leaves(layout.shape, layout.stride, leaf)
    return Layout(shape, stride)


def recast_layout(layout: Any, old_bits: int, new_bits: int) -> Any:
    """CuTe's ``recast_layout<Old, New>(layout)`` for element widths in bits."""
    for b in (old_bits, new_bits):
        if type(b) is not int or b < 1:
            raise LayoutError(f"recast_layout: element widths must be positive ints, got {b!r}")
    g = gcd(old_bits, new_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return layout
    if num == 1:
        return downcast(layout, den)
    if den == 1:
        return upcast(layout, num)
    return downcast(upcast(layout, num), den)
