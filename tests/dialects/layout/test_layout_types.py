"""Layout types and attributes: canonical text, interning, roles, errors, textual round trip."""

from __future__ import annotations

import pickle

import pytest
from layout_helpers import ctx, diagnose
from layoutc.ir.algebra import Layout, LayoutError
from layoutc.ir.core import DiagnosticError, parse_attribute, parse_type
from layoutc.ir.dialects.layout import (
    IntTupleAttr,
    IntTupleType,
    LayoutAttr,
    LayoutTextError,
    LayoutType,
    Role,
    TileAttr,
    TileType,
)

CANONICAL = [
    (LayoutType, "(4, ?) : (1, ?)", "(4,?):(1,?)"),
    (LayoutType, "(_4,(2,_3)):(_1,(4,8))", "(4,(2,3)):(1,(4,8))"),
    (LayoutType, "Sw<3,4,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"),
    (LayoutType, "Sw<3,4,3> o ? o (8,?):(?,1)", "Sw<3,4,3> o ? o (8,?):(?,1)"),
    (LayoutType, "(4,8):(1@0,1@1)", "(4,8):(1@0,1@1)"),
    (LayoutType, "(4,?):(?@0,1@1)", "(4,?):(?@0,1@1)"),
    (
        LayoutType,
        "(1,1):(Custom{idx,?},1) o (0,0) o (8,4):(1@0,1@1)",
        "(1,1):(Custom{idx,?},1) o (0,0) o (8,4):(1@0,1@1)",
    ),
    (LayoutType, "():()", "():()"),
    (IntTupleType, "( 4 , ( ?, 2 ) )", "(4,(?,2))"),
    (IntTupleType, "?", "?"),
    (IntTupleType, "(1@0,-3)", "(1@0,-3)"),
    (TileType, "<3:3, (2,4):(1,8)>", "<3:3,(2,4):(1,8)>"),
    (TileType, "<_, ?, <2, 4:?>>", "<_,?,<2,4:?>>"),
    (TileType, "<<4,8>>", "<(4,8)>"),
]


@pytest.mark.parametrize("cls, text, canonical", CANONICAL)
def test_types_are_interned_on_canonical_text(cls, text, canonical) -> None:
    t = cls(text)
    assert t.layout_text == canonical
    assert cls(canonical) is t
    assert parse_type(t.text, ctx()) is t
    assert t.num_dynamic == canonical.count("?")
    assert pickle.loads(pickle.dumps(t)) is t


def test_roles_follow_the_position_of_each_entry() -> None:
    t = LayoutType("Sw<1,2,3> o ? o (?,(4,?)):(?,(1,?@1))")
    assert t.roles == (Role.OFFSET, Role.SHAPE, Role.SHAPE, Role.STRIDE, Role.STRIDE)
    assert IntTupleType("(?,?)").roles == (Role.VALUE, Role.VALUE)
    assert TileType("<?,4:?>").roles == (Role.SHAPE, Role.STRIDE)


INVALID = [
    (LayoutType, "(4,N):(1,?)", "unknown symbol 'N'"),
    (LayoutType, "(4,?)", "expected a layout written shape:stride"),
    (LayoutType, "(4,?):(1,?,3)", "not congruent"),
    (LayoutType, "(0,4):(1,2)", "shape entries must be positive"),
    (LayoutType, "Sw<?,3,3> o 0 o 4:1", "expected an integer in Sw<B,M,S>"),
    (LayoutType, "(4,8):(1,4", "unbalanced"),
    (LayoutType, "4:1 )", "unexpected ')'"),
    (IntTupleType, "(_,1)", "expected an integer tuple"),
    (IntTupleType, "4*?", "unexpected character '?'"),
    (IntTupleType, "(4:1)", "expected ',' or ')', found ':'"),
    (TileType, "(4,8)", "a tile is written <mode,mode,...>"),
    (TileType, "<>", "at least one mode"),
]


@pytest.mark.parametrize("cls, text, message", INVALID)
def test_invalid_text_names_the_problem(cls, text, message) -> None:
    with pytest.raises(LayoutTextError) as info:
        cls(text)
    assert message in str(info.value)
    assert "q0" not in str(info.value)  # placeholders are shown as '?'


def test_invalid_text_in_ir_is_a_diagnostic_at_the_string() -> None:
    diags = diagnose('%0 = "test.op"() : () -> !layout.layout<"(4,N):(1,?)">\n')
    assert len(diags) == 1
    d = diags[0]
    assert d.location.file_line_col()[1:] == (1, 41)
    assert "unknown symbol 'N'" in d.message


def test_attributes_are_static_values() -> None:
    a = LayoutAttr("(4, 8):(1, 4)")
    assert a is LayoutAttr("(4,8):(1,4)")
    assert a.value == Layout((4, 8), (1, 4))
    assert a.type is LayoutType("(4,8):(1,4)")
    assert LayoutAttr(Layout((4, 8), (1, 4))) is a
    assert IntTupleAttr((2, (3, 4))).layout_text == "(2,(3,4))"
    assert TileAttr("<2:1,_>").value[1].__class__.__name__ == "Underscore"
    assert parse_attribute(a.text, ctx()) is a
    assert pickle.loads(pickle.dumps(a)) is a
    with pytest.raises(LayoutTextError, match="must be fully static"):
        LayoutAttr("(4,?):(1,4)")


def test_attribute_with_a_dynamic_entry_in_ir_is_a_diagnostic() -> None:
    diags = diagnose(
        '%0 = "test.op"() {a = #layout.int_tuple<"(4,?)">} : () -> !layout.int_tuple<"?">\n'
    )
    assert len(diags) == 1 and "must be fully static" in diags[0].message


def test_unknown_mnemonic_is_a_diagnostic() -> None:
    with pytest.raises(DiagnosticError, match=r"unknown type '!layout\.shape'"):
        parse_type('!layout.shape<"4">', ctx())


def test_layout_text_errors_are_layout_errors() -> None:
    assert issubclass(LayoutTextError, LayoutError)
