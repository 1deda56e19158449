"""Layout divides: logical_divide and its zipped/tiled/flat arrangements (CuTe).

logical_divide(A, B) = A o (B, complement(B, shape(coalesce(A)))): the first mode holds the
elements B points to (the tile), the second iterates over the tiles. With a tiler <B0, B1, ...>
(a tuple of layouts or a shape) the divide is applied mode by mode.

    logical_divide : ((TileM,RestM), (TileN,RestN), L, ...)
    zipped_divide  : ((TileM,TileN), (RestM,RestN,L,...))
    tiled_divide   : ((TileM,TileN), RestM, RestN, L, ...)
    flat_divide    : (TileM, TileN, RestM, RestN, L, ...)
"""

from __future__ import annotations

from typing import Any

from . import inttuple as it
from .complement import complement
from .composition import composition
from .errors import LayoutError
from .inttuple import _, format_tuple
from .layout import (
    Layout,
    _describe,
    _map_inner,
    coalesce,
    rank,
    slice_,
    transform_layout,
)


def _describe_tiler(tiler: Any) -> str:
    if isinstance(tiler, tuple):
        return "<" + ",".join(_describe_tiler(t) for t in tiler) + ">"
    if isinstance(tiler, Layout):
        return str(tiler)
    return format_tuple(tiler)


def logical_divide(layout: Any, tiler: Any) -> Any:
    """Split `layout` into (tile, rest) modes according to `tiler` (a layout, shape or tiler)."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "logical_divide", lambda lay: logical_divide(lay, tiler))
    if not isinstance(tiler, Layout):
        if tiler is _ or tiler is None:
            return layout
        if isinstance(tiler, tuple):
            return transform_layout(layout, tiler, logical_divide, "logical_divide")
        if type(tiler) is int or it.is_symbolic(tiler):
            tiler = Layout(tiler)
        else:
            raise LayoutError(
                f"logical_divide({layout}, ...): the tiler must be a layout or a shape, got {_describe(tiler)}"
            )
    try:
        rest = complement(tiler, coalesce(layout).shape)
        return composition(
            layout, Layout._new((tiler.shape, rest.shape), (tiler.stride, rest.stride))
        )
    except LayoutError as e:
        raise LayoutError(f"logical_divide({layout}, {tiler}): {e}") from None


def tile_unzip(layout: Any, tiler: Any) -> Any:
    """Gather the (tile, rest) pairs at the terminals of `tiler` into ((tiles...), (rests...))."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "tile_unzip", lambda lay: tile_unzip(lay, tiler))
    try:
        return Layout._new(it.zip2_by(layout.shape, tiler), it.zip2_by(layout.stride, tiler))
    except LayoutError as e:
        raise LayoutError(f"tile_unzip({layout}, {_describe_tiler(tiler)}): {e}") from None


def zipped_divide(layout: Any, tiler: Any) -> Any:
    """((TileM,TileN,...), (RestM,RestN,...,L,...))."""
    return tile_unzip(logical_divide(layout, tiler), tiler)


def tiled_divide(layout: Any, tiler: Any) -> Any:
    """((TileM,TileN,...), RestM, RestN, ..., L, ...)."""
    result = zipped_divide(layout, tiler)
    return slice_((_, it.repeat(rank(result, 1), _)), result)


def flat_divide(layout: Any, tiler: Any) -> Any:
    """(TileM, TileN, ..., RestM, RestN, ..., L, ...)."""
    result = zipped_divide(layout, tiler)
    return slice_((it.repeat(rank(result, 0), _), it.repeat(rank(result, 1), _)), result)
