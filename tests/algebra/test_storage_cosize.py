"""storage_cosize: an allocation of a layout holds every offset the layout produces.

The law is checked against brute force over random swizzled layouts (both Sw<B,M,S> signs,
composed offsets, padded and broadcast strides), on the exact path (small static layouts) and
on the bound used for large or symbolic ones."""

from __future__ import annotations

import os
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import (
    LayoutError,
    Swizzle,
    composition,
    cosize,
    make_layout,
    storage_cosize,
)
from layoutc.ir.algebra import storage as storage_module
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.inttuple import product
from layoutc.ir.algebra.symbolic import Symbol

CI = os.environ.get("CI") == "true"
EXAMPLES = settings(max_examples=60 if CI else 300, deadline=None)


@st.composite
def swizzles(draw: st.DrawFn) -> Swizzle:
    b = draw(st.integers(0, 3))
    m = draw(st.integers(0, 4))
    s = draw(st.integers(max(b, 1), 5)) * draw(st.sampled_from([1, -1]))
    return Swizzle(b, m, s)


@st.composite
def swizzled_layouts(draw: st.DrawFn) -> ComposedLayout:
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 9)) for _ in range(rank))
    stride = tuple(draw(st.integers(0, 40)) for _ in range(rank))
    inner = make_layout(shape, stride)
    if draw(st.booleans()):  # a swizzle of a swizzled layout
        inner = ComposedLayout(draw(swizzles()), draw(st.integers(0, 9)), inner)
    return ComposedLayout(draw(swizzles()), draw(st.integers(0, 70)), inner)


def _furthest(layout) -> int:
    return max(layout(i) for i in range(product(layout.shape)))


@EXAMPLES
@given(swizzled_layouts())
def test_exact_for_small_static_layouts(layout):
    assert storage_cosize(layout) == _furthest(layout) + 1


@EXAMPLES
@given(swizzled_layouts())
def test_the_bound_for_large_layouts_covers_every_offset(layout):
    with _bound_only():
        assert storage_cosize(layout) >= _furthest(layout) + 1


def _bound_only():
    """Size small layouts as if they were too large to enumerate."""
    return patch.object(storage_module, "_EXACT_LIMIT", 0)


def test_a_swizzle_past_the_inner_cosize():
    """The fuzzer's case: offsets 40 and 41 of (6,7):(7,1) become 44 and 45."""
    layout = composition(Swizzle(1, 2, 3), make_layout((6, 7), (7, 1)))
    assert cosize(layout) == 42
    assert storage_cosize(layout) == 46


def test_plain_layouts_and_whole_swizzle_blocks_keep_their_cosize():
    assert storage_cosize(make_layout((6, 7), (9, 1))) == cosize(make_layout((6, 7), (9, 1)))
    for sw, shape, stride in [
        (Swizzle(3, 3, 3), (8, 64), (64, 1)),  # GEMM tiles: whole 512-element blocks
        (Swizzle(2, 3, 3), (32, 32), (32, 1)),
        (Swizzle(3, 4, 3), (128, 128), (1, 128)),  # too large to enumerate: the bound
    ]:
        layout = composition(sw, make_layout(shape, stride))
        assert storage_cosize(layout) == cosize(layout)


def test_the_bound_rounds_up_to_the_top_of_the_swizzled_bits():
    """Sw<1,2,3> changes bit 2 only: 42 rounds up to 48 (not to the 64 of bit 5)."""
    with _bound_only():
        layout = composition(Swizzle(1, 2, 3), make_layout((6, 7), (7, 1)))
        assert storage_cosize(layout) == 48
        # a negative shift changes the higher field (bit 5 from bit 2): up to 64
        layout = composition(Swizzle(1, 2, -3), make_layout((6, 7), (7, 1)))
        assert storage_cosize(layout) == 64


def test_symbolic_layouts_get_the_rounded_up_cosize():
    n = Symbol("N", lower=1)
    gemm = composition(Swizzle(3, 3, 3), make_layout((n, 64), (64, 1)))
    assert str(storage_cosize(gemm)) == str(cosize(gemm)) == "64*N"
    k = Symbol("K", lower=1)
    ragged = composition(Swizzle(1, 2, 3), make_layout((6, k), (k, 1)))
    bound = storage_cosize(ragged)
    for value in range(1, 20):
        concrete = composition(Swizzle(1, 2, 3), make_layout((6, value), (value, 1)))
        assert bound.subs({k: value}) >= _furthest(concrete) + 1


def test_an_unsizable_composed_layout_is_refused():
    gather = ComposedLayout(make_layout(4, Symbol("G")), 0, make_layout(100000))
    with pytest.raises(LayoutError, match="not supported: sizing an allocation"):
        storage_cosize(gather)
