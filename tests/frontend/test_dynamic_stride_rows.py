"""A row view of a C-contiguous matrix: its leading dimension is a dynamic stride whose
divisibility comes from the spec (the largest power of two up to 16 dividing it). With 64
columns every thread's 4 floats are 16-byte aligned and the copy is proven 128-bit; with 66
columns only 8 bytes are, and the remark says why. Both run on the CPU and copy exactly the
row (the GPU where there is one)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
TV = lc.make_layout((8, 4), (4, 1))  # 8 threads x 4 contiguous floats


@lc.kernel
def copy_rows(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
):
    row, part, tid = lc.block_idx.x, lc.block_idx.y, lc.thread_idx.x
    ts = lc.partition_tv(lc.local_tile(src[row, _], (32,), (part,)), TV, tid)
    td = lc.partition_tv(lc.local_tile(dst[row, _], (32,), (part,)), TV, tid)
    lc.copy(ts, td)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("n", "remark"),
    [
        (64, "copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven"),
        (
            66,
            "copy uses 64-bit accesses: 2 contiguous f32 (4 are contiguous, but the source offset ",
        ),
    ],
)
def test_row_views_of_a_dynamic_leading_dimension(target, n, remark):
    m = 3
    src = np.arange(m * n, dtype=np.float32).reshape(m, n) + 1
    dst = np.zeros_like(src)
    compiled = lc.compile(copy_rows, src, dst, target=target, block=8, cache=False)
    (found,) = [r.message for r in compiled.remarks]
    assert found.startswith(remark)
    if n == 66:  # the reason names the row offset, the leading dimension N by its own name
        assert "offset N*bid_x + 32*bid_y + 4*tid_x is not provably a multiple of 4" in found
    compiled(src, dst, grid=(m, n // 32), block=8)
    expected = np.zeros_like(src)
    expected[:, : n // 32 * 32] = src[:, : n // 32 * 32]
    np.testing.assert_array_equal(dst, expected)
