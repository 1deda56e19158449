"""The bridge between layout types and symbolic algebra values (to_symbolic / from_symbolic)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from layout_helpers import examples, layouts, shapes
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    Swizzle,
    composition,
    logical_divide,
    make_identity_layout,
)
from layoutc.ir.algebra.inttuple import _
from layoutc.ir.algebra.symbolic import Symbol, evaluate
from layoutc.ir.dialects.layout import IntTupleType, LayoutType, TileType
from layoutc.ir.dialects.layout.symbolic_types import (
    fresh_symbols,
    from_symbolic,
    is_instance_of,
    static_attribute,
    symbol_for,
    to_symbolic,
)
from layoutc.ir.dialects.layout.text import Kind, Role, format_value, walk_top


@st.composite
def static_values(draw: Any) -> tuple[Any, Kind]:
    """A static value of some kind: plain, swizzled or identity layouts, int-tuples, tiles."""
    choice = draw(st.sampled_from(["layout", "swizzled", "identity", "int_tuple", "tile"]))
    if choice == "layout":
        return draw(layouts()), Kind.LAYOUT
    if choice == "swizzled":
        b = draw(st.integers(0, 3))
        sw = Swizzle(b, draw(st.integers(0, 4)), draw(st.integers(max(b, 1), 4)))
        return composition(sw, draw(layouts(compact=True))), Kind.LAYOUT
    if choice == "identity":
        return make_identity_layout(draw(shapes())), Kind.LAYOUT
    if choice == "int_tuple":
        return draw(shapes()), Kind.INT_TUPLE
    modes = draw(
        st.lists(st.one_of(layouts(1, 2), st.integers(1, 8), st.just(_)), min_size=1, max_size=3)
    )
    return tuple(modes), Kind.TILE


@st.composite
def partially_dynamic(draw: Any) -> tuple[Any, Any, Kind, dict[Any, int]]:
    """(static value, the same value with some entries symbolic, kind, symbol values)."""
    static, kind = draw(static_values())
    env: dict[Any, int] = {}

    def visit(x: Any, role: Role, out: list) -> Any:
        if type(x) is not int or not draw(st.booleans()):
            return x
        if (role is Role.SHAPE and x < 1) or x < 0:
            return x
        if x > 0 and x % 2 == 0 and draw(st.booleans()):
            sym = symbol_for(f"h{len(env)}", role)
            env[sym] = x // 2
            return 2 * sym  # an expression entry
        sym = symbol_for(f"n{len(env)}", role)
        env[sym] = x
        return sym

    value = walk_top(static, kind, visit, [])
    return static, value, kind, env


@examples(150)
@given(partially_dynamic())
def test_from_symbolic_then_to_symbolic_gives_back_the_value(case) -> None:
    static, value, kind, env = case
    t, exprs = from_symbolic(value, kind)
    _, static_text, _ = format_value(static, kind)
    assert t.num_dynamic == len(exprs) == len(env)
    assert static_attribute(static, kind).layout_text == static_text
    assert is_instance_of(static_attribute(static, kind), t)
    again, entries = to_symbolic(t, exprs)
    assert entries == exprs
    assert again == value
    concrete = t.parsed.substitute([evaluate(e, env) for e in exprs])
    assert concrete == static
    fresh, syms = to_symbolic(t)
    assert from_symbolic(fresh, kind) == (t, syms)


def test_expressions_print_as_one_question_mark() -> None:
    n = Symbol("N", divisible_by=4)
    t, exprs = from_symbolic(logical_divide(Layout(n, 1), Layout(4, 1)))
    assert t is LayoutType("(4,?):(1,4)")
    assert [str(e) for e in exprs] == ["N//4"] or [str(e) for e in exprs] == ["N // 4"]


def test_fresh_symbols_carry_the_role_assumptions() -> None:
    value, syms = to_symbolic(LayoutType("(?,4):(1,?)"))
    shape_sym, stride_sym = syms
    assert shape_sym.lower == 1 and stride_sym.lower == 0
    assert value == Layout((shape_sym, 4), (1, stride_sym))
    assert len(set(fresh_symbols(LayoutType("(?,4):(1,?)")))) == 2
    value, syms = to_symbolic("(?,?)", kind=Kind.INT_TUPLE, prefix="c")
    assert [s.name for s in syms] == ["c0", "c1"] and all(s.lower == 0 for s in syms)


def test_caller_supplies_values_or_symbols_with_assumptions() -> None:
    n = Symbol("N", divisible_by=16)
    value, entries = to_symbolic(LayoutType("(?,8):(8,1)"), [n])
    assert value == Layout((n, 8), (8, 1)) and entries == [n]
    value, _ = to_symbolic(LayoutType("(?,8):(8,?)"), [4, 1])
    assert value == Layout((4, 8), (8, 1))
    value, entries = to_symbolic(
        TileType("<?,4:?>"), lambda i, role: 2 if role is Role.SHAPE else 3
    )
    assert value == (2, Layout(4, 3)) and entries == [2, 3]


def test_bad_values_are_layout_errors() -> None:
    with pytest.raises(LayoutError, match="has 2 dynamic entries, got 1 values"):
        to_symbolic(LayoutType("(?,8):(8,?)"), [4])
    with pytest.raises(LayoutError, match="shape entry and must be positive, got 0"):
        to_symbolic(LayoutType("(?,8):(8,?)"), [0, 1])
    with pytest.raises(LayoutError, match="must be an int or a symbolic integer"):
        to_symbolic(IntTupleType("?"), ["x"])
    with pytest.raises(LayoutError, match="not fully static"):
        static_attribute(Layout(Symbol("N"), 1))


def test_text_is_accepted_where_a_type_is() -> None:
    value, syms = to_symbolic("Sw<3,4,3> o ? o (8,64):(64,1)")
    assert str(value.offset) == str(syms[0])
    t, _ = from_symbolic(value)
    assert t is LayoutType("Sw<3,4,3> o ? o (8,64):(64,1)")


def test_gather_layout_types_name_their_index_buffer() -> None:
    value, syms = to_symbolic("(1,1):(Custom{rows,?},1) o (0,0) o (8,4):(1@0,1@1)")
    assert value.outer.stride[0].func.name == "rows"
    t, exprs = from_symbolic(value)
    assert t.layout_text == "(1,1):(Custom{rows,?},1) o (0,0) o (8,4):(1@0,1@1)"
    assert exprs == syms
    with pytest.raises(LayoutError, match="known only when the kernel runs"):
        value(3)
