"""A coordinate tensor viewed at a run-time offset keeps that offset through folding and
lowering: the predicate of a ragged copy compares ``origin + layout(c)`` (the origin a function
of the block and thread indices) with the bound, never a constant that the view's layout alone
(which starts at 0) would suggest. Lowered IR, run by the interpreter on numpy buffers, against
numpy. The column index is a kernel argument, or an ``arith`` chain that canonicalize folds to
the constant 5 after the views were typed with it unknown."""

from __future__ import annotations

import numpy as np
import pytest
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import LOWERING, Kernel, kernel_func, parse_module, run

TILE, THREADS, VALUES = 16, 4, 4
TV = f"({THREADS},{VALUES}):({VALUES},1)"


def _mem(layout: str) -> str:
    return f"!tile.tensor<f32, gmem, {layout}, 4>"  # the column offset keeps 4-byte alignment


def _coord(layout: str) -> str:
    return f'!tile.tensor<coord, {layout}, origin = "(?,?)">'


def _ragged_copy_2d(folded_column: bool) -> object:
    """dst = src over an (m, 8) row-major matrix, by (TILE, 1) tiles at block row ``%bid`` and
    column ``%col`` (or ``%col * 0 + 5``); the coordinate view predicates rows past ``m``."""
    k = Kernel(block=(THREADS, 1, 1))
    s, d = k.pointer("src"), k.pointer("dst")
    m = k.index_arg("m", lower=1)
    bid = k.index_arg("bid", lower=0)
    col = k.index_arg("col", lower=0, upper=7)
    lt = "(?,8):(8,1)"
    layout = k.layout(lt, shape_values=[m])
    ts, tts = k.tensor(s, layout, lt)
    td, ttd = k.tensor(d, layout, lt)
    k.op(f'%shape = layout.make_shape {m} : !layout.int_tuple<"(?,8)">')
    ct = '!tile.tensor<coord, "(?,8):(1@0,1@1)">'
    k.op(f'%c = tile.make_identity_tensor %shape : !layout.int_tuple<"(?,8)"> -> {ct}')
    k.op("%zero = arith.constant 0 : index")
    if folded_column:
        k.op("%five = arith.constant 5 : index")
        k.op(f"%none = arith.muli {col}, %zero : index")
        k.op("%j = arith.addi %none, %five : index")
    else:
        k.op(f"%j = arith.addi {col}, %zero : index")
    k.op("%tid = gpu.thread_id x")
    tile_props = '{tiler = #layout.int_tuple<"(16,1)">}'
    tv_props = f'{{tv_layout = #layout.layout<"{TV}">}}'
    views = {}
    for name, src, t, tiled, part in (
        ("s", ts, tts, _mem('"(16,1):(8,0)"'), _mem('"(4):(8)"')),
        ("d", td, ttd, _mem('"(16,1):(8,0)"'), _mem('"(4):(8)"')),
        ("c", "%c", ct, _coord('"(16,1):(1@0,0)"'), _coord('"(4):(1@0)"')),
    ):
        k.op(f"%g{name} = tile.local_tile {src}[({bid}, %j)] {tile_props} : {t} -> {tiled}")
        k.op(f"%p{name} = tile.partition_tv %g{name}[%tid] {tv_props} : {tiled} -> {part}")
        views[name] = part
    k.op(
        f"tile.copy_if %pc, %ps, %pd, %shape : {views['c']}, {views['s']}, {views['d']}, "
        '!layout.int_tuple<"(?,8)">'
    )
    m_ = parse_module(k.text())
    run(m_, LOWERING.replace("builtin.module(", "builtin.module(canonicalize, "))
    return kernel_func(m_)


@pytest.mark.parametrize("folded_column", [False, True])
@pytest.mark.parametrize("m", [16, 21, 37])
def test_ragged_copy_through_a_coordinate_view_at_a_run_time_offset(
    m: int, folded_column: bool
) -> None:
    func = _ragged_copy_2d(folded_column)
    text = str(func)
    assert "tile.tensor<coord" not in text and "layout." not in text
    src = np.arange(m * 8, dtype=np.float32) + 1
    for bid in range(-(-m // TILE) + 1):  # one block entirely past the end
        for arg in (0, 2, 7):
            col = 5 if folded_column else arg
            dst = np.full(m * 8 + TILE * 8 * 2, np.nan, np.float32)
            for t in range(THREADS):
                Interpreter(func, (THREADS, 1, 1)).run(
                    [Ptr(src, 0), Ptr(dst, 0), m, bid, arg], thread=(t, 0, 0)
                )
            rows = np.arange(bid * TILE, min((bid + 1) * TILE, m))
            expected = np.full_like(dst, np.nan)
            expected[rows * 8 + col] = src[rows * 8 + col]
            np.testing.assert_array_equal(dst, expected)
