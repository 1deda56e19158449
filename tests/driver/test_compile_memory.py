"""A compile keeps none of its IR alive once it returns.

The symbolic analysis binds symbols to the SSA values they stand for, and the symbolic engine's
memo tables keep symbols alive for thousands of compiles: a strong binding kept every compile's
lowered module alive with them (about 4,000 ops per GEMM compile, never freed).
"""

from __future__ import annotations

import gc

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.values import Value

TV = lc.make_layout((32, 4), (4, 1))


def make_copy():
    """A new kernel object per call (no in-memory cache hit)."""

    @lc.kernel
    def copy_tiles(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
        bid, tid = lc.block_idx.x, lc.thread_idx.x
        gS = lc.local_tile(src, (128,), (bid,))
        gD = lc.local_tile(dst, (128,), (bid,))
        lc.copy(lc.partition_tv(gS, TV, tid), lc.partition_tv(gD, TV, tid))

    return copy_tiles


def live_ops() -> int:
    """Ops alive and not frozen (see the fixture below)."""
    gc.collect()
    return sum(isinstance(o, Operation) for o in gc.get_objects())


@pytest.fixture
def frozen_heap():
    """Freeze what earlier tests left in the process: gc.collect() and gc.get_objects() then
    traverse only what this test allocates (the whole heap took seconds in a full run), and
    anything a compile leaves alive is still counted, being allocated after the freeze."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def test_compiles_leave_no_ir_alive(frozen_heap) -> None:
    x = np.arange(1024, dtype=np.float32)
    y = np.zeros_like(x)
    compiled = [lc.compile(make_copy(), x, y, block=32, target="cpu", cache=False)]
    before = live_ops()
    compiled += [
        lc.compile(make_copy(), x, y, block=32, target="cpu", cache=False) for _ in range(3)
    ]
    assert live_ops() == before
    compiled[-1](x, y, grid=8, block=32)  # the compiled kernels still work
    np.testing.assert_array_equal(y, x)


def test_a_compile_leaves_no_cyclic_ir(frozen_heap) -> None:
    """The compile disposes of the IR it erased and of its lowered module (ir/core/disposal.py):
    reference counting frees them, and the collection after a compile finds no op or value
    with its operands, results or uses still attached."""
    x = np.arange(1024, dtype=np.float32)
    y = np.zeros_like(x)
    lc.compile(make_copy(), x, y, block=32, target="cpu", cache=False)  # warm
    gc.collect()
    gc.disable()
    try:
        lc.compile(make_copy(), x, y, block=32, target="cpu", cache=False)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    attached = [
        o
        for o in garbage
        if (isinstance(o, Operation) and (o.results or o.operand_uses or o.regions))
        or (isinstance(o, Value) and o.uses)
    ]
    assert attached == []
