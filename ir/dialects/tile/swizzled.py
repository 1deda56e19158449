"""Element offsets through swizzled layouts at run-time coordinates.

A swizzled shared-memory layout is CuTe's ``ComposedLayout`` ``Sw<B,M,S> o offset o L``: the
element at coordinate ``c`` is at ``Sw(offset + L(c))``, and slicing or partitioning it by a
thread index moves ``offset`` (inside the layout: a swizzle does not commute with pointer
offsets). With a dynamic ``offset`` or coordinate the argument of the swizzle is a symbolic
integer, and the symbolic engine has no XOR, so the swizzle stays *outside* the expression:
:func:`element_offset` returns a :class:`SwizzledOffset` ``plain + Sw(arg)`` that
lower-layouts emits as ``arith`` (``andi``, a shift, ``xori``) where the access is made.
"""

from __future__ import annotations

from typing import Any

from ...algebra.composed import ComposedLayout
from ...algebra.gather import gather_strides
from ...algebra.layout import Layout
from ...algebra.swizzle import Swizzle
from .gathered import gathered_offset

__all__ = ["SwizzledOffset", "element_offset"]


class SwizzledOffset:
    """``plain + swizzle(arg)`` with a symbolic ``arg``: an element offset (adding an integer
    adds to ``plain``, which the swizzle does not see)."""

    __slots__ = ("arg", "plain", "swizzle")

    def __init__(self, swizzle: Swizzle, arg: Any, plain: Any = 0):
        self.swizzle = swizzle
        self.arg = arg
        self.plain = plain

    def __add__(self, other: Any) -> SwizzledOffset:
        if isinstance(other, SwizzledOffset):
            return NotImplemented
        if type(other) is int and other == 0:
            return self
        return SwizzledOffset(self.swizzle, self.arg, self.plain + other)

    __radd__ = __add__

    @property
    def bounds(self) -> tuple[int | None, int | None]:
        """Bounds of the offset (:meth:`bounds_from` with the terms' own bounds)."""
        return self.bounds_from(lambda x: (x, x) if type(x) is int else x.bounds)

    def bounds_from(self, of: Any, divisor: int = 1) -> tuple[int | None, int | None]:
        """Bounds of the offset given ``of(x)``, the bounds of the argument and of ``plain``:
        the swizzle rewrites only the bits of ``zzz_mask``, so ``Sw(arg)`` lies in the same
        aligned block of ``2^t`` as ``arg`` (``t`` past the top bit of ``zzz_mask``), between
        ``arg & ~zzz_mask`` and ``arg | zzz_mask``; ``divisor`` (a known divisor of the
        argument) narrows the values looked at in the end blocks. ``plain`` adds its own
        bounds."""
        (alo, ahi), (plo, phi) = of(self.arg), of(self.plain)
        mask = self.swizzle.zzz_mask
        block = 1 << mask.bit_length()
        step = max(divisor, 1)
        lo = hi = None
        if alo is not None and plo is not None:
            end = alo // block * block + block - 1 if ahi is None else min(ahi, alo | (block - 1))
            first = -(-alo // step) * step
            lows = [x & ~mask for x in range(first, end + 1, step)]
            lo = (min(lows) if lows else alo // block * block) + plo
        if ahi is not None and phi is not None:
            start = ahi // block * block if alo is None else max(alo, ahi // block * block)
            last = ahi // step * step
            highs = [x | mask for x in range(last, start - 1, -step)]
            hi = (max(highs) if highs else ahi // block * block + block - 1) + phi
        return lo, hi

    def evaluate(self, env: Any) -> int:
        """The offset for values of the symbols (``SymInt.evaluate``'s ``env``)."""
        arg = self.arg if type(self.arg) is int else self.arg.evaluate(env)
        plain = self.plain if type(self.plain) is int else self.plain.evaluate(env)
        return plain + self.swizzle(arg)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SwizzledOffset)
            and self.swizzle == other.swizzle
            and self.arg == other.arg
            and self.plain == other.plain
        )

    def __hash__(self) -> int:
        return hash(("SwizzledOffset", self.swizzle, self.arg, self.plain))

    def __str__(self) -> str:
        swizzled = f"{self.swizzle}({self.arg})"
        if type(self.plain) is int and self.plain == 0:
            return swizzled
        return f"{self.plain} + {swizzled}"

    __repr__ = __str__


def element_offset(layout: Any, coord: Any) -> Any:
    """``layout(coord)`` as an element offset: an int or SymInt, or for a swizzled layout
    whose swizzle argument is symbolic a :class:`SwizzledOffset` (raises LayoutError when the
    coordinate does not fit). A gather layout gives a
    :class:`~.gathered.GatheredOffset` (the index-buffer loads stay outside the expression)."""
    if gather_strides(layout) is not None:
        return gathered_offset(layout, coord)
    if (
        isinstance(layout, ComposedLayout)
        and isinstance(layout.outer, Swizzle)
        and isinstance(layout.inner, Layout)
    ):
        arg = layout.offset + _index(layout.inner, coord)
        if type(arg) is int or layout.outer.is_identity():
            return layout.outer(arg)
        return SwizzledOffset(layout.outer, arg)
    if isinstance(layout, Layout):
        return _index(layout, coord)
    return layout(coord)


STATIC_INDICES_LIMIT = 1 << 14
_static_indices: dict[tuple, int] = {}
"""``layout(coord)`` of static layouts at static coordinates, across compiles: a pure function
of the two (which compare structurally); the unrolled accesses of a kernel's fragments and
swizzled tiles ask the same ones in every compile."""


def _index(layout: Layout, coord: Any) -> Any:
    """``layout(coord)``, memoised when both are static (only static pairs are stored, and a
    pair holding a symbol never equals one: the lookup needs no check)."""
    key = (layout, coord)
    found = _static_indices.get(key)
    if found is not None:
        return found
    found = layout(coord)
    if type(found) is int and _static(layout.shape) and _static(layout.stride) and _static(coord):
        if len(_static_indices) >= STATIC_INDICES_LIMIT:
            _static_indices.clear()
        _static_indices[key] = found
    return found


def _static(x: Any) -> bool:
    """An int or a nested tuple of ints (bools excluded)."""
    if type(x) is int:
        return True
    return type(x) is tuple and all(_static(e) for e in x)
