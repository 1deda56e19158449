"""Invalid IR: every problem is reported, at the right op, with MLIR's wording."""

from __future__ import annotations

import pytest
from ir_helpers import diagnose, messages
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

CASES = [
    (
        "func.func @f(%a: i32) -> i64 {\n  return %a : i32\n}",
        [
            "2:3: error: 'func.return' op type of return operand 0 ('i32') doesn't match function "
            "result type ('i64') in function @f"
        ],
    ),
    (
        "func.func @f(%a: i32) {\n  %0 = arith.addi %1, %a : i32\n  %1 = arith.addi %a, %a : i32\n  return\n}",
        [
            "2:3: error: 'arith.addi' op operand #0 does not dominate this use",
            "3:3: note: operand defined here (op in the same block)",
        ],
    ),
    (
        'func.func @f(%a: i32) {\n  %0 = "test.x"() ({\n    "test.use"(%1) : (i32) -> ()\n  }) : () -> i32\n'
        "  %1 = arith.addi %a, %a : i32\n  return\n}",
        [
            "3:5: error: 'test.use' op operand #0 does not dominate this use",
            "5:3: note: operand defined here (op in a parent region)",
        ],
    ),
    (
        'func.func @f(%a: i32) {\n  %0 = "test.x"() ({\n    "test.use"(%0) : (i32) -> ()\n  }) : () -> i32\n  return\n}',
        [
            "3:5: error: 'test.use' op operand #0 does not dominate this use",
            "2:3: note: operand defined here (op in a parent region)",
        ],
    ),
    (
        'func.func @f(%c: i1) -> i32 {\n  cf.cond_br %c, ^bb1, ^bb2\n^bb1:\n  %x = "test.v"() : () -> i32\n'
        "  cf.br ^bb3\n^bb2:\n  cf.br ^bb3\n^bb3:\n  return %x : i32\n}",
        [
            "9:3: error: 'func.return' op operand #0 does not dominate this use",
            "4:3: note: operand defined here (op in the same region)",
        ],
    ),
    (
        "func.func @f(%c: i1) -> i32 {\n  cf.br ^bb2\n^bb1(%x: i32):\n  cf.br ^bb2\n^bb2:\n  return %x : i32\n}",
        [
            "6:3: error: 'func.return' op operand #0 does not dominate this use",
            "1:1: note: operand defined as a block argument (block #1 in the same region)",
        ],
    ),
    (
        "func.func @f() {\n  %0 = arith.constant 1 : i32\n}",
        ["2:3: error: 'arith.constant' op block with no terminator, has 'arith.constant'"],
    ),
    (
        '"func.func"() <{sym_name = "f", function_type = () -> ()}> ({\n  "func.return"() : () -> ()\n'
        '  "test.x"() : () -> ()\n}) : () -> ()',
        ["2:3: error: 'func.return' op must be the last operation in the parent block"],
    ),
    (
        "func.func @f() {\n}",
        ["1:1: error: 'func.func' op empty block: expect at least a terminator"],
    ),
    (
        '"func.func"() <{sym_name = "f", function_type = (i32) -> ()}> ({\n^bb0(%a: i64):\n'
        '  "func.return"() : () -> ()\n}) : () -> ()',
        [
            "1:1: error: 'func.func' op type of entry block argument #0('i64') must match the type of "
            "the corresponding argument in function signature('i32')"
        ],
    ),
    (
        '"arith.addi"() : () -> i32',
        ["1:1: error: 'arith.addi' op expected 2 operands, but found 0"],
    ),
    (
        '%a = "test.a"() : () -> f32\n"arith.addi"(%a, %a) : (f32, f32) -> f32',
        ["2:1: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'"],
    ),
    (
        '%a = "test.a"() : () -> i32\n"arith.addi"(%a, %a) <{bogus = 1}> : (i32, i32) -> i32',
        ["2:1: error: 'arith.addi' op has unknown property 'bogus'"],
    ),
    (
        '%0 = "arith.constant"() : () -> i32',
        ["1:1: error: 'arith.constant' op requires attribute 'value'"],
    ),
    (
        '%0 = "arith.constant"() <{value = 1 : i64}> : () -> i32',
        [
            "1:1: error: 'arith.constant' op failed to verify that all of {value, result} have same "
            "type ('i64' vs 'i32')"
        ],
    ),
    (
        "func.func @f(%a: i32) {\n  %0 = arith.extsi %a : i32 to i16\n  return\n}",
        ["2:3: error: 'arith.extsi' op result type 'i16' must be wider than operand type 'i32'"],
    ),
    (
        "func.func @f(%a: f32) {\n  %0 = arith.bitcast %a : f32 to i64\n  return\n}",
        [
            "2:3: error: 'arith.bitcast' op operand type 'f32' and result type 'i64' are cast incompatible"
        ],
    ),
    (
        "func.func @f(%n: index) {\n  %0 = scf.for %i = %n to %n step %n iter_args(%x = %n) -> (index) {\n"
        "    scf.yield\n  }\n  return\n}",
        [
            "2:3: error: 'scf.for' op region control flow edge from Region #0 to parent results: "
            "source has 0 operands, but target successor needs 1"
        ],
    ),
    (
        "func.func @f(%n: index) {\n  %c0 = arith.constant 0 : index\n  scf.for %i = %n to %n step %c0 {\n  }\n  return\n}",
        ["3:3: error: 'scf.for' op constant step operand must be positive"],
    ),
    (
        "func.func @f(%c: i1) {\n  %0 = scf.if %c -> (i32) {\n    %1 = arith.constant 1 : i32\n"
        "    scf.yield %1 : i32\n  }\n  return\n}",
        ["2:3: error: 'scf.if' op must have an else block if defining values"],
    ),
    (
        "func.func @f(%c: i1) {\n  scf.yield\n}",
        [
            "2:3: error: 'scf.yield' op expects parent op to be one of 'scf.for', 'scf.if', "
            "'scf.while', 'scf.execute_region', 'scf.index_switch'"
        ],
    ),
    (
        "func.func @f() {\n  %0 = call @g() : () -> i32\n  return\n}",
        ["2:3: error: 'func.call' op 'g' does not reference a valid function"],
    ),
    (
        "func.func @g(i32)\nfunc.func @f() {\n  %0 = call @g() : () -> i32\n  return\n}",
        ["3:3: error: 'func.call' op incorrect number of operands for callee"],
    ),
    (
        "func.func @g()\nfunc.func @g()",
        [
            "2:1: error: 'func.func' op redefinition of symbol named 'g'",
            "1:1: note: see existing symbol definition here",
        ],
    ),
    (
        "func.func @f(%c: i1, %a: i32) {\n  cf.cond_br %c, ^bb1(%a : i32), ^bb1\n^bb1(%x: i32):\n  return\n}",
        [
            "2:3: error: 'cf.cond_br' op branch has 0 operands for successor #1, but target block has 1"
        ],
    ),
    (
        '"builtin.module"() ({\n^bb0(%x: i32):\n}) : () -> ()',
        ["1:1: error: 'builtin.module' op region #0 should have no arguments"],
    ),
    (
        'func.func @f(%a: i32) {\n  %0 = "arith.cmpi"(%a, %a) <{predicate = 42 : i64}> : (i32, i32) -> i1\n  return\n}',
        ["2:3: error: 'arith.cmpi' op invalid predicate 42 : i64"],
    ),
    (
        "func.func @f(%c: i1) -> i32 {\n  %0 = scf.while (%x = %c) : (i1) -> i32 {\n"
        "    scf.condition(%x) %x : i1\n  } do {\n  ^bb0(%y: i32):\n    scf.yield %c : i1\n  }\n  return %0 : i32\n}",
        [
            "2:3: error: 'scf.while' op expects the 'scf.condition' arguments to match the op's result types"
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_verifier_messages(text: str, expected: list[str]) -> None:
    assert messages(diagnose(text)) == expected


def test_all_errors_are_reported_not_just_the_first() -> None:
    text = """\
func.func @f(%a: i32, %b: f32) -> i64 {
  %0 = "arith.addi"(%b, %b) : (f32, f32) -> f32
  %1 = arith.extsi %a : i32 to i8
  %2 = arith.addi %3, %a : i32
  %3 = arith.addi %a, %a : i32
  return %a : i32
}
func.func @g() {
  %x = arith.constant 1 : i32
}"""
    found = messages(diagnose(text))
    errors = [m for m in found if ": error: " in m]
    assert errors == [
        "2:3: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'",
        "3:3: error: 'arith.extsi' op result type 'i8' must be wider than operand type 'i32'",
        "4:3: error: 'arith.addi' op operand #0 does not dominate this use",
        "6:3: error: 'func.return' op type of return operand 0 ('i32') doesn't match function result "
        "type ('i64') in function @f",
        "9:3: error: 'arith.constant' op block with no terminator, has 'arith.constant'",
    ]


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


def test_unreachable_blocks_are_exempt_from_dominance() -> None:
    text = """\
func.func @f() -> i32 {
  %0 = "test.v"() : () -> i32
  return %0 : i32
^bb1:
  return %1 : i32
^bb2:
  %1 = "test.v"() : () -> i32
  cf.br ^bb1
}"""
    assert diagnose(text) == []


def test_region_with_block_from_elsewhere_is_reported() -> None:
    region = Region([Block()])
    op = UnregisteredOp("test.op", regions=[region])
    region.blocks.append(Block())  # bypassing the API: the block has no parent
    found = verify_op(op)
    assert [d.message for d in found] == [
        "'test.op' op region #0 contains a block owned by another region"
    ]
