"""Slicing a swizzled layout ``Sw<B,M,S> o offset o L`` at a symbolic coordinate.

CuTe C++ (``swizzle_layout.hpp``) carries a dynamic coordinate through ``to_mixed_bits`` and
XORs it into the composed offset; our integer expressions have no XOR, so a symbolic coordinate
keeps the generic composed form ``Sw o (offset + L(diced)) o sliced`` (exact: the swizzle is
applied to the whole index, which is what the unsliced layout does). Checked as a law: for every
value of the symbols, the slice at the symbolic coordinate is the slice at the static one, and
both agree with the unsliced layout. Direct calls of the bit-field slicer with symbolic values
are a LayoutError naming the operation, never a TypeError from inside the algebra."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import ComposedLayout, Layout, LayoutError, Swizzle, _, size
from layoutc.ir.algebra.layout import slice_and_offset
from layoutc.ir.algebra.swizzle_slice import swizzle_slice_and_offset
from layoutc.ir.algebra.symbolic import Symbol, SymInt

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
EXAMPLES = settings(max_examples=30 if CI else 120, deadline=None)


def _evaluate(x: object, env: dict) -> object:
    return x.evaluate(env) if isinstance(x, SymInt) else x


def _at(sliced: object, off: object, env: dict, c: int) -> int:
    """Element ``c`` of a slice (a plain or composed layout plus an offset) under ``env``."""
    if isinstance(sliced, ComposedLayout):
        sliced = ComposedLayout(sliced.outer, _evaluate(sliced.offset, env), sliced.inner)
    return sliced(c) + _evaluate(off, env)


@st.composite
def swizzled_layouts(draw: st.DrawFn) -> tuple[ComposedLayout, tuple[int, ...]]:
    """A swizzle over a row-major or column-major 2-D layout of power-of-two extents (CuTe's
    shared-memory atoms), with a static offset that keeps the bit fields disjoint."""
    b = draw(st.integers(1, 3))
    m = draw(st.integers(0, 3))
    s = draw(st.integers(b, 4))
    rows = 1 << draw(st.integers(1, 4))
    cols = 1 << draw(st.integers(1, 4))
    inner = draw(
        st.sampled_from([Layout((rows, cols), (cols, 1)), Layout((rows, cols), (1, rows))])
    )
    offset = draw(st.sampled_from([0, rows * cols, 3 * rows * cols]))
    return ComposedLayout(Swizzle(b, m, s), offset, inner), (rows, cols)


@EXAMPLES
@given(swizzled_layouts(), st.sampled_from(["row", "col", "both"]), st.data())
def test_slices_at_symbolic_coordinates_agree_with_static_ones(case, which, data):
    layout, (rows, cols) = case
    i = Symbol("i", positive=False, lower=0, upper=rows - 1)
    j = Symbol("j", positive=False, lower=0, upper=cols - 1)
    if which == "row":
        symbolic, static_of = (i, _), lambda r, c: (r, _)
    elif which == "col":
        symbolic, static_of = (_, j), lambda r, c: (_, c)
    else:  # a 1-D coordinate into the first mode of a 1-mode view
        symbolic, static_of = (i, j), lambda r, c: (r, c)
    sliced, off = slice_and_offset(symbolic, layout)
    r = data.draw(st.integers(0, rows - 1), label="row")
    c = data.draw(st.integers(0, cols - 1), label="col")
    env = {i: r, j: c}
    ref, ref_off = slice_and_offset(static_of(r, c), layout)
    n = size(ref) if which != "both" else 1
    for k in range(n):
        want = layout(r, k) if which == "row" else layout(k, c) if which == "col" else layout(r, c)
        assert _at(ref, ref_off, {}, k if which != "both" else 0) == want
        assert _at(sliced, off, env, k if which != "both" else 0) == want


def test_symbolic_slice_of_cutlass_example_59_atom():
    """``Sw<1,2,3> o (8,(4,2)):(4,(1,32))``: the row ``(%i, _)`` keeps the swizzle around an
    offset ``4 i`` (CuTe would XOR the row's Y bits into a MixedBits offset instead)."""
    atom = ComposedLayout(Swizzle(1, 2, 3), 0, Layout((8, (4, 2)), (4, (1, 32))))
    i = Symbol("i", positive=False, lower=0, upper=7)
    row, off = slice_and_offset((i, _), atom)
    assert isinstance(row, ComposedLayout) and row.outer == Swizzle(1, 2, 3)
    assert row.offset == 4 * i and off == 0
    for r in range(8):
        static_row, static_off = slice_and_offset((r, _), atom)
        for k in range(8):
            want = atom(r, (k % 4, k // 4))
            assert _at(row, off, {i: r}, k) == want
            assert _at(static_row, static_off, {}, k) == want


@pytest.mark.parametrize(
    ("coord", "offset"),
    [((Symbol("i", positive=False, lower=0, upper=7), _), 0), ((1, _), Symbol("o"))],
)
def test_the_bit_field_slicer_refuses_symbolic_values_by_name(coord, offset):
    inner = Layout((8, (4, 2)), (4, (1, 32)))
    with pytest.raises(LayoutError, match=r"swizzle slicing .*Sw<1,2,3>"):
        swizzle_slice_and_offset(coord, Swizzle(1, 2, 3), offset, inner)


def test_applying_a_swizzle_at_a_symbolic_coordinate_is_a_clear_error():
    atom = ComposedLayout(Swizzle(1, 2, 3), 0, Layout((8, 8), (8, 1)))
    i = Symbol("i", positive=False, lower=0, upper=7)
    with pytest.raises(LayoutError, match="not supported: applying Sw<1,2,3>"):
        atom(i, 3)
