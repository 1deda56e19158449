"""Invalid layout IR gets a diagnostic at the op naming the failed condition."""

from __future__ import annotations

import pytest
from layout_helpers import diagnose

L = '!layout.layout<"{}">'
T = '!layout.int_tuple<"{}">'

INVALID = [
    (
        'layout.make_layout %s, %d : !layout.layout<"(4,?):(1,?)">',
        '%s = layout.make_shape %n : !layout.int_tuple<"(4,?)">\n'
        '  %d = "layout.make_stride"(%n) : (index) -> !layout.int_tuple<"(1,(?,2))">\n'
        '  %x = "layout.make_layout"(%s, %d) : (!layout.int_tuple<"(4,?)">, '
        '!layout.int_tuple<"(1,(?,2))">) -> !layout.layout<"(4,?):(1,?)">',
        "'layout.make_layout' op Layout: shape (4,A0) and stride (1,(B0,2)) are not congruent",
    ),
    (
        "inferred type differs",
        '%c = layout.constant #layout.layout<"(4,8):(1,4)">\n'
        '  %x = layout.coalesce %c : (!layout.layout<"(4,8):(1,4)">) -> !layout.layout<"(4,8):(1,4)">',
        "result #0 has type '!layout.layout<\"(4,8):(1,4)\">', but the operands give "
        "'!layout.layout<\"32:1\">'",
    ),
    (
        "complement of a non-injective layout",
        '%c = layout.constant #layout.layout<"(2,2):(1,1)">\n'
        '  %x = layout.complement %c : (!layout.layout<"(2,2):(1,1)">) -> !layout.layout<"1:0">',
        "the layout is not injective",
    ),
    (
        "composition: static divisibility",
        '%a = layout.constant #layout.layout<"(6,2):(2,1)">\n'
        '  %b = layout.constant #layout.layout<"4:2">\n'
        '  %x = layout.composition %a, %b : (!layout.layout<"(6,2):(2,1)">, '
        '!layout.layout<"4:2">) -> !layout.layout<"4:2">',
        "shape divisibility condition fails: 3 (from mode 0 of shape 6) does not divide 4",
    ),
    (
        "tile_to_shape: divisibility",
        '%a = layout.constant #layout.layout<"(2,2):(1,2)">\n'
        '  %b = layout.constant #layout.int_tuple<"(3,4)">\n'
        '  %x = layout.tile_to_shape %a, %b : (!layout.layout<"(2,2):(1,2)">, '
        '!layout.int_tuple<"(3,4)">) -> !layout.layout<"(3,4):(1,3)">',
        "block shape does not divide the target shape: 2 does not divide 3",
    ),
    (
        "make_shape: operand count",
        '%x = "layout.make_shape"(%n) : (index) -> !layout.int_tuple<"(?,?)">',
        "expects 2 index operands for the '?' entries of '!layout.int_tuple<\"(?,?)\">', but has 1",
    ),
    (
        "make_shape: non-positive entry",
        '%x = layout.make_shape %n : !layout.int_tuple<"(0,?)">',
        "shape entries must be positive, but '!layout.int_tuple<\"(0,?)\">' has 0",
    ),
    (
        "get: mode out of range",
        '%c = layout.constant #layout.layout<"(4,8):(1,4)">\n'
        '  %x = layout.get %c[2] : (!layout.layout<"(4,8):(1,4)">) -> !layout.layout<"4:1">',
        "mode index (2,) out of range",
    ),
    (
        "slice: wildcard out of range",
        '%c = layout.constant #layout.layout<"(4,8):(1,4)">\n'
        '  %k = layout.make_coord %n : !layout.int_tuple<"(?,0)">\n'
        "  %x, %o = layout.slice %c, %k {wildcards = array<i64: 2>} : "
        '(!layout.layout<"(4,8):(1,4)">, !layout.int_tuple<"(?,0)">) -> (!layout.layout<"4:1">, index)',
        "wildcard position 2 is out of range for the coordinate (B0,0) with 2 entries",
    ),
    (
        "elem_less: tuple against integer",
        '%a = layout.make_coord %n, %n : !layout.int_tuple<"(?,?)">\n'
        '  %b = layout.make_shape %n : !layout.int_tuple<"?">\n'
        '  %x = layout.elem_less %a, %b : !layout.int_tuple<"(?,?)">, !layout.int_tuple<"?">',
        "cannot compare (A0,A1) with B0 (a tuple and an integer)",
    ),
    (
        "stride of a composed layout",
        '%c = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">\n'
        '  %x = layout.stride %c : (!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">) '
        '-> !layout.int_tuple<"(64,1)">',
        "a composed layout has no strides",
    ),
    (
        "crd2idx: coordinate profile",
        '%c = layout.constant #layout.layout<"(4,8):(1,4)">\n'
        '  %k = layout.make_coord %n, %n, %n : !layout.int_tuple<"(?,?,?)">\n'
        '  %x = layout.crd2idx %k, %c : !layout.int_tuple<"(?,?,?)">, !layout.layout<"(4,8):(1,4)">',
        "crd2idx: the coordinate (A0,A1,A2) does not match the shape (4,8)",
    ),
    (
        "operand kind",
        '%x = "layout.size"(%n) : (index) -> index',
        "operand #0 must be !layout.layout or !layout.int_tuple, but got 'index'",
    ),
    (
        "constant that does not fit its type",
        '%x = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,8):(2,?)">',
        "does not fit the result type",
    ),
    (
        "constant of another kind",
        '%x = layout.constant #layout.int_tuple<"(4,8)"> : !layout.layout<"(?,8):(2,?)">',
        "is of kind int_tuple, but the result type is",
    ),
    (
        "group out of range",
        '%c = layout.constant #layout.layout<"(4,8):(1,4)">\n'
        "  %x = layout.group %c {begin = 1 : i64, end = 5 : i64} : "
        '(!layout.layout<"(4,8):(1,4)">) -> !layout.layout<"(4,8):(1,4)">',
        "group: range [1,5) out of bounds for rank 2",
    ),
]


def _module(body: str) -> str:
    return f"func.func @f(%n: index) {{\n  {body}\n  return\n}}\n"


@pytest.mark.parametrize("name, body, message", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_ir_is_diagnosed(name, body, message) -> None:
    diags = diagnose(_module(body))
    assert diags, "expected a diagnostic"
    assert any(message in d.message for d in diags), [d.message for d in diags]


def test_symbolic_conditions_name_the_symbols_in_a_note() -> None:
    body = (
        '%s = layout.make_shape %n : !layout.int_tuple<"(4,(?,2))">\n'
        '  %d = layout.make_stride %n : !layout.int_tuple<"(1,(4,?))">\n'
        '  %l = layout.make_layout %s, %d : !layout.layout<"(4,(?,2)):(1,(4,?))">\n'
        '  %c = layout.constant #layout.layout<"(8,64):(64,1)">\n'
        '  %x = layout.composition %l, %c : (!layout.layout<"(4,(?,2)):(1,(4,?))">, '
        '!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(8,64):(64,1)">'
    )
    diags = diagnose(_module(body))
    assert len(diags) == 1
    d = diags[0]
    assert d.message.startswith("'layout.composition' op composition(")
    assert "cannot prove that stride 64 and mode 0 of shape 4*A0 divide each other" in d.message
    assert d.location.file_line_col()[1] == 6
    assert [n.message for n in d.notes] == [
        "A0, A1 stand for the '?' entries of operand #0 "
        "('!layout.layout<\"(4,(?,2)):(1,(4,?))\">'), left to right"
    ]


def test_swizzle_of_a_dynamic_coordinate_is_valid() -> None:
    """crd2idx only checks the coordinate's profile: the swizzle is applied at run time."""
    body = (
        '%c = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">\n'
        '  %k = layout.make_coord %n, %n : !layout.int_tuple<"(?,?)">\n'
        '  %x = layout.crd2idx %k, %c : !layout.int_tuple<"(?,?)">, '
        '!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">'
    )
    assert diagnose(_module(body)) == []
