"""Pieces the vectorization proofs share (:mod:`.vectorize`, :mod:`.contiguity`,
:mod:`.uniform_predicate`): the refusal a failed fact raises, how layouts and values are named
in remarks, and the leaf modes of a layout."""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import flatten
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.basis import ScaledBasis
from layoutc.ir.algebra.layout import Layout

__all__ = ["Refused", "describe", "flat_modes", "is_zero_stride", "rest_strides", "unit_run"]


class Refused(Exception):
    """A width is not legal; the message says which fact failed (it goes into the remark)."""


def describe(x: Any) -> str:
    """A value as remarks print it (CuTe notation for tuples)."""
    return it.format_tuple(x) if isinstance(x, tuple) else str(x)


def flat_modes(layout: Layout) -> list[tuple[str, Any, Any]]:
    """(mode path, stride, shape) of every leaf mode whose extent is not the static 1."""
    out: list[tuple[str, Any, Any]] = []

    def visit(shape: Any, stride: Any, path: tuple[int, ...]) -> None:
        if isinstance(shape, tuple):
            for i, (s, d) in enumerate(zip(shape, stride)):
                visit(s, d, (*path, i))
            return
        if type(shape) is int and shape == 1:
            return
        out.append((",".join(map(str, path)) if path else "0", stride, shape))

    visit(layout.shape, layout.stride, ())
    return out


def is_zero_stride(d: Any) -> bool:
    """A stride that does not move: the int 0 or a scaled basis of value 0 (a broadcast)."""
    if isinstance(d, ScaledBasis):
        return type(d.value) is int and d.value == 0
    return type(d) is int and d == 0


def unit_run(layout: Any, w: int) -> bool:
    """``layout`` is ``w:1`` (one mode of w elements at stride 1, size-1 modes ignored)."""
    modes = flat_modes(layout) if isinstance(layout, Layout) else []
    return (
        len(modes) == 1
        and type(modes[0][1]) is int
        and modes[0][1] == 1
        and type(modes[0][2]) is int
        and modes[0][2] == w
    )


def rest_strides(inner: Layout) -> list[Any]:
    """The strides of the modes beyond the lanes (mode 0), without size-1 modes: how far one
    access is from the next."""
    if not isinstance(inner.shape, tuple) or len(inner.shape) < 2:
        return []
    rest = Layout._new(inner.shape[1:], inner.stride[1:])
    flat = flatten(rest)
    shapes = it.flatten_to_tuple(flat.shape)
    strides = it.flatten_to_tuple(flat.stride)
    return [d for s, d in zip(shapes, strides) if not (type(s) is int and s == 1)]
