"""Ops of the layout algebra: composition, complement, inverses, coalesce/filter, the divides
and products, mode editing (append, prepend, group, select, flatten) and swizzling.

Every op runs the algebra of ``ir/algebra`` on its operands; CuTe's semantics and CuTe's names.

    %c = layout.composition %a, %b : (!layout.layout<"(4,?):(1,?)">, !layout.layout<"2:2">)
           -> !layout.layout<"2:2">
    %d = layout.logical_divide %l, %t : (!layout.layout<"?:1">, !layout.tile<"<4:1>">)
           -> !layout.layout<"(4,?):(1,4)">
    %s = layout.swizzle %l Sw<3,4,3> : (...) -> !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
"""

from __future__ import annotations

from typing import Any

from ...algebra import divide, products
from ...algebra import layout as L
from ...algebra.complement import complement
from ...algebra.composition import composition
from ...algebra.inverse import left_inverse, right_inverse
from ...algebra.swizzle import Swizzle
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, DenseArrayAttr, IntegerAttr
from ...core.opdef import operand, opt_operand, opt_prop, prop, result
from ...core.types import i64
from .attributes import IntTupleAttr
from .base import AlgebraOp, i64_array, i64_attr, int_tuple_attr
from .inference import SAME
from .ops_access import _ModeListOp, _modes
from .text import Kind
from .types import (
    AnyIntTuple,
    AnyLayout,
    AnyTile,
)

_Tiler = (AnyLayout, AnyTile, AnyIntTuple)


def _int(props: Any, name: str) -> int | None:
    attr = props.get(name)
    return attr.value if isinstance(attr, IntegerAttr) else None


def _optional(args: Any, i: int) -> Any:
    """Argument ``i`` or None when the optional operand is absent."""
    return args[i] if len(args) > i else None


def _tuple(props: Any, name: str) -> Any:
    attr = props.get(name)
    return attr.value if isinstance(attr, IntTupleAttr) else None


class _LayoutResultOp(AlgebraOp):
    result = result(AnyLayout)
    result_specs = (Kind.LAYOUT,)


class _UnaryOp(_LayoutResultOp):
    input = operand(AnyLayout)


class _BinaryOp(_LayoutResultOp):
    """``layout.<op> %lhs, %rhs``: ``algebra(lhs, rhs)``; ``rhs`` is a layout, tile or shape."""

    lhs = operand(AnyLayout)
    rhs = operand(_Tiler)
    algebra: Any = None

    @classmethod
    def evaluate(cls, props, args):
        return (cls.algebra(args[0], args[1]),)


class CompositionOp(_BinaryOp):
    """``layout.composition %a, %b``: the layout ``c -> a(b(c))``; ``b`` may be a layout, a tile
    (by-mode composition) or a shape."""

    name = "layout.composition"
    algebra = staticmethod(composition)


class LogicalDivideOp(_BinaryOp):
    """``layout.logical_divide %l, %tiler``: split ``l`` into (tile, rest) modes."""

    name = "layout.logical_divide"
    algebra = staticmethod(divide.logical_divide)


class ZippedDivideOp(_BinaryOp):
    """``layout.zipped_divide %l, %tiler``: ((tiles...), (rests...))."""

    name = "layout.zipped_divide"
    algebra = staticmethod(divide.zipped_divide)


class TiledDivideOp(_BinaryOp):
    """``layout.tiled_divide %l, %tiler``: ((tiles...), rest0, rest1, ...)."""

    name = "layout.tiled_divide"
    algebra = staticmethod(divide.tiled_divide)


class FlatDivideOp(_BinaryOp):
    """``layout.flat_divide %l, %tiler``: (tile0, tile1, ..., rest0, rest1, ...)."""

    name = "layout.flat_divide"
    algebra = staticmethod(divide.flat_divide)


class LogicalProductOp(_BinaryOp):
    """``layout.logical_product %block, %tiler``: (block, complement(block) o tiler)."""

    name = "layout.logical_product"
    algebra = staticmethod(products.logical_product)


class ZippedProductOp(_BinaryOp):
    """``layout.zipped_product %block, %tiler``: ((block modes...), (tile modes...))."""

    name = "layout.zipped_product"
    algebra = staticmethod(products.zipped_product)


class TiledProductOp(_BinaryOp):
    """``layout.tiled_product %block, %tiler``: ((block modes...), tile0, tile1, ...)."""

    name = "layout.tiled_product"
    algebra = staticmethod(products.tiled_product)


class FlatProductOp(_BinaryOp):
    """``layout.flat_product %block, %tiler``: (block0, block1, ..., tile0, tile1, ...)."""

    name = "layout.flat_product"
    algebra = staticmethod(products.flat_product)


class BlockedProductOp(_BinaryOp):
    """``layout.blocked_product %block, %tiler``: the block repeated, blocks contiguous by mode."""

    name = "layout.blocked_product"
    rhs = operand(AnyLayout)
    algebra = staticmethod(products.blocked_product)


class RakedProductOp(_BinaryOp):
    """``layout.raked_product %block, %tiler``: the block repeated, blocks interleaved by mode."""

    name = "layout.raked_product"
    rhs = operand(AnyLayout)
    algebra = staticmethod(products.raked_product)


class ComplementOp(_LayoutResultOp):
    """``layout.complement %a[, %cotarget]``: the layout of the indices ``a`` does not reach, up
    to the cotarget shape or size (default: the cosize of ``a``)."""

    name = "layout.complement"
    input = operand(AnyLayout)
    cotarget = opt_operand(AnyIntTuple)

    @classmethod
    def evaluate(cls, props, args):
        return (complement(args[0], _optional(args, 1)),)


class RightInverseOp(_UnaryOp):
    """``layout.right_inverse %l``: R with l(R(i)) == i on R's domain."""

    name = "layout.right_inverse"

    @classmethod
    def evaluate(cls, props, args):
        return (right_inverse(args[0]),)


class LeftInverseOp(_UnaryOp):
    """``layout.left_inverse %l``: R with R(l(c)) == c for injective l."""

    name = "layout.left_inverse"

    @classmethod
    def evaluate(cls, props, args):
        return (left_inverse(args[0]),)


class CoalesceOp(_UnaryOp):
    """``layout.coalesce %l {profile = #layout.int_tuple<"(1,1)">}``: the same function with the
    fewest modes (by mode at the terminals of ``profile``)."""

    name = "layout.coalesce"
    profile = opt_prop(IntTupleAttr)
    prop_builders = {"profile": int_tuple_attr}

    @classmethod
    def evaluate(cls, props, args):
        return (L.coalesce(args[0], _tuple(props, "profile")),)


class FilterOp(_UnaryOp):
    """``layout.filter %l``: coalesce after dropping stride-0 and size-1 modes."""

    name = "layout.filter"

    @classmethod
    def evaluate(cls, props, args):
        return (L.filter(args[0]),)


class TileToShapeOp(_LayoutResultOp):
    """``layout.tile_to_shape %block, %shape {order}``: repeat the block up to the shape, tiling
    modes in ``order`` (column-major by default)."""

    name = "layout.tile_to_shape"
    block = operand(AnyLayout)
    target = operand(AnyIntTuple)
    order = opt_prop(IntTupleAttr)
    prop_builders = {"order": int_tuple_attr}

    @classmethod
    def evaluate(cls, props, args):
        order = _tuple(props, "order")
        return (products.tile_to_shape(args[0], args[1], L.LayoutLeft if order is None else order),)


class AppendOp(_LayoutResultOp):
    """``layout.append %l[, %x] {n}``: add ``x`` (default 1:0) as the last mode (or pad to rank n)."""

    name = "layout.append"
    input = operand(AnyLayout)
    mode = opt_operand(AnyLayout)
    n = opt_prop(IntegerAttr)
    prop_builders = {"n": i64_attr}

    @classmethod
    def evaluate(cls, props, args):
        return (L.append(args[0], _optional(args, 1), _int(props, "n")),)


class PrependOp(_LayoutResultOp):
    """``layout.prepend %l[, %x] {n}``: add ``x`` (default 1:0) as the first mode."""

    name = "layout.prepend"
    input = operand(AnyLayout)
    mode = opt_operand(AnyLayout)
    n = opt_prop(IntegerAttr)
    prop_builders = {"n": i64_attr}

    @classmethod
    def evaluate(cls, props, args):
        return (L.prepend(args[0], _optional(args, 1), _int(props, "n")),)


class GroupOp(_UnaryOp):
    """``layout.group %l {begin, end}``: modes [begin, end) become one mode (end -1: the rest)."""

    name = "layout.group"
    begin = prop(IntegerAttr)
    end = prop(IntegerAttr)
    prop_builders = {"begin": i64_attr, "end": i64_attr}

    @classmethod
    def evaluate(cls, props, args):
        return (L.group(args[0], _int(props, "begin"), _int(props, "end")),)


class SelectOp(_ModeListOp):
    """``layout.select %l[2, 0]``: the listed top-level modes, in that order."""

    name = "layout.select"
    modes_prop = "modes"
    input = operand(AnyLayout)
    result = result(AnyLayout)
    modes = prop(DenseArrayAttr)
    result_specs = (Kind.LAYOUT,)
    prop_builders = {"modes": i64_array}

    @classmethod
    def evaluate(cls, props, args):
        return (L.select(args[0], *_modes(props, "modes")),)


class FlattenOp(AlgebraOp):
    """``layout.flatten %x``: one level of modes (layouts and int-tuples)."""

    name = "layout.flatten"
    input = operand((AnyLayout, AnyIntTuple))
    result = result((AnyLayout, AnyIntTuple))
    result_specs = (SAME,)

    @classmethod
    def evaluate(cls, props, args):
        return (L.flatten(args[0]),)


class SwizzleOp(_UnaryOp):
    """``layout.swizzle %l Sw<B,M,S>``: compose CuTe's Swizzle<B,M,S> on the left of ``l``."""

    name = "layout.swizzle"
    B = prop(IntegerAttr)
    M = prop(IntegerAttr)
    S = prop(IntegerAttr)
    prop_builders = {"B": i64_attr, "M": i64_attr, "S": i64_attr}

    @classmethod
    def evaluate(cls, props, args):
        sw = Swizzle(_int(props, "B"), _int(props, "M"), _int(props, "S"))
        return (composition(sw, args[0]),)

    def print_inline_props(self, p: OpAsmPrinter) -> tuple[str, ...]:
        b, m, s = (self.properties.get(k) for k in ("B", "M", "S"))
        if all(isinstance(x, IntegerAttr) and x.type is i64 for x in (b, m, s)):
            p.write(f" Sw<{b.value},{m.value},{s.value}>")  # type: ignore[union-attr]
            return ("B", "M", "S")
        return ()

    @classmethod
    def parse_inline_props(cls, p: OpAsmParser) -> dict[str, Attribute]:
        if not p.accept("Sw"):
            return {}
        p.expect("<", "after 'Sw'")
        values = [p.parse_integer()]
        for _ in range(2):
            p.expect(",", "in Sw<B,M,S>")
            values.append(p.parse_integer())
        p.expect(">", "to close Sw<B,M,S>")
        return {k: IntegerAttr(v, i64) for k, v in zip(("B", "M", "S"), values)}


ALGEBRA_OPS = (
    CompositionOp,
    ComplementOp,
    RightInverseOp,
    LeftInverseOp,
    CoalesceOp,
    FilterOp,
    LogicalDivideOp,
    ZippedDivideOp,
    TiledDivideOp,
    FlatDivideOp,
    LogicalProductOp,
    ZippedProductOp,
    TiledProductOp,
    FlatProductOp,
    BlockedProductOp,
    RakedProductOp,
    TileToShapeOp,
    AppendOp,
    PrependOp,
    GroupOp,
    SelectOp,
    FlattenOp,
    SwizzleOp,
)
