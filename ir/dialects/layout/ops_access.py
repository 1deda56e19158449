"""Ops that read layout values: modes, sizes, shape/stride, coordinates and slices.

%m = layout.get %l[1, 0] : (!layout.layout<"(4,(2,?)):(1,(4,?))">) -> !layout.layout<"2:4">
%n = layout.size %l : !layout.layout<"(4,?):(1,?)">
%i = layout.crd2idx %c, %l : !layout.int_tuple<"(?,?)">, !layout.layout<"(4,8):(1,4)">
%s, %off = layout.slice %l, %c {wildcards = array<i64: 0>} : (...) -> (!layout.layout<...>, index)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...algebra import intops
from ...algebra import layout as L
from ...algebra.errors import LayoutError
from ...algebra.inttuple import _, format_tuple
from ...algebra.vector import max_common_vector
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, DenseArrayAttr
from ...core.constraints import I1 as Bool
from ...core.constraints import Index
from ...core.opdef import operand, prop, result
from ...core.rewrite import RewritePattern, lazy_patterns
from ...core.types import i64
from .base import AlgebraOp, i64_array
from .inference import I1, INDEX, SAME
from .text import Kind
from .types import AnyIntTuple, AnyLayout

_LayoutOrTuple = (AnyLayout, AnyIntTuple)


def _modes(props: Any, name: str) -> tuple[int, ...]:
    attr = props.get(name)
    return tuple(attr.values) if isinstance(attr, DenseArrayAttr) else ()


class _ModeListOp(AlgebraOp):
    """Ops with a list of mode indices printed after the operand: ``%x[1, 0]``."""

    modes_prop = "mode"

    def print_inline_props(self, p: OpAsmPrinter) -> tuple[str, ...]:
        attr = self.properties.get(self.modes_prop)
        if isinstance(attr, DenseArrayAttr) and attr.element_type is i64:
            p.write("[" + ", ".join(str(v) for v in attr.values) + "]")
            return (self.modes_prop,)
        return ()

    @classmethod
    def parse_inline_props(cls, p: OpAsmParser) -> dict[str, Attribute]:
        if p.peek() != "[":
            return {}
        values = p.parse_comma_separated("[", p.parse_integer, "in mode list")
        return {cls.modes_prop: DenseArrayAttr(i64, values)}


class GetOp(_ModeListOp):
    """``layout.get %x[i, j, ...]``: the sub-layout or sub-tuple at a hierarchical mode."""

    name = "layout.get"
    input = operand(_LayoutOrTuple)
    result = result(_LayoutOrTuple)
    mode = prop(DenseArrayAttr)
    result_specs = (SAME,)
    prop_builders = {"mode": i64_array}

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import GetOfMakeIntTuple

        return (GetOfMakeIntTuple(),)

    @classmethod
    def evaluate(cls, props, args):
        return (L.get(args[0], *_modes(props, "mode")),)


class SizeOp(AlgebraOp):
    """``layout.size %x``: the number of coordinates of a layout or int-tuple."""

    name = "layout.size"
    input = operand(_LayoutOrTuple)
    result = result(Index)
    result_specs = (INDEX,)

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import SizeOfMakeIntTuple

        return (SizeOfMakeIntTuple(),)

    @classmethod
    def evaluate(cls, props, args):
        return (L.size(args[0]),)


class CosizeOp(AlgebraOp):
    """``layout.cosize %l``: the size of the codomain (max index + 1)."""

    name = "layout.cosize"
    input = operand(AnyLayout)
    result = result(Index)
    result_specs = (INDEX,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.cosize(args[0]),)


class RankOp(AlgebraOp):
    """``layout.rank %x``: the number of top-level modes."""

    name = "layout.rank"
    input = operand(_LayoutOrTuple)
    result = result(Index)
    result_specs = (INDEX,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.rank(args[0]),)


class DepthOp(AlgebraOp):
    """``layout.depth %x``: the nesting depth (0 for an integer)."""

    name = "layout.depth"
    input = operand(_LayoutOrTuple)
    result = result(Index)
    result_specs = (INDEX,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.depth(args[0]),)


class ShapeOp(AlgebraOp):
    """``layout.shape %l``: the shape (of the inner layout of a composed layout)."""

    name = "layout.shape"
    input = operand(AnyLayout)
    result = result(AnyIntTuple)
    result_specs = (Kind.INT_TUPLE,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.shape(args[0]),)

    def fold(self, operands):
        # shape(make_layout(%s, %d)) is %s.
        from .ops_values import MakeLayoutOp

        producer = self.input.defining_op
        if isinstance(producer, MakeLayoutOp) and producer.shape.type is self.results[0].type:
            return [producer.shape]
        return super().fold(operands)


class StrideOp(AlgebraOp):
    """``layout.stride %l``: the stride (a composed layout has none)."""

    name = "layout.stride"
    input = operand(AnyLayout)
    result = result(AnyIntTuple)
    result_specs = (Kind.INT_TUPLE,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.stride(args[0]),)

    def fold(self, operands):
        # stride(make_layout(%s, %d)) is %d.
        from .ops_values import MakeLayoutOp

        producer = self.input.defining_op
        if isinstance(producer, MakeLayoutOp) and producer.stride.type is self.results[0].type:
            return [producer.stride]
        return super().fold(operands)


def _check_coord(coord: Any, shape: Any, what: str) -> None:
    """A coordinate matches a shape: an integer anywhere, or a tuple of the mode's rank."""
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple) or len(coord) != len(shape):
            raise LayoutError(
                f"{what}: the coordinate {format_tuple(coord)} does not match the shape "
                f"{format_tuple(shape)}"
            )
        for c, s in zip(coord, shape):
            _check_coord(c, s, what)


class Crd2IdxOp(AlgebraOp):
    """``layout.crd2idx %coord, %layout``: the index of a coordinate (CuTe's crd2idx)."""

    name = "layout.crd2idx"
    coord = operand(AnyIntTuple)
    layout = operand(AnyLayout)
    result = result(Index)
    result_specs = (INDEX,)

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import Crd2IdxOfStaticLayout

        return (Crd2IdxOfStaticLayout(),)

    @classmethod
    def check(cls, props, args):
        _check_coord(args[0], L.shape(args[1]), "crd2idx")

    @classmethod
    def evaluate(cls, props, args):
        return (L.crd2idx(args[0], args[1]),)


class Idx2CrdOp(AlgebraOp):
    """``layout.idx2crd %idx, %shape``: the natural coordinate of an index within a shape (or a
    layout's shape)."""

    name = "layout.idx2crd"
    index = operand(Index)
    shape = operand(_LayoutOrTuple)
    result = result(AnyIntTuple)
    result_specs = (Kind.INT_TUPLE,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.idx2crd(args[0], args[1]),)


def with_wildcards(coord: Any, positions: Sequence[int]) -> Any:
    """The coordinate with ``_`` at the given leaf positions (printed order)."""
    wanted = set(positions)
    if len(wanted) != len(positions):
        raise LayoutError(f"slice: repeated wildcard positions {list(positions)}")
    count = 0

    def rebuild(c: Any) -> Any:
        nonlocal count
        if isinstance(c, tuple):
            return tuple(rebuild(e) for e in c)
        i = count
        count += 1
        return _ if i in wanted else c

    result = rebuild(coord)
    bad = [i for i in positions if not 0 <= i < count]
    if bad:
        raise LayoutError(
            f"slice: wildcard position {bad[0]} is out of range for the coordinate "
            f"{format_tuple(coord)} with {count} entries"
        )
    return result


class SliceOp(AlgebraOp):
    """``layout.slice %l, %coord {wildcards}``: the sub-layout of the modes marked ``_`` and the
    offset of the coordinate (``_`` taken as 0). ``wildcards`` lists the entries of the
    coordinate, in printed order, that are ``_``."""

    name = "layout.slice"
    layout = operand(AnyLayout)
    coord = operand(AnyIntTuple)
    sliced = result(AnyLayout)
    offset = result(Index)
    wildcards = prop(DenseArrayAttr, default=DenseArrayAttr(i64, []))
    result_specs = (Kind.LAYOUT, INDEX)
    prop_builders = {"wildcards": i64_array}

    @classmethod
    def evaluate(cls, props, args):
        coord = with_wildcards(args[1], _modes(props, "wildcards"))
        sliced, offset = L.slice_and_offset(coord, args[0])
        return (sliced, offset)


class MaxCommonVectorOp(AlgebraOp):
    """``layout.max_common_vector %a, %b``: how many consecutive elements both layouts map to
    consecutive indices (the widest vector a copy between them may use)."""

    name = "layout.max_common_vector"
    a = operand(AnyLayout)
    b = operand(AnyLayout)
    result = result(Index)
    result_specs = (INDEX,)

    @classmethod
    def check(cls, props, args):
        return None

    @classmethod
    def evaluate(cls, props, args):
        return (max_common_vector(args[0], args[1]),)


def _check_comparable(a: Any, b: Any) -> None:
    if isinstance(a, tuple) != isinstance(b, tuple):
        raise LayoutError(
            f"elem_less: cannot compare {format_tuple(a)} with {format_tuple(b)} "
            "(a tuple and an integer)"
        )
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _check_comparable(x, y)


def elem_less(a: Any, b: Any) -> bool | None:
    """CuTe's elem_less: every entry of ``a`` is less than the matching entry of ``b`` (entries of
    ``b`` beyond ``a``'s rank are ignored; a longer ``a`` is not less). None: not provable."""
    if not isinstance(a, tuple):
        if intops.prove_lt(a, b):
            return True
        if intops.prove_le(b, a):
            return False
        return None
    unknown = False
    for i, x in enumerate(a):
        if i >= len(b):
            return False
        r = elem_less(x, b[i])
        if r is False:
            return False
        if r is None:
            unknown = True
    return None if unknown else True


class ElemLessOp(AlgebraOp):
    """``layout.elem_less %a, %b``: the coordinate predicate of partial tiles (-> i1)."""

    name = "layout.elem_less"
    a = operand(AnyIntTuple)
    b = operand(AnyIntTuple)
    result = result(Bool)
    result_specs = (I1,)

    @classmethod
    def check(cls, props, args):
        _check_comparable(args[0], args[1])

    @classmethod
    def evaluate(cls, props, args):
        return (elem_less(args[0], args[1]),)


ACCESS_OPS = (
    GetOp,
    SizeOp,
    CosizeOp,
    RankOp,
    DepthOp,
    ShapeOp,
    StrideOp,
    Crd2IdxOp,
    Idx2CrdOp,
    SliceOp,
    MaxCommonVectorOp,
    ElemLessOp,
)

__all__ = [op.__name__ for op in ACCESS_OPS] + ["elem_less", "with_wildcards"]
