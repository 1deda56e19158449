"""right_inverse and left_inverse of layouts (CuTe's `layout.hpp`).

right_inverse(L) = R with L(R(i)) == i for i < size(R): R walks the modes of L whose strides
chain contiguously from 1. left_inverse(L) = R with R(L(i)) == i for an injective L: its
modes are L's modes sorted by stride, with the gaps between strides as stride-0 (unused)
modes. Both follow CuTe's algorithms on static layouts (including the order of modes with
equal strides). With symbols, right_inverse follows the chain by provable equality (so R may be
smaller than at some values, never wrong), and left_inverse proves its divisibility and
injectivity conditions for every admissible value or raises a LayoutError naming them. Unlike
CuTe, left_inverse refuses a non-injective layout rather than return a quasi-inverse.
"""

from __future__ import annotations

from typing import Any

from . import intops
from . import inttuple as it
from .composed import ComposedLayout
from .errors import LayoutError
from .inttuple import _
from .layout import Layout, _describe, coalesce
from .swizzle import Swizzle


def _exchange_sort(keys: list, less: Any) -> list[int]:
    """Indices sorted by key with CuTe's (unstable) exchange sort, so ties resolve as in CuTe."""
    order = list(range(len(keys)))
    n = len(order)
    for i in range(n):
        for j in range(i + 1, n):
            if less(keys[order[j]], keys[order[i]]):
                order[i], order[j] = order[j], order[i]
    return order


def _prefix_products(shape: tuple) -> list:
    out: list = [1]
    for s in shape:
        out.append(out[-1] * s)
    return out


def _static_order(strides: tuple) -> list[int]:
    """Mode indices by increasing static stride, as CuTe's exchange sort orders them."""
    if len(set(strides)) == len(strides):  # distinct keys: any sort gives CuTe's order
        return sorted(range(len(strides)), key=strides.__getitem__)
    return _exchange_sort(list(strides), lambda x, y: x < y)


def _not_a_layout(layout: Any, inv: Any, what: str) -> Any:
    """Inverses of the non-Layout arguments CuTe accepts: `_`, swizzles, offsets, composed layouts."""
    if layout is _ or isinstance(layout, Swizzle):
        return layout
    if type(layout) is int or it.is_symbolic(layout):
        return -layout
    if isinstance(layout, ComposedLayout):
        return _invert_composed(layout, inv)
    raise LayoutError(f"{what}: expected a layout, got {_describe(layout)}")


def right_inverse(layout: Any) -> Any:
    """R such that layout(R(i)) == i for all i < size(R) (the largest such contiguous R)."""
    if not isinstance(layout, Layout):
        return _not_a_layout(layout, right_inverse, "right_inverse")
    cl = coalesce(layout)
    lshape = cl.shape if isinstance(cl.shape, tuple) else (cl.shape,)
    lstride = cl.stride if isinstance(cl.stride, tuple) else (cl.stride,)
    pre = _prefix_products(lshape)
    result_shape: list = [1]
    result_stride: list = [0]
    if all(type(d) is int for d in lstride):
        curr: Any = 1
        for i in _static_order(lstride):
            if lstride[i] == curr:
                result_shape.append(lshape[i])
                result_stride.append(pre[i])
                curr = lshape[i] * lstride[i]
    else:
        remaining = list(range(len(lstride)))
        curr = 1
        while True:
            hit = next((i for i in remaining if _provably_equal(lstride[i], curr)), None)
            if hit is None:
                break
            remaining.remove(hit)
            result_shape.append(lshape[hit])
            result_stride.append(pre[hit])
            curr = lshape[hit] * lstride[hit]
    if len(result_shape) == 2:  # coalesce((1,s):(0,d)) is s:d
        return Layout._new(result_shape[1], result_stride[1])
    return coalesce(Layout._new(tuple(result_shape), tuple(result_stride)))


def _provably_equal(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    if not (type(a) is int or it.is_symbolic(a)):
        return False
    return intops.prove_eq(a, b)


def left_inverse(layout: Any) -> Any:
    """R such that R(layout(i)) == i for all i < size(layout); the layout must be injective.

    CuTe returns a quasi-inverse for a non-injective layout without a word; we refuse one,
    since nothing downstream could tell it from an inverse. Over the modes sorted by stride,
    CuTe's divisibility condition plus injectivity reads: each stride divides the next one and
    each mode ends (extent x stride) at or below the next stride. With symbols both are proven
    for every admissible value (a mode that may be of extent 1 is no exception).
    """
    if not isinstance(layout, Layout):
        return _not_a_layout(layout, left_inverse, "left_inverse")
    cl = coalesce(layout)
    lshape = it.wrap(cl.shape)
    lstride = it.wrap(cl.stride)

    def why() -> str:
        return f"left_inverse({layout})"

    live = []  # the modes of non-zero stride
    for i, (s, d) in enumerate(zip(lshape, lstride)):
        if not _is_zero_stride(d, why):
            live.append(i)
        elif not intops.prove_eq(s, 1):
            _refuse_non_injective(why(), f"the mode {s}:{d} maps {s} coordinates to 0", s)
    if not live:  # coalesce left a single size-1 mode of stride 0
        return Layout._new(1, 0)
    pre = _prefix_products(lshape)
    if all(type(lstride[i]) is int for i in live):
        order = [live[k] for k in _static_order(tuple(lstride[i] for i in live))]
    else:
        keys = [lstride[i] for i in live]
        order = [live[k] for k in _exchange_sort(keys, lambda x, y: _ordered(x, y, why))]
    result_shape: list = []
    result_stride: list = [0]
    covered: Any = 1  # the size of the result so far: the previous stride
    for k, i in enumerate(order):
        d = lstride[i]
        if not intops.divides(covered, d):
            if type(d) is int and type(covered) is int:
                raise LayoutError(
                    f"{why()}: divisibility condition fails: stride {d} is not a multiple of "
                    f"the next smaller stride {covered}"
                )
            raise LayoutError(
                f"{why()}: divisibility condition: cannot prove that {covered} divides the stride {d}"
            )
        if k > 0:
            _require_ends_below(why(), lshape[order[k - 1]], covered, d)
        result_shape.append(d // covered)
        result_stride.append(pre[i])
        covered = d
    result_shape.append(lshape[order[-1]])
    return coalesce(Layout._new(tuple(result_shape), tuple(result_stride)))


def _is_zero_stride(d: Any, why: Any) -> bool:
    """True for a stride that is 0, False for one provably positive; else a LayoutError."""
    if type(d) is int:
        if d < 0:
            raise LayoutError(f"{why()}: needs non-negative strides, got {d}")
        return d == 0
    if not it.is_symbolic(d):
        raise LayoutError(f"{why()}: needs integer strides, got {d}")
    if intops.prove_eq(d, 0):
        return True
    if intops.prove_le(1, d):
        return False
    raise LayoutError(
        f"{why()}: cannot prove that the stride {d} is positive (or always 0) for all values "
        "of its symbols"
    )


def _require_ends_below(why: str, shape: Any, stride: Any, next_stride: Any) -> None:
    """Injectivity of sorted neighbours: the mode shape:stride ends at or below next_stride."""
    end = shape * stride
    if intops.prove_le(end, next_stride):
        return
    detail = f"the mode {shape}:{stride} reaches {end}, past the next stride {next_stride}"
    if all(type(x) is int for x in (shape, stride, next_stride)):
        _refuse_non_injective(why, detail, shape)
    raise LayoutError(
        f"{why}: injectivity condition: cannot prove {end} <= {next_stride} (the mode "
        f"{shape}:{stride} must end at or below the next stride) for all values of the symbols"
    )


def _refuse_non_injective(why: str, detail: str, shape: Any) -> None:
    if type(shape) is int:
        raise LayoutError(f"{why}: the layout is not injective: {detail}")
    raise LayoutError(
        f"{why}: cannot prove that the layout is injective: {detail} unless {shape} is 1"
    )


def _ordered(x: Any, y: Any, why: Any) -> bool:
    """x sorts before y: x <= y provably and y <= x not (strides that may be equal sort by
    the provable <=; the injectivity proof then needs the lower mode to be of extent 1 where
    they are equal). A LayoutError naming the operation when neither order is provable."""
    if intops.prove_le(x, y):
        return not intops.prove_le(y, x)
    if intops.prove_le(y, x):
        return False
    raise LayoutError(
        f"{why()}: cannot order the strides {x} and {y} for all values of their symbols"
    )


def _invert_composed(layout: ComposedLayout, inv: Any) -> Any:
    from .composition import composition

    if isinstance(layout.outer, Swizzle) and type(layout.offset) is int and layout.offset == 0:
        return composition(inv(layout.inner), layout.outer)
    return composition(inv(layout.inner), inv(layout.offset), inv(layout.outer))
