"""Gather layouts (CUTLASS example 59's IndexedGather): the offset the compiler computes at a
coordinate is the layout's value for every index buffer, and a vector width claimed on a
gather layout is legal for every buffer: its lanes are consecutive addresses from an aligned
start, whatever rows the buffer names."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from layout_pass_helpers import examples
from layoutc.ir.algebra import E, Layout, composition, make_arithmetic_tuple, make_layout, size
from layoutc.ir.algebra.gather import CustomStride, IndexedGather, gather_offset
from layoutc.ir.core.types import f32
from layoutc.ir.dialects.tile.gathered import GatheredOffset, gathered_offset
from layoutc.passes.analysis.symbolic import TensorInfo
from layoutc.passes.layout.gather_vectors import POSITION_SCALE, dense_proxy
from layoutc.passes.layout.vectorize import plan_copy


class Opaque:
    """An index buffer the host cannot read (as a kernel's buffer is at compile time)."""

    name = "opaque"


@st.composite
def gather_layouts(draw):
    """(rows x cols gather layout over a row-position/column split, rows, cols, row stride S):
    coordinates (r, c) -> buffer[position(r)] * S + dense(c), with shuffled mode orders."""
    cols = draw(st.sampled_from([1, 2, 4, 8, 16]))
    rows = draw(st.sampled_from([1, 2, 3, 4, 6]))
    scale = cols * draw(st.sampled_from([1, 2, 3, 4]))
    pos_stride = draw(st.sampled_from([1, 2, 3]))
    col_stride = draw(st.sampled_from([1, 1, 2]))
    if cols * col_stride > scale:
        col_stride = 1
    first = draw(st.booleans())
    shape = (cols, rows) if first else (rows, cols)
    stride = (col_stride * E(1), pos_stride * E(0))
    stride = stride if first else stride[::-1]
    inner = make_layout(shape, stride)
    buffer_len = rows * pos_stride + 1
    return inner, scale, buffer_len


def _layout(inner, buffer, scale):
    outer = Layout._new((1, 1), (CustomStride(IndexedGather(buffer), scale), 1))
    return composition(outer, make_arithmetic_tuple(0, 0), inner)


@examples(80)
@given(gather_layouts(), st.integers(0, 2**31 - 1))
def test_gather_offset_is_the_layouts_value(case, seed):
    inner, scale, n = case
    buf = random.Random(seed).sample(range(5 * n), n)
    layout = _layout(inner, buf, scale)
    for i in range(size(inner)):
        plain, terms = gather_offset(layout, i)
        value = plain + sum(f(x) * s for f, x, s in terms)
        position, dense = inner(i)
        assert value == buf[position] * scale + dense == layout(i)
        # with a buffer unknown at compile time the offset keeps the load outside
        lazy = gathered_offset(_layout(inner, Opaque(), scale), i)
        assert isinstance(lazy, GatheredOffset) or not terms
        if isinstance(lazy, GatheredOffset):
            ((_, index, s),) = lazy.terms
            assert lazy.plain + buf[index] * s == value


@examples(80)
@given(gather_layouts())
def test_dense_proxy_encodes_position_and_offset(case):
    inner, scale, _n = case
    info = TensorInfo(None, 0, _layout(inner, Opaque(), scale), "gmem", f32, 16)
    proxy, rows = dense_proxy(info)
    assert rows == scale
    for i in range(size(inner)):
        position, dense = inner(i)
        assert proxy.layout(i) == position * POSITION_SCALE + dense


@examples(120)
@given(gather_layouts(), st.integers(0, 2**31 - 1), st.sampled_from([True, False]))
def test_claimed_width_on_a_gather_is_legal_for_any_buffer(case, seed, gathered_dst):
    inner, scale, n = case
    dense = TensorInfo(None, 0, make_layout(inner.shape), "smem", f32, 16)
    gather = TensorInfo(None, 0, _layout(inner, Opaque(), scale), "gmem", f32, 16)
    src, dst = (dense, gather) if gathered_dst else (gather, dense)
    plan = plan_copy(src, dst)
    if plan.width == 1:
        return
    w = plan.width
    assert "gathers rows" in plan.reason
    rng = random.Random(seed)
    for _ in range(3):
        buf = [rng.randrange(0, 1000) for _ in range(n)]
        layout = _layout(inner, buf, scale)
        for r in range(size(plan.tiling) // w):
            first = layout(plan.tiling(0, r))
            assert first % w == 0, "vector starts must be aligned"
            for lane in range(w):
                assert layout(plan.tiling(lane, r)) == first + lane, "lanes must be contiguous"


def test_example_59_rows_move_128_bits_and_odd_rows_do_not():
    inner = make_layout((64, 6), (E(1), 16 * E(0)))  # 64 channels of 6 gathered positions
    dense = TensorInfo(None, 0, make_layout((64, 6)), "smem", f32, 16)
    rows = TensorInfo(None, 0, _layout(inner, Opaque(), 64), "gmem", f32, 16)
    plan = plan_copy(rows, dense)
    assert plan.width == 4 and "the source gathers rows of 64 f32" in plan.reason
    odd = TensorInfo(None, 0, _layout(inner, Opaque(), 66), "gmem", f32, 16)
    assert plan_copy(odd, dense).width == 2  # rows of 66 floats start 8-byte aligned only
    across = make_layout((6, 64), (16 * E(0), E(1)))  # lanes along the gathered positions
    info = TensorInfo(None, 0, _layout(across, Opaque(), 64), "gmem", f32, 16)
    assert plan_copy(info, TensorInfo(None, 0, make_layout((6, 64)), "smem", f32, 16)).width == 1
