"""complement(A, M): the layout of the "rest" of A's codomain up to the cotarget M (CuTe).

The result R is ordered (strides positive and increasing), disjoint from A's image (except at
0) and, concatenated with A, covers at least size(M). CuTe's algorithm: filter A, repeatedly
take the mode with the smallest stride and fill the gap before it, then repeat the whole up
to M. A mode whose stride lies inside the extent of the previous one means A is not injective
(or its modes interleave), which CuTe rejects statically and we reject with a LayoutError.
"""

from __future__ import annotations

from typing import Any

from . import intops
from . import inttuple as it
from .basis import ScaledBasis
from .errors import LayoutError
from .inttuple import format_tuple
from .layout import Layout, _describe, _inner, coalesce, cosize, filter


def complement(layout: Any, cotarget: Any = None) -> Layout:
    """The complement of `layout` with respect to the cotarget shape or size (default: its cosize)."""
    if not isinstance(layout, Layout):
        inner = _inner(layout)
        if inner is None:
            raise LayoutError(f"complement: expected a layout, got {_describe(layout)}")
        layout = inner
    if cotarget is None:
        cotarget = cosize(filter(layout))
    else:
        cotarget = it.to_int_tuple(cotarget, "complement cotarget")
    fl = filter(layout)
    shape = it.flatten_to_tuple(fl.shape)
    stride = it.flatten_to_tuple(fl.stride)
    for d in stride:
        if type(d) is not int and (isinstance(d, ScaledBasis) or not it.is_symbolic(d)):
            raise LayoutError(
                f"complement({layout}, {format_tuple(cotarget)}): needs integer strides, got {d}"
            )
    if len(stride) == 1 and type(stride[0]) is int and stride[0] == 0:
        return Layout(it.coalesce_shape(cotarget))
    why = f"complement({layout}, {format_tuple(cotarget)})"
    for d in stride:
        if type(d) is int:
            if d < 0:
                raise LayoutError(f"{why}: needs non-negative strides, got {d}")
        elif not intops.prove_le(0, d):
            raise LayoutError(f"{why}: cannot prove that the stride {d} is non-negative")
    shape_l = list(shape)
    stride_l = list(stride)
    result_shape: list = []
    result_stride: list = [1]
    static = all(type(d) is int for d in stride_l) and all(type(s) is int for s in shape_l)
    for _i in range(len(stride_l)):
        k = _argmin(stride_l, static, why)
        min_stride = stride_l[k]
        prev = result_stride[-1]
        if static:
            new_shape = min_stride // prev
            if new_shape == 0:
                raise LayoutError(_overlap_message(why, min_stride, prev))
        else:
            if not intops.prove_le(prev, min_stride):
                raise LayoutError(_overlap_message(why, min_stride, prev, proven=False))
            new_shape = min_stride // prev
        result_shape.append(new_shape)
        result_stride.append(min_stride * shape_l[k])
        del shape_l[k]
        del stride_l[k]
    new_stride = result_stride.pop()
    rest_shape = _rest_shape(cotarget, new_stride, why)
    rest_stride = it.compact_col_major(rest_shape, new_stride)
    return coalesce(
        Layout._new((tuple(result_shape), rest_shape), (tuple(result_stride), rest_stride))
    )


def _rest_shape(cotarget: Any, new_stride: Any, why: str) -> Any:
    """How many repetitions cover the cotarget: CuTe folds the stride through the modes of a
    tuple cotarget to keep them separate. Where that fold falls short of size(cotarget) (a
    cotarget whose modes the layout does not align with), CuTe's result breaks its own
    post-condition cosize(A ++ complement) >= size(cotarget); we use the size instead. With
    symbols, the choice must be provable, so that the result holds for every value."""
    rest = it.coalesce_shape(it.ceil_div(cotarget, new_stride))
    if not isinstance(cotarget, tuple):
        return rest
    total = it.product(cotarget)
    covered = it.product(rest) * new_stride
    if type(total) is int and type(covered) is int:
        short = covered < total
    elif intops.prove_le(total, covered):
        short = False
    elif intops.prove_lt(covered, total):
        short = True
    else:
        raise LayoutError(
            f"{why}: cannot prove that the repetitions {it.format_tuple(rest)} of stride {new_stride} "
            f"cover the cotarget of size {total} mode by mode"
        )
    return intops.ceil_div(total, new_stride) if short else rest


def _overlap_message(why: str, stride: Any, extent: Any, proven: bool = True) -> str:
    if proven:
        return (
            f"{why}: the layout is not injective or its modes interleave "
            f"(stride {stride} lies inside the extent {extent} of a mode with a smaller stride)"
        )
    return (
        f"{why}: cannot prove that the stride {stride} is at least {extent}, the extent of the "
        "mode with the next smaller stride (the layout must be injective with ordered modes)"
    )


def _argmin(values: list, static: bool, why: str) -> int:
    """Index of the first minimum, as CuTe's find(stride, min(stride)); symbols must be ordered."""
    k = 0
    for j in range(1, len(values)):
        if static:
            if values[j] < values[k]:
                k = j
        elif intops.compare(values[j], values[k], f"{why}: ordering strides") < 0:
            k = j
    return k
