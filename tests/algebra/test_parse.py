"""CuTe notation: parsing, printing, round trips and error positions."""

from __future__ import annotations

import random

import pytest
from algebra_strategies import random_layout
from layoutc.ir.algebra import (
    ComposedLayout,
    Layout,
    LayoutParseError,
    ScaledBasis,
    Swizzle,
    _,
    composition,
    make_identity_layout,
    parse_int_tuple,
    parse_layout,
    parse_tiler,
)
from layoutc.ir.algebra.symbolic import Symbol


@pytest.mark.parametrize(
    "text",
    [
        "8:1",
        "(2,4):(1,2)",
        "((2,2),3):((24,2),8)",
        "(3,(6,2),8):(1,(3,18),36)",
        "((4,2)):((2,1))",
        "(3,(3),3):(1,(1),1)",
        "():()",
        "(4,8):(1@0,1@1)",
        "((2,3),4):((1@0@0,1@1@0),1@1)",
        "(4,8):(-1,4)",
        "Sw<3,4,3> o 0 o (8,64):(64,1)",
        "(N,8):(8,1)",
        "(4*N + 2,8):(1,4*N + 2)",
        "(ceil_div(N, 8),2):(1,ceil_div(N, 8))",
    ],
)
def test_print_parse_round_trip(text: str):
    lay = parse_layout(text)
    assert str(lay) == text
    assert parse_layout(str(lay)) == lay


def test_static_markers_and_spaces():
    a = parse_layout("( _2 , _4 ) : ( _1 , _2 )")
    assert a == Layout((2, 4), (1, 2))
    assert a.format(static_markers=True) == "(_2,_4):(_1,_2)"
    assert parse_layout(a.format(static_markers=True)) == a
    assert parse_layout("_8:_-1") == Layout(8, -1)


def test_random_layouts_round_trip():
    rng = random.Random(5)
    for _trial in range(300):
        lay = random_layout(rng, max_modes=4)
        assert parse_layout(str(lay)) == lay
        assert parse_layout(lay.format(static_markers=True)) == lay


def test_bare_shape_means_column_major():
    assert parse_layout("(4,8)") == Layout((4, 8), (1, 4))
    assert parse_layout("8") == Layout(8, 1)


def test_basis_strides():
    lay = parse_layout("(4,8):(1@0,1@1)")
    assert lay == make_identity_layout((4, 8))
    e = parse_layout("2:3@0@1").stride
    assert e == ScaledBasis(3, 1, 0)  # CuTe prints E<1,0> innermost first: 3@0@1
    assert str(e) == "3@0@1"


def test_tilers():
    t = parse_tiler("<3:3,(2,4):(1,8)>")
    assert t == (Layout(3, 3), Layout((2, 4), (1, 8)))
    assert parse_tiler("<_, 4:1>") == (_, Layout(4, 1))
    assert parse_tiler("(3,8)") == (3, 8)
    assert parse_tiler("<<2:1,2:2>,4:1>") == ((Layout(2, 1), Layout(2, 2)), Layout(4, 1))


def test_composed_layouts():
    c = parse_layout("Sw<3,4,3> o _0 o (8,64):(64,1)")
    assert isinstance(c, ComposedLayout)
    assert c == composition(Swizzle(3, 4, 3), Layout((8, 64), (64, 1)))
    assert c.format(static_markers=True) == "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"
    # an identity swizzle with zero offset is the inner layout itself
    assert parse_layout("Sw<0,4,3> o 0 o 8:1") == Layout(8, 1)


def test_symbols_are_shared_within_a_text():
    symbols: dict = {}
    lay = parse_layout("(N,8):(8,N)", symbols)
    assert lay.shape[0] is lay.stride[1]
    assert set(symbols) == {"N"}
    n4 = Symbol("N4", divisible_by=4)
    lay2 = parse_layout("(N4,2):(2,1)", {"N4": n4})
    assert lay2.shape[0] is n4


def test_int_tuples():
    assert parse_int_tuple("(2,(3,_4))") == (2, (3, 4))
    assert parse_int_tuple("((N+1)*2,3)") == ((Symbol("N") + 1) * 2, 3)


@pytest.mark.parametrize(
    ("text", "pos", "message"),
    [
        ("(4,8):(1,4", 10, "expected ',' or ')'"),
        ("(4,8):(1,4,2)", 6, "not congruent"),
        ("(4,8)::(1,4)", 6, "expected"),
        ("(4,8):(1,4) x", 12, "unexpected 'x'"),
        ("(4,8@1):(1,4)", 4, "only allowed in strides"),
        ("Sw<3,4> o 0 o 8:1", 6, "expected ','"),
        ("Sw<3,4,1> o 0 o 8:1", 0, "|S| must be at least B"),
        ("<3:3,(2,4):(1,8)", 16, "expected ',' or '>'"),
        ("(4,_):(1,4)", 0, "wildcard|positive|integer"),
        ("(0,4):(1,4)", 0, "positive"),
        ("(4,8):(1,1@)", 11, "mode number"),
        ("", 0, "end of input"),
        ("(4,8):(1,4+)", 11, "in the expression '4+'"),
    ],
)
def test_parse_errors_name_the_position(text: str, pos: int, message: str):
    with pytest.raises(LayoutParseError) as info:
        parse_layout(text)
    assert info.value.pos == pos, str(info.value)
    assert any(m in str(info.value) for m in message.split("|")), str(info.value)
    assert f"at position {pos}" in str(info.value)
