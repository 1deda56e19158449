"""The gpu dialect: MLIR's forms, the kernel attributes' rules and the folders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from layoutc.ir.core import (
    Block,
    Builder,
    DenseArrayAttr,
    DiagnosticError,
    FunctionType,
    UnitAttr,
    f32,
    i1,
    i32,
    index,
    parse,
    parse_attribute,
    print_op,
    verify_op,
)
from layoutc.ir.core.folding import try_fold
from layoutc.ir.dialects.arith import ConstantOp
from layoutc.ir.dialects.builtin import ModuleOp
from layoutc.ir.dialects.func import FuncOp, ReturnOp
from layoutc.ir.dialects.gpu import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    DimensionAttr,
    GridDimOp,
    LaneIdOp,
    ShuffleModeAttr,
    ShuffleOp,
    ThreadIdOp,
    known_block_size,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tile"))
from tile_helpers import ctx, roundtrip


def _kernel(block_size=(128, 1, 1), kernel=True) -> tuple[ModuleOp, FuncOp, Builder]:
    module = ModuleOp()
    attrs = {}
    if kernel:
        attrs["gpu.kernel"] = UnitAttr()
    if block_size is not None:
        attrs["gpu.known_block_size"] = DenseArrayAttr(i32, list(block_size))
    func = FuncOp("k", FunctionType([f32], []), attributes=attrs)
    module.body.block.append(func)
    block: Block = func.body.blocks[0]
    return module, func, Builder.at_end_of(block)


def test_builders_make_mlir_forms() -> None:
    module, func, b = _kernel()
    v = func.body.blocks[0].args[0]
    for cls in (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp):
        for d in "xyz":
            assert b.create(cls, d).result.type is index
    b.create(LaneIdOp)
    b.create(BarrierOp)
    one = b.create(ConstantOp.from_int, 1, i32).results[0]
    width = b.create(ConstantOp.from_int, 32, i32).results[0]
    sh = b.create(ShuffleOp, "down", v, one, width)
    assert sh.shuffleResult.type is f32 and sh.valid.type is i1
    b.create(ReturnOp)
    assert not verify_op(module)
    text = print_op(module)
    assert "gpu.thread_id x" in text and "gpu.shuffle down" in text
    generic = print_op(module, generic=True)
    assert '"gpu.block_dim"() <{dimension = #gpu<dim z>}> : () -> index' in generic
    assert "<{mode = #gpu<shuffle_mode down>}> : (f32, i32, i32) -> (f32, i1)" in generic
    roundtrip(text)


def test_generic_form_is_accepted_by_xdsl() -> None:
    pytest.importorskip("xdsl", reason="xdsl is not installed")
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    module, _func, b = _kernel()
    for cls in (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp):
        b.create(cls, "y")
    b.create(LaneIdOp)
    b.create(BarrierOp)
    b.create(ReturnOp)
    xctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        xctx.register_dialect(name, factory)
    parsed = Parser(xctx, print_op(module, generic=True)).parse_module()
    parsed.verify()  # xDSL verifies its own gpu ops: our properties match MLIR's


def test_enum_attributes() -> None:
    d = parse_attribute("#gpu<dim z>", ctx())
    assert d is DimensionAttr("z") and d.index == 2 and d.text == "#gpu<dim z>"
    m = parse_attribute("#gpu<shuffle_mode idx>", ctx())
    assert m is ShuffleModeAttr("idx")
    with pytest.raises(ValueError, match=r"'w' is not a valid gpu\.dim"):
        DimensionAttr("w")
    with pytest.raises(DiagnosticError, match="expected one of xor, up, down, idx"):
        parse_attribute("#gpu<shuffle_mode left>", ctx())


def test_block_dim_folds_under_known_block_size() -> None:
    _module, _func, b = _kernel((64, 4, 1))
    bx = b.create(BlockDimOp, "x")
    by = b.create(BlockDimOp, "y")
    tz = b.create(ThreadIdOp, "z")
    tx = b.create(ThreadIdOp, "x")
    b.create(ReturnOp)
    assert known_block_size(bx) == (64, 4, 1)
    [c64] = try_fold(bx)
    [c4] = try_fold(by)
    [c0] = try_fold(tz)
    assert [v.defining_op.value.value for v in (c64, c4, c0)] == [64, 4, 0]
    assert try_fold(tx) is None


def test_no_fold_without_known_block_size() -> None:
    _module, _func, b = _kernel(block_size=None)
    bx = b.create(BlockDimOp, "x")
    b.create(ReturnOp)
    assert known_block_size(bx) is None
    assert try_fold(bx) is None


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ("{gpu.known_block_size = array<i32: 1, 1>}", "must be an array of 3 positive i32 values"),
        (
            "{gpu.known_block_size = array<i32: -1, 1, 1>}",
            "must be an array of 3 positive i32 values",
        ),
        ("{gpu.known_grid_size = array<i32: 4, 4, 0>}", "'gpu.known_grid_size' must be an array"),
        ('{gpu.kernel = "yes"}', "'gpu.kernel' must be a unit attribute"),
        ("{gpu.launch_bounds}", "unknown gpu attribute 'gpu.launch_bounds'"),
    ],
)
def test_kernel_attribute_rules(attrs: str, message: str) -> None:
    text = f"func.func @k() attributes {attrs} {{\n  return\n}}"
    errors = verify_op(parse(text, ctx()))
    assert len(errors) == 1 and message in errors[0].message


def test_other_dialects_attributes_are_not_checked_by_gpu() -> None:
    text = "func.func @k() attributes {layoutc.divisible_by = 4, gpu.kernel} {\n  return\n}"
    assert not verify_op(parse(text, ctx()))
