"""Swizzled layouts at run-time coordinates: a thread's slice of ``Sw o 0 o L`` is
``Sw o (offset) o L'`` with a dynamic offset, accesses to it verify, and the element offset an
access addresses, ``Sw(offset + L'(c))``, is kept as a ``SwizzledOffset`` (the symbolic engine
has no XOR) whose value is CuTe's for every value of the symbols."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout, Swizzle, _, composition, size
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.symbolic import Symbol
from layoutc.ir.core import f32, index
from layoutc.ir.dialects.tile import (
    AllocSmemOp,
    LoadOp,
    PartitionTVOp,
    SliceOp,
    StoreOp,
    TensorType,
)
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset, element_offset
from tile_helpers import Kernel, examples

EXAMPLE_59 = composition(Swizzle(1, 2, 3), Layout((8, (4, 2)), (4, (1, 32))))


@st.composite
def swizzles(draw):
    b = draw(st.integers(1, 3))
    m = draw(st.integers(0, 3))
    s = draw(st.integers(b, 4)) * draw(st.sampled_from([1, -1]))
    return Swizzle(b, m, s)


@examples(150)
@given(
    sw=swizzles(),
    shape=st.tuples(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4, 8])),
    row_major=st.booleans(),
    k=st.sampled_from([1, 3, 4, 16]),
    c=st.integers(0, 7),
    t=st.integers(0, 63),
    coord=st.integers(0, 63),
)
def test_swizzled_offsets_evaluate_to_cute(sw, shape, row_major, k, c, t, coord):
    inner = Layout(shape, (shape[1], 1) if row_major else (1, shape[0]))
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=63)
    layout = ComposedLayout(sw, k * tid + c, inner)
    i = coord % size(inner)
    got = element_offset(layout, i)
    want = ComposedLayout(sw, k * t + c, inner)(i)  # all static: CuTe's function
    assert isinstance(got, SwizzledOffset)  # the swizzle stays outside the SymInt
    assert got.evaluate({tid: t}) == want
    assert (got + 5).evaluate({tid: t}) == want + 5  # a pointer offset adds after it


def test_static_arguments_are_swizzled_now():
    assert element_offset(EXAMPLE_59, (3, (1, 1))) == EXAMPLE_59((3, (1, 1)))
    assert element_offset(Layout((4, 8), (8, 1)), (1, 2)) == 10


def test_static_offsets_are_remembered_across_layouts_that_compare_equal():
    """``layout(coord)`` of static pairs is memoised across compiles (a kernel's fragments
    are new but equal layouts each time); a pair with a symbol is computed every time, and
    an out-of-range coordinate still raises."""
    import pytest
    from layoutc.ir.algebra.errors import LayoutError
    from layoutc.ir.dialects.tile import swizzled

    fragment = ((2, (2, 2)), 4, 4), ((1, (2, 16)), 4, 32)
    coord = ((1, (0, 1)), 3, 2)
    first = element_offset(Layout(*fragment), coord)
    assert first == 1 + 16 + 12 + 64
    assert (Layout(*fragment), coord) in swizzled._static_indices
    assert element_offset(Layout(*fragment), coord) == first  # an equal, new layout
    n = Symbol.fresh("n", positive=False, lower=0, upper=7)
    symbolic = element_offset(Layout(*fragment), ((1, (0, 1)), 3, n))
    assert symbolic == 29 + 32 * n
    assert all(type(v) is int for v in swizzled._static_indices.values())
    assert (Layout(*fragment), ((1, (0, 1)), 3, n)) not in swizzled._static_indices
    with pytest.raises(LayoutError):
        element_offset(Layout(*fragment), ((1, (0, 1)), 4, 2))
    swizzled_tile = ComposedLayout(Swizzle(3, 2, 3), 4 * n, Layout(*fragment))
    assert element_offset(swizzled_tile, coord).arg == 4 * n + first


def test_thread_slices_of_a_swizzled_tile_verify_and_keep_the_offset_inside():
    k = Kernel([index, index])
    smem = k.create(AllocSmemOp, EXAMPLE_59, f32, 16).results[0]
    tid, j = k.args
    row = k.create(SliceOp, smem, (tid, _)).results[0]
    assert row.type is TensorType(f32, "smem", "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16)
    # an access at a run-time coordinate of the slice, and of the whole tile
    x = k.create(LoadOp, row, j).result
    k.create(StoreOp, x, smem, (j, (1, 0)))
    tv = Layout((8, 8), (1, 8))  # thread t takes the row t
    part = k.create(PartitionTVOp, smem, tv, tid).results[0]
    assert part.type.layout_text.startswith("Sw<1,2,3> o ? o ")
    k.create(LoadOp, part, 5)
    assert not k.finish()
