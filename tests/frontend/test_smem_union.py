"""Dynamic shared-memory tensors that share bytes (``lc.dynamic_smem_tensor(..., offset=)``,
CUTLASS's ``SharedStorage`` union): a tensor placed at an offset sees what another wrote there,
the next tensor without an offset starts after the furthest end, the launch default covers
them all, and bad offsets are errors at the call."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text

HERE = __file__
TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@lc.kernel
def overlay(x: lc.Tensor[lc.f32, "(N):(1)"], y: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    t = lc.thread_idx.x
    first = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(8))  # bytes 0..32
    wide = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(16), offset=0)  # bytes 0..64: over it
    after = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(4))  # bytes 64..80
    if t < 8:
        first[t] = x[t]
    if t < 4:
        after[t] = x[t] * 2.0
    lc.syncthreads()
    if t < 8:
        y[t] = wide[t]  # what `first` wrote: the same bytes
    if t < 4:
        y[8 + t] = after[t]


@pytest.mark.parametrize("target", TARGETS)
def test_a_tensor_at_an_offset_shares_the_bytes(target):
    x = np.arange(16, dtype=np.float32) + 1
    y = np.full(16, np.nan, np.float32)
    ck = lc.compile(overlay, x, y, block=32, target=target, cache=False)
    assert ck.runtime_spec.dynamic_smem == 80
    ck(x, y, grid=1, block=32)
    np.testing.assert_array_equal(y[:8], x[:8])
    np.testing.assert_array_equal(y[8:12], 2 * x[:4])


@lc.kernel
def misplaced(which: lc.Constexpr[int], n: int):
    if which == 0:
        lc.dynamic_smem_tensor(lc.f32, lc.make_layout(4), offset=8)  # @unaligned
    else:
        lc.dynamic_smem_tensor(lc.f32, lc.make_layout(n), offset=0)  # @dynamic


def test_offsets_must_be_aligned_and_sizes_static():
    with pytest.raises(lc.CompileError) as info:
        misplaced.trace(misplaced.specialize(0, 4, block=32))
    assert str(info.value).startswith(
        f"{loc_text(HERE, '@unaligned', 'lc.dynamic_smem_tensor')}: error: "
        "lc.dynamic_smem_tensor: offset must be a non-negative int that is a multiple of "
        "align=16 bytes, got 8"
    )
    with pytest.raises(lc.CompileError) as info:
        misplaced.trace(misplaced.specialize(1, 4, block=32))
    assert str(info.value).startswith(
        f"{loc_text(HERE, '@dynamic', 'lc.dynamic_smem_tensor')}: error: not supported: "
        "lc.dynamic_smem_tensor(offset=...) of a tensor of dynamic size"
    )
