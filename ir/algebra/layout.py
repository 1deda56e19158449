"""`Layout`: a (shape, stride) pair that maps coordinates to indices (CuTe's `layout.hpp`).

This module holds the Layout type, its constructors and accessors, concatenation and mode
editing, coalesce/filter, and slicing. The algebra built on top (composition, complement,
inverses, divides and products) lives in sibling modules. Every function takes plain-int
layouts on a fast path; symbolic entries go through `intops`.

Functions that also accept a `ComposedLayout` (swizzled or gather layouts) apply themselves to
its inner layout, as CuTe's `layout_composed.hpp` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import inttuple as it
from .basis import ScaledBasis, as_arithmetic_tuple, make_basis_like
from .errors import LayoutError
from .inttuple import IntTuple, _, format_tuple


class _Major:
    """Tag selecting generalized column-major (LayoutLeft) or row-major (LayoutRight) strides."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


LayoutLeft = _Major("LayoutLeft")
LayoutRight = _Major("LayoutRight")
GenColMajor = LayoutLeft
GenRowMajor = LayoutRight


def _check_stride_leaf(d: Any, what: str) -> Any:
    if type(d) is int:
        return d
    if isinstance(d, ScaledBasis) or hasattr(d, "apply_stride"):
        return d
    if it.is_symbolic(d):
        return d
    if isinstance(d, bool):
        raise LayoutError(f"{what}: stride entries must be integers, got the bool {d}")
    try:
        import operator

        return operator.index(d)
    except TypeError:
        raise LayoutError(
            f"{what}: stride entries must be integers or basis strides, got {d!r}"
        ) from None


def _normalize_stride(stride: Any, what: str) -> IntTuple:
    if isinstance(stride, (tuple, list)):
        return tuple(_normalize_stride(d, what) for d in stride)
    return _check_stride_leaf(stride, what)


class Layout:
    """A CuTe layout: a function from coordinates of `shape` to indices via `stride`.

    `Layout(shape)` uses generalized column-major strides (CuTe's `make_layout(shape)`).
    Call it with a 1-D index, a coordinate tuple or several coordinates: `L(5)`, `L((1,2))`,
    `L(1, 2)`; a coordinate containing `_` slices instead (`L(_, 2)`). `L[i]` is mode i.
    Equality is structural (same shape and stride), as in CuTe.
    """

    __slots__ = ("_hash", "_size", "shape", "stride")

    shape: IntTuple
    stride: IntTuple

    def __init__(self, shape: IntTuple, stride: IntTuple | None = None):
        shape = it.to_int_tuple(shape, "Layout shape")
        it.check_positive_shape(shape, "Layout")
        if stride is None:
            stride = it.compact_col_major(shape)
        else:
            stride = _normalize_stride(stride, "Layout")
            if not it.congruent(shape, stride):
                raise LayoutError(
                    f"Layout: shape {format_tuple(shape)} and stride {format_tuple(stride)} are not congruent"
                )
        self.shape = shape
        self.stride = stride
        self._hash = None
        self._size = None

    @classmethod
    def _new(cls, shape: IntTuple, stride: IntTuple) -> Layout:
        """Trusted constructor for results of the algebra (no validation)."""
        self = object.__new__(cls)
        self.shape = shape
        self.stride = stride
        self._hash = None
        self._size = None
        return self

    # -- evaluation -------------------------------------------------------------------------

    def __call__(self, *args: Any) -> Any:
        if len(args) == 1:
            coord = args[0]
            if type(coord) is int:  # fast path: a 1-D index
                n = self._size
                if n is None:
                    n = self._size = it.product(self.shape)
                if coord < 0 or (type(n) is int and coord >= n):
                    raise LayoutError(f"layout {self}: coordinate {coord} out of range [0,{n})")
                return it.crd2idx(coord, self.shape, self.stride)
        elif not args:
            raise LayoutError(f"layout {self}: called without a coordinate")
        else:
            coord = args
        shape = self.shape
        if isinstance(coord, tuple) and isinstance(shape, tuple) and len(coord) == len(shape):
            stride = self.stride
            total = 0
            for c, s, d in zip(coord, shape, stride):  # fast path: flat static coordinates
                if type(c) is not int or type(s) is not int or type(d) is not int:
                    break
                if c < 0 or c >= s:
                    raise LayoutError(
                        f"layout {self}: coordinate {c} out of range [0,{s}) for mode of shape {s}"
                    )
                total += c * d
            else:
                return total
        coord = normalize_coord(coord, self)
        if it.has_underscore(coord):
            return slice_(coord, self)
        _check_coord(coord, self.shape, self)
        return it.crd2idx(coord, self.shape, self.stride)

    # -- structure --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def __iter__(self) -> Iterator[Layout]:
        return iter(modes(self))

    def __getitem__(self, index: Any) -> Layout:
        if isinstance(index, slice):
            b, e, step = index.indices(len(self))
            if step != 1:
                raise LayoutError(f"layout {self}: mode slices must have step 1")
            return take(self, b, e)
        if isinstance(index, tuple):
            return get(self, *index)
        return get(self, index)

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def depth(self) -> int:
        return it.depth(self.shape)

    def size(self) -> Any:
        n = self._size
        if n is None:
            n = self._size = it.product(self.shape)
        return n

    def cosize(self) -> Any:
        return cosize(self)

    # -- CuTe member conveniences -----------------------------------------------------------

    def compose(self, *others: Any) -> Any:
        from .composition import composition

        return composition(self, others[0] if len(others) == 1 else tuple(others))

    def with_shape(self, *shape: Any) -> Any:
        from .composition import composition

        return composition(self, Layout(shape[0] if len(shape) == 1 else tuple(shape)))

    def tile(self, *tilers: Any) -> Any:
        from .divide import tiled_divide

        return tiled_divide(self, tilers[0] if len(tilers) == 1 else tuple(tilers))

    # -- data semantics ---------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self.shape == other.shape and self.stride == other.stride

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.stride))
        return h

    def format(self, static_markers: bool = False) -> str:
        """CuTe notation; `static_markers=True` prints ints as `_4` as CuTe does for static values."""
        return (
            format_tuple(self.shape, static_markers)
            + ":"
            + format_tuple(self.stride, static_markers)
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
        return f"Layout({self.shape!r}, {self.stride!r})"

    def __reduce__(self) -> tuple:
        return (Layout, (self.shape, self.stride))


def normalize_coord(coord: Any, layout: Any) -> Any:
    """Coordinates as the algebra expects them: ints (numpy ints converted), symbols, `_`, tuples."""
    if type(coord) is int or coord is _:
        return coord
    if isinstance(coord, tuple):
        return tuple(normalize_coord(c, layout) for c in coord)
    if isinstance(coord, list):
        return tuple(normalize_coord(c, layout) for c in coord)
    if isinstance(coord, bool) or it.is_symbolic(coord):
        if isinstance(coord, bool):
            raise LayoutError(
                f"layout {layout}: coordinate entries must be integers, got the bool {coord}"
            )
        return coord
    try:
        import operator

        return operator.index(coord)
    except TypeError:
        raise LayoutError(
            f"layout {layout}: coordinate entries must be integers or _, got {coord!r}"
        ) from None


def _check_coord(coord: IntTuple, shape: IntTuple, layout: Any) -> None:
    """Reject coordinates whose profile does not fit `shape`, or static values out of range."""
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple) or len(coord) != len(shape):
            raise LayoutError(
                f"layout {layout}: coordinate {format_tuple(coord)} does not match shape {format_tuple(shape)}"
            )
        for c, s in zip(coord, shape):
            _check_coord(c, s, layout)
        return
    if type(coord) is int:
        n = it.product(shape) if isinstance(shape, tuple) else shape
        if coord < 0 or (type(n) is int and coord >= n):
            raise LayoutError(
                f"layout {layout}: coordinate {coord} out of range [0,{n}) for mode of shape {format_tuple(shape)}"
            )
        return
    if isinstance(coord, bool) or not it.is_symbolic(coord):
        raise LayoutError(f"layout {layout}: coordinate entries must be integers, got {coord!r}")


# ----------------------------------------------------------------------------------------------
# Construction
# ----------------------------------------------------------------------------------------------


def is_layout(x: object) -> bool:
    from .composed import ComposedLayout

    return isinstance(x, (Layout, ComposedLayout))


def make_layout(*args: Any, order: Any = None) -> Layout:
    """CuTe's make_layout.

    - `make_layout(shape)`: column-major strides (`LayoutLeft`);
    - `make_layout(shape, stride)`; `make_layout(shape, LayoutRight)` (or `LayoutLeft`);
    - `make_layout(shape, order=(1,0))` or `order=LayoutRight`: `make_ordered_layout`;
    - `make_layout(L0, L1, ...)`: concatenation of layouts into a layout with one mode each.
    """
    if args and isinstance(args[0], Layout) and all(isinstance(a, Layout) for a in args):
        if order is not None:
            raise LayoutError("make_layout: `order` applies to a shape, not to layouts")
        return Layout._new(tuple(a.shape for a in args), tuple(a.stride for a in args))
    if not args:
        raise LayoutError("make_layout: expected a shape or layouts")
    if len(args) > 2:
        raise LayoutError(
            "make_layout: expected (shape), (shape, stride), (shape, LayoutRight) or layouts"
        )
    shape = args[0]
    if any(isinstance(a, Layout) for a in args):
        raise LayoutError("make_layout: cannot mix layouts and shapes")
    if len(args) == 2:
        if order is not None:
            raise LayoutError("make_layout: give either a stride or an order, not both")
        second = args[1]
        if second is LayoutLeft or second is LayoutRight:
            order = second
        else:
            return Layout(shape, second)
    if order is None or order is LayoutLeft:
        return Layout(shape)
    if order is LayoutRight:
        shape = it.to_int_tuple(shape, "make_layout shape")
        it.check_positive_shape(shape, "make_layout")
        return Layout._new(shape, it.compact_row_major(shape))
    return make_ordered_layout(shape, order)


def make_ordered_layout(shape: IntTuple, order: Any) -> Layout:
    """Compact layout whose modes are laid out in increasing `order` (CuTe's make_ordered_layout)."""
    shape = it.to_int_tuple(shape, "make_ordered_layout shape")
    it.check_positive_shape(shape, "make_ordered_layout")
    if order is LayoutLeft:
        return Layout._new(shape, it.compact_col_major(shape))
    if order is LayoutRight:
        return Layout._new(shape, it.compact_row_major(shape))
    order = it.to_int_tuple(order, "make_ordered_layout order")
    return Layout._new(shape, it.compact_order(shape, order))


def make_identity_layout(shape: IntTuple) -> Layout:
    """Layout mapping each coordinate to itself: `(4,8)` -> `(4,8):(1@0,1@1)`."""
    shape = it.to_int_tuple(shape, "make_identity_layout shape")
    it.check_positive_shape(shape, "make_identity_layout")
    return Layout._new(shape, make_basis_like(shape))


def make_layout_like(layout: Layout) -> Layout:
    """A compact layout with the same shape whose modes keep the order of `layout`'s strides."""
    _require_layout(layout, "make_layout_like")
    order = it.filter_zeros_tuple(layout.stride, layout.shape)
    return Layout._new(layout.shape, it.compact_order(order, layout.stride))


def _require_layout(x: Any, what: str) -> None:
    if not isinstance(x, Layout):
        raise LayoutError(f"{what}: expected a Layout, got {_describe(x)}")


def _describe(x: Any) -> str:
    if isinstance(x, Layout):
        return f"the layout {x}"
    return f"{type(x).__name__} {x!s}"


def as_layout(x: Any, what: str) -> Layout:
    """A Layout from a Layout or a shape (int/tuple of ints): shapes mean compact column-major."""
    if isinstance(x, Layout):
        return x
    if type(x) is int or isinstance(x, tuple) or it.is_symbolic(x):
        return Layout(x)
    raise LayoutError(f"{what}: expected a layout or a shape, got {_describe(x)}")


# ----------------------------------------------------------------------------------------------
# Accessors (work on Layouts, ComposedLayouts and IntTuples)
# ----------------------------------------------------------------------------------------------


def _inner(x: Any) -> Any:
    """The layout that defines the domain: `x` itself, or the inner layout of a ComposedLayout."""
    if isinstance(x, Layout):
        return x
    inner = getattr(x, "inner", None)
    if isinstance(inner, Layout):
        return inner
    return None


def shape(x: Any, *index: int) -> IntTuple:
    lay = _inner(x)
    if lay is not None:
        return it.get(lay.shape, *index)
    return it.get(x, *index)


def stride(x: Any, *index: int) -> IntTuple:
    if not isinstance(x, Layout):
        if _inner(x) is not None:
            raise LayoutError(
                "stride: a composed layout has no strides (CuTe deletes stride() for it)"
            )
        raise LayoutError(f"stride: expected a Layout, got {_describe(x)}")
    return it.get(x.stride, *index)


def size(x: Any, *index: int) -> Any:
    """Number of coordinates (domain size) of a layout or of an IntTuple, optionally of mode `index`."""
    lay = _inner(x)
    if lay is not None:
        return it.product(it.get(lay.shape, *index))
    return it.product(it.get(x, *index))


def rank(x: Any, *index: int) -> int:
    lay = _inner(x)
    if lay is not None:
        return it.rank(it.get(lay.shape, *index))
    return it.rank(it.get(x, *index))


def depth(x: Any, *index: int) -> int:
    lay = _inner(x)
    if lay is not None:
        return it.depth(it.get(lay.shape, *index))
    return it.depth(it.get(x, *index))


def _abs_stride(d: Any) -> Any:
    if type(d) is int:
        return -d if d < 0 else d
    if isinstance(d, ScaledBasis):
        return ScaledBasis(it.abs_value(d.value, "cosize"), *d.modes)
    if hasattr(d, "apply_stride"):
        raise LayoutError("cosize: not supported for a layout with a custom (gather) stride")
    return it.abs_value(d, "cosize")


def cosize(x: Any, *index: int) -> Any:
    """Size of the codomain: sum((shape-1)*|stride|) + 1 (CuTe's coshape); for basis strides the
    product of the per-mode codomain extents."""
    lay = _inner(x)
    if lay is None:
        raise LayoutError(f"cosize: expected a layout, got {_describe(x)}")
    s = it.get(lay.shape, *index)
    d = it.get(lay.stride, *index)
    fs = it.flatten_to_tuple(s)
    fd = it.flatten_to_tuple(d)
    total: Any = 0
    for si, di in zip(fs, fd):
        if type(si) is int and type(di) is int:
            total = total + (si - 1) * (-di if di < 0 else di)
        else:
            total = total + (si - 1) * _abs_stride(di)
    co = as_arithmetic_tuple(total)
    return it.product(it.transform_leaf(co, lambda c: c + 1))


def get(x: Any, *index: int) -> Any:
    """Sub-layout (or sub-tuple) at the hierarchical position `index` (CuTe's get<I...>/layout<I...>)."""
    if isinstance(x, Layout):
        if not index:
            return x
        return Layout._new(_get(x.shape, index, x), _get(x.stride, index, x))
    lay = _inner(x)
    if lay is not None:
        from .composition import composition

        return composition(x.outer, x.offset, get(lay, *index))
    return it.get(x, *index)


def _get(t: IntTuple, index: tuple, layout: Layout) -> IntTuple:
    for i in index:
        if isinstance(t, tuple):
            if type(i) is not int or not 0 <= i < len(t):
                raise LayoutError(f"layout {layout}: mode index {index} out of range")
            t = t[i]
        elif i != 0:
            raise LayoutError(f"layout {layout}: mode index {index} out of range")
    return t


mode = get


def modes(layout: Layout) -> list[Layout]:
    """The top-level modes of a layout as layouts (a non-tuple layout is its own single mode)."""
    if isinstance(layout.shape, tuple):
        return [Layout._new(s, d) for s, d in zip(layout.shape, layout.stride)]
    return [layout]


def _map_inner(x: Any, what: str, f: Any) -> Any:
    """Apply `f` to the inner layout of a ComposedLayout and rebuild it, as CuTe does."""
    lay = _inner(x)
    if lay is None or isinstance(x, Layout):
        raise LayoutError(f"{what}: expected a layout, got {_describe(x)}")
    from .composition import composition

    return composition(x.outer, x.offset, f(lay))


def take(layout: Any, b: int, e: int) -> Any:
    """Modes [b, e) of a layout (CuTe's take<B,E>)."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "take", lambda lay: take(lay, b, e))
    if not isinstance(layout.shape, tuple):
        if (b, e) != (0, 1):
            raise LayoutError(f"take: range [{b},{e}) out of bounds for the rank-1 layout {layout}")
        return layout
    return Layout._new(it.take(layout.shape, b, e), it.take(layout.stride, b, e))


def select(layout: Any, *idx: int) -> Any:
    if not isinstance(layout, Layout):
        return _map_inner(layout, "select", lambda lay: select(lay, *idx))
    return Layout._new(it.select(layout.shape, *idx), it.select(layout.stride, *idx))


def flatten(layout: Any) -> Any:
    if not isinstance(layout, Layout):
        if _inner(layout) is None:
            return it.flatten(layout)
        return _map_inner(layout, "flatten", flatten)
    return Layout._new(it.flatten(layout.shape), it.flatten(layout.stride))


def unflatten(layout: Layout, profile: IntTuple) -> Layout:
    _require_layout(layout, "unflatten")
    return Layout._new(it.unflatten(layout.shape, profile), it.unflatten(layout.stride, profile))


def group(layout: Any, b: int, e: int) -> Any:
    if not isinstance(layout, Layout):
        return _map_inner(layout, "group", lambda lay: group(lay, b, e))
    return Layout._new(it.group(layout.shape, b, e), it.group(layout.stride, b, e))


_UNIT = None


def _unit() -> Layout:
    global _UNIT
    if _UNIT is None:
        _UNIT = Layout._new(1, 0)
    return _UNIT


def append(layout: Any, x: Layout | None = None, n: int | None = None) -> Any:
    """append(L, x) adds mode x (default 1:0); append(L, n=N) pads L to rank N with 1:0."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "append", lambda lay: append(lay, x, n))
    x = _unit() if x is None else as_layout(x, "append")
    return Layout._new(it.append(layout.shape, x.shape, n), it.append(layout.stride, x.stride, n))


def prepend(layout: Layout, x: Layout | None = None, n: int | None = None) -> Layout:
    _require_layout(layout, "prepend")
    x = _unit() if x is None else as_layout(x, "prepend")
    return Layout._new(it.prepend(layout.shape, x.shape, n), it.prepend(layout.stride, x.stride, n))


def replace(layout: Layout, i: int, x: Layout) -> Layout:
    _require_layout(layout, "replace")
    x = as_layout(x, "replace")
    return Layout._new(it.replace(layout.shape, i, x.shape), it.replace(layout.stride, i, x.stride))


def zip_layouts(*layouts: Layout) -> Layout:
    """CuTe's zip(layout) / zip(layoutA, layoutB): transpose the top two levels of modes."""
    for lay in layouts:
        _require_layout(lay, "zip")
    if len(layouts) == 1:
        lay = layouts[0]
        return Layout._new(it.zip_(lay.shape), it.zip_(lay.stride))
    return Layout._new(
        it.zip_(tuple(a.shape for a in layouts)), it.zip_(tuple(a.stride for a in layouts))
    )


def transform_layout(layout: Layout, profile: tuple, f: Any, what: str) -> Layout:
    """Apply f(mode_i, profile_i) to the first len(profile) modes and keep the rest (CuTe)."""
    ms = modes(layout)
    if len(profile) > len(ms):
        raise LayoutError(
            f"{what}: the profile {format_tuple(profile)} has {len(profile)} modes but the layout {layout} has {len(ms)}"
        )
    out = [f(ms[i], profile[i]) for i in range(len(profile))]
    out.extend(ms[len(profile) :])
    return Layout._new(tuple(r.shape for r in out), tuple(r.stride for r in out))


# ----------------------------------------------------------------------------------------------
# Coalesce and filter
# ----------------------------------------------------------------------------------------------


def _bw_coalesce(fs: tuple, fd: tuple, extend_last: bool) -> Layout:
    """CuTe's bw_coalesce over flat modes, right to left.

    With `extend_last` (CuTe's coalesce_x) a trailing size-1 mode is kept as a placeholder of
    size 2 so that the layout keeps its last stride outside its domain (composition relies on it).
    """
    n = len(fs)
    if n == 0:
        return _unit()
    s_last = fs[n - 1]
    rev_s = [2 if extend_last and type(s_last) is int and s_last == 1 else s_last]
    rev_d = [fd[n - 1]]
    for i in range(n - 2, -1, -1):
        s = fs[i]
        if type(s) is int and s == 1:
            continue
        d = fd[i]
        front = rev_s[-1]
        if type(front) is int and front == 1:
            rev_s[-1] = s
            rev_d[-1] = d
            continue
        if type(s) is int and type(d) is int and type(rev_d[-1]) is int:
            merge = s * d == rev_d[-1]
        else:
            merge = _stride_eq(s * d, rev_d[-1])
        if merge:
            rev_s[-1] = s * front
            rev_d[-1] = d
        else:
            rev_s.append(s)
            rev_d.append(d)
    if len(rev_s) == 1:
        s = rev_s[0]
        if type(s) is int and s == 1:
            return _unit()
        return Layout._new(s, rev_d[0])
    rev_s.reverse()
    rev_d.reverse()
    return Layout._new(tuple(rev_s), tuple(rev_d))


def _stride_eq(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    if isinstance(a, ScaledBasis) or isinstance(b, ScaledBasis):
        return a == b
    if it.is_symbolic(a) or it.is_symbolic(b):
        from . import intops

        return intops.prove_eq(a, b)
    return a == b


def coalesce(layout: Any, profile: IntTuple | None = None) -> Any:
    """Simplify a layout without changing it as a function on its domain (CuTe's coalesce).

    With a `profile` such as `(1,1)`, coalesce each mode at the terminals of the profile and
    keep the rank.
    """
    if not isinstance(layout, Layout):
        return _map_inner(layout, "coalesce", lambda lay: coalesce(lay, profile))
    if isinstance(profile, tuple):
        return transform_layout(layout, profile, coalesce, "coalesce")
    shp = layout.shape
    if not isinstance(shp, tuple):
        if type(shp) is int and shp == 1:
            return _unit()
        return layout
    return _bw_coalesce(it.flatten(shp), it.flatten(layout.stride), False)


def coalesce_x(layout: Layout, profile: IntTuple | None = None) -> Layout:
    """CuTe's detail::coalesce_x: coalesce but keep the function outside the domain too."""
    if isinstance(profile, tuple):
        return transform_layout(layout, profile, coalesce_x, "coalesce")
    shp = layout.shape
    if not isinstance(shp, tuple):
        return Layout._new(2, layout.stride) if type(shp) is int and shp == 1 else layout
    return _bw_coalesce(it.flatten(shp), it.flatten(layout.stride), True)


def filter_zeros(layout: Any, profile: IntTuple | None = None) -> Any:
    """Replace the modes with stride 0 (or with a 0 at the terminals of `profile`) by size 1."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "filter_zeros", lambda lay: filter_zeros(lay, profile))
    guide = layout.stride if profile is None else profile
    return Layout._new(it.filter_zeros_tuple(guide, layout.shape), layout.stride)


def filter(layout: Any, profile: IntTuple | None = None) -> Any:
    """Remove stride-0 and size-1 modes, then coalesce (CuTe's filter); 1:0 if nothing is left."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "filter", lambda lay: filter(lay, profile))
    if isinstance(profile, tuple):
        return transform_layout(layout, profile, filter, "filter")
    return coalesce(filter_zeros(layout))


# ----------------------------------------------------------------------------------------------
# Coordinates and slicing
# ----------------------------------------------------------------------------------------------


def crd2idx(coord: IntTuple, layout_or_shape: Any, stride_: IntTuple | None = None) -> Any:
    """crd2idx(coord, layout) or crd2idx(coord, shape, stride) as in CuTe (no range check);
    crd2idx(coord, shape) is the colexicographic index of `coord` within `shape`."""
    if isinstance(layout_or_shape, Layout):
        return it.crd2idx(
            it.underscore_to_zero(coord), layout_or_shape.shape, layout_or_shape.stride
        )
    if _inner(layout_or_shape) is not None:
        return layout_or_shape(it.underscore_to_zero(coord))
    if stride_ is None:
        return it.crd2idx_colex(coord, layout_or_shape)
    return it.crd2idx(coord, layout_or_shape, stride_)


def idx2crd(idx: IntTuple, layout_or_shape: Any, stride_: IntTuple | None = None) -> IntTuple:
    """The natural coordinate of a 1-D index within a shape (or a layout's shape)."""
    if _inner(layout_or_shape) is not None:
        return it.idx2crd(idx, _inner(layout_or_shape).shape)
    return it.idx2crd(idx, layout_or_shape, stride_)


def _check_slice_coord(coord: IntTuple, shp: IntTuple, layout: Any) -> None:
    if coord is _:
        return
    if isinstance(coord, tuple):
        if not isinstance(shp, tuple) or len(coord) != len(shp):
            raise LayoutError(
                f"slice: coordinate {format_tuple(coord)} does not match the shape {format_tuple(shp)} of {layout}"
            )
        for c, s in zip(coord, shp):
            _check_slice_coord(c, s, layout)
        return
    if type(coord) is int:
        n = it.product(shp)
        if coord < 0 or (type(n) is int and coord >= n):
            raise LayoutError(
                f"slice: coordinate {coord} out of range [0,{n}) for the mode {format_tuple(shp)} of {layout}"
            )
        return
    if isinstance(coord, bool) or not it.is_symbolic(coord):
        raise LayoutError(f"slice: coordinate entries must be integers or _, got {coord!r}")


def slice_(coord: IntTuple, layout: Any) -> Any:
    """The sub-layout of the modes marked `_` in `coord` (CuTe's slice); `L(_, 2)` calls it."""
    return slice_and_offset(coord, layout)[0]


def slice_and_offset(coord: IntTuple, layout: Any) -> tuple[Any, Any]:
    """(sub-layout of the `_` modes, index of `coord` with `_` taken as 0)."""
    coord = normalize_coord(coord, layout)
    if not isinstance(layout, Layout):
        lay = _inner(layout)
        if lay is None:
            raise LayoutError(f"slice: expected a layout, got {_describe(layout)}")
        from .composed import composed_slice_and_offset

        return composed_slice_and_offset(coord, layout)
    _check_slice_coord(coord, layout.shape, layout)
    sliced = Layout._new(it.slice_tuple(coord, layout.shape), it.slice_tuple(coord, layout.stride))
    offset = it.crd2idx(it.underscore_to_zero(coord), layout.shape, layout.stride)
    return sliced, offset


def dice(coord: IntTuple, layout: Any) -> Any:
    """The sub-layout of the modes given an integer in `coord` (CuTe's dice)."""
    if not isinstance(layout, Layout):
        return _map_inner(layout, "dice", lambda lay: dice(coord, lay))
    _check_slice_coord(coord, layout.shape, layout)
    return Layout._new(it.dice_tuple(coord, layout.shape), it.dice_tuple(coord, layout.stride))


def domain_offset(coord: IntTuple, layout: Layout) -> tuple[Layout, Any]:
    _require_layout(layout, "domain_offset")
    return layout, layout(coord)
