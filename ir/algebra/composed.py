"""`ComposedLayout`: outer o offset o inner, for functions that `composition` cannot merge.

CuTe's `layout_composed.hpp`: the inner layout defines the domain (shape, size, rank), the
result of a coordinate c is `outer(offset + inner(c))`. The outer function is a `Swizzle`
(swizzled shared-memory layouts), a `Layout` (e.g. a gather layout with a `CustomStride`), or
another ComposedLayout. Algebra operations (divides, products, slicing, coalesce...) act on the
inner layout and keep outer and offset, as in CuTe.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import inttuple as it
from .errors import LayoutError
from .layout import Layout, _check_coord
from .swizzle import Swizzle


def _format_part(x: Any, static_markers: bool) -> str:
    fmt = getattr(type(x), "cute_format", None)
    if fmt is not None:
        return fmt(x, static_markers)
    return it.format_tuple(x, static_markers)


class ComposedLayout:
    """A layout of non-trivially composable functions: c -> outer(offset + inner(c))."""

    __slots__ = ("_hash", "inner", "offset", "outer")

    def __init__(self, outer: Any, offset: Any, inner: Any):
        if not isinstance(inner, (Layout, ComposedLayout)):
            raise LayoutError(f"ComposedLayout: the inner function must be a layout, got {inner!r}")
        if not isinstance(outer, (Layout, ComposedLayout, Swizzle)) and not callable(outer):
            raise LayoutError(
                f"ComposedLayout: the outer function must be a layout or a swizzle, got {outer!r}"
            )
        self.outer = outer
        self.offset = offset
        self.inner = inner
        self._hash = None

    # CuTe's accessor names
    def layout_a(self) -> Any:
        return self.outer

    def layout_b(self) -> Any:
        return self.inner

    @property
    def shape(self) -> Any:
        return self.inner.shape

    def size(self) -> Any:
        return it.product(self.inner.shape)

    def cosize(self) -> Any:
        from .layout import cosize

        return cosize(self.inner)

    @property
    def rank(self) -> int:
        return len(self.inner)

    @property
    def depth(self) -> int:
        return it.depth(self.inner.shape)

    def __len__(self) -> int:
        return len(self.inner)

    def __iter__(self) -> Iterator[ComposedLayout]:
        from .layout import get

        return iter([get(self, i) for i in range(len(self))])

    def __getitem__(self, index: Any) -> Any:
        from .layout import get, take

        if isinstance(index, slice):
            b, e, _step = index.indices(len(self))
            return take(self, b, e)
        if isinstance(index, tuple):
            return get(self, *index)
        return get(self, index)

    def apply_outer(self, x: Any) -> Any:
        """outer(x) for a point x of the outer domain (an int or an arithmetic tuple)."""
        outer = self.outer
        if isinstance(outer, Layout):
            return it.crd2idx(x, outer.shape, outer.stride)
        if isinstance(outer, ComposedLayout):
            return outer.apply_outer(outer.offset + _eval_inner(outer.inner, x))
        return outer(x)

    def __call__(self, *args: Any) -> Any:
        if not args:
            raise LayoutError(f"layout {self}: called without a coordinate")
        coord = args[0] if len(args) == 1 else args
        if it.has_underscore(coord):
            from .layout import slice_

            return slice_(coord, self)
        inner = self.inner
        if isinstance(inner, Layout):
            _check_coord(coord, inner.shape, self)
            idx = it.crd2idx(coord, inner.shape, inner.stride)
        else:
            idx = inner(coord)
        return self.apply_outer(self.offset + idx)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ComposedLayout):
            return NotImplemented
        return (
            self.outer == other.outer and self.offset == other.offset and self.inner == other.inner
        )

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("ComposedLayout", self.outer, self.offset, self.inner))
        return self._hash

    def format(self, static_markers: bool = False) -> str:
        return " o ".join(
            _format_part(x, static_markers) for x in (self.outer, self.offset, self.inner)
        )

    def cute_format(self, static_markers: bool = False) -> str:
        return self.format(static_markers)

    def __str__(self) -> str:
        return self.format(False)

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture: the print_layout table (``layoutc show --svg``), or None."""
        from .show import repr_svg

        return repr_svg(self)

    def __repr__(self) -> str:
        return f"ComposedLayout({self.outer!r}, {self.offset!r}, {self.inner!r})"


def _eval_inner(inner: Any, x: Any) -> Any:
    if isinstance(inner, Layout):
        return it.crd2idx(x, inner.shape, inner.stride)
    return inner(x)


def make_composed_layout(outer: Any, offset: Any, inner: Any) -> ComposedLayout:
    return ComposedLayout(outer, offset, inner)


def composed_slice_and_offset(coord: Any, layout: ComposedLayout) -> tuple[Any, Any]:
    """Slicing a composed layout folds the inner offset into the composed offset (CuTe).

    A swizzled layout with static values is sliced as CuTe does (swizzle_slice.py): the
    offset splits into swizzled and pass-through bits, and the slice decays to a plain layout
    when the swizzle restricted to it is linear.
    """
    from .layout import slice_and_offset

    if (
        isinstance(layout.outer, Swizzle)
        and type(layout.offset) is int
        and isinstance(layout.inner, Layout)
        and not _all_underscore(coord)
        and _static_coord(coord)
        and _static(layout.inner)
    ):
        from .errors import LayoutError
        from .swizzle_slice import disjoint_bit_fields, swizzle_slice_and_offset

        if disjoint_bit_fields(layout.inner, layout.offset):
            try:
                return swizzle_slice_and_offset(coord, layout.outer, layout.offset, layout.inner)
            except LayoutError:
                pass  # a projection is not admissible: keep the generic form below
    sliced, off = slice_and_offset(coord, layout.inner)
    return ComposedLayout(layout.outer, layout.offset + off, sliced), 0


def _static_coord(coord: Any) -> bool:
    """Every entry is an int or `_` (a symbolic coordinate keeps the generic form)."""
    if isinstance(coord, tuple):
        return all(_static_coord(c) for c in coord)
    return coord is it._ or type(coord) is int


def _all_underscore(coord: Any) -> bool:
    if isinstance(coord, tuple):
        return all(_all_underscore(c) for c in coord)
    return coord is it._


def _static(layout: Layout) -> bool:
    return it.all_int(it.flatten_to_tuple(layout.shape)) and it.all_int(
        it.flatten_to_tuple(layout.stride)
    )
