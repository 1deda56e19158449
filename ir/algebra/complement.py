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
    flat_cotarget = (cotarget,) if type(cotarget) is int else it.flatten_to_tuple(cotarget)
    for c in flat_cotarget:
        if type(c) is int and c < 0:
            raise LayoutError(
                f"complement({layout}, {format_tuple(cotarget)}): the cotarget must be "
                f"non-negative, got {c}"
            )
    if it.all_int(flat_cotarget):
        fs = it.flatten_to_tuple(layout.shape)
        fd = it.flatten_to_tuple(layout.stride)
        if it.all_int(fs) and it.all_int(fd):
            fast = _complement_static(fs, fd, flat_cotarget)
            if fast is not None:
                return fast
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

    def why() -> str:
        return f"complement({layout}, {format_tuple(cotarget)})"

    for d in stride:
        if type(d) is int:
            if d < 0:
                raise LayoutError(f"{why()}: needs non-negative strides, got {d}")
        elif not intops.prove_le(0, d):
            raise LayoutError(f"{why()}: cannot prove that the stride {d} is non-negative")
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


def _complement_static(fs: tuple, fd: tuple, cotarget: tuple) -> Layout | None:
    """complement of a flat static layout with an integer cotarget (the common case, fast).

    Same steps as the general path: filter (drop size-1 and stride-0 modes, merge contiguous
    neighbours), walk the modes by increasing stride filling the gaps, repeat up to the
    cotarget, coalesce. None when the general path must decide (nothing left after filtering,
    a negative stride, or an error to report)."""
    shape: list = []
    stride: list = []
    for s, d in zip(fs, fd):
        if s == 1 or d == 0:
            continue
        if shape and shape[-1] * stride[-1] == d:
            shape[-1] *= s
        else:
            shape.append(s)
            stride.append(d)
    if not shape or min(stride) < 0:
        return None
    out_shape: list = []
    out_stride: list = []
    prev = 1
    for d, s in sorted(zip(stride, shape)):
        n = d // prev
        if n == 0:
            return None
        if n != 1:
            if out_shape and out_shape[-1] * out_stride[-1] == prev:
                out_shape[-1] *= n
            else:
                out_shape.append(n)
                out_stride.append(prev)
        prev = d * s
    if len(cotarget) == 1:
        rest = -(-cotarget[0] // prev)
    else:  # CuTe folds the stride through the cotarget's modes (see _rest_shape)
        rest = 1
        r = prev
        total = 1
        for c in cotarget:
            rest *= -(-c // r)
            r = -(-r // c)
            total *= c
        if rest * prev < total:
            rest = -(-total // prev)
    if rest != 1:
        if out_shape and out_shape[-1] * out_stride[-1] == prev:
            out_shape[-1] *= rest
        else:
            out_shape.append(rest)
            out_stride.append(prev)
    if not out_shape:
        return Layout._new(1, 0)
    if len(out_shape) == 1:
        return Layout._new(out_shape[0], out_stride[0])
    return Layout._new(tuple(out_shape), tuple(out_stride))


def _rest_shape(cotarget: Any, new_stride: Any, why: Any) -> Any:
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
            f"{why()}: cannot prove that the repetitions {it.format_tuple(rest)} of stride {new_stride} "
            f"cover the cotarget of size {total} mode by mode"
        )
    return intops.ceil_div(total, new_stride) if short else rest


def _overlap_message(why: Any, stride: Any, extent: Any, proven: bool = True) -> str:
    if proven:
        return (
            f"{why()}: the layout is not injective or its modes interleave "
            f"(stride {stride} lies inside the extent {extent} of a mode with a smaller stride)"
        )
    return (
        f"{why()}: cannot prove that the stride {stride} is at least {extent}, the extent of the "
        "mode with the next smaller stride (the layout must be injective with ordered modes)"
    )


def _argmin(values: list, static: bool, why: Any) -> int:
    """Index of the first minimum, as CuTe's find(stride, min(stride)); symbols must be ordered."""
    k = 0
    for j in range(1, len(values)):
        if static:
            if values[j] < values[k]:
                k = j
        else:
            try:
                if intops.compare(values[j], values[k]) < 0:
                    k = j
            except LayoutError:
                raise LayoutError(
                    f"{why()}: cannot order the strides {values[j]} and {values[k]} for all values of their symbols"
                ) from None
    return k
