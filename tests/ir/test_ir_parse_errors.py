"""Bad text gives diagnostics at the exact line:col of the offending token."""

from __future__ import annotations

import pytest
from ir_helpers import diagnose, messages
from layoutc.ir.core import (
    Context,
    DiagnosticError,
    parse,
    parse_attribute,
    parse_source,
    parse_type,
)

CASES = [
    (
        '%0 = "test.op"() : () -> i32\n%0 = "test.op"() : () -> i32',
        ["2:1: error: redefinition of SSA value '%0'", "1:1: note: previously defined here"],
    ),
    ('"test.op"(%x) : (i32) -> ()', ["1:11: error: use of undeclared SSA value name '%x'"]),
    (
        '%0 = "test.op"() : () -> (i32, i32)',
        ["1:1: error: operation defines 2 results but was provided 1 to bind"],
    ),
    ('"test.op"() : () -> i33x', ["1:21: error: expected type, found 'i33x'"]),
    (
        '"test.op"() {a = 300 : i8} : () -> ()',
        ["1:18: error: integer constant out of range for attribute of type 'i8'"],
    ),
    (
        '"test.op"() {a = 1 : f32} : () -> ()',
        [
            "1:18: error: unexpected decimal integer literal for a floating point value",
            "1:18: note: add a trailing dot to make the literal a float",
        ],
    ),
    (
        '"test.op"() {a = dense<1> : tensor<2xi32>} : () -> ()',
        ["1:29: error: not supported: builtin type 'tensor'"],
    ),
    (
        '"test.op"() {a = dense<[1, 2]> : vector<4xi32>} : () -> ()',
        ["1:18: error: inferred shape of elements literal ([2]) does not match type ([4])"],
    ),
    (
        '"test.op"() {a = dense<[1, 2]> : vector<2xf32>} : () -> ()',
        [
            "1:25: error: unexpected decimal integer literal for a floating point value",
            "1:25: note: add a trailing dot to make the literal a float",
        ],
    ),
    (
        '"test.op"() {a = dense<true> : vector<2xi8>} : () -> ()',
        ["1:24: error: expected i1 type for 'true' or 'false' values"],
    ),
    (
        '"test.op"() {a = dense<[1, 2]> : vector<[2]xi32>} : () -> ()',
        [
            "1:18: error: invalid dense elements: a scalable vector (vector<[2]xi32>) has only "
            "splat constants"
        ],
    ),
    (
        '"test.op"() {a = dense<"0x0102"> : vector<2xi32>} : () -> ()',
        ["1:24: error: invalid hex dense elements: 2 bytes are not a whole number of i32 elements"],
    ),
    ('"test.op"() : () -> memref<4xf32>', ["1:21: error: not supported: builtin type 'memref'"]),
    ('"test.op"() : (', ["1:16: error: expected type, found end of file"]),
    (
        '"test.op"() : () -> i32 loc(#nope)',
        ["1:29: error: operation location alias was never defined: '#nope'"],
    ),
    (
        '"test.op"() {a = "unterminated} : () -> ()',
        ["1:18: error: unterminated string literal (strings may not span lines)"],
    ),
    (
        '"test.op"() {a = "bad \\q"} : () -> ()',
        ["1:18: error: invalid escape sequence in string literal"],
    ),
    (
        "func.func @f() {\n  %0 = arith.addi %a, %b : i32\n  return\n}",
        ["2:19: error: use of undeclared SSA value name '%a'"],
    ),
    (
        "func.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : i64\n  return\n}",
        [
            "2:19: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'",
            "1:14: note: prior use here",
        ],
    ),
    (
        "func.func @f() {\n  %0 = arith.frobnicate %a : i32\n}",
        ["2:8: error: custom op 'arith.frobnicate' is unknown"],
    ),
    (
        "func.func @f() {\n  frobnicate\n}",
        [
            "2:3: error: custom op 'frobnicate' is unknown (tried 'func.frobnicate', 'builtin.frobnicate' as well)"
        ],
    ),
    # at the top level the default dialect is builtin: it is tried once
    (
        "frobnicate",
        ["1:1: error: custom op 'frobnicate' is unknown (tried 'builtin.frobnicate' as well)"],
    ),
    (
        '"arith.frob"() : () -> ()',
        ["1:1: error: unregistered operation 'arith.frob' found in dialect 'arith'"],
    ),
    ("func.func @f() {\n  cf.br ^bb9\n}", ["2:9: error: reference to an undefined block '^bb9'"]),
    ('"test.op"() ({\n^bb0:\n^bb0:\n}) : () -> ()', ["3:1: error: redefinition of block '^bb0'"]),
    (
        '"test.b"(%y) : (i64) -> ()\n%y = "test.a"() : () -> i32',
        [
            "2:1: error: definition of SSA value '%y#0' has type 'i32'",
            "1:10: note: previously used here with type 'i64'",
        ],
    ),
    ("#a = 1\n#a = 2", ["2:1: error: redefinition of attribute alias id 'a'"]),
    ('!t = i32\n"test.op"() : () -> !u', ["2:21: error: undefined symbol alias id 'u'"]),
    (
        "{-# dialect_resources: {} #-}",
        ["1:1: error: not supported: file metadata dictionary ({-# ... #-})"],
    ),
    ('"test.op"() : () -> vector<4xtensor>', ["1:29: error: invalid vector element type 'tensor'"]),
    (
        '"test.op"() : () -> vector<0xf32>',
        ["1:28: error: vector types must have positive constant sizes but got 0"],
    ),
    (
        'module { "test.x"() : () -> () ',
        ["1:31: error: expected '}' to end region, found end of file"],
    ),
    ("$", ["1:1: error: expected operation name in quotes, found '$'"]),
    (
        '"test.op"() {a = array<i32: 1, 2.5>} : () -> ()',
        ["1:32: error: floating point value not valid for type 'i32'"],
    ),
    (
        '"test.op"() {a = #arith.overflow<nsw, foo>} : () -> ()',
        ["1:39: error: unknown arith.overflow flag 'foo'; expected one of none, nsw, nuw"],
    ),
    (
        '"test.op"() {a = #arith.fastmath<fast} : () -> ()',
        ["1:38: error: expected '>' to close 'arith.fastmath' flags, found '}'"],
    ),
    (
        "%c = arith.cmpi bogus, %a, %a : i32",
        [
            "1:17: error: unknown predicate 'bogus' for 'arith.cmpi'; expected one of "
            "eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge"
        ],
    ),
    (
        '"test.op"() : () -> !llvm.no_such_type<(i32)>',
        ["1:21: error: unknown type '!llvm.no_such_type' in dialect 'llvm'"],
    ),
    ('"test.op"() : () -> !llvm.ptr<-1>', ["1:31: error: address space must be non-negative"]),
    (
        "func.func @f(%a: i32) {\n  %0 = scf.for %i = %a to %a step %a iter_args(%x = %a) -> (i32, i32) {\n  }\n}",
        ["2:57: error: expected 1 types for the iteration arguments, got 2"],
    ),
    (
        '"cf.cond_br"(%c) [^bb1, ^bb1] : (i1) -> ()',
        ["1:19: error: branch to a block outside of any region"],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_parse_error_positions(text: str, expected: list[str]) -> None:
    assert messages(diagnose(text)) == expected


def test_unregistered_dialects_need_permission() -> None:
    found = diagnose('"foo.bar"() : () -> ()', allow_unregistered=False)
    assert messages(found) == [
        "1:1: error: operation 'foo.bar' belongs to an unregistered dialect; "
        "allow unregistered dialects to accept it"
    ]
    found = diagnose('"test.op"() {a = #foo.bar<1>} : () -> ()', allow_unregistered=True)
    assert found == []


def test_diagnostic_text_names_file_and_shows_source_line(capsys) -> None:
    c = Context()
    assert parse_source("\n  %0 = arith.addi %q, %q : i32", c, buffer_name="kernel.mlir") is None
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "kernel.mlir:2:19: error: use of undeclared SSA value name '%q'",
        "  %0 = arith.addi %q, %q : i32",
        "                  ^",
    ]


def test_parse_raises_diagnostic_error_with_all_messages() -> None:
    with pytest.raises(DiagnosticError) as info:
        parse('"test.op"(', Context(allow_unregistered=True), buffer_name="x.mlir")
    assert str(info.value).startswith("x.mlir:1:11: error: expected SSA operand, found end of file")


def test_split_file_line_offset_shifts_reported_lines() -> None:
    c = Context(allow_unregistered=True)
    with c.diagnostics.collect() as found:
        parse_source('\n"test.op"(%x) : (i32) -> ()', c, buffer_name="s.mlir", line_offset=10)
    assert [d.format() for d in found] == [
        "s.mlir:12:11: error: use of undeclared SSA value name '%x'"
    ]


def test_fragment_parsers_report_errors() -> None:
    assert parse_type("vector<2x[4]xf32>").text == "vector<2x[4]xf32>"
    assert parse_attribute("array<i1: true, false>").text == "array<i1: true, false>"
    with pytest.raises(DiagnosticError, match="expected type"):
        parse_type("vector<2x>")
    with pytest.raises(DiagnosticError, match="unexpected"):
        parse_attribute("1 : i32 extra")
