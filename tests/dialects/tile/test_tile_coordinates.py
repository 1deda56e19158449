"""Coordinate tensors carry their origin (CuTe's arithmetic-tuple iterator): the type prints
it, views advance it as they advance a pointer, and ``tile.load`` yields ``origin + layout(c)``,
static only where both are. Checked against the memory path: a view of a column-major layout
addresses element ``k`` exactly where the same view of the identity tensor holds
``idx2crd(k, shape)``."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout, _, size
from layoutc.ir.algebra.inttuple import idx2crd
from layoutc.ir.core import DiagnosticError, f32, index, parse_type
from layoutc.ir.dialects.layout import ConstantOp as LayoutConstant
from layoutc.ir.dialects.layout import IntTupleAttr
from layoutc.ir.dialects.layout.text import Kind, format_value, is_instance
from layoutc.ir.dialects.tile import (
    LoadOp,
    LocalPartitionOp,
    LocalTileOp,
    MakeIdentityTensorOp,
    SliceOp,
    TensorType,
)
from tile_helpers import Kernel, ctx, examples


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # the identity tensor's own origin (zeros shaped like the codomain) is not printed
        ('!tile.tensor<coord, "(4):(1@0)", origin = "(0)">', '!tile.tensor<coord, "(4):(1@0)">'),
        ('!tile.tensor<coord, "8:1", origin = "0">', '!tile.tensor<coord, "8:1">'),
        (
            '!tile.tensor<coord, "((2,3),4):((1@0@0,1@1@0),1@1)", origin = "((0,0),0)">',
            '!tile.tensor<coord, "((2,3),4):((1@0@0,1@1@0),1@1)">',
        ),
        (
            '!tile.tensor<coord, "(4):(1@0)", origin = "(?)">',
            '!tile.tensor<coord, "(4):(1@0)", origin = "(?)">',
        ),
        # a slice of a 2-D identity tensor keeps the 2-D origin: its elements are (i, 3)
        (
            '!tile.tensor<coord, "(4):(1@0)", origin = "(0, 3)">',
            '!tile.tensor<coord, "(4):(1@0)", origin = "(0,3)">',
        ),
        # basis entries are spelled out as the coordinates they stand for
        (
            '!tile.tensor<coord, "(4,8):(1@0,1@1)", origin = "3@1">',
            '!tile.tensor<coord, "(4,8):(1@0,1@1)", origin = "(0,3)">',
        ),
        ('!tile.tensor<coord, "8:1", origin = "?">', '!tile.tensor<coord, "8:1", origin = "?">'),
    ],
)
def test_origins_print_canonically(text: str, canonical: str) -> None:
    t = parse_type(text, ctx())
    assert t.text == canonical
    assert parse_type(canonical, ctx()) is t


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '!tile.tensor<coord, "8:1", origin = "(3)">',
            "invalid origin in '!tile.tensor': the origin '(3)' is a tuple but the layout "
            "'8:1' yields integers",
        ),
        (
            '!tile.tensor<coord, "(8):(1@0)", origin = "5">',
            "the origin '5' is an integer but the layout '(8):(1@0)' yields coordinates",
        ),
        ('!tile.tensor<coord, "(8):(1@0)", origin = "(N)">', "invalid origin"),
        ('!tile.tensor<coord, "(8):(1@0)", start = "(0)">', "expected 'origin'"),
        ('!tile.tensor<f32, gmem, "8:1", 4, origin = "0">', "expected '>'"),
    ],
)
def test_invalid_origins_are_diagnosed(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=re.escape(message)):
        parse_type(text, ctx())


def test_origin_accessors() -> None:
    t = TensorType(None, "coord", "(4,8):(1@0,1@1)", origin="(?,16)")
    assert t.origin_text == "(?,16)" and t.num_dynamic == 0 and t.num_dynamic_origin == 1
    o = t.origin([5])
    assert tuple(o) == (5, 16)
    assert tuple(TensorType(None, "coord", "(4,8):(1@0,1@1)").origin()) == (0, 0)
    with pytest.raises(ValueError, match="only a coordinate tensor has an origin"):
        TensorType(f32, "gmem", "8:1", 4, origin="0")
    with pytest.raises(ValueError, match="only a coordinate tensor has an origin"):
        TensorType(f32, "gmem", "8:1", 4).origin()


def _identity(k: Kernel, shape: tuple[int, ...]):
    s = k.create(LayoutConstant, IntTupleAttr(shape)).results[0]
    return k.create(MakeIdentityTensorOp, s).results[0]


def _tuple_text(value) -> str:
    return format_value(value, Kind.INT_TUPLE)[1]


@examples(60)
@given(
    shape=st.tuples(st.integers(1, 20), st.integers(1, 20)),
    tile=st.tuples(st.sampled_from([2, 4, 8]), st.sampled_from([1, 2, 4])),
    block=st.tuples(st.integers(0, 4), st.integers(0, 4)),
    thr=st.sampled_from([(2, 1), (1, 2), (2, 2)]),
    tid=st.integers(0, 3),
)
def test_loads_of_coordinate_views_are_the_global_coordinates(shape, tile, block, thr, tid):
    m, n = shape
    tid %= thr[0] * thr[1]
    grid = (-(-m // tile[0]), -(-n // tile[1]))
    block = (block[0] % grid[0], block[1] % grid[1])
    # the memory oracle: the column-major layout of the shape padded to whole tiles (ragged
    # tiles reach past the shape, and so do their coordinates): element k is at idx2crd(k, pad)
    pad = (grid[0] * tile[0], grid[1] * tile[1])
    column_major = Layout(pad, (1, pad[0]))
    mem = TensorType(f32, "gmem", format_value(column_major, Kind.LAYOUT)[1], 4)
    k = Kernel([mem, index, index])
    thr_layout = Layout(thr, (thr[1], 1))
    # static block and thread indices: everything is static, and must be right
    ids = (k.constant(block[0]), k.constant(block[1]), k.constant(tid))
    dyn = (k.args[1], k.args[2], ids[2])
    views = {}
    for name, (bx, by, t) in (("static", ids), ("dynamic", dyn)):
        c = k.create(LocalTileOp, _identity(k, shape), tile, (bx, by)).results[0]
        views[name] = k.create(LocalPartitionOp, c, thr_layout, t).results[0]
    g = k.create(LocalTileOp, k.args[0], tile, (ids[0], ids[1]))
    p = k.create(LocalPartitionOp, g.results[0], thr_layout, ids[2])
    # the memory path: the element offsets of the same views of the column-major tensor
    lay, off = LocalTileOp.compute(g.properties, [column_major, *block])
    lay, off2 = LocalPartitionOp.compute(p.properties, [lay, tid])
    assert views["static"].type.layout_text == views["dynamic"].type.layout_text
    for i in range(size(lay)):
        want = _tuple_text(idx2crd(off + off2 + lay(i), pad))
        got = k.create(LoadOp, views["static"], i).result.type.text
        assert got == f'!layout.int_tuple<"{want}">'
        dynamic = k.create(LoadOp, views["dynamic"], i).result.type
        # the static coordinate is one value of the dynamic pattern; a block index that can be
        # more than 0 makes its entry dynamic
        assert is_instance(want, dynamic.parsed.text)
        entries = dynamic.parsed.text.strip("()").split(",")
        assert [e == "?" for e in entries] == [g > 1 for g in grid]
    assert not k.finish()


def test_slices_advance_the_origin_statically() -> None:
    k = Kernel([index])
    ident = _identity(k, (4, 8))
    col = k.create(SliceOp, ident, (_, 3)).results[0]  # CuTe: the column (i, 3)
    assert col.type.text == '!tile.tensor<coord, "(4):(1@0)", origin = "(0,3)">'
    assert k.create(LoadOp, col, 2).result.type.text == '!layout.int_tuple<"(2,3)">'
    row = k.create(SliceOp, ident, (k.args[0], _)).results[0]
    assert row.type.text == '!tile.tensor<coord, "(8):(1@1)", origin = "(?,0)">'
    assert k.create(LoadOp, row, 5).result.type.text == '!layout.int_tuple<"(?,5)">'
    assert not k.finish()
