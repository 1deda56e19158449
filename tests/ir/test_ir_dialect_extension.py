"""Declaring a new dialect (ops, a type, an attribute, custom forms, folders, patterns)
and using it through a Context, as another engineer or an embedder would."""

from __future__ import annotations

import pytest
from ir_helpers import canonicalize
from layoutc.ir.core import (
    Context,
    DialectAttribute,
    DialectType,
    IntegerAttr,
    OpAsmParser,
    OpAsmPrinter,
    Operation,
    VerifyError,
    index,
    operand,
    opt_prop,
    parse,
    prop,
    result,
    var_operand,
)
from layoutc.ir.core.asm import parse_operands_attrs_type, print_operands_attrs_type
from layoutc.ir.core.attr_parser import AttrParser
from layoutc.ir.core.context import Dialect
from layoutc.ir.core.traits import Commutative, Pure
from layoutc.ir.dialects import arith


class ShapeType(DialectType):
    """``!demo.shape<4>``: a shape of known rank."""

    __slots__ = ("rank",)
    name = "demo.shape"

    def __new__(cls, rank: int):
        return cls._instances.get(rank) or cls._unique(rank, rank=rank)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.expect("<")
        rank = parser.parse_integer()
        parser.expect(">")
        return cls(rank)

    def print_parameters(self) -> str:
        return f"<{self.rank}>"


class ModeAttr(DialectAttribute):
    """``#demo.mode<fast>``."""

    __slots__ = ("mode",)
    name = "demo.mode"

    def __new__(cls, mode: str):
        return cls._instances.get(mode) or cls._unique(mode, mode=mode)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.expect("<")
        mode = parser.parse_keyword()
        parser.expect(">")
        return cls(mode)

    def print_parameters(self) -> str:
        return f"<{self.mode}>"


class MakeShapeOp(Operation):
    """``%s = demo.make_shape %a, %b : !demo.shape<2>``."""

    name = "demo.make_shape"
    traits = (Pure,)
    extents = var_operand(index)
    shape = result(ShapeType)
    mode = opt_prop(ModeAttr)

    def verify_(self) -> None:
        if len(self.extents) != self.shape.type.rank:
            raise VerifyError(f"expected {self.shape.type.rank} extents, got {len(self.extents)}")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.extents)
        p.print_attr_dict(self)
        p.write(f" : {self.shape.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser):
        operands = p.parse_operand_list()
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        return cls.create(
            p.resolve_operands(operands, [index] * len(operands)), [t], attributes=attrs, loc=p.loc
        )


class MaxOp(Operation):
    """``%m = demo.max %a, %b : index`` folds constants and ``max(x, x)``."""

    name = "demo.max"
    traits = (Pure, Commutative)
    lhs = operand(index)
    rhs = operand(index)
    res = result(index)
    tag = prop(IntegerAttr, default=IntegerAttr(0, index))

    def fold(self, operands):
        a, b = operands
        if isinstance(a, IntegerAttr) and isinstance(b, IntegerAttr):
            return [IntegerAttr(max(a.value, b.value), index)]
        if self.lhs is self.rhs:
            return [self.lhs]
        return None

    def print_custom(self, p: OpAsmPrinter) -> None:
        print_operands_attrs_type(self, p, elided=("tag",) if self.tag.value == 0 else ())

    @classmethod
    def parse_custom(cls, p: OpAsmParser):
        return parse_operands_attrs_type(cls, p, 2)


DEMO = Dialect("demo", ops=[MakeShapeOp, MaxOp], types=[ShapeType], attributes=[ModeAttr])


def _ctx() -> Context:
    c = Context()
    c.register("demo", lambda: DEMO)
    return c


def test_new_dialect_parses_prints_and_verifies() -> None:
    src = """\
module {
  func.func @f(%a: index, %b: index) -> !demo.shape<2> {
    %0 = demo.max %a, %b : index
    %1 = demo.max %a, %0 {tag = 3 : index} : index
    %2 = demo.make_shape %0, %1 {mode = #demo.mode<fast>} : !demo.shape<2>
    return %2 : !demo.shape<2>
  }
}"""
    c = _ctx()
    module = parse(src, c)
    module.verify()
    assert str(module) == src
    generic = module.to_text(generic=True)
    assert '"demo.max"(%a, %b) <{tag = 0 : index}> : (index, index) -> index' in generic
    assert str(parse(generic, c)) == src


def test_new_dialect_verifier_and_accessors() -> None:
    c = _ctx()
    module = parse(
        "func.func @f(%a: index) {\n  %0 = demo.make_shape %a : !demo.shape<3>\n  return\n}", c
    )
    with pytest.raises(Exception, match="expected 3 extents, got 1"):
        module.verify()
    op = next(o for o in module.walk_ops() if isinstance(o, MakeShapeOp))
    assert op.extents == (op.operands[0],) and op.mode is None and op.shape.type is ShapeType(3)


def test_new_dialect_folds_through_the_common_machinery() -> None:
    c = _ctx()
    module = parse(
        "func.func @f(%a: index) -> (index, index) {\n  %c2 = arith.constant 2 : index\n"
        "  %c5 = arith.constant 5 : index\n  %0 = demo.max %c2, %c5 : index\n"
        "  %1 = demo.max %a, %a : index\n  return %0, %1 : index, index\n}",
        c,
    )
    # demo has no constant materializer; folded constants come from the arith dialect's hook.
    DEMO._materialize = arith.materialize_constant
    try:
        canonicalize(module)
    finally:
        DEMO._materialize = None
    assert "return %c5, %a : index, index" in str(module)
