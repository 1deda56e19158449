"""Gather/scatter layouts: a stride that maps a coordinate through an index buffer.

CUTLASS `examples/common/gather_tensor.hpp`: `CustomStride{func, stride}` makes `i * stride`
mean `func(i) * stride`; with `IndexedGather{buffer}` it reads `buffer[i]`. Example 59 builds
gathered convolution operands as

    composition(make_layout((1,1), (CustomStride(IndexedGather(buf), C), 1)),
                make_arithmetic_tuple(0, 0),
                inner)                      # inner: coordinates -> (buffer index, dense offset)

so that a coordinate c evaluates to `buf[inner(c)[0]] * C + inner(c)[1]`. The buffer is an
abstract handle: any object supporting `handle[i]` evaluates on the host (a list, an array);
the compiler can later pass an IR value and emit the load instead of evaluating.
"""

from __future__ import annotations

from typing import Any

from . import inttuple as it
from .composed import ComposedLayout
from .errors import LayoutError
from .layout import Layout, make_identity_layout


class IndexedGather:
    """i -> indices[i]. `indices` is an opaque handle: a host sequence, or a compiler value."""

    __slots__ = ("indices", "name")

    def __init__(self, indices: Any, name: str = "Indexed"):
        self.indices = indices
        self.name = name

    def __call__(self, i: Any) -> Any:
        if type(i) is not int:
            raise LayoutError(
                f"not supported: evaluating {self.name} gather at the non-static position {i} on the host"
            )
        getter = getattr(self.indices, "__getitem__", None)
        if getter is None:
            raise LayoutError(
                f"not supported: the index buffer {self.indices!r} of {self.name} is not a host sequence"
            )
        try:
            value = getter(i)
        except IndexError:
            raise LayoutError(
                f"{self.name} gather: position {i} is outside the index buffer"
            ) from None
        try:
            import operator

            return operator.index(value)
        except TypeError:
            raise LayoutError(
                f"{self.name} gather: buffer entry {i} is not an integer: {value!r}"
            ) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexedGather) and self.indices is other.indices

    def __hash__(self) -> int:
        return hash(("IndexedGather", id(self.indices)))

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"IndexedGather({self.indices!r})"


class StridedGather:
    """i -> i * stride: a gather that is really a stride (CUTLASS's StridedGather)."""

    __slots__ = ("stride",)

    def __init__(self, stride: Any):
        self.stride = stride

    def __call__(self, i: Any) -> Any:
        return i * self.stride

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StridedGather) and self.stride == other.stride

    def __hash__(self) -> int:
        return hash(("StridedGather", self.stride))

    def __str__(self) -> str:
        return f"Strided{{{it.format_tuple(self.stride)}}}"


class CustomStride:
    """A stride whose product with a coordinate is `func(coordinate) * stride` (CUTLASS CustomStride).

    It only makes sense as the stride of an evaluated layout (the outer layout of a
    ComposedLayout); the algebra refuses to rescale it.
    """

    __slots__ = ("func", "stride")

    def __init__(self, func: Any, stride: Any):
        if not callable(func):
            raise LayoutError(f"CustomStride: the function must be callable, got {func!r}")
        self.func = func
        self.stride = stride

    def apply_stride(self, coord: Any) -> Any:
        """coord * this stride, i.e. func(coord) * stride."""
        return self.func(coord) * self.stride

    def _no_algebra(self, *_args: Any) -> Any:
        raise LayoutError(
            f"not supported: layout algebra on a layout with the custom stride {self}; "
            "use it as the outer layout of a ComposedLayout and transform the inner layout"
        )

    __mul__ = __rmul__ = __add__ = __radd__ = __floordiv__ = _no_algebra

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CustomStride)
            and self.func == other.func
            and self.stride == other.stride
        )

    def __hash__(self) -> int:
        return hash(("CustomStride", self.func, self.stride))

    def cute_format(self, static_markers: bool = False) -> str:
        return f"Custom{{{self.func},{it.format_tuple(self.stride, static_markers)}}}"

    def __str__(self) -> str:
        return self.cute_format()

    def __repr__(self) -> str:
        return f"CustomStride({self.func!r}, {self.stride!r})"


def make_custom_stride_layout(stride: Any, func: Any) -> Layout:
    """A size-1 layout whose first non-unit stride is replaced by CustomStride(func, stride_i)."""
    stride = it.to_int_tuple(stride, "make_custom_stride_layout")
    flat = it.wrap(stride)
    index = next((i for i, d in enumerate(flat) if not (type(d) is int and d == 1)), None)
    if index is None:
        raise LayoutError(
            f"make_custom_stride_layout: the stride {it.format_tuple(stride)} has no non-unit entry"
        )
    custom = CustomStride(func, flat[index])
    new_stride = it.replace(stride, index, custom) if isinstance(stride, tuple) else custom
    return Layout._new(it.repeat_like(stride, 1), new_stride)


def make_gather_layout(shape: Any, stride: Any, func: Any) -> ComposedLayout:
    """CUTLASS make_gather_tensor's layout: coordinates of `shape`, gathered along the first
    non-unit stride through `func` (e.g. IndexedGather(buffer))."""
    from .basis import as_arithmetic_tuple

    inner = make_identity_layout(shape)
    offset = as_arithmetic_tuple(it.repeat_like(it.to_int_tuple(shape, "make_gather_layout"), 0))
    outer = make_custom_stride_layout(stride, func)
    return ComposedLayout(outer, offset, inner)


def gather_strides(layout: Any) -> tuple[Any, ...] | None:
    """The outer strides of a gather layout, one per component of the arithmetic tuple the
    inner layout produces (``(Custom{idx,64}, 1)`` in example 59), or None when ``layout`` is
    not a ComposedLayout whose outer layout has a custom stride."""
    if not isinstance(layout, ComposedLayout) or not isinstance(layout.outer, Layout):
        return None
    strides = it.flatten_to_tuple(layout.outer.stride)
    shapes = it.flatten_to_tuple(layout.outer.shape)
    if not any(isinstance(d, CustomStride) for d in strides):
        return None
    if any(not (type(s) is int and s == 1) for s in shapes):
        raise LayoutError(
            f"not supported: the gather layout {layout}: its outer layout must have shape 1 in "
            "every mode (CUTLASS's (_1,_1):(CustomStride{...},_1)), evaluated by its strides"
        )
    return strides


def gather_offset(layout: Any, coord: Any) -> tuple[Any, list[tuple[Any, Any, Any]]]:
    """``layout(coord)`` of a gather layout as ``(plain, terms)``: the value is
    ``plain + sum(func(index) * scale for func, index, scale in terms)``. ``index`` and
    ``plain`` may be symbolic (the compiler loads ``func``'s buffer at ``index``)."""
    strides = gather_strides(layout)
    if strides is None:
        raise LayoutError(f"gather_offset: {layout} is not a gather layout")
    x = layout.offset + layout.inner(coord)
    parts = tuple(x) if isinstance(x, tuple) else (x,)
    if len(parts) > len(strides):
        raise LayoutError(
            f"the gather layout {layout} produces {len(parts)} components for an outer layout "
            f"of {len(strides)} strides"
        )
    plain: Any = 0
    terms: list[tuple[Any, Any, Any]] = []
    parts = parts + (0,) * (len(strides) - len(parts))
    for part, d in zip(parts, strides):
        if isinstance(d, CustomStride):  # position 0 reads entry 0, not 0
            terms.append((d.func, part, d.stride))
        elif not (type(part) is int and part == 0):
            plain = plain + part * d
    return plain, terms
