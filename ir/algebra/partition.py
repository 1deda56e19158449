"""CuTe's partitioning vocabulary on layouts: ``inner_partition``, ``outer_partition``
(``include/cute/tensor_impl.hpp``) and ``make_layout_tv`` (the thread-value layout of
``make_tiled_copy``, ``include/cute/atom/copy_atom.hpp``).

``inner_partition(x, tiler, coord)`` is ``zipped_divide(x, tiler)`` sliced at ``(_..., coord)``
(the tile at ``coord``: CuTe's ``local_tile`` without projection); ``outer_partition`` slices at
``(coord, _...)`` (the ``coord``-th element of every tile: ``local_partition``). A tuple ``coord``
shorter than the sliced mode is padded with ``_`` (CuTe's ``append<R>(coord, _)``). On a layout
the result is CuTe's layout slice, which drops the offset (``slice_and_offset`` gives both); the
front end applies the same slices to tensors, where the offset moves the pointer.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import inttuple as it
from .composition import composition
from .divide import zipped_divide
from .errors import LayoutError
from .inverse import right_inverse
from .layout import Layout, rank, size, slice_
from .products import raked_product


def partition_coord(r0: int, r1: int, coord: Any, inner: bool) -> Any:
    """The slice coordinate CuTe's inner/outer_partition apply to ``zipped_divide``'s result,
    whose modes have ranks ``r0`` (the tile) and ``r1`` (the rest)."""
    r_sliced = r1 if inner else r0
    r_kept = r0 if inner else r1
    if isinstance(coord, tuple):
        if len(coord) > r_sliced:
            which = "inner_partition" if inner else "outer_partition"
            raise LayoutError(
                f"{which}: the coordinate {it.format_tuple(coord)} has rank {len(coord)}, more "
                f"than the {r_sliced} modes it indexes"
            )
        coord = coord + (it._,) * (r_sliced - len(coord)) if r_sliced > 1 else coord
    kept = it._ if r_kept == 1 else (it._,) * r_kept
    return (kept, coord) if inner else (coord, kept)


def inner_partition(layout: Any, tiler: Any, coord: Any) -> Any:
    """The tile of ``layout`` at ``coord``: ``zipped_divide(layout, tiler)(_, coord)``."""
    tiled = zipped_divide(layout, tiler)
    return slice_(partition_coord(rank(tiled[0]), rank(tiled[1]), coord, True), tiled)


def outer_partition(layout: Any, tiler: Any, coord: Any) -> Any:
    """Element ``coord`` of every tile: ``zipped_divide(layout, tiler)(coord, _)``."""
    tiled = zipped_divide(layout, tiler)
    return slice_(partition_coord(rank(tiled[0]), rank(tiled[1]), coord, False), tiled)


class LayoutTV(NamedTuple):
    """``(tiler_mn, layout_tv)`` as CuTe returns it (it unpacks as a tuple), drawn in Jupyter as
    the TV layout over its tile (``layoutc show --tv TILE --svg``)."""

    tiler: Any
    layout_tv: Layout

    def _repr_svg_(self) -> str | None:
        from .show import tv_layout_svg

        try:
            return tv_layout_svg(self.layout_tv, self.tiler)
        except (LayoutError, TypeError, ValueError):
            return None


def make_layout_tv(thr_layout: Any, val_layout: Any = None) -> LayoutTV:
    """CuTe's ``make_layout_tv(thr_layout, val_layout)``: ``(tiler_mn, layout_tv)``.

    ``thr_layout`` maps an (m,n) coordinate of the thread grid to a thread index and
    ``val_layout`` one of a thread's value block to a value index; their raked product is the
    (m,n) -> (thread, value) layout of the tile, and ``layout_tv`` its right inverse over
    (size(thr), size(val)): (thread, value) -> column-major index in the ``tiler_mn`` tile.
    """
    if val_layout is None:
        val_layout = Layout(1)
    for what, lay in (("thr_layout", thr_layout), ("val_layout", val_layout)):
        if not isinstance(lay, Layout):
            raise LayoutError(f"make_layout_tv: {what} must be a layout, got {lay!r}")
    layout_mn = raked_product(thr_layout, val_layout)
    layout_tv = composition(right_inverse(layout_mn), Layout((size(thr_layout), size(val_layout))))
    return LayoutTV(it.product_each(layout_mn.shape), layout_tv)
