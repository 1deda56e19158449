"""Tensors: proxies over ``!tile.tensor`` values, their views, elements and allocation.

A :class:`Tensor` is an SSA value of type ``!tile.tensor<elem, space, "layout", align>``. Python
indexing follows CuTe: ``t[i]``, ``t[i, j]`` and ``t[(i, j)]`` read an element (``tile.load``),
``t[i] = v`` writes one (``tile.store``), and a coordinate with ``_`` (``t[_, 2]``,
``t[(_, 1), 3]``) is a sub-tensor (``tile.slice``). Views (``local_tile``, ``local_partition``,
``partition_tv``, ``composition``, the divides, ``group_modes``...) are ops whose result types the
tile dialect computes with the algebra. ``t.layout`` is the algebra layout, with symbols bound to
the tensor's dynamic entries, so any algebra on it works and its results can be used as values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ir import algebra
from ..ir.algebra import Layout, _, coalesce, make_layout, make_layout_like, storage_cosize
from ..ir.algebra.errors import LayoutError
from ..ir.algebra.inttuple import Underscore
from ..ir.core.types import i1 as ir_i1
from ..ir.core.types import index
from ..ir.core.values import Value
from ..ir.dialects import layout as L
from ..ir.dialects import tile as T
from ..ir.dialects.tile.types import PtrType, TensorType
from . import partition_bounds, scalars, state, symbols, thread_bounds
from .dtypes import ElementType, element_type, from_ir
from .proxy import TraceValue
from .scalars import Bool, Int, Scalar


class Tensor(TraceValue):
    """A tensor in gmem, smem, rmem (a register fragment), or a coordinate tensor."""

    __slots__ = ("_entries", "value")

    def __init__(self, value: Value, entries: Sequence[Any] | None = None):
        if not isinstance(value.type, TensorType):
            raise TypeError(f"a Tensor proxy needs a !tile.tensor value, got {value.type.text}")
        self.value = value
        self._entries = list(entries) if entries is not None else None

    # -- proxy protocol -----------------------------------------------------------------------
    def _lc_values(self) -> list[Value]:
        return [self.value]

    def _lc_signature(self) -> Any:
        return (Tensor, self.value.type)

    def _lc_rebuild(self, values: Sequence[Value]) -> Tensor:
        return Tensor(values[0])

    def _lc_describe(self) -> str:
        return f"a tensor {self.type.text}"

    __hash__ = object.__hash__

    # -- static facts -------------------------------------------------------------------------
    @property
    def type(self) -> TensorType:
        return self.value.type  # type: ignore[return-value]

    @property
    def element_type(self) -> ElementType | None:
        """The element type (None for a coordinate tensor)."""
        e = self.type.element
        return from_ir(e) if e is not None else None

    @property
    def memspace(self) -> str:
        return self.type.space

    @property
    def alignment(self) -> int:
        return self.type.alignment

    @property
    def is_static(self) -> bool:
        return self.type.is_static

    @property
    def layout(self) -> Any:
        """The algebra layout; dynamic entries are symbols bound to this tensor's values."""
        return self.type.layout([symbols.symbolize(v, "e") for v in self.entries()])

    @property
    def shape(self) -> Any:
        """The shape: ints for static entries, dynamic integers for the others."""
        return symbols.materialize_tree(_shape_of(self.layout))

    @property
    def stride(self) -> Any:
        return symbols.materialize_tree(_stride_of(self.layout))

    def size(self, *mode: int) -> Any:
        from ..ir.algebra import size

        return symbols.materialize(size(self.layout, *mode))

    def rank(self) -> int:
        from ..ir.algebra import rank
        from ..ir.dialects.layout.types import LayoutType

        return rank(LayoutType(self.type.layout_text).parsed.template)

    @property
    def iterator(self) -> Pointer:
        """The pointer to the first element (``tile.get_ptr``)."""
        return Pointer(state.emit(T.GetPtrOp(self.value)).results[0])

    def entries(self) -> list[Any]:
        """The tensor's dynamic layout entries (``?`` in printed order) as dynamic integers."""
        if self._entries is None:
            self._entries = _read_entries(self.value)
        return self._entries

    def __repr__(self) -> str:
        return f"<Tensor {self.type.text}>"

    # -- indexing -----------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        coord = coordinate(key)
        if _has_wildcard(coord):
            return _view(T.SliceOp, self, coord)
        op = state.emit(T.LoadOp(self.value, coord))
        r = op.results[0]
        if self.type.is_coord:
            return IntTuple(r)
        return scalars.wrap(r)

    def __call__(self, *coords: Any) -> Any:
        """CuTe's ``t(i, j)``: same as ``t[i, j]``."""
        return self[coords if len(coords) != 1 else coords[0]]

    def __setitem__(self, key: Any, value: Any) -> None:
        coord = coordinate(key)
        if _has_wildcard(coord):
            raise state.error(
                "assigning to a slice is not supported; use lc.fill(t[...], v) or "
                "lc.copy(src, t[...])"
            )
        if self.type.is_coord:
            raise state.error("cannot store into a coordinate tensor (it has no memory)")
        elem = self.type.element
        v = _element_value(value, elem)
        state.emit(T.StoreOp(v, self.value, coord))

    def __iter__(self):
        raise state.error(
            "a tensor is not iterable; loop over its indices: `for i in range(lc.size(t))` "
            "(static) or `for i in lc.range(lc.size(t))` (dynamic)"
        )

    def __len__(self) -> int:
        raise state.error("len() of a tensor: use lc.size(t) (its number of elements)")

    def __bool__(self) -> bool:
        raise state.error("a tensor has no truth value")


class Pointer(TraceValue):
    """A ``!tile.ptr``: a tensor's data pointer (``t.iterator``); ``p + n`` offsets it."""

    __slots__ = ("value",)

    def __init__(self, value: Value):
        self.value = value

    def _lc_values(self) -> list[Value]:
        return [self.value]

    def _lc_signature(self) -> Any:
        return (Pointer, self.value.type)

    def _lc_rebuild(self, values: Sequence[Value]) -> Pointer:
        return Pointer(values[0])

    def _lc_describe(self) -> str:
        return f"a pointer {self.value.type.text}"

    __hash__ = object.__hash__

    def __add__(self, offset: Any) -> Pointer:
        idx = scalars.index_value(offset)
        return Pointer(state.emit(T.PtrOffsetOp(self.value, idx)).results[0])

    def __repr__(self) -> str:
        return f"<Pointer {self.value.type.text}>"


class IntTuple(TraceValue):
    """A dynamic int-tuple (``!layout.int_tuple``): e.g. an element of a coordinate tensor."""

    __slots__ = ("value",)

    def __init__(self, value: Value):
        self.value = value

    def _lc_values(self) -> list[Value]:
        return [self.value]

    def _lc_signature(self) -> Any:
        return (IntTuple, self.value.type)

    def _lc_rebuild(self, values: Sequence[Value]) -> IntTuple:
        return IntTuple(values[0])

    def _lc_describe(self) -> str:
        return f"a coordinate {self.value.type.text}"

    __hash__ = object.__hash__

    def __getitem__(self, i: Any) -> Any:
        """Entry ``i`` (a dynamic integer, or a sub-tuple)."""
        if not isinstance(i, int) or isinstance(i, bool):
            raise state.error(f"an int-tuple is indexed by a static int, got {i!r}")
        sub = state.emit(L.GetOp(self.value, mode=[i])).results[0]
        return _int_tuple_entry(sub)

    def __repr__(self) -> str:
        return f"<IntTuple {self.value.type.text}>"


def _int_tuple_entry(v: Value) -> Any:
    t = v.type
    template = t.parsed.template
    if isinstance(template, tuple):
        return IntTuple(v)
    if isinstance(template, int):
        return template
    return Int(state.emit(L.SizeOp(v)).results[0], nonneg=True)


# -------------------------------------------------------------------------------------------
# coordinates and values
# -------------------------------------------------------------------------------------------


def coordinate(key: Any) -> Any:
    """A user coordinate as the tile ops take it: ints, ``_`` and ``index`` values."""
    if isinstance(key, list):
        key = tuple(key)
    if isinstance(key, tuple):
        if not key:
            raise state.error("an empty tuple is not a coordinate")
        return tuple(coordinate(k) for k in key)
    if isinstance(key, Underscore):
        return _
    if isinstance(key, (bool, Bool)):
        raise state.error(f"a tensor coordinate must be an integer, got the bool {key!r}")
    if isinstance(key, int):
        if key < 0:
            raise state.error(
                f"negative tensor coordinate {key}: coordinates count from 0 (no Python-style "
                "indexing from the end)"
            )
        return key
    if isinstance(key, Int):
        return scalars.to_index(key).value
    if isinstance(key, (float, scalars.Float)):
        raise state.error(
            f"a tensor coordinate must be an integer, got {'a float' if isinstance(key, float) else 'a dynamic float'}"
            f" ({key!r})"
        )
    if isinstance(key, slice):
        raise state.error("Python slices (a:b) are not tensor coordinates; use _ to keep a mode")
    raise state.error(f"a tensor coordinate must be an integer, _ or a tuple, got {key!r}")


def _has_wildcard(coord: Any) -> bool:
    if isinstance(coord, tuple):
        return any(_has_wildcard(c) for c in coord)
    return coord is _


def _element_value(value: Any, elem: Any) -> Value:
    """``value`` converted to the element type ``elem`` (stores, fills)."""
    if isinstance(value, Scalar):
        return scalars.cast_value(value.value, elem)
    if isinstance(value, (bool, int, float)):
        return scalars.as_value(value, elem)
    raise state.error(
        f"cannot store {getattr(value, '_lc_describe', lambda: repr(value))()} into a tensor of "
        f"{elem.text}"
    )


def _read_entries(value: Value) -> list[Any]:
    """The ``?`` entries of a tensor's layout (printed order), read back with layout ops."""
    t: TensorType = value.type  # type: ignore[assignment]
    if t.is_static:
        return []
    layout_v = state.emit(T.GetLayoutOp(value)).results[0]
    template = layout_v.type.parsed.template
    if not isinstance(template, Layout):
        raise state.error(
            f"not supported: reading the dynamic entries of the layout {t.layout_text}"
        )
    out: list[Any] = []
    for part, op_cls in ((template.shape, L.ShapeOp), (template.stride, L.StrideOp)):
        paths = _dynamic_paths(part)
        if not paths:
            continue
        tuple_v = state.emit(op_cls(layout_v)).results[0]
        for path in paths:
            leaf = state.emit(L.GetOp(tuple_v, mode=list(path))).results[0] if path else tuple_v
            out.append(Int(state.emit(L.SizeOp(leaf)).results[0], nonneg=True))
    return out


def _dynamic_paths(tree: Any, path: tuple = ()) -> list[tuple]:
    """Mode paths of the non-int leaves of a template int-tuple, left to right."""
    if isinstance(tree, tuple):
        return [p for i, t in enumerate(tree) for p in _dynamic_paths(t, (*path, i))]
    return [] if isinstance(tree, int) else [path]


def _shape_of(layout: Any) -> Any:
    return layout.shape if isinstance(layout, Layout) else layout.inner.shape


def _stride_of(layout: Any) -> Any:
    if not isinstance(layout, Layout):
        raise state.error("a composed (swizzled) layout has no stride")
    return layout.stride


# -------------------------------------------------------------------------------------------
# construction
# -------------------------------------------------------------------------------------------


def pointer_type(spec: Any) -> PtrType:
    """The ``!tile.ptr`` type of a tensor argument's spec."""
    return PtrType(element_type(spec.dtype).ir_type, spec.space, spec.align)


def int_tuple_value(entries: Any, kind: str = "int_tuple") -> Value:
    """``layout.make_shape``/``make_stride``/``make_int_tuple`` of ints and dynamic integers."""
    op_cls = {
        "shape": L.MakeShapeOp,
        "stride": L.MakeStrideOp,
        "coord": L.MakeCoordOp,
        "int_tuple": L.MakeIntTupleOp,
    }[kind]
    return state.emit(op_cls(_value_tree(entries))).results[0]


def _value_tree(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return tuple(_value_tree(e) for e in x)
    if isinstance(x, bool):
        raise state.error(f"layout entries must be integers, got {x!r}")
    if isinstance(x, int):
        return x
    if isinstance(x, Scalar):
        return scalars.to_index(x).value
    raise state.error(f"layout entries must be integers, got {x!r}")


def layout_value(layout: Any) -> Value:
    """An IR layout value for an algebra layout (entries may be symbols of dynamic values)."""
    if not isinstance(layout, Layout):
        from ..ir.dialects.layout import symbolic_types

        _t, dynamic = symbolic_types.from_symbolic(layout)
        if not dynamic:
            return state.emit(L.ConstantOp(symbolic_types.static_attribute(layout))).results[0]
        outer = getattr(layout, "outer", None)
        if not isinstance(outer, Layout) and not hasattr(outer, "inner"):
            raise state.error(f"not supported: a dynamic composed layout {layout}")
        parts = (
            layout_value(outer),
            _tuple_part(layout.offset, "int_tuple"),
            layout_value(layout.inner),
        )
        return state.emit(L.MakeComposedLayoutOp(*parts)).results[0]
    s = _tuple_part(layout.shape, "shape")
    d = _tuple_part(layout.stride, "stride")
    return state.emit(L.MakeLayoutOp(s, d)).results[0]


def _tuple_part(x: Any, kind: str) -> Value:
    """The shape, stride or offset of a layout as a value: ``make_shape`` & co. of ints and
    dynamic integers, or a ``layout.constant`` when it holds basis or custom entries (a
    gather's inner strides ``96@0``, an offset ``(0,0)``)."""
    from ..ir.algebra import inttuple as it
    from ..ir.algebra.basis import ArithmeticTuple
    from ..ir.algebra.symbolic import SymInt
    from ..ir.dialects.layout import Kind, symbolic_types

    leaves = it.flatten_to_tuple(x) if isinstance(x, tuple) else (x,)
    if not isinstance(x, ArithmeticTuple) and all(
        type(e) is int or isinstance(e, SymInt) for e in leaves
    ):
        return int_tuple_value(symbols.materialize_tree(x), kind)
    return state.emit(L.ConstantOp(symbolic_types.static_attribute(x, Kind.INT_TUPLE))).results[0]


def _with_entries(tree: Any, kind: str, counter: list[int], entry_of: dict) -> Any:
    """``tree`` with its dynamic leaves (numbered in order by ``counter``) replaced by their
    entries (a module function: a self-recursive closure is a reference cycle)."""
    if isinstance(tree, tuple):
        return tuple(_with_entries(t, kind, counter, entry_of) for t in tree)
    i = counter[0]
    counter[0] += 1
    return tree if isinstance(tree, int) else entry_of[(kind, i)]


def argument_tensor(
    spec: Any, ptr: Value, carriers: list[tuple[Any, Value]], symbol_values: dict, kspec: Any
) -> Tensor:
    """The tensor of a kernel argument: its pointer viewed through its (dynamic) layout.

    Entries sharing a symbol use the first carrier of that symbol (one SSA value per symbol).
    """
    entry_of: dict[tuple[str, int], Any] = {}
    for c, v in carriers:
        if c.symbol not in symbol_values:
            proxy = Int(scalars.cast_value(v, index), nonneg=True)
            # name the algebra symbol as the user does ("M"), or after its parameter
            f = kspec.symbol(c.symbol)
            sym = symbols.symbolize(
                proxy,
                c.param if c.symbol.startswith("?") else c.symbol,
                divisible_by=f.divisible_by,
                lower=f.lower,
                upper=f.upper,
            )
            symbols.name_argument_entry(proxy.value, sym)
            symbol_values[c.symbol] = proxy
        entry_of[(c.kind, c.leaf)] = symbol_values[c.symbol]

    shape = _with_entries(spec.shape, "shape", [0], entry_of)
    stride = _with_entries(spec.stride, "stride", [0], entry_of)
    s = int_tuple_value(shape, "shape")
    d = int_tuple_value(stride, "stride")
    lay = state.emit(L.MakeLayoutOp(s, d)).results[0]
    t = state.emit(T.MakeTensorOp(ptr, lay)).results[0]
    dyn = [e for e in _leaves(shape) + _leaves(stride) if not isinstance(e, int)]
    return Tensor(t, dyn)


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, tuple):
        return [y for e in x for y in _leaves(e)]
    return [x]


def make_tensor(ptr: Any, layout: Any) -> Tensor:
    """``lc.make_tensor(t.iterator, layout)``: a pointer viewed through a layout."""
    if not isinstance(ptr, Pointer):
        raise state.error(
            f"lc.make_tensor expects a pointer (t.iterator) and a layout, got {ptr!r}; for a "
            "register tensor use lc.make_fragment(layout, dtype)"
        )
    lay = _as_layout(layout, "lc.make_tensor")
    lay, buffers = _bind_gathers(lay)
    return Tensor(state.emit(T.MakeTensorOp(ptr.value, layout_value(lay), buffers)).results[0])


def _buffer_name(ptr: Value) -> str | None:
    """The kernel parameter a pointer comes from (``gather`` for ``gather.iterator``), as the
    index buffer's name in layout text; None when it has no such name."""
    import re

    v = ptr
    for _step in range(8):
        op = v.defining_op
        if op is None:
            break
        if isinstance(op, T.GetPtrOp):
            v = op.tensor
        elif isinstance(op, T.MakeTensorOp):
            v = op.ptr
        else:
            return None
    hint = v.name_hint
    if hint and re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", hint) and hint != "_":
        return hint
    return None


def _bind_gathers(layout: Any) -> tuple[Any, list[Value]]:
    """A gather layout's index buffers (``IndexedGather(t.iterator)`` or of a tensor ``t``) as
    ``tile.make_tensor`` operands, and the layout with each buffer renamed ``idx0``, ``idx1``...
    (its name in the IR's layout text), in order of first appearance."""
    from ..ir.algebra.composed import ComposedLayout
    from ..ir.algebra.gather import CustomStride, IndexedGather

    buffers: list[Value] = []
    names: dict[int, str] = {}

    def buffer_name(handle: Any) -> str:
        if isinstance(handle, Tensor):
            handle = handle.iterator
        if not isinstance(handle, Pointer):
            raise state.error(
                f"lc.make_tensor: the index buffer of a gather layout must be a tensor or a "
                f"pointer (t.iterator) of the kernel, got {handle!r}"
            )
        t = handle.value.type
        if t.element.text not in ("i32", "i64") or t.space not in ("gmem", "smem"):
            raise state.error(
                f"lc.make_tensor: a gather's index buffer must hold i32 or i64 in global or "
                f"shared memory, got {t.text}"
            )
        key = id(handle.value)
        if key not in names:
            name = _buffer_name(handle.value)
            if name is None or name in names.values():
                name = f"idx{len(buffers)}"
            names[key] = name
            buffers.append(handle.value)
        return names[key]

    def stride(d: Any) -> Any:
        if isinstance(d, tuple):
            return tuple(stride(e) for e in d)
        if isinstance(d, CustomStride) and isinstance(d.func, IndexedGather):
            name = buffer_name(d.func.indices)
            from ..ir.dialects.layout.text import GatherBuffer

            return CustomStride(IndexedGather(GatherBuffer(name), name), d.stride)
        return d

    def walk(x: Any) -> Any:
        if isinstance(x, ComposedLayout):
            return ComposedLayout(walk(x.outer), x.offset, walk(x.inner))
        if isinstance(x, Layout):
            new = stride(x.stride)
            return x if not buffers else Layout._new(x.shape, new)
        return x

    return walk(layout), buffers


def _as_layout(x: Any, what: str) -> Any:
    if isinstance(x, Layout) or hasattr(x, "inner"):
        return x
    if isinstance(x, (int, tuple, Scalar)):
        return make_layout(symbols.symbolize_tree(x))
    raise state.error(f"{what}: expected a layout or a shape, got {x!r}")


def _static_layout(x: Any, what: str) -> Any:
    from ..ir.dialects.layout import symbolic_types

    if not symbolic_types.is_static_value(x):
        raise state.error(
            f"{what} needs a static layout (registers and shared memory are allocated at "
            f"compile time), got {x}"
        )
    return x


def make_fragment(layout: Any, dtype: ElementType) -> Tensor:
    """A register tensor (``tile.alloc_fragment``) with a static layout or shape."""
    lay = _static_layout(_as_layout(layout, "lc.make_fragment"), "lc.make_fragment")
    _check_dtype(dtype, "lc.make_fragment")
    op = state.emit(T.AllocFragmentOp(lay, dtype.ir_type))
    return Tensor(op.results[0])


def _check_dtype(dtype: Any, what: str) -> None:
    if not isinstance(dtype, ElementType):
        raise state.error(f"{what}: expected an element type (lc.f32, ...), got {dtype!r}")


def _fragment_layout(layout: Any) -> Any:
    """CuTe's ``make_fragment_like(layout)`` (the tile dialect's, include/cute/layout.hpp): a
    compact layout of the same shape, mode 0 column-major, the other modes in the order of the
    source strides. Strides whose order cannot be decided at compile time (two dynamic strides)
    give a column-major fragment: the fragment's internal order is a performance choice, its
    shape is what the kernel relies on."""
    from ..ir.dialects.layout import symbolic_types
    from ..ir.dialects.tile.tiled import make_fragment_like as fragment_layout

    shape = _shape_of(layout)
    if not symbolic_types.is_static_value(shape):
        raise state.error(
            f"make_fragment_like needs a static shape (a register fragment is allocated at "
            f"compile time), got the layout {layout}"
        )
    if not isinstance(layout, Layout):
        return make_layout(shape)
    try:
        return fragment_layout(layout)
    except LayoutError:
        return make_layout(shape)


def make_fragment_like(x: Any, dtype: ElementType | None = None) -> Tensor:
    """A register fragment shaped like a tensor or layout (CuTe's ``make_fragment_like``)."""
    if isinstance(x, Tensor):
        lay = x.type.layout()
        if dtype is None:
            dtype = x.element_type
            if dtype is None:
                raise state.error(
                    "make_fragment_like of a coordinate tensor needs an element type, e.g. "
                    "lc.make_fragment_like(cS, lc.i1) for a predicate"
                )
    else:
        lay = _as_layout(x, "lc.make_fragment_like")
        if dtype is None:
            raise state.error("lc.make_fragment_like(layout, dtype) needs an element type")
    _check_dtype(dtype, "lc.make_fragment_like")
    frag = _fragment_layout(lay)
    return make_fragment(frag, dtype)


def make_tensor_like(x: Any, dtype: ElementType | None = None) -> Tensor:
    """A register tensor like ``x`` with its stride order (CuTe's ``make_tensor_like``)."""
    if not isinstance(x, Tensor):
        raise state.error(f"lc.make_tensor_like expects a tensor, got {x!r}")
    dtype = dtype or x.element_type
    if dtype is None:
        raise state.error("make_tensor_like of a coordinate tensor needs an element type")
    lay = x.type.layout()
    try:
        like = make_layout_like(lay)
    except LayoutError:
        like = make_layout(_shape_of(lay))
    return make_fragment(like, dtype)


def smem_tensor(dtype: ElementType, layout: Any, align: int = 16) -> Tensor:
    """Shared memory for a static layout (``tile.alloc_smem``); swizzled layouts allowed."""
    _check_dtype(dtype, "lc.smem_tensor")
    lay = _static_layout(_as_layout(layout, "lc.smem_tensor"), "lc.smem_tensor")
    op = state.emit(T.AllocSmemOp(lay, dtype.ir_type, align))
    st = state.current()
    size_bytes = _storage_elements(lay, "lc.smem_tensor") * max(dtype.bits // 8, 1)
    st.smem_bytes = -(-st.smem_bytes // align) * align + size_bytes
    check_smem_limit(st)
    return Tensor(op.results[0])


def dynamic_smem_tensor(
    dtype: ElementType, layout: Any, align: int = 16, offset: int | None = None
) -> Tensor:
    """A tensor in the block's *dynamic* shared memory (``tile.dynamic_smem``), whose
    size is given at launch (``kernel(..., smem=bytes)``). The layout may have dynamic entries.

    Successive calls lay their tensors out one after the other (each at a multiple of
    ``align`` bytes); a tensor of static size sets the launch default (``smem=`` may give
    more), and only the last one may have a dynamic size (the next one would start at a
    dynamic offset). ``offset=`` places a tensor of static size at that byte offset instead:
    tensors that are never live at the same time share their bytes (CUTLASS's
    ``SharedStorage`` union, e.g. a GEMM's epilogue tile over its pipeline buffers; a
    barrier must separate their uses).

    An ``align`` over 16 bytes is realigned at run time (the GPU puts the dynamic bytes right
    after the static ones, 16-byte aligned only), and the launch gets ``align - 16`` more bytes
    for it (:func:`dynamic_smem_padding_of`).
    """
    _check_dtype(dtype, "lc.dynamic_smem_tensor")
    if align not in (4, 8, 16, 32, 64, 128, 256, 512, 1024) or align * 8 < dtype.bits:
        raise state.error(
            f"lc.dynamic_smem_tensor: align must be a power of two from 4 to 1024 bytes holding "
            f"whole {dtype.name} elements, got {align} (1024: a 128B-swizzled GMMA operand)"
        )
    lay = _as_layout(layout, "lc.dynamic_smem_tensor")
    st = state.current()
    st.extras["dynamic_smem_align"] = max(st.extras.get("dynamic_smem_align", 1), align)
    n = _storage_elements(lay, "lc.dynamic_smem_tensor")
    elem_bytes = max(dtype.bits // 8, 1)
    if offset is not None:
        start = _union_offset(offset, align, n)
    else:
        start = st.dynamic_smem_bytes
        if start is None:
            raise state.error(
                "not supported: a dynamic shared-memory tensor after one of dynamic size (its "
                "start would be dynamic); make the tensor of dynamic size the last one"
            )
        start = -(-start // align) * align
    base = state.emit(T.DynamicSmemOp(PtrType(dtype.ir_type, "smem", align)))
    ptr = base.results[0]
    if start:
        offset_value = scalars.constant(start // elem_bytes, index)
        ptr = state.emit(T.PtrOffsetOp(ptr, offset_value)).results[0]
    if type(n) is int:
        end = start + n * elem_bytes
        st.dynamic_smem_min = max(st.dynamic_smem_min, end)
        if st.dynamic_smem_bytes is not None:
            st.dynamic_smem_bytes = max(st.dynamic_smem_bytes, end)
    else:
        st.dynamic_smem_bytes = None
        # what a launch needs: stated over the kernel's parameters by the tracer (smem_need.py)
        st.extras["dynamic_smem_need"] = start + n * elem_bytes
    check_smem_limit(st)
    return Tensor(state.emit(T.MakeTensorOp(ptr, layout_value(lay))).results[0])


def dynamic_smem_padding_of(st: Any) -> int:
    """Bytes a launch of the kernel being traced adds to its dynamic shared memory, for
    convert-to-llvm to realign the base to the widest ``lc.dynamic_smem_tensor`` alignment
    (``T.dynamic_smem_padding``: the one decision the lowering reads too)."""
    return T.dynamic_smem_padding(st.extras.get("dynamic_smem_align", 1))


def check_smem_limit(st: Any) -> None:
    """A compile-time error at the user's line when the shared memory known so far (static,
    dynamic tensors of static size, the realignment's padding) exceeds what a block has."""
    from ..runtime.launch_config import MAX_SMEM_BYTES

    pad = dynamic_smem_padding_of(st)
    total = st.smem_bytes + st.dynamic_smem_min + pad
    if total > MAX_SMEM_BYTES:
        how = f", {pad} of them padding to align the dynamic base" if pad else ""
        raise state.error(
            f"the kernel's shared memory is {total} bytes ({st.smem_bytes} static, "
            f"{st.dynamic_smem_min + pad} dynamic{how}), more than a block has "
            f"({MAX_SMEM_BYTES} bytes)"
        )


def _storage_elements(lay: Any, what: str) -> Any:
    """Elements the tensor's memory must hold: every offset of the layout, swizzled ones
    included (a swizzle can address past the inner layout's cosize)."""
    try:
        return storage_cosize(lay)
    except LayoutError as e:
        raise state.error(f"{what}: {e}") from None


def _union_offset(offset: Any, align: int, n: Any) -> int:
    """The checked byte offset of a tensor placed with ``offset=``."""
    if type(offset) is not int or offset < 0 or offset % align:
        raise state.error(
            f"lc.dynamic_smem_tensor: offset must be a non-negative int that is a multiple of "
            f"align={align} bytes, got {offset!r}"
        )
    if type(n) is not int:
        raise state.error(
            "not supported: lc.dynamic_smem_tensor(offset=...) of a tensor of dynamic size "
            "(only tensors of static size can share bytes)"
        )
    return offset


def make_identity_tensor(shape: Any) -> Tensor:
    """The coordinate tensor of a shape: element ``c`` is the coordinate ``c`` (CuTe). Its
    views keep their origin in their type, so ``tC[i]`` of a thread's tile is the global
    coordinate (``tile.load``: origin + layout(i))."""
    if isinstance(shape, Tensor):
        shape = shape.shape
    s = int_tuple_value(shape, "shape")
    return Tensor(state.emit(T.MakeIdentityTensorOp(s)).results[0])


def elem_less(a: Any, b: Any) -> Any:
    """CuTe's ``elem_less``: every entry of coordinate ``a`` is less than ``b``'s (an i1)."""
    av = a.value if isinstance(a, IntTuple) else int_tuple_value(a, "int_tuple")
    if isinstance(b, Tensor):
        b = b.shape
    bv = b.value if isinstance(b, IntTuple) else int_tuple_value(b, "int_tuple")
    r = state.emit(L.ElemLessOp(av, bv)).results[0]
    return Bool(r) if r.type is ir_i1 else r


# -------------------------------------------------------------------------------------------
# views
# -------------------------------------------------------------------------------------------


def _view(op_cls: Any, t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return Tensor(state.emit(op_cls(t.value, *args, **kwargs)).results[0])


def _require_tensor(t: Any, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise state.error(f"{what} expects a tensor, got {t!r}")
    return t


def _static_tiler(tiler: Any, what: str) -> Any:
    """A tiler (shape, layout or tuple of layouts) that must be static."""
    if isinstance(tiler, Tensor):
        raise state.error(f"{what}: the tiler must be a shape or layout, got a tensor")
    if _has_proxy(tiler):
        raise state.error(f"not supported: {what} with a dynamic tiler {tiler!r}")
    if _tiler_attribute(tiler, what) is None:
        raise state.error(f"not supported: {what} with a dynamic tiler {tiler!r}")
    return tiler


def _has_proxy(x: Any) -> bool:
    if isinstance(x, (tuple, list)):
        return any(_has_proxy(e) for e in x)
    return isinstance(x, TraceValue)


_TILER_ATTRS: dict[Any, Any] = {}


def _tiler_attribute(tiler: Any, what: str) -> Any:
    """The static attribute of a tiler (memoised: kernels use a few tilers many times); None
    when an entry is symbolic."""
    from ..ir.dialects.layout import symbolic_types

    try:
        key = (type(tiler), tiler)
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _TILER_ATTRS:
        return _TILER_ATTRS[key]
    try:
        attr = symbolic_types.static_attribute(tiler)
    except LayoutError as e:
        if "not fully static" in str(e):
            return None
        raise state.error(f"{what}: {e}") from None
    if key is not None:
        if len(_TILER_ATTRS) > 4096:
            _TILER_ATTRS.clear()
        _TILER_ATTRS[key] = attr
    return attr


def local_tile(t: Any, tiler: Any, coord: Any, proj: Sequence[Any] | None = None) -> Tensor:
    """This block's tile: CuTe's ``local_tile(t, tiler, coord[, proj])`` (inner partition).

    ``proj`` is CuTe's ``Step<_1, X, _1>``: truthy entries keep a mode, ``None``/falsy drop it.
    """
    t = _require_tensor(t, "lc.local_tile")
    til = _static_tiler(tiler, "lc.local_tile")
    keep = [bool(p) for p in proj] if proj is not None else None
    if keep is None:  # a tile reaching past a static tensor is provably out of bounds
        partition_bounds.check_divide(t, tiler, "lc.local_tile")
    return _view(T.LocalTileOp, t, til, coordinate(coord), keep)


def local_partition(t: Any, thr_layout: Any, idx: Any, proj: Sequence[Any] | None = None) -> Tensor:
    """This thread's elements: CuTe's ``local_partition(t, thr_layout, idx)`` (outer
    partition)."""
    t = _require_tensor(t, "lc.local_partition")
    lay = _static_layout(_as_layout(thr_layout, "lc.local_partition"), "lc.local_partition")
    keep = [bool(p) for p in proj] if proj is not None else None
    partition_bounds.check_local_partition(t, lay, keep)
    view = _view(T.LocalPartitionOp, t, lay, scalars.index_value(idx), keep)
    thread_bounds.record_partition(
        view.value, idx, algebra.size(lay), f"lc.local_partition: the thread layout {lay}"
    )
    return view


def partition_tv(t: Any, tv_layout: Any, idx: Any) -> Tensor:
    """Thread ``idx``'s values under a (thread, value) -> element layout:
    ``composition(t, tv_layout)(idx, _)``."""
    t = _require_tensor(t, "lc.partition_tv")
    lay = _static_layout(_as_layout(tv_layout, "lc.partition_tv"), "lc.partition_tv")
    partition_bounds.check_tv_partition(t, lay, "lc.partition_tv")
    view = _view(T.PartitionTVOp, t, lay, scalars.index_value(idx))
    if algebra.rank(lay) >= 2:
        threads = algebra.size(algebra.get(lay, 0))
        what = f"lc.partition_tv: the thread-value layout {lay}"
        thread_bounds.record_partition(view.value, idx, threads, what)
    return view


def _tiler_value(tiler: Any, what: str) -> Value:
    """A ``layout.constant`` holding a static tiler."""
    _static_tiler(tiler, what)
    return state.emit(L.ConstantOp(_tiler_attribute(tiler, what))).results[0]


def composition(a: Any, b: Any) -> Any:
    """``composition(tensor, tiler)`` is a view; on layouts it is the algebra's."""
    if isinstance(a, Tensor):
        return _view(T.CompositionOp, a, _tiler_value(b, "lc.composition"))
    from ..ir.algebra import composition as algebra_composition

    return algebra_composition(a, b)


def _divide(name: str, op_cls: Any):
    def divide(a: Any, b: Any) -> Any:
        if isinstance(a, Tensor):
            value = _tiler_value(b, f"lc.{name}")
            partition_bounds.check_divide(a, b, f"lc.{name}")
            return _view(op_cls, a, value)
        from .. import ir

        return getattr(ir.algebra, name)(a, b)

    divide.__name__ = name
    divide.__doc__ = f"``{name}(tensor, tiler)`` is a view; on layouts it is the algebra's."
    return divide


logical_divide = _divide("logical_divide", T.LogicalDivideOp)
zipped_divide = _divide("zipped_divide", T.ZippedDivideOp)
tiled_divide = _divide("tiled_divide", T.TiledDivideOp)
flat_divide = _divide("flat_divide", T.FlatDivideOp)


def group_modes(t: Any, begin: int, end: int) -> Any:
    if isinstance(t, Tensor):
        return _view(T.GroupModesOp, t, begin, end)
    from ..ir.algebra import group

    return group(t, begin, end)


def flatten(t: Any) -> Any:
    if isinstance(t, Tensor):
        return _view(T.FlattenOp, t)
    from ..ir.algebra import flatten as algebra_flatten

    return algebra_flatten(t)


def coalesce_view(t: Any, profile: Any = None) -> Any:
    if isinstance(t, Tensor):
        return _view(T.CoalesceOp, t, profile)
    return coalesce(t, profile)
