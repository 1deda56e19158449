"""Builders infer result types with the algebra and report bad operands at the given location."""

from __future__ import annotations

import pytest
from layoutc.ir.algebra import Layout
from layoutc.ir.core import (
    Block,
    Builder,
    DiagnosticError,
    FileLineColLoc,
    InsertionPoint,
    IntegerAttr,
    i1,
    index,
)
from layoutc.ir.dialects import layout as D


def values(*types):
    return Block(list(types)).args


def test_make_int_tuple_from_a_structure_of_ints_and_values() -> None:
    n, m = values(index, index)
    op = D.MakeShapeOp((4, (n, 2), m))
    assert op.results[0].type is D.IntTupleType("(4,(?,2),?)")
    assert op.operands == (n, m)
    op = D.MakeStrideOp([n], type="(1,?)")
    assert op.results[0].type is D.IntTupleType("(1,?)")
    with pytest.raises(DiagnosticError, match="has 2 '\\?' entries, but 1 index operands"):
        D.MakeCoordOp([n], type="(?,?)")


def test_builders_infer_result_types() -> None:
    (lay,) = values(D.LayoutType("(4,(?,2)):(1,(4,?))"))
    assert D.GetOp(lay, mode=[1]).results[0].type is D.LayoutType("(?,2):(4,?)")
    assert D.CoalesceOp(lay, profile="(1,1)").results[0].type is lay.type
    assert D.FlattenOp(lay).results[0].type is D.LayoutType("(4,?,2):(1,4,?)")
    sub, off = D.SliceOp(lay, D.MakeCoordOp((0, (1, 0))).results[0], wildcards=[0]).results
    assert sub.type is D.LayoutType("(4):(1)") and off.type is index
    sw = D.SwizzleOp(D.ConstantOp(Layout((8, 64), (64, 1))).results[0], B=3, M=4, S=3)
    assert sw.results[0].type is D.LayoutType("Sw<3,4,3> o 0 o (8,64):(64,1)")
    block = D.ConstantOp(Layout((2, 2), (1, 2))).results[0]
    target = D.ConstantOp(D.IntTupleAttr("(8,4)")).results[0]
    tts = D.TileToShapeOp(block, target, order=(1, 0))
    assert tts.results[0].type is D.LayoutType("((2,4),(2,2)):((1,8),(2,4))")
    assert D.ElemLessOp(*values(D.IntTupleType("?"), D.IntTupleType("?"))).results[0].type is i1


def test_algebra_errors_become_diagnostics_at_the_location() -> None:
    loc = FileLineColLoc("kernel.py", 12, 5)
    a, b = values(D.LayoutType("(6,2):(2,1)"), D.LayoutType("4:2"))
    with pytest.raises(DiagnosticError) as info:
        D.CompositionOp(a, b, loc=loc)
    (diag,) = info.value.diagnostics
    assert diag.location is loc
    assert diag.message.startswith("'layout.composition' op composition((6,2):(2,1), 4:2)")
    assert "does not divide 4" in diag.message
    assert str(info.value).startswith("kernel.py:12:5: error:")


def test_symbolic_failures_explain_the_symbols() -> None:
    (a,) = values(D.LayoutType("(?,?):(?,?)"))
    with pytest.raises(DiagnosticError) as info:
        D.ComplementOp(a)
    (diag,) = info.value.diagnostics
    assert "A0" in diag.message or "A2" in diag.message
    assert diag.notes and "operand #0" in diag.notes[0].message


def test_operand_kinds_are_checked() -> None:
    (i,) = values(index)
    (lay,) = values(D.LayoutType("4:1"))
    with pytest.raises(DiagnosticError, match="operand 'rhs' must be"):
        D.CompositionOp(lay, i)
    with pytest.raises(DiagnosticError, match="operand 'lhs' is required"):
        D.CompositionOp(None, lay)
    with pytest.raises(TypeError, match="has no property 'modes'"):
        D.GetOp(lay, modes=[0])


def test_constants() -> None:
    c = D.ConstantOp(Layout((4, 8), (1, 4)))
    assert c.results[0].type is D.LayoutType("(4,8):(1,4)")
    c = D.ConstantOp(D.LayoutAttr("(4,8):(1,4)"), D.LayoutType("(?,8):(1,?)"))
    c.verify()
    assert c.results[0].type is D.LayoutType("(?,8):(1,?)")


def test_materialize_constant() -> None:
    block = Block()
    b = Builder(InsertionPoint.at_end(block))
    loc = FileLineColLoc("x", 1, 1)
    dialect = D.DIALECT
    op = dialect.materialize_constant(b, IntegerAttr(32, index), index, loc)
    assert op.name == "arith.constant"
    op = dialect.materialize_constant(b, IntegerAttr(1, i1), i1, loc)
    assert op.name == "arith.constant"
    attr = D.LayoutAttr("(4,8):(1,4)")
    op = dialect.materialize_constant(b, attr, D.LayoutType("(?,8):(1,?)"), loc)
    assert op.name == "layout.constant" and op.results[0].type is D.LayoutType("(?,8):(1,?)")
    assert dialect.materialize_constant(b, attr, D.LayoutType("(?,8):(2,?)"), loc) is None
    assert dialect.materialize_constant(b, attr, D.IntTupleType("(4,8)"), loc) is None
