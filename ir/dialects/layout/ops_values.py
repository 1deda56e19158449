"""Ops that make layout values: constants, int-tuples from index values, layouts, identities.

``layout.make_int_tuple`` (and its spellings ``make_shape``, ``make_stride``, ``make_coord``)
takes one ``index`` operand per ``?`` of its result type, in printed order:

    %s = layout.make_shape %n, %m : !layout.int_tuple<"(4,(?,?))">

``layout.constant`` holds a static value; its type may have ``?`` where the value is known (a
folded value keeps the type its users were built with).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ...algebra.composed import make_composed_layout
from ...algebra.errors import LayoutError
from ...algebra.layout import Layout, make_identity_layout
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr
from ...core.constraints import Index
from ...core.diagnostics import DiagnosticError
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import ConstantLike, Pure
from ...core.types import index
from ...core.values import Value
from .attributes import LayoutTextAttr
from .base import AlgebraOp, error_diagnostic
from .symbolic_types import static_attribute
from .text import Kind, LayoutTextError, format_value, is_instance
from .types import (
    AnyIntTuple,
    AnyLayout,
    AnyLayoutText,
    IntTupleType,
    LayoutTextType,
    LayoutType,
)

# ---------------------------------------------------------------------------------------------
# layout.constant
# ---------------------------------------------------------------------------------------------


class ConstantOp(Operation):
    """``%c = layout.constant #layout.layout<"(4,8):(1,4)">`` (``: type`` when less static)."""

    name = "layout.constant"
    traits = (Pure, ConstantLike)
    value = prop(LayoutTextAttr)
    result = result(AnyLayoutText)

    def __init__(self, value: Any, type: LayoutTextType | None = None, loc: Location | None = None):
        attr = value if isinstance(value, LayoutTextAttr) else static_attribute(value)
        super().__init__(
            result_types=[type if type is not None else attr.type],
            properties={"value": attr},
            loc=loc,
        )

    def verify_(self) -> None:
        attr = self.value
        t = self.results[0].type
        if attr.kind is not t.kind:
            raise VerifyError(
                f"value '{attr.text}' is of kind {attr.kind.value}, but the result type is '{t.text}'"
            )
        if not is_instance(attr.layout_text, t.layout_text):
            raise VerifyError(f"value '{attr.text}' does not fit the result type '{t.text}'")

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        return [self.value]

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.print_attr_dict(self, elided=("value",))
        p.write(" ")
        p.print_attribute(self.value)
        t = self.results[0].type
        if t is not self.value.type:
            p.write(f" : {t.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> ConstantOp:
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        value = p.parse_attribute()
        if not isinstance(value, LayoutTextAttr):
            raise p.error("layout.constant expects a #layout.int_tuple/layout/tile attribute", at)
        t = p.parse_type() if p.accept(":") else value.type
        return cls.create(result_types=[t], properties={"value": value}, attributes=attrs)


# ---------------------------------------------------------------------------------------------
# layout.make_int_tuple and its spellings
# ---------------------------------------------------------------------------------------------


class MakeIntTupleOp(Operation):
    """``%t = layout.make_int_tuple %a, %b : !layout.int_tuple<"(?,(4,?))">``.

    Build it from a structure of ints and index values, ``MakeIntTupleOp((4, (n, 2)))``, or from
    the operands and the type, ``MakeIntTupleOp([n], type=IntTupleType("(4,(?,2))"))``.
    """

    name = "layout.make_int_tuple"
    assembly_format = "$elements attr-dict `:` type($result)"
    traits = (Pure,)
    elements = var_operand(Index)
    result = result(AnyIntTuple)
    positive: ClassVar[bool] = False
    """Entries must be positive (make_shape)."""

    def __init__(
        self,
        entries: Any,
        type: IntTupleType | str | None = None,
        loc: Location | None = None,
    ):
        if type is not None:
            t = type if isinstance(type, IntTupleType) else IntTupleType(type)
            operands = list(entries)
        else:
            operands = []
            text = _entries_text(entries, operands)
            try:
                t = IntTupleType(text)
            except LayoutTextError as e:
                raise DiagnosticError([error_diagnostic(self.name, str(e), loc, ())]) from None
        for v in operands:
            if not isinstance(v, Value) or v.type is not index:
                got = f"'{v.type.text}'" if isinstance(v, Value) else repr(v)
                message = f"entries must be index values, got {got}"
                raise DiagnosticError([error_diagnostic(self.name, message, loc, ())])
        if len(operands) != t.num_dynamic:
            message = (
                f"'{t.text}' has {t.num_dynamic} '?' entries, but {len(operands)} index "
                "operands were given"
            )
            raise DiagnosticError([error_diagnostic(self.name, message, loc, ())])
        super().__init__(operands=operands, result_types=[t], loc=loc)

    def verify_(self) -> None:
        t: IntTupleType = self.results[0].type
        n = len(self._operands)
        if n != t.num_dynamic:
            raise VerifyError(
                f"expects {t.num_dynamic} index operands for the '?' entries of '{t.text}', "
                f"but has {n}"
            )
        if self.positive:
            _check_positive_entries(t)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        t: IntTupleType = self.results[0].type
        values = []
        for c in operands:
            if not isinstance(c, IntegerAttr):
                return None
            values.append(c.value)
        if self.positive and any(v < 1 for v in values):
            return None
        try:
            return [static_attribute(t.parsed.substitute(values), Kind.INT_TUPLE)]
        except LayoutError:
            return None


def _entries_text(entries: Any, operands: list[Value]) -> str:
    """Layout text of a nested structure of ints and index values (values become ``?``)."""
    if isinstance(entries, (tuple, list)):
        return "(" + ",".join(_entries_text(e, operands) for e in entries) + ")"
    if isinstance(entries, Value):
        operands.append(entries)
        return "?"
    if type(entries) is int:
        return str(entries)
    raise TypeError(f"int-tuple entries must be ints or index values, got {entries!r}")


def _check_positive_entries(t: IntTupleType) -> None:
    """Static entries of a shape must be positive (dynamic ones are the producer's promise:
    a constant operand is not checked here, since constants reach dead code too)."""
    for x in _leaves(t.parsed.template):
        if type(x) is int and x < 1:
            raise VerifyError(f"shape entries must be positive, but '{t.text}' has {x}")


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, tuple):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


class MakeShapeOp(MakeIntTupleOp):
    """``layout.make_shape``: make_int_tuple whose entries are shape extents (positive)."""

    name = "layout.make_shape"
    positive = True


class MakeStrideOp(MakeIntTupleOp):
    """``layout.make_stride``: make_int_tuple for strides."""

    name = "layout.make_stride"


class MakeCoordOp(MakeIntTupleOp):
    """``layout.make_coord``: make_int_tuple for coordinates."""

    name = "layout.make_coord"


MAKE_INT_TUPLE_OPS = (MakeIntTupleOp, MakeShapeOp, MakeStrideOp, MakeCoordOp)


# ---------------------------------------------------------------------------------------------
# layout.make_layout and layout.make_identity: operand types follow from the result type
# ---------------------------------------------------------------------------------------------


def _part_type(t: LayoutType, part: str) -> IntTupleType:
    """The int-tuple type of the shape or stride part of a plain layout type."""
    template = t.parsed.template
    if not isinstance(template, Layout):
        raise LayoutError(f"'{t.text}' is not a plain shape:stride layout")
    _, text, _ = format_value(getattr(template, part), Kind.INT_TUPLE)
    return IntTupleType(text)


class MakeLayoutOp(AlgebraOp):
    """``%l = layout.make_layout %shape, %stride : !layout.layout<"(4,?):(1,?)">``."""

    name = "layout.make_layout"
    shape = operand(AnyIntTuple)
    stride = operand(AnyIntTuple)
    result = result(AnyLayout)
    result_specs = (Kind.LAYOUT,)

    @classmethod
    def evaluate(cls, props, args):
        return (Layout(args[0], args[1]),)

    def fold(self, operands):
        # make_layout(shape(%l), stride(%l)) is %l.
        from .ops_access import ShapeOp, StrideOp

        s, d = self.shape.defining_op, self.stride.defining_op
        if (
            isinstance(s, ShapeOp)
            and isinstance(d, StrideOp)
            and s.input is d.input
            and s.input.type is self.results[0].type
        ):
            return [s.input]
        return super().fold(operands)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.operands)
        p.print_attr_dict(self)
        p.write(f" : {self.results[0].type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        operands = p.parse_operand_list()
        attrs = p.parse_optional_attr_dict()
        at = p.pos + 1
        t = p.parse_colon_type()
        if not isinstance(t, LayoutType):
            raise p.error(f"'{cls.name}' produces a !layout.layout, got '{t.text}'", at)
        try:
            types = [_part_type(t, "shape"), _part_type(t, "stride")]
        except LayoutError as e:
            raise p.error(f"'{cls.name}' produces a plain layout: {e}", at) from None
        values = p.resolve_operands(operands, types)
        return cls.create(values, [t], attributes=attrs)


class MakeComposedLayoutOp(AlgebraOp):
    """``%l = layout.make_composed_layout %outer, %offset, %inner : (...) -> !layout.layout<"O o
    off o I">``: CuTe's ``make_composed_layout(outer, offset, inner)``, the function
    ``c -> outer(offset + inner(c))``. It is how a layout with dynamic entries gets an outer
    function the algebra cannot merge into it: a gather (an outer ``(1,1):(Custom{idx,64},1)``
    over an inner layout with basis strides, CUTLASS example 59) or a swizzle."""

    name = "layout.make_composed_layout"
    outer = operand(AnyLayout)
    offset = operand(AnyIntTuple)
    inner = operand(AnyLayout)
    result = result(AnyLayout)
    result_specs = (Kind.LAYOUT,)

    @classmethod
    def evaluate(cls, props, args):
        return (make_composed_layout(args[0], args[1], args[2]),)


class MakeIdentityOp(AlgebraOp):
    """``%l = layout.make_identity %shape : !layout.layout<"(4,?):(1@0,1@1)">``: the layout
    mapping each coordinate of ``shape`` to itself (basis strides)."""

    name = "layout.make_identity"
    shape = operand(AnyIntTuple)
    result = result(AnyLayout)
    result_specs = (Kind.LAYOUT,)

    @classmethod
    def evaluate(cls, props, args):
        return (make_identity_layout(args[0]),)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.operands)
        p.print_attr_dict(self)
        p.write(f" : {self.results[0].type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        operands = p.parse_operand_list()
        attrs = p.parse_optional_attr_dict()
        at = p.pos + 1
        t = p.parse_colon_type()
        if not isinstance(t, LayoutType):
            raise p.error(f"'{cls.name}' produces a !layout.layout, got '{t.text}'", at)
        try:
            types = [_part_type(t, "shape")]
        except LayoutError as e:
            raise p.error(f"'{cls.name}' produces a plain layout: {e}", at) from None
        values = p.resolve_operands(operands, types)
        return cls.create(values, [t], attributes=attrs)


VALUE_OPS: tuple[type[Operation], ...] = (
    ConstantOp,
    *MAKE_INT_TUPLE_OPS,
    MakeLayoutOp,
    MakeIdentityOp,
    MakeComposedLayoutOp,
)
