"""CuTe's ``inner_partition``/``outer_partition`` on tensors (and layouts), as the views CuTe
defines them with: ``zipped_divide`` then a slice (``include/cute/tensor_impl.hpp``).

``lc.inner_partition(t, tiler, coord)`` is the tile at ``coord`` (``local_tile`` without a
projection); ``lc.outer_partition(t, tiler, coord)`` is element ``coord`` of every tile
(``local_partition`` with a thread's coordinate). With layouts they are the algebra's
(``layoutc.ir.algebra.partition``), which drops the offset as CuTe's layout slices do.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import LayoutError, rank
from ..ir.algebra import partition as algebra_partition
from ..ir.dialects import tile as T
from ..ir.dialects.layout.types import LayoutType
from . import partition_bounds, state
from .tensor import Tensor, _static_tiler, _tiler_value, _view, coordinate


def _partition(t: Any, tiler: Any, coord: Any, inner: bool) -> Any:
    name = "inner_partition" if inner else "outer_partition"
    if not isinstance(t, Tensor):
        if isinstance(coord, tuple) and any(hasattr(c, "_lc_values") for c in coord):
            from .layouts import _symbolic

            (coord,) = _symbolic((coord,))
        fn = algebra_partition.inner_partition if inner else algebra_partition.outer_partition
        return fn(t, tiler, coord)
    _static_tiler(tiler, f"lc.{name}")
    partition_bounds.check_divide(t, tiler, f"lc.{name}")
    tiled = _view(T.ZippedDivideOp, t, _tiler_value(tiler, f"lc.{name}"))
    template = LayoutType(tiled.type.layout_text).parsed.template
    try:
        coord = algebra_partition.partition_coord(
            rank(template, 0), rank(template, 1), _user_coord(coord), inner
        )
    except LayoutError as e:
        raise state.error(f"lc.{name}: {e}") from None
    return _view(T.SliceOp, tiled, coordinate(coord))


def _user_coord(coord: Any) -> Any:
    return tuple(coord) if isinstance(coord, list) else coord


def inner_partition(t: Any, tiler: Any, coord: Any) -> Any:
    """CuTe's ``inner_partition(t, tiler, coord)``: ``zipped_divide(t, tiler)(_, coord)``."""
    return _partition(t, tiler, coord, inner=True)


def outer_partition(t: Any, tiler: Any, coord: Any) -> Any:
    """CuTe's ``outer_partition(t, tiler, coord)``: ``zipped_divide(t, tiler)(coord, _)``."""
    return _partition(t, tiler, coord, inner=False)
