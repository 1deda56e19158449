"""Invalid IR built through the API (IR text cases are --verify-diagnostics lit files:
tests/lit/ir/invalid-verifier.mlir): every problem is reported, at the right op."""

from __future__ import annotations

import pytest
from layoutc.ir.core import (
    Block,
    DiagnosticEngine,
    DiagnosticError,
    FunctionType,
    Region,
    UnregisteredOp,
    i32,
    verify_op,
)
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.builtin import ModuleOp
from layoutc.ir.dialects.func import FuncOp, ReturnOp


def test_isolated_from_above_violation_built_through_the_api() -> None:
    outer = FuncOp("outer", FunctionType([i32], []))
    inner = FuncOp("inner", FunctionType([], []))
    outer.entry_block.append(inner)
    use = UnregisteredOp("test.use", operands=[outer.args[0]])
    inner.entry_block.append(use)
    inner.entry_block.append(ReturnOp())
    outer.entry_block.append(ReturnOp())
    module = ModuleOp([outer])
    found = verify_op(module)
    assert [d.message for d in found] == ["'test.use' op using value defined outside the region"]
    assert found[0].notes[0].message == "required by region isolation constraints"


def test_op_verify_raises_and_reports_to_an_engine() -> None:
    fn = FuncOp("f", FunctionType([], [i32]))
    fn.entry_block.append(ReturnOp())
    engine = DiagnosticEngine()
    with engine.collect() as seen, pytest.raises(DiagnosticError, match="has 0 operands"):
        fn.verify(engine)
    assert len(seen) == 1 and engine.error_count == 1


def test_verifier_reports_detached_operand_definitions() -> None:
    c = arith.ConstantOp.from_int(1, i32)
    add = arith.AddIOp(c.results[0], c.results[0])
    fn = FuncOp("f", FunctionType([], []))
    fn.entry_block.append(add)
    fn.entry_block.append(ReturnOp())
    found = verify_op(ModuleOp([fn]))
    assert [d.message for d in found] == [
        "'arith.addi' op operand #0 does not dominate this use",
        "'arith.addi' op operand #1 does not dominate this use",
    ]
    assert "not in the IR" in found[0].notes[0].message


def test_region_with_block_from_elsewhere_is_reported() -> None:
    region = Region([Block()])
    op = UnregisteredOp("test.op", regions=[region])
    region.blocks.append(Block())  # bypassing the API: the block has no parent
    found = verify_op(op)
    assert [d.message for d in found] == [
        "'test.op' op region #0 contains a block owned by another region"
    ]


def test_checked_ops_keep_structure_and_dominance_checks_but_skip_their_own_rules() -> None:
    """``verify_op(..., checked=ops)``: a front end that verified each op as it built it does
    not pay for its rules twice; what depends on where the op sits is still checked."""
    c = arith.ConstantOp.from_int(1, i32)
    late = arith.ConstantOp.from_int(2, i32)
    bad = arith.AddIOp(c.results[0], c.results[0])
    bad.results[0].type = FunctionType([], [])  # breaks its own rule (result type)
    use = arith.AddIOp(late.results[0], c.results[0])  # uses a value defined after it
    fn = FuncOp("f", FunctionType([], []))
    for op in (c, bad, use, late, ReturnOp()):
        fn.entry_block.append(op)
    module = ModuleOp([fn])
    assert [d.message for d in verify_op(module)] == [
        "'arith.addi' op result #0 must be signless-integer-like, but got '() -> ()'",
        "'arith.addi' op operand #0 does not dominate this use",
    ]
    trusted = [d.message for d in verify_op(module, checked={bad, use})]
    assert trusted == ["'arith.addi' op operand #0 does not dominate this use"]


def test_rules_by_signature_are_checked_once_per_signature_and_every_failure_reported() -> None:
    """Ops whose class declares ``rules_by_signature`` (their own rules read only operand and
    result types and properties) have those rules checked once per signature: a second op of
    a signature that passed skips them, one of a new signature is checked, and an op that
    fails is reported every time (a failing signature is never remembered)."""
    from layoutc.ir.core import i64, verifier
    from layoutc.ir.dialects.llvm.arith_ops import AddOp

    assert AddOp.rules_by_signature and not getattr(arith.AddIOp, "rules_by_signature", False)
    fn = FuncOp("f", FunctionType([i32], []))
    x = fn.args[0]
    good = [AddOp(x, x), AddOp(x, x)]
    bad = [AddOp(x, x), AddOp(x, x)]
    for op in bad:  # a result type the declared constraint refuses
        op.results[0].type = FunctionType([], [])
    for op in (*good, *bad, ReturnOp()):
        fn.entry_block.append(op)
    module = ModuleOp([fn])
    message = (
        "'llvm.add' op result #0 must be signless integer or vector of signless integers, "
        "but got '() -> ()'"
    )
    signature = (AddOp, (i32, i32), (i32,), tuple(good[0].properties.items()))
    for _ in range(2):  # the second walk finds the good signature remembered
        assert [d.message for d in verify_op(module)] == [message, message]
        assert signature in verifier._VERIFIED_SIGNATURES
    wider = AddOp(x, x)
    wider.results[0].type = i64  # a new signature, which breaks SameOperandsAndResultType
    fn.entry_block.insert_before(wider, fn.entry_block.last_op)
    assert [d.message for d in verify_op(module)] == [
        message,
        message,
        "'llvm.add' op requires the same type for all operands and results",
    ]


def test_rules_by_signature_covers_the_declaring_class_rules_only() -> None:
    """A subclass with a verify_ of its own is not covered by its base's declaration (its rule
    may read more than the signature) until it declares rules_by_signature itself."""
    from layoutc.ir.core.verifier import _by_signature
    from layoutc.ir.dialects.llvm.arith_ops import AddOp

    def verify_(self: AddOp) -> None:  # pragma: no cover (never run here)
        pass

    own_rule = type("AddWithOwnRule", (AddOp,), {"verify_": verify_})
    redeclared = type("AddRedeclared", (AddOp,), {"verify_": verify_, "rules_by_signature": True})
    same_rules = type("AddSameRules", (AddOp,), {})
    assert _by_signature(AddOp) and _by_signature(same_rules) and _by_signature(redeclared)
    assert not _by_signature(own_rule)
