"""Layout products: logical_product and its arrangements, blocked/raked products, tile_to_shape.

logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B): the first mode is the block
A, the second replicates it according to B. blocked_product and raked_product are the
rank-sensitive forms that pair like modes of A and B (CuTe's `layout.hpp`).

    logical_product : ((M,TileM), (N,TileN), L, ...)
    zipped_product  : ((M,N), (TileM,TileN,L,...))
    tiled_product   : ((M,N), TileM, TileN, L, ...)
    flat_product    : (M, N, TileM, TileN, L, ...)
"""

from __future__ import annotations

from typing import Any

from . import intops
from . import inttuple as it
from .complement import complement
from .composed import ComposedLayout
from .composition import composition
from .divide import tile_unzip
from .errors import LayoutError
from .inttuple import _, format_tuple
from .layout import (
    Layout,
    LayoutLeft,
    _describe,
    _map_inner,
    append,
    as_layout,
    cosize,
    get,
    make_ordered_layout,
    rank,
    size,
    slice_,
    transform_layout,
    zip_layouts,
)


def logical_product(block: Any, tiler: Any) -> Any:
    """(block, complement(block, size(block)*cosize(tiler)) o tiler), or by mode for a tiler tuple."""
    if not isinstance(block, Layout):
        return _map_inner(block, "logical_product", lambda lay: logical_product(lay, tiler))
    if isinstance(tiler, Layout):
        pass
    elif tiler is _ or tiler is None:
        return block
    elif isinstance(tiler, tuple):
        return transform_layout(block, tiler, logical_product, "logical_product")
    elif type(tiler) is int or it.is_symbolic(tiler):
        tiler = Layout(tiler)
    if isinstance(tiler, ComposedLayout):
        raise LayoutError(
            f"not supported: logical_product({block}, {tiler}) with a composed (swizzled) tiler"
        )
    if not isinstance(tiler, Layout):
        raise LayoutError(
            f"logical_product({block}, ...): the tiler must be a layout or a shape, got {_describe(tiler)}"
        )
    try:
        rest = composition(complement(block, size(block) * cosize(tiler)), tiler)
    except LayoutError as e:
        raise LayoutError(f"logical_product({block}, {tiler}): {e}") from None
    return Layout._new((block.shape, rest.shape), (block.stride, rest.stride))


def zipped_product(block: Any, tiler: Any) -> Any:
    return tile_unzip(logical_product(block, tiler), tiler)


def tiled_product(block: Any, tiler: Any) -> Any:
    result = zipped_product(block, tiler)
    return slice_((_, it.repeat(rank(result, 1), _)), result)


def flat_product(block: Any, tiler: Any) -> Any:
    result = zipped_product(block, tiler)
    return slice_((it.repeat(rank(result, 0), _), it.repeat(rank(result, 1), _)), result)


def _rank_sensitive(block: Any, tiler: Any, what: str, raked: bool) -> Any:
    if not isinstance(block, Layout):
        return _map_inner(block, what, lambda lay: _rank_sensitive(lay, tiler, what, raked))
    tiler = as_layout(tiler, what)
    r = max(rank(block), rank(tiler))
    result = logical_product(append(block, n=r), append(tiler, n=r))
    first, second = get(result, 0), get(result, 1)
    return zip_layouts(second, first) if raked else zip_layouts(first, second)


def blocked_product(block: Any, tiler: Any) -> Any:
    """Reproduce `block` over `tiler`, keeping each block contiguous; rank = max of the ranks."""
    return _rank_sensitive(block, tiler, "blocked_product", raked=False)


def raked_product(block: Any, tiler: Any) -> Any:
    """Reproduce `block` over `tiler` with the blocks interleaved (a cyclic distribution)."""
    return _rank_sensitive(block, tiler, "raked_product", raked=True)


def tile_to_shape(block: Any, trg_shape: Any, ord_shape: Any = LayoutLeft) -> Any:
    """Repeat `block` (blocked_product) until it has the target shape, tiling modes in `ord_shape` order."""
    if not isinstance(block, Layout):
        return _map_inner(
            block, "tile_to_shape", lambda lay: tile_to_shape(lay, trg_shape, ord_shape)
        )
    trg_shape = it.to_int_tuple(trg_shape, "tile_to_shape target shape")
    r = it.rank(trg_shape)
    if rank(block) > r:
        raise LayoutError(
            f"tile_to_shape({block}, {format_tuple(trg_shape)}): rank of the layout exceeds the target rank"
        )
    padded = append(block, n=r)
    block_shape = it.product_each(padded.shape)
    target_shape = it.product_each(trg_shape)
    for b, t in zip(block_shape, target_shape):
        intops.require_divides(
            b,
            t,
            f"tile_to_shape({block}, {format_tuple(trg_shape)}): block shape does not divide the target shape",
        )
    product_shape = it.ceil_div(target_shape, block_shape)
    return blocked_product(padded, make_ordered_layout(product_shape, ord_shape))
