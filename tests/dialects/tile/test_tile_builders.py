"""Building tile IR through the Python API: every op's builder infers its types, the result
verifies, round-trips in custom and generic form, and xDSL accepts the generic form."""

from __future__ import annotations

import pytest
from layoutc.ir.algebra import Layout, _
from layoutc.ir.core import (
    DiagnosticError,
    FileLineColLoc,
    VectorType,
    f16,
    f32,
    i1,
    index,
    print_op,
)
from layoutc.ir.dialects.arith import ConstantOp
from layoutc.ir.dialects.layout import ConstantOp as LayoutConstant
from layoutc.ir.dialects.layout import IntTupleAttr, LayoutAttr, MakeLayoutOp, MakeShapeOp, TileAttr
from layoutc.ir.dialects.tile import (
    AllocFragmentOp,
    AllocSmemOp,
    AssumeOp,
    AxpbyOp,
    ClearOp,
    CoalesceOp,
    CompositionOp,
    CopyAtomAttr,
    CopyIfOp,
    CopyOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    FillOp,
    FlatDivideOp,
    FlattenOp,
    GemmOp,
    GetLayoutOp,
    GetPtrOp,
    GroupModesOp,
    LdmatrixOp,
    LoadOp,
    LoadVectorOp,
    LocalPartitionOp,
    LocalTileOp,
    LogicalDivideOp,
    MakeIdentityTensorOp,
    MakeTensorOp,
    MMAAtomAttr,
    MmaOp,
    PartitionTVOp,
    PtrOffsetOp,
    PtrType,
    SliceOp,
    StoreOp,
    StoreVectorOp,
    TensorType,
    TiledDivideOp,
    ZippedDivideOp,
)
from tile_helpers import Kernel, ctx, roundtrip


def _kernel() -> Kernel:
    k = Kernel([PtrType(f32, "gmem", 16), index, index, index])
    p, n, bid, tid = k.args
    shape = k.create(MakeShapeOp, (n, 64)).results[0]
    stride = k.create(LayoutConstant, IntTupleAttr("(64,1)")).results[0]
    layout = k.create(MakeLayoutOp, shape, stride).results[0]
    A = k.create(MakeTensorOp, p, layout).result
    k.create(GetLayoutOp, A)
    k.create(GetPtrOp, A)
    k.create(PtrOffsetOp, p, tid)
    gA = k.create(LocalTileOp, A, "(128,32,8)", (bid, 0, _), proj=(True, False, True)).result
    tA = k.create(LocalPartitionOp, gA, Layout((32, 8), (8, 1)), tid).result
    row = k.create(SliceOp, gA, (0, _, 0)).result
    k.create(PartitionTVOp, row, Layout((4, 2), (2, 1)), tid)
    tiler = k.create(LayoutConstant, TileAttr((Layout(32), Layout(4)))).results[0]
    for cls in (CompositionOp, LogicalDivideOp, ZippedDivideOp, TiledDivideOp, FlatDivideOp):
        k.create(cls, gA, tiler)
    flat = k.create(FlattenOp, gA).result
    k.create(GroupModesOp, flat, 0, 2)
    k.create(CoalesceOp, gA, (1, 1, 1))
    ish = k.create(LayoutConstant, IntTupleAttr("(128,8)")).results[0]
    ident = k.create(MakeIdentityTensorOp, ish).result
    k.create(LoadOp, ident, (3, tid))
    frag = k.create(AllocFragmentOp, Layout((4, 1, 8), (1, 0, 4)), f32).result
    pred = k.create(AllocFragmentOp, Layout((4, 1, 8), (1, 0, 4)), i1).result
    k.create(CopyOp, tA, frag)
    k.create(CopyIfOp, pred, tA, frag)
    x = k.create(LoadOp, frag, (1, 0, 2)).result
    k.create(StoreOp, x, frag, (tid, 0, 2))
    k.create(FillOp, frag, x)
    k.create(ClearOp, frag)
    k.create(AxpbyOp, x, frag, x, frag)
    a = k.create(AllocFragmentOp, Layout((4, 2, 1)), f32).result
    b = k.create(AllocFragmentOp, Layout((2, 2, 1)), f32).result
    c = k.create(AllocFragmentOp, Layout((4, 2, 2)), f32).result
    k.create(GemmOp, a, b, c, MMAAtomAttr("SM80_16x8x8_F32TF32TF32F32_TN"))
    s = k.create(AllocSmemOp, Layout((32, 8), (8, 1)), f32, 16).result
    k.create(CopyOp, tA, frag, vector_bits=32)
    k.create(CpAsyncOp, A, (bid, 4), s, (tid, 0), 16, "cg")
    k.create(CpAsyncCommitOp)
    k.create(CpAsyncWaitOp, 1)
    n4 = k.create(AssumeOp, n, divisible_by=4).result
    v = k.create(LoadVectorOp, A, (n4, 4), 4, alignment=16).result
    k.create(StoreVectorOp, v, s, (tid, 0), alignment=16)
    h = k.create(AllocSmemOp, Layout((32, 64), (64, 1)), f16, 16).result
    k.create(LdmatrixOp, CopyAtomAttr("ldmatrix.x4", 128), h, (tid, 0))
    k.create(MmaOp, MMAAtomAttr("SM80_16x8x8_F32TF32TF32F32_TN"), [x] * 4, [x] * 2, [x] * 4)
    return k


def test_every_builder_infers_verified_types() -> None:
    k = _kernel()
    assert not k.finish()
    text = print_op(k.module)
    assert "tile.local_tile %arg0" not in text  # operands print by name
    roundtrip(text)


def test_builder_results() -> None:
    k = _kernel()
    ops = {op.name: op for op in k.func.body.blocks[0].ops}
    assert ops["tile.local_tile"].result.type.layout_text == "(128,8,8):(64,1,8)"
    assert ops["tile.load_vector"].result.type is VectorType([4], f32)
    assert len(ops["tile.ldmatrix"].values) == 8
    assert len(ops["tile.mma"].d) == 4
    assert (
        ops["tile.alloc_smem"].result.type.text == '!tile.tensor<f16, smem, "(32,64):(64,1)", 16>'
    )


def test_generic_form_is_accepted_by_xdsl() -> None:
    pytest.importorskip("xdsl", reason="xdsl is not installed")
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    k = _kernel()
    assert not k.finish()
    xctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        xctx.register_dialect(name, factory)
    module = Parser(xctx, print_op(k.module, generic=True)).parse_module()
    module.verify()


def test_builder_errors_are_diagnostics_at_the_users_location() -> None:
    loc = FileLineColLoc("kernel.py", 12, 5)
    k = Kernel([TensorType(f32, "gmem", "(4,8):(1,4)", 16)])
    with pytest.raises(DiagnosticError) as info:
        k.create(SliceOp, k.args[0], (_, 9), loc=loc)
    [diag] = info.value.diagnostics
    assert diag.location is loc
    assert diag.message == (
        "'tile.slice' op slice: coordinate 9 out of range [0,8) for the mode 8 of (4,8):(1,4)"
    )
    with pytest.raises(DiagnosticError, match=r"coordinate \(4,1\) does not match"):
        k.create(LoadOp, k.args[0], ((4, 1), 2), loc=loc)
    with pytest.raises(DiagnosticError, match="no '_'"):
        k.create(LoadVectorOp, k.args[0], (_, 1), 4, loc=loc)


def test_algorithm_builders_verify_on_the_module() -> None:
    k = Kernel([TensorType(f32, "gmem", "(4,8):(1,4)", 16), TensorType(f32, "rmem", "16:1", 4)])
    k.create(CopyOp, k.args[0], k.args[1])
    errors = k.finish()
    assert [d.message for d in errors] == [
        "'tile.copy' op source has 32 elements but destination has 16"
    ]


def test_parse_reports_unknown_tile_ops() -> None:
    from layoutc.ir.core import parse

    with pytest.raises(DiagnosticError, match=r"custom op 'tile\.fetch' is unknown"):
        parse("func.func @f() {\n  tile.fetch\n  return\n}", ctx())


def test_constant_coordinates_sharpen_alignment() -> None:
    k = Kernel([TensorType(f32, "gmem", "(4,8):(1,4)", 16)])
    c0 = k.create(ConstantOp.from_int, 0, index).results[0]
    c1 = k.create(ConstantOp.from_int, 1, index).results[0]
    assert k.create(SliceOp, k.args[0], (_, c0)).result.type.alignment == 16
    assert k.create(SliceOp, k.args[0], (c1, _)).result.type.alignment == 4
    assert k.create(SliceOp, k.args[0], (_, c1)).result.type.alignment == 16
    assert not k.finish()


def test_layout_attr_tiler_spellings() -> None:
    k = Kernel([TensorType(f32, "gmem", "(64,64):(64,1)", 16), index])
    for tiler in ("(16,16)", "<16:1,16:1>", IntTupleAttr("(16,16)"), (Layout(16), Layout(16))):
        op = k.create(LocalTileOp, k.args[0], tiler, (k.args[1], 0))
        assert op.result.type.layout_text == "(16,16):(64,1)"
    op = k.create(LocalTileOp, k.args[0], LayoutAttr("16:1"), k.args[1])
    assert op.result.type.layout_text == "(16):(64)"
    assert not k.finish()


def test_static_coordinates_print_as_built_and_bad_ones_are_still_diagnosed() -> None:
    """Static coordinates take a memoised path to their ``coord`` property (coords.is_static);
    anything else (a bool, a negative entry, an empty tuple, a wildcard) still gets the
    builder's diagnostic."""
    from layoutc.ir.dialects.tile import coords

    assert coords.is_static(((0, 1), 2, 0)) and coords.is_static(3)
    for bad in (True, (1, False), -1, (0, -2), (), ((), 1), (_, 1), 1.0):
        assert not coords.is_static(bad), bad
    loc = FileLineColLoc("kernel.py", 3, 1)
    k = Kernel([TensorType(f32, "gmem", "((2,2),8):((1,2),4)", 16)])
    for _round in range(2):  # the second time from the memo
        op = k.create(LoadVectorOp, k.args[0], ((0, 1), 4), 2, alignment=8)
        assert op.coord.value == "((0,1),4)" and not op.coords
    with pytest.raises(DiagnosticError, match="non-negative"):
        k.create(LoadVectorOp, k.args[0], ((0, 1), -4), 2, loc=loc)
    with pytest.raises(DiagnosticError, match="cannot be empty"):
        k.create(LoadVectorOp, k.args[0], ((), 4), 2, loc=loc)
