"""Compile-time refusal of partitions that provably reach outside the tensor they partition.

CuTe's divides and TV partitions are defined only when the tiler (or the thread-value layout)
stays inside the tensor's domain; past it a kernel reads or writes elements that are not the
tensor's. Every check here works on the tensor's *domain*: a compact layout of its shape,
whose offsets are exactly the coordinates' linear indices ``[0, size)``. A view built from it
whose cosize exceeds the size names a coordinate outside the tensor, which is a proof.

Only static facts count: a tensor with a dynamic shape, a coordinate tensor (it has no memory,
and elements past its shape are what predicates such as ``elem_less`` test) or an algebra that
cannot be evaluated statically is left to the existing checks.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import Layout, LayoutError, cosize, make_layout, size, zipped_divide
from . import state

__all__ = [
    "check_divide",
    "check_local_partition",
    "check_tv_partition",
    "check_tv_in_tile",
    "tiler_size",
]


def _is_static(x: Any) -> bool:
    if isinstance(x, tuple):
        return all(_is_static(e) for e in x)
    return type(x) is int


def _domain(t: Any) -> Layout | None:
    """The compact layout of a memory tensor's static shape, or None when no proof is possible."""
    if t.type.element is None:
        return None
    shape = t.type.layout().shape
    if not _is_static(shape):
        return None
    return make_layout(shape)


def _reach(view: Any) -> int | None:
    """The cosize of a static view, or None when the algebra cannot state it."""
    try:
        n = cosize(view)
    except (LayoutError, TypeError, ValueError):
        return None
    return n if type(n) is int else None


def check_divide(t: Any, tiler: Any, what: str) -> None:
    """A divide of ``t`` by a static ``tiler`` that does not fit the tensor is an error: the last
    tile would hold coordinates past the tensor's extent."""
    dom = _domain(t)
    if dom is None:
        return
    try:
        divided = zipped_divide(dom, tiler)
    except (LayoutError, TypeError, ValueError):
        return  # the view op reports what is wrong with the tiler
    reach = _reach(divided)
    if reach is not None and reach > size(dom):
        raise state.error(
            f"{what}: the tiler {tiler} does not divide the tensor of shape {dom.shape}: the tiles "
            f"cover {reach} elements of a tensor of {size(dom)}, so the last tile reaches outside "
            "it (pad the tensor, or tile a dynamic extent and predicate with lc.copy_if)"
        )


def _shape_modes(shape: Any) -> tuple:
    return shape if isinstance(shape, tuple) else (shape,)


def _product(x: Any) -> Any:
    if isinstance(x, tuple):
        p = 1
        for e in x:
            p *= _product(e)
        return p
    return x


def check_local_partition(t: Any, thr_layout: Layout, proj: list[bool] | None) -> None:
    """CuTe's ``local_partition`` divides ``t`` by the thread layout's shape (mode by mode, the
    modes ``proj`` keeps): a thread count that does not divide the extent is an error."""
    modes = _shape_modes(thr_layout.shape)
    if proj is not None:
        modes = tuple(m for m, keep in zip(modes, proj, strict=False) if keep)
    if not _is_static(modes):
        return
    tiler = tuple(_product(m) for m in modes)
    check_divide(t, tiler[0] if len(tiler) == 1 else tiler, "lc.local_partition")


def check_tv_partition(t: Any, tv_layout: Layout, what: str) -> None:
    """A (thread, value) -> element layout whose image (cosize) is larger than the tensor names
    elements that are not the tensor's."""
    dom = _domain(t)
    if dom is None:
        return
    reach = _reach(tv_layout)
    if reach is not None and reach > size(dom):
        raise state.error(
            f"{what}: the thread-value layout {tv_layout} reaches element {reach - 1}, outside "
            f"the tensor of shape {dom.shape} ({size(dom)} elements)"
        )


def tiler_size(tiler: Any) -> Any:
    """The number of elements of a tile: the product of its modes' sizes."""
    if isinstance(tiler, tuple):
        return _product(tuple(tiler_size(m) for m in tiler))
    return size(tiler)


def check_tv_in_tile(tv_layout: Layout, tile_size: Any, what: str) -> None:
    """A tiled copy's (thread, value) -> tile layout must stay inside its tile."""
    reach = _reach(tv_layout)
    if reach is not None and type(tile_size) is int and reach > tile_size:
        raise state.error(
            f"{what}: the thread-value layout {tv_layout} reaches element {reach - 1}, outside "
            f"the tile of {tile_size} elements"
        )
