"""Swizzles, composed layouts, and gather/scatter layouts through an index buffer (example 59)."""

from __future__ import annotations

import random

import pytest
from algebra_strategies import values
from layoutc.ir.algebra import (
    ComposedLayout,
    CustomStride,
    E,
    IndexedGather,
    Layout,
    LayoutError,
    StridedGather,
    Swizzle,
    _,
    coalesce,
    complement,
    composition,
    get,
    left_inverse,
    logical_divide,
    make_arithmetic_tuple,
    make_gather_layout,
    make_identity_layout,
    make_layout,
    make_swizzle,
    max_common_vector,
    right_inverse,
    size,
    slice_and_offset,
    tile_to_shape,
    zipped_divide,
)

# -- Swizzle ----------------------------------------------------------------------------------------


def test_swizzle_bits():
    sw = Swizzle(3, 4, 3)
    assert str(sw) == "Sw<3,4,3>"
    assert sw.yyy_mask == 0b1110000000 and sw.zzz_mask == 0b1110000
    assert sw(0) == 0 and sw(15) == 15
    assert sw(128) == 128 ^ 16
    assert sw(0b1010010000) == 0b1010010000 ^ (0b1010000000 >> 3)
    neg = Swizzle(2, 0, -3)  # YYY below ZZZ: shifts left
    assert neg.yyy_mask == 0b11 and neg.zzz_mask == 0b11000
    assert neg(1) == 1 | 8


@pytest.mark.parametrize(("b", "m", "s"), [(1, 2, 3), (2, 3, 3), (3, 4, 3), (3, 3, -4), (0, 4, 3)])
def test_swizzle_is_an_involution_and_a_bijection(b: int, m: int, s: int):
    sw = Swizzle(b, m, s)
    n = 1 << (m + b + abs(s) + 1)
    image = [sw(x) for x in range(n)]
    assert sorted(image) == list(range(n))
    assert all(sw(sw(x)) == x for x in range(n))
    assert make_swizzle(sw.yyy_mask, sw.zzz_mask) == sw or b == 0


def test_make_swizzle_examples_from_cute():
    assert make_swizzle(0b1000, 0b0100) == Swizzle(1, 2, 1)
    assert make_swizzle(0b11000000, 0b00000110) == Swizzle(2, 1, 5)
    with pytest.raises(LayoutError, match="different numbers of bits"):
        make_swizzle(0b11, 0b100)
    with pytest.raises(LayoutError, match="contiguous"):
        make_swizzle(0b101000, 0b000101)


def test_swizzle_errors():
    with pytest.raises(LayoutError, match="at least B"):
        Swizzle(3, 4, 2)
    with pytest.raises(LayoutError, match="non-negative"):
        Swizzle(-1, 4, 3)


# -- swizzled (composed) layouts --------------------------------------------------------------------


def test_swizzled_layout_evaluates_as_the_composition():
    inner = Layout((8, 64), (64, 1))
    c = composition(Swizzle(3, 4, 3), inner)
    assert isinstance(c, ComposedLayout)
    assert str(c) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    sw = Swizzle(3, 4, 3)
    assert all(c(i) == sw(inner(i)) for i in range(size(inner)))
    assert sorted(values(c)) == list(range(512))
    assert c.shape == inner.shape and size(c) == 512 and len(c) == 2


def test_operations_on_composed_layouts_act_on_the_inner_layout():
    sw = Swizzle(1, 2, 3)
    atom = composition(sw, Layout((8, (4, 2)), (4, (1, 32))))  # example 59's shared-memory atom
    tiled = tile_to_shape(atom, (64, 32))
    assert isinstance(tiled, ComposedLayout) and tiled.outer == sw
    assert tiled.inner == tile_to_shape(atom.inner, (64, 32))
    assert sorted(values(tiled)) == list(range(64 * 32))
    d = zipped_divide(atom, (4, 4))
    assert d.inner == zipped_divide(atom.inner, (4, 4))
    assert [d(i) for i in range(64)] == [sw(d.inner(i)) for i in range(64)]
    assert coalesce(atom).inner == coalesce(atom.inner)
    assert get(atom, 1) == composition(sw, 0, get(atom.inner, 1))
    assert complement(atom, 512) == complement(atom.inner, 512)


def test_slicing_a_swizzled_layout_decays_like_cute():
    sw = Swizzle(3, 4, 3)
    c = composition(sw, Layout((8, 64), (64, 1)))
    # a row touches only the Z bits of the swizzle: it decays to a plain strided layout
    row, off = slice_and_offset((3, _), c)
    assert isinstance(row, Layout)
    assert [row(j) + off for j in range(64)] == [c(3, j) for j in range(64)]
    # a column touches the Y bits only: also plain
    col, off = slice_and_offset((_, 5), c)
    assert isinstance(col, Layout)
    assert [col(i) + off for i in range(8)] == [c(i, 5) for i in range(8)]
    # slicing with only wildcards keeps the composed layout
    same, off = slice_and_offset((_, _), c)
    assert isinstance(same, ComposedLayout) and off == 0


def test_slicing_swizzled_layouts_keeps_the_function():
    rng = random.Random(3)
    for _trial in range(300):
        b = rng.randint(1, 3)
        sw = Swizzle(b, rng.randint(0, 3), rng.choice([b, b + 1, -b, -(b + 1)]))
        rows, cols = 1 << rng.randint(1, 4), 1 << rng.randint(1, 5)
        inner = rng.choice(
            [
                Layout((rows, cols), (cols, 1)),
                Layout((rows, cols)),
                Layout((rows, cols), (1, 3 * rows)),
            ]
        )
        c = ComposedLayout(sw, rng.choice([0, 1 << rng.randint(0, 10), rng.randrange(4096)]), inner)
        i, j = rng.randrange(rows), rng.randrange(cols)
        sub, off = slice_and_offset((i, _), c)
        assert [sub(k) + off for k in range(cols)] == [c(i, k) for k in range(cols)]
        sub, off = slice_and_offset((_, j), c)
        assert [sub(k) + off for k in range(rows)] == [c(k, j) for k in range(rows)]


def test_slicing_a_composed_layout_accumulates_the_offset():
    # not a power-of-two layout: the generic form keeps the swizzle and folds the offset in
    sw = Swizzle(2, 2, 3)
    c = composition(sw, Layout((6, 16), (16, 1)))
    row, off = slice_and_offset((3, _), c)
    assert off == 0 and isinstance(row, ComposedLayout)
    assert row.offset == 48
    assert [row(j) for j in range(16)] == [c(3, j) for j in range(16)]
    col = c(_, 5)
    assert [col(i) for i in range(6)] == [c(i, 5) for i in range(6)]


def test_inverses_of_swizzled_layouts():
    c = composition(Swizzle(2, 0, 3), Layout(32, 1))
    r = right_inverse(c)
    assert all(c(r(i)) == i for i in range(32))
    li = left_inverse(c)
    assert all(li(c(i)) == i for i in range(32))


def test_composition_of_layout_and_swizzle():
    # the swizzle seen through a layout that scales offsets by 2 moves its bit fields up by 1
    sw = composition(Layout(1024, 2), Swizzle(2, 3, 3))
    assert sw == Swizzle(2, 4, 3)
    assert composition(Swizzle(2, 3, 3), Swizzle(1, 5, 3)) == make_swizzle(
        Swizzle(2, 3, 3).yyy_mask ^ Swizzle(1, 5, 3).yyy_mask,
        Swizzle(2, 3, 3).zzz_mask ^ Swizzle(1, 5, 3).zzz_mask,
    )
    with pytest.raises(LayoutError, match="same shift"):
        composition(Swizzle(2, 3, 3), Swizzle(2, 3, 4))


def test_max_common_vector_is_limited_by_the_swizzle_base():
    inner = Layout((8, 64), (64, 1))
    c = composition(Swizzle(3, 3, 3), inner)
    assert max_common_vector(inner, inner) == 512
    assert max_common_vector(c, inner) == 8
    assert max_common_vector(c, c) == 512


def test_swizzle_of_symbolic_offset_is_not_supported():
    from layoutc.ir.algebra.symbolic import Symbol

    t = Symbol("t", positive=False, lower=0, upper=63)
    with pytest.raises(LayoutError, match="not supported"):
        Swizzle(3, 3, 3)(t)


# -- gather/scatter (CUTLASS examples/common/gather_tensor.hpp, example 59) ------------------------

D, H, W, C = 6, 4, 4, 64
Z, P, Q, T, R, S = 4, 2, 2, 3, 3, 3


def _dense_activation(n: int) -> Layout:
    """im2col activation ((n,z,p,q),(c,t,r,s)) -> offset in NDHWC."""
    return make_layout(
        ((n, Z, P, Q), (C, T, R, S)),
        ((D * H * W * C, H * W * C, W * C, C), (1, H * W * C, W * C, C)),
    )


def _gathered_activation(n: int, buffer: list[int]) -> ComposedLayout:
    eg, ec = E(0), E(1)
    inner = make_layout(
        ((n, Z, P, Q), (C, T, R, S)),
        ((D * H * W * eg, H * W * eg, W * eg, eg), (ec, H * W * eg, W * eg, eg)),
    )
    outer = make_layout((1, 1), (CustomStride(IndexedGather(buffer), C), 1))
    return composition(outer, make_arithmetic_tuple(0, 0), inner)


def test_gather_layout_with_identity_buffer_is_the_dense_layout():
    n = 2
    dense = _dense_activation(n)
    gathered = _gathered_activation(n, list(range(n * D * H * W)))
    assert str(gathered.outer) == "(1,1):(Custom{Indexed,64},1)"
    assert str(gathered).startswith("(1,1):(Custom{Indexed,64},1) o (0,0) o ")
    rng = random.Random(0)
    for i in rng.sample(range(size(dense)), 500):
        assert gathered(i) == dense(i)


def test_gather_layout_reads_the_index_buffer():
    n = 2
    rng = random.Random(1)
    buffer = [rng.randrange(1000) for _ in range(n * D * H * W)]
    gathered = _gathered_activation(n, buffer)
    for _trial in range(200):
        nzpq = (rng.randrange(n), rng.randrange(Z), rng.randrange(P), rng.randrange(Q))
        ctrs = (rng.randrange(C), rng.randrange(T), rng.randrange(R), rng.randrange(S))
        pixel = (
            D * H * W * nzpq[0]
            + H * W * (nzpq[1] + ctrs[1])
            + W * (nzpq[2] + ctrs[2])
            + nzpq[3]
            + ctrs[3]
        )
        assert gathered(nzpq, ctrs) == buffer[pixel] * C + ctrs[0]


def test_gather_layouts_tile_like_any_other_layout():
    n = 4
    rng = random.Random(2)
    buffer = [rng.randrange(1000) for _ in range(n * D * H * W)]
    gathered = _gathered_activation(n, buffer)
    tiler = ((4, 4, 2, 2), (32, 1, 1, 1))
    tiled = zipped_divide(gathered, tiler)
    assert isinstance(tiled, ComposedLayout)
    assert tiled.shape == zipped_divide(_dense_activation(n), tiler).shape
    # a CTA's tile: slice the rest mode and read through the buffer
    tile, off = slice_and_offset((_, 5), tiled)
    assert off == 0
    for i in rng.sample(range(size(tile)), 100):
        assert tile(i) == tiled(i, 5)
    part = logical_divide(gathered, tiler)
    assert size(part) == size(gathered)


def test_make_gather_layout_like_make_gather_tensor():
    buf = [7, 3, 9, 1]
    g = make_gather_layout((4, 8), (8, 1), IndexedGather(buf))  # rows gathered through buf
    for m in range(4):
        for k in range(8):
            assert g(m, k) == buf[m] * 8 + k
    strided = make_gather_layout((4, 8), (8, 1), StridedGather(2))  # every other row
    assert [strided(m, 0) for m in range(4)] == [0, 16, 32, 48]


def test_gather_errors():
    g = make_gather_layout((4, 8), (8, 1), IndexedGather([0, 1]))
    with pytest.raises(LayoutError, match="outside the index buffer"):
        g(3, 0)
    opaque = make_gather_layout((4, 8), (8, 1), IndexedGather(object(), name="idx"))
    with pytest.raises(LayoutError, match="not a host sequence"):
        opaque(1, 0)
    gather_rows = Layout((4, 2), (CustomStride(IndexedGather([0, 1, 2, 3]), 8), 1))
    assert gather_rows(3, 1) == 25  # evaluation is fine
    with pytest.raises(LayoutError, match="custom stride"):
        coalesce(gather_rows)
    with pytest.raises(LayoutError, match="custom stride"):
        composition(gather_rows, Layout(2, 4))
    assert g.inner == make_identity_layout((4, 8))
