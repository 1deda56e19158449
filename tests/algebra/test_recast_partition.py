"""upcast/downcast/recast_layout, inner/outer_partition and make_layout_tv against CuTe's
definitions: the values CuTe's own traits state, and the laws that define them (a recast layout
addresses the same bytes; a partition is the tile or the element it names; layout_tv inverts
the raked product)."""

from __future__ import annotations

import itertools

import pytest
from algebra_strategies import laws
from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    Swizzle,
    composition,
    downcast,
    inner_partition,
    make_layout_tv,
    make_ordered_layout,
    outer_partition,
    raked_product,
    recast_layout,
    size,
    upcast,
)
from layoutc.ir.algebra.symbolic import Symbol

# ---------------------------------------------------------------------------------------------
# recast: CuTe's Copy_Traits<SM75_U32x1_LDSM_N> bit layouts seen as half_t (copy_traits_sm75.hpp)
# ---------------------------------------------------------------------------------------------


def test_ldsm_bit_layouts_upcast_to_halves():
    src_bits = Layout(((8, 4), 128), ((128, 0), 1))
    dst_bits = Layout((32, 32), (32, 1))
    assert upcast(src_bits, 16) == Layout(((8, 4), 8), ((8, 0), 1))
    assert upcast(dst_bits, 16) == Layout((32, 2), (2, 1))
    assert recast_layout(dst_bits, 1, 16) == upcast(dst_bits, 16)


def test_negative_and_zero_strides():
    assert upcast(Layout((8, 4), (-1, 0)), 2) == Layout((4, 4), (-1, 0))
    assert upcast(Layout((8, 4), (1, -16)), 4) == Layout((2, 4), (1, -4))
    assert downcast(Layout((8, 4, 2), (-1, 16, 1)), 2) == Layout((16, 4, 4), (-1, 32, 1))
    with pytest.raises(LayoutError, match="static stride-1 mode"):  # CuTe's has_int1
        downcast(Layout((8, 4), (-1, 8)), 2)


def test_non_unit_stride_cases():
    # a stride smaller than N but dividing it: the mode shrinks by N/stride
    assert upcast(Layout((8, 4), (2, 16)), 4) == Layout((4, 4), (1, 4))
    with pytest.raises(LayoutError, match="do not divide"):
        upcast(Layout((8, 4), (3, 24)), 2)
    # downcast multiplies every non-unit stride, and needs a stride-1 mode (has_int1)
    assert downcast(Layout((4, 8), (8, 1)), 4) == Layout((4, 32), (32, 1))
    with pytest.raises(LayoutError, match="static stride-1 mode"):
        downcast(Layout((4, 8), (16, 2)), 2)


def test_recast_ratios():
    row = Layout((8, 64), (64, 1))  # 64 halves per row
    assert recast_layout(row, 16, 16) == row
    assert recast_layout(row, 16, 32) == Layout((8, 32), (32, 1))
    assert recast_layout(row, 16, 8) == Layout((8, 128), (128, 1))
    # 3/2: upcast by 3 then downcast by 2 (CuTe's num/den in lowest terms)
    lay = Layout((12, 5), (1, 12))
    assert recast_layout(lay, 16, 24) == downcast(upcast(lay, 3), 2)


def test_dynamic_strides_divide_when_provable():
    s = Symbol("s", divisible_by=8)
    up = upcast(Layout((8, 4), (1, s)), 8)
    assert up.shape == (1, 4)
    assert up.stride[0] == 1 and up.stride[1] * 8 == s
    k = Symbol("k")
    with pytest.raises(LayoutError, match="cannot prove"):
        upcast(Layout((8, 4), (1, k)), 8)
    down = downcast(Layout((8, 4), (1, k)), 2)
    assert down.shape == (16, 4) and down.stride[1] == 2 * k


def test_swizzles():
    # Swizzle<B,M,S>: upcast lowers M by log2 N (B shrinks once M runs out); downcast raises it
    assert upcast(Swizzle(3, 3, 3), 8) == Swizzle(3, 0, 3)
    assert upcast(Swizzle(3, 3, 3), 32) == Swizzle(1, 0, 3)
    assert upcast(Swizzle(2, 1, 3), 8) == Swizzle(0, 0, 3)
    assert downcast(Swizzle(3, 3, 3), 2) == Swizzle(3, 4, 3)
    with pytest.raises(LayoutError, match="power of two"):
        upcast(Swizzle(3, 3, 3), 3)


def test_composed_swizzled_layout_addresses_the_same_bytes():
    """The 128-byte swizzled f16 tile of CUTLASS's sm80 GEMMs, seen as 128-bit and 8-bit units."""
    sw = composition(Swizzle(3, 3, 3), Layout((8, 64), (64, 1)))
    up = upcast(sw, 8)
    assert up == composition(Swizzle(3, 0, 3), Layout((8, 8), (8, 1)))
    for m, k in itertools.product(range(8), range(8)):
        assert up(m, k) * 8 == sw(m, 8 * k)
    down = downcast(sw, 2)
    for m, k in itertools.product(range(8), range(128)):
        assert down(m, k) == 2 * sw(m, k // 2) + k % 2


@st.composite
def compact_layouts(draw, n):
    """A compact layout (a bijection onto [0, size)) whose stride-1 mode is a multiple of n."""
    rank = draw(st.integers(1, 3))
    shape = [draw(st.sampled_from((1, 2, 3, 4))) for _ in range(rank)]
    order = draw(st.permutations(range(rank)))
    first = order.index(0)
    shape[first] *= n
    return make_ordered_layout(tuple(shape), tuple(order))


@laws
@given(st.sampled_from((2, 4, 8)).flatmap(lambda n: st.tuples(st.just(n), compact_layouts(n))))
def test_upcast_of_compact_layout_covers_the_same_bytes(case):
    n, lay = case
    up = upcast(lay, n)
    assert sorted(up(i) for i in range(size(up))) == list(range(size(lay) // n))
    if all(e > 1 for e in _flat(up.shape)):  # a mode upcast to size 1 has stride 1 too
        assert downcast(up, n) == lay
    # every unit of the upcast layout is n consecutive units of the original
    starts = {lay(i) for i in range(size(lay)) if lay(i) % n == 0}
    assert {up(i) * n for i in range(size(up))} == starts


@laws
@given(st.sampled_from((2, 4)).flatmap(lambda n: st.tuples(st.just(n), compact_layouts(1))))
def test_downcast_splits_every_unit(case):
    n, lay = case
    if not any(d == 1 for d in _flat(lay.stride)):
        return
    down = downcast(lay, n)
    values = sorted(down(i) for i in range(size(down)))
    assert values == list(range(size(lay) * n))


def _flat(t):
    return [x for e in t for x in _flat(e)] if isinstance(t, tuple) else [t]


# ---------------------------------------------------------------------------------------------
# inner/outer partition (CuTe's tensor_impl.hpp), as functions of the coordinates
# ---------------------------------------------------------------------------------------------


@laws
@given(
    st.sampled_from((1, 2, 4)),
    st.sampled_from((1, 2, 3)),
    st.sampled_from((1, 2, 4)),
    st.sampled_from((1, 3)),
    st.booleans(),
    st.data(),
)
def test_inner_and_outer_partition_pick_tiles_and_elements(t0, r0, t1, r1, row_major, data):
    m, n = t0 * r0, t1 * r1
    lay = Layout((m, n), (n, 1)) if row_major else Layout((m, n))
    a, b = data.draw(st.integers(0, r0 - 1)), data.draw(st.integers(0, r1 - 1))
    tile = inner_partition(lay, (t0, t1), (a, b))
    base = lay(a * t0, b * t1)
    for i, j in itertools.product(range(t0), range(t1)):
        assert tile(i, j) + base == lay(a * t0 + i, b * t1 + j)
    i, j = data.draw(st.integers(0, t0 - 1)), data.draw(st.integers(0, t1 - 1))
    part = outer_partition(lay, (t0, t1), (i, j))
    for p, q in itertools.product(range(r0), range(r1)):
        assert part(p, q) + lay(i, j) == lay(p * t0 + i, q * t1 + j)


def test_partition_coordinates_as_cute_pads_them():
    lay = Layout((8, 16, 2))
    # a short tuple coordinate is padded with _ (append<R>(coord, _)): every tile of mode 2
    assert inner_partition(lay, (4, 8), (1, 1)) == Layout((4, 8, 2), (1, 8, 128))
    # an integer coordinate indexes the whole (rest) mode
    assert inner_partition(lay, (4, 8), 3) == Layout((4, 8), (1, 8))
    assert outer_partition(lay, (4, 8), 5) == Layout((2, 2, 2), (4, 64, 128))
    with pytest.raises(LayoutError, match="has rank 4"):
        inner_partition(lay, (4, 8), (0, 0, 0, 0))


# ---------------------------------------------------------------------------------------------
# make_layout_tv
# ---------------------------------------------------------------------------------------------


@laws
@given(
    st.sampled_from((Layout((4, 8)), Layout((8, 4), (4, 1)), Layout((32, 1)), Layout((2, 16)))),
    st.sampled_from((Layout((1, 4)), Layout((4, 1)), Layout((2, 2), (2, 1)), Layout((1, 1)))),
)
def test_make_layout_tv_inverts_the_raked_product(thr, val):
    tiler, tv = make_layout_tv(thr, val)
    mn = raked_product(thr, val)
    assert tiler == tuple(size(mn, i) for i in range(2))
    assert size(tv, 0) == size(thr) and size(tv, 1) == size(val)
    nthr = size(thr)
    for t, v in itertools.product(range(size(thr)), range(size(val))):
        assert mn(tv(t, v)) == t + v * nthr
    # each value block of a thread is the val layout, placed by the thread layout
    m_t = size(thr, 0)
    m_v = size(val, 0)
    for t, v in itertools.product(range(size(thr)), range(size(val))):
        idx = tv(t, v)
        m, n = idx % tiler[0], idx // tiler[0]
        assert thr(m // m_v, n // size(val, 1)) == t and (m // m_v) < m_t
        assert val(m % m_v, n % size(val, 1)) == v


def test_make_layout_tv_is_make_tiled_copys():
    from layoutc.ir.dialects.tile import tiled

    thr, val = Layout((32, 8), (8, 1)), Layout((1, 4))
    copy = tiled.make_tiled_copy(tiled.make_copy_atom("universal", 128, "f32"), thr, val)
    assert make_layout_tv(thr, val) == (copy.tiler_mn, copy.layout_tv)
    assert make_layout_tv(Layout((4, 8))) == ((4, 8), Layout((32, 1), (1, 0)))
