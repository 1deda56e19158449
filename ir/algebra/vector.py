"""How many consecutive elements two layouts share contiguously: the basis of vectorization.

max_common_layout(a, b) is the layout R of the largest contiguous run with a(R(i)) == i and
b(R(i)) == i; max_common_vector(a, b) is its size. A copy from a tensor with layout `a` to one
with layout `b` can move max_common_vector(a, b) elements per instruction (CuTe's `layout.hpp`,
`swizzle_layout.hpp`). Both are queries: where the composition they are built on is not
admissible they answer the trivial vector (1 element), which is always valid. A symbolic run
length counts as its largest static divisor (CuTe would answer 1).
"""

from __future__ import annotations

from typing import Any

from . import inttuple as it
from .composed import ComposedLayout
from .composition import composition
from .errors import LayoutError
from .inverse import right_inverse
from .layout import Layout, _describe, coalesce, size
from .swizzle import Swizzle


def _unit() -> Layout:
    return Layout._new(1, 0)


def _swizzle_of(x: Any) -> Swizzle | None:
    if isinstance(x, ComposedLayout) and isinstance(x.outer, Swizzle):
        return x.outer
    return None


def _common(a: Layout, b: Layout) -> tuple[Layout, Layout] | None:
    """(right_inverse(b), coalesce(a o right_inverse(b))), or None where a o inv(b) is inadmissible."""
    inv_b = right_inverse(b)
    try:
        return inv_b, coalesce(composition(a, inv_b))
    except LayoutError:
        return None


def _leading_unit_mode(common: Layout) -> Any:
    """The size of the leading stride-1 mode of `common`, or None.

    CuTe keeps it only when the size is static. For a symbolic size we keep its largest static
    divisor (e.g. 64 for 8*N with N a multiple of 8): a provable, static run length.
    """
    s0 = it.get(common.shape, 0)
    d0 = it.get(common.stride, 0)
    if not (type(d0) is int and d0 == 1):
        return None
    if type(s0) is int:
        return s0
    from .symbolic import sym_known_divisor

    k = sym_known_divisor(s0)
    return k if k > 1 else None


def max_common_layout(a: Any, b: Any) -> Layout:
    """The layout of the largest contiguous run of elements that a and b map identically."""
    sw_a, sw_b = _swizzle_of(a), _swizzle_of(b)
    if sw_a is not None or sw_b is not None:
        if sw_a is not None and sw_b is not None:
            raise LayoutError(
                f"not supported: max_common_layout of two swizzled layouts {a} and {b}"
            )
        sw = sw_a or sw_b
        common = max_common_layout(a.inner if sw_a else a, b.inner if sw_b else b)
        base = 1 << sw.base
        if base < size(common):
            return composition(common, base)
        return common
    _check(a, b, "max_common_layout")
    found = _common(a, b)
    if found is None:
        return _unit()
    inv_b, common = found
    n = _leading_unit_mode(common)
    if n is None:
        return _unit()
    return composition(inv_b, Layout._new(n, 1))


def max_common_vector(a: Any, b: Any) -> int:
    """The number of contiguous elements a and b map identically (at least 1)."""
    sw_a, sw_b = _swizzle_of(a), _swizzle_of(b)
    if sw_a is not None or sw_b is not None:
        if sw_a is not None and sw_b is not None:
            vec = max_common_vector(a.inner, b.inner)
            if sw_a == sw_b:
                return vec
            return min(vec, 1 << sw_a.base, 1 << sw_b.base)
        sw = sw_a or sw_b
        vec = max_common_vector(a.inner if sw_a else a, b.inner if sw_b else b)
        return min(vec, 1 << sw.base)
    _check(a, b, "max_common_vector")
    found = _common(a, b)
    if found is None:
        return 1
    n = _leading_unit_mode(found[1])
    return 1 if n is None else n


def _check(a: Any, b: Any, what: str) -> None:
    for x in (a, b):
        if not isinstance(x, Layout):
            raise LayoutError(f"{what}: expected layouts, got {_describe(x)}")


def nullspace(layout: Any) -> Layout:
    """The layout of the coordinates that `layout` maps to 0 (its stride-0 modes)."""
    if isinstance(layout, ComposedLayout):
        return _unit()
    if not isinstance(layout, Layout):
        raise LayoutError(f"nullspace: expected a layout, got {_describe(layout)}")
    fs = it.flatten_to_tuple(layout.shape)
    fd = it.flatten_to_tuple(layout.stride)
    rstride = it.compact_col_major(fs)
    idx = [i for i, d in enumerate(fd) if type(d) is int and d == 0]
    if not idx:
        return _unit()
    return Layout._new(
        it.unwrap(tuple(fs[i] for i in idx)), it.unwrap(tuple(rstride[i] for i in idx))
    )
