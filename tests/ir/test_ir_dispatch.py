"""Dispatch on op classes: OpTable lookup along the MRO, and patterns rooted by annotation."""

from __future__ import annotations

import pytest
from layoutc.ir.core import Operation, OpTable, PatternRewriter, RewritePattern, lazy_patterns
from layoutc.ir.core.rewrite import rewrite_pattern
from layoutc.ir.dialects import arith, scf
from layoutc.ir.dialects import layout as L


def test_lookup_follows_the_mro_and_prefers_the_nearest_class():
    table: OpTable = OpTable("test")
    table.register(L.MakeIntTupleOp)(lambda op: "int tuple")
    assert table.lookup_type(L.MakeShapeOp)(None) == "int tuple"  # a subclass uses its base's
    table.register(L.MakeShapeOp)(lambda op: "shape")  # registering later clears the cache
    assert table.lookup_type(L.MakeShapeOp)(None) == "shape"
    assert table.lookup_type(L.MakeStrideOp)(None) == "int tuple"
    assert table.lookup_type(arith.AddIOp) is None
    assert len(table) == 2 and list(table.op_types()) == [L.MakeIntTupleOp, L.MakeShapeOp]


def test_registration_errors_name_the_table_and_op():
    table: OpTable = OpTable("demo")
    table.register(arith.AddIOp)(lambda op: None)
    with pytest.raises(ValueError, match=r"demo: two handlers for 'arith\.addi'"):
        table.register(arith.AddIOp)(lambda op: None)
    with pytest.raises(TypeError, match="is not an op class"):
        table.register("arith.subi")(lambda op: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="at least one op class"):
        table.register()


def test_update_merges_tables_and_refuses_overlaps():
    a: OpTable = OpTable("a")
    b: OpTable = OpTable("b")
    a.register(arith.AddIOp)(lambda op: "add")
    b.register(arith.SubIOp)(lambda op: "sub")
    merged: OpTable = OpTable("merged")
    merged.update(a)
    merged.update(b)
    assert merged.lookup_type(arith.SubIOp)(None) == "sub"
    with pytest.raises(ValueError):
        merged.update(a)


class _Negation(RewritePattern):
    def match_and_rewrite(self, op: arith.NegFOp, rewriter: PatternRewriter) -> bool:
        return False


class _Extension(RewritePattern):
    def match_and_rewrite(self, op: arith.ExtSIOp | arith.ExtUIOp, rewriter) -> bool:
        return False


class _AnyOp(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        return False


def test_a_pattern_is_rooted_at_its_annotated_op_type():
    assert _Negation.root is arith.NegFOp
    assert _Extension.root == (arith.ExtSIOp, arith.ExtUIOp)
    assert _Extension().root_name == "arith.extsi|arith.extui"
    assert _AnyOp.root is None

    @rewrite_pattern()
    def fold(op: arith.AddIOp, rewriter: PatternRewriter) -> bool:
        return False

    assert fold.root is arith.AddIOp


def test_ops_declare_their_canonicalization_patterns():
    names = {type(p).__name__ for p in arith.AddIOp.canonicalization_patterns}
    assert names == {"AddIAddConstant", "AddISubConstant"}
    assert [type(p).__name__ for p in scf.ForOp.canonicalization_patterns] == [
        "ForTrivialTripCount"
    ]
    for p in arith.AddIOp.canonicalization_patterns:
        assert p.root is arith.AddIOp
    assert arith.SubIOp.canonicalization_patterns == ()


def test_lazy_patterns_build_once():
    built = []

    class Holder:
        @lazy_patterns
        def canonicalization_patterns():
            built.append(1)
            return (_Negation(),)

    first = Holder.canonicalization_patterns
    assert first is Holder.canonicalization_patterns and len(built) == 1
