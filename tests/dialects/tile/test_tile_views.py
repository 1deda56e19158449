"""View ops: result types against the algebra, on random static layouts (hypothesis)."""

from __future__ import annotations

import itertools
from math import gcd

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from layoutc.ir.algebra import (
    Layout,
    LayoutError,
    _,
    composition,
    flat_divide,
    logical_divide,
    rank,
    size,
    slice_and_offset,
    tiled_divide,
    zipped_divide,
)
from layoutc.ir.core import DiagnosticError, f16, f32, index
from layoutc.ir.dialects.layout import ConstantOp as LayoutConstant
from layoutc.ir.dialects.layout import LayoutAttr, TileAttr
from layoutc.ir.dialects.layout.text import Kind, format_value
from layoutc.ir.dialects.tile import (
    CoalesceOp,
    CompositionOp,
    FlatDivideOp,
    FlattenOp,
    GroupModesOp,
    LocalPartitionOp,
    LocalTileOp,
    LogicalDivideOp,
    PartitionTVOp,
    SliceOp,
    TensorType,
    TiledDivideOp,
    ZippedDivideOp,
)
from tile_helpers import Kernel, examples, static_layouts


def _text(layout) -> str:
    return format_value(layout, Kind.LAYOUT)[1]


def _true_alignment(alignment: int, elem_bytes: int, offset: int) -> int:
    if offset == 0:
        return alignment
    return gcd(alignment, offset * elem_bytes)


@st.composite
def slices(draw):
    layout = draw(static_layouts())
    coord = []
    for i in range(rank(layout)):
        n = size(layout, i)
        coord.append(draw(st.one_of(st.just(_), st.integers(0, n - 1))))
    if all(c is not _ for c in coord):
        coord[draw(st.integers(0, len(coord) - 1))] = _
    return layout, tuple(coord) if len(coord) > 1 else coord[0]


@examples(60)
@given(case=slices(), alignment=st.sampled_from([4, 8, 16]), dynamic=st.booleans())
def test_slice_result_type_is_the_algebra(case, alignment, dynamic) -> None:
    layout, coord = case
    src = TensorType(f32, "gmem", _text(layout), alignment)
    entries = [c for c in (coord if isinstance(coord, tuple) else (coord,)) if c is not _]
    k = Kernel([src] + ([index] * len(entries) if dynamic else []))
    if dynamic:
        it = iter(k.args[1:])
        values = tuple(
            next(it) if c is not _ else _ for c in (coord if isinstance(coord, tuple) else (coord,))
        )
    else:
        values = tuple(
            k.constant(c) if c is not _ else _
            for c in (coord if isinstance(coord, tuple) else (coord,))
        )
    op_coord = values if isinstance(coord, tuple) else values[0]
    op = k.create(SliceOp, k.args[0], op_coord)
    expected_layout, expected_offset = slice_and_offset(coord, layout)
    t = op.result.type
    assert t.layout_text == _text(expected_layout)
    if not dynamic:
        assert t.alignment == _true_alignment(alignment, 4, expected_offset)
    else:
        # Sound for every value the dynamic entries can take.
        ranges = [range(c + 1) for c in entries]
        for vals in itertools.islice(itertools.product(*ranges), 200):
            it = iter(vals)
            concrete = tuple(
                next(it) if c is not _ else _
                for c in (coord if isinstance(coord, tuple) else (coord,))
            )
            c_arg = concrete if isinstance(coord, tuple) else concrete[0]
            off = slice_and_offset(c_arg, layout)[1]
            assert _true_alignment(alignment, 4, off) % t.alignment == 0
    assert not k.finish()


TILERS = st.one_of(
    st.tuples(st.integers(1, 4)).map(lambda t: Layout(t[0])),
    st.tuples(st.integers(1, 4), st.integers(1, 3)).map(lambda t: Layout(t[0], t[1])),
    st.tuples(st.integers(1, 3), st.integers(1, 3)).map(lambda t: (Layout(t[0]), Layout(t[1]))),
)


@examples(60)
@given(
    layout=static_layouts(max_rank=2),
    tiler=TILERS,
    which=st.sampled_from(
        [
            (CompositionOp, composition),
            (LogicalDivideOp, logical_divide),
            (ZippedDivideOp, zipped_divide),
            (TiledDivideOp, tiled_divide),
            (FlatDivideOp, flat_divide),
        ]
    ),
)
def test_tiler_views_agree_with_the_algebra(layout, tiler, which) -> None:
    cls, fn = which
    try:
        expected = fn(layout, tiler)
    except LayoutError:
        expected = None
    src = TensorType(f16, "smem", _text(layout), 16)
    k = Kernel([src])
    attr = TileAttr(tiler) if isinstance(tiler, tuple) else LayoutAttr(tiler)
    t = k.create(LayoutConstant, attr).results[0]
    if expected is None:
        with pytest.raises(DiagnosticError, match=f"'{cls.name}' op"):
            k.create(cls, k.args[0], t)
        return
    assume(not isinstance(expected, tuple))
    op = k.create(cls, k.args[0], t)
    assert op.result.type.layout_text == _text(expected)
    assert op.result.type.alignment == 16
    assert not k.finish()


def test_dynamic_coordinates_give_dynamic_offsets_not_dynamic_layouts() -> None:
    src = TensorType(f32, "gmem", "(128,(4,8)):(32,(1,4096))", 16)
    k = Kernel([src, index, index])
    op = k.create(SliceOp, k.args[0], (k.args[1], (_, k.args[2])))
    assert op.result.type.layout_text == "(4):(1)"
    assert op.result.type.alignment == 16  # offset 32*i + 4096*j elements: 128-byte steps
    odd = TensorType(f32, "gmem", "(128,(4,8)):(3,(1,4096))", 16)
    k2 = Kernel([odd, index])
    op2 = k2.create(SliceOp, k2.args[0], (k2.args[1], (_, 0)))
    assert op2.result.type.layout_text == "(4):(1)"
    assert op2.result.type.alignment == 4  # 3*i elements: only element alignment is known
    assert not k.finish()
    assert not k2.finish()


def test_offset_divisibility_keeps_alignment() -> None:
    # A 4096-element tile per block: the block offset keeps 16-byte alignment.
    src = TensorType(f32, "gmem", "(4096,?):(1,4096)", 16)
    k = Kernel([src, index])
    g = k.create(SliceOp, k.args[0], (_, k.args[1])).result
    assert g.type.text == '!tile.tensor<f32, gmem, "(4096):(1)", 16>'
    # A thread's 4 consecutive values at 4 * tid: still 16-byte aligned.
    tv = LayoutAttr("(256,(4,4)):(4,(1,1024))")
    v = k.create(PartitionTVOp, g, tv, k.args[1]).result
    assert v.type.text == '!tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>'
    assert not k.finish()


def test_dynamic_strides_lose_alignment_unless_assumed() -> None:
    from layoutc.ir.dialects.tile import AssumeOp

    src = TensorType(f32, "gmem", "(?,?):(1,?)", 16)
    k = Kernel([src, index])
    row = k.create(SliceOp, k.args[0], (_, k.args[1])).result
    assert row.type.alignment == 4  # j * stride: nothing known about either
    j4 = k.create(AssumeOp, k.args[1], divisible_by=4).result
    row4 = k.create(SliceOp, k.args[0], (_, j4)).result
    assert row4.type.alignment == 16  # 4 | j: 4 * stride elements = 16 bytes
    assert not k.finish()


def test_local_tile_matches_cute_inner_partition() -> None:
    # CuTe: local_tile(mA (M,K), Shape<128,32,8>, (bx, by, _), Step<_1,X,_1>) -> (128,8,k)
    src = TensorType(f32, "gmem", "(?,64):(64,1)", 16)
    k = Kernel([src, index, index])
    op = k.create(
        LocalTileOp, k.args[0], "(128,32,8)", (k.args[1], k.args[2], _), proj=(True, False, True)
    )
    assert op.result.type.layout_text == "(128,8,8):(64,1,8)"
    # without proj: the 2-D tile of a 2-D tensor
    op2 = k.create(LocalTileOp, k.args[0], "(128,32)", (k.args[1], k.args[2]))
    assert op2.result.type.layout_text == "(128,32):(64,1)"
    assert not k.finish()


@examples(40)
@given(
    shape=st.tuples(st.sampled_from([8, 16, 32]), st.sampled_from([8, 16])),
    thr=st.sampled_from([((4, 2), (2, 1)), ((4, 2), None), ((8, 1), None), ((2, 4), (4, 1))]),
    tid=st.integers(0, 7),
)
def test_local_partition_is_cute_outer_partition(shape, thr, tid) -> None:
    data = Layout(shape, (shape[1], 1))
    thr_layout = Layout(thr[0], thr[1])
    src = TensorType(f32, "smem", _text(data), 16)
    k = Kernel([src])
    op = k.create(LocalPartitionOp, k.args[0], thr_layout, k.constant(tid))
    # reference: thread tid owns the elements whose coordinate mod the thread shape is its own
    got, offset = op.result.type.layout(), None
    tm, tn = thr[0]
    crd = None
    for m in range(tm):
        for n in range(tn):
            if thr_layout((m, n)) == tid:
                crd = (m, n)
    assert crd is not None
    expected = sorted(
        data((i, j)) for i in range(shape[0]) for j in range(shape[1]) if (i % tm, j % tn) == crd
    )
    offset = data(crd)
    elems = sorted(offset + got(i) for i in range(size(got)))
    assert elems == expected
    assert not k.finish()


def test_restructuring_views() -> None:
    src = TensorType(f32, "rmem", "((2,4),(3,5)):((1,2),(8,24))", 4)
    k = Kernel([src])
    flat = k.create(FlattenOp, k.args[0]).result
    assert flat.type.layout_text == "(2,4,3,5):(1,2,8,24)"
    grouped = k.create(GroupModesOp, flat, 1, 3).result
    assert grouped.type.layout_text == "(2,(4,3),5):(1,(2,8),24)"
    co = k.create(CoalesceOp, k.args[0]).result
    assert co.type.layout_text == "120:1"
    co2 = k.create(CoalesceOp, k.args[0], (1, 1)).result
    assert co2.type.layout_text == "(8,15):(1,8)"
    with pytest.raises(DiagnosticError, match=r"\[1, 7\) is not a range of modes"):
        k.create(GroupModesOp, flat, 1, 7)
    assert not k.finish()


def test_swizzled_views_address_the_swizzled_elements() -> None:
    from layoutc.ir.algebra import parse_layout

    text = "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))"
    swizzled = parse_layout(text)
    src = TensorType(f32, "smem", text, 16)
    k = Kernel([src])
    for r in range(8):
        row = k.create(SliceOp, k.args[0], (r, _)).result
        got = row.type.layout()
        offset = slice_and_offset((r, _), swizzled)[1]
        assert [offset + got(i) for i in range(8)] == [swizzled((r, i)) for i in range(8)]
    assert not k.finish()


def test_partition_tv_needs_a_rank_2_tv_layout() -> None:
    src = TensorType(f32, "gmem", "(64):(1)", 16)
    k = Kernel([src, index])
    with pytest.raises(DiagnosticError, match="must have rank 2"):
        k.create(PartitionTVOp, k.args[0], Layout(64), k.args[1])


def test_slice_needs_a_wildcard() -> None:
    src = TensorType(f32, "gmem", "(4,4):(1,4)", 16)
    k = Kernel([src])
    with pytest.raises(DiagnosticError, match="has no '_': it names one element"):
        k.create(SliceOp, k.args[0], (1, 2))


def test_kernel_argument_facts_sharpen_alignment() -> None:
    from tile_helpers import messages

    text = """
func.func @k(%t: !tile.tensor<f32, gmem, "(4,?):(1,?)", 16>, %j: index {layoutc.divisible_by = 4 : i64}, %i: index) {
  %a = tile.slice %t[(_, %j)] : !tile.tensor<f32, gmem, "(4,?):(1,?)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %b = tile.slice %t[(_, %i)] : !tile.tensor<f32, gmem, "(4,?):(1,?)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}
"""
    assert messages(text) == [
        "'tile.slice' op result alignment 16 is not proven: the view's offset keeps 4-byte alignment"
    ]


def test_dynamic_slice_of_a_swizzled_layout_keeps_the_offset_inside() -> None:
    # A swizzle does not commute with a pointer offset: as in CuTe, the dynamic offset goes
    # into the composed layout and the pointer does not move.
    src = TensorType(f32, "smem", "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16)
    k = Kernel([src, index])
    row = k.create(SliceOp, k.args[0], (k.args[1], _)).result
    assert row.type.text == '!tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>'
    assert not k.finish()
