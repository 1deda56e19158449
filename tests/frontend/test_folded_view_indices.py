"""Views at run-time offsets whose index only the passes find constant (``thread_idx.x // T``
with T threads per block is 0 after fold-static-strides; ``gpu.thread_id y`` of a 1-high block
is 0 after canonicalize). The views were typed when traced, with the index unknown; the
compiled kernels must accept that and compute the same values as numpy: the coordinates of an
identity tensor tiled at a block offset and the predicated copy they guard, and a row of a
swizzled shared-memory tile. CPU path (and the GPU where there is one)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]

BM, BN, THREADS = 8, 16, 32
THR = lc.make_layout((4, 8), (8, 1))  # 32 threads, row-major over the 8 x 16 tile
PER_THREAD = (BM // 4) * (BN // 8)


def _run(kernel, *args, grid, block, target):
    compiled = lc.compile(kernel, *args, target=target, block=block, cache=False)
    compiled(*args, grid=grid, block=block)


@lc.kernel
def ragged_rows(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    rows: lc.Tensor[lc.i32, "(X,T,V):(?,?,1)"],  # noqa: F722
    cols: lc.Tensor[lc.i32, "(X,T,V):(?,?,1)"],  # noqa: F722
):
    bx, tid = lc.block_idx.x, lc.thread_idx.x
    by = tid // THREADS + lc.thread_idx.y  # always 0: known only to the passes
    cS = lc.make_identity_tensor(src.shape)
    tS = lc.local_partition(lc.local_tile(src, (BM, BN), (bx, by)), THR, tid)
    tD = lc.local_partition(lc.local_tile(dst, (BM, BN), (bx, by)), THR, tid)
    tC = lc.local_partition(lc.local_tile(cS, (BM, BN), (bx, by)), THR, tid)
    keep = lc.make_fragment_like(tC, lc.i1)
    for i in range(lc.size(keep)):
        keep[i] = lc.elem_less(tC(i), src.shape)
        rows[bx, tid, i] = tC(i)[0]
        cols[bx, tid, i] = tC(i)[1]
    lc.copy_if(keep, tS, tD)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [16, 11])
def test_coordinate_tile_at_an_index_the_passes_fold(target, n):
    m = 21  # not a multiple of the 8-row tile: the last block is ragged
    gx = -(-m // BM)
    src = np.arange(m * n, dtype=np.float32).reshape(m, n) + 1
    buf = np.full((m + 1, n), np.nan, np.float32)  # one canary row past the end
    dst = buf[:m]
    rows = np.full((gx, THREADS, PER_THREAD), -1, np.int32)
    cols = np.full_like(rows, -1)
    _run(ragged_rows, src, dst, rows, cols, grid=gx, block=THREADS, target=target)
    x, t, v = np.meshgrid(np.arange(gx), np.arange(THREADS), np.arange(PER_THREAD), indexing="ij")
    # thread t = 8 * tm + tn owns rows tm + 4 a and columns tn + 8 c of block x's tile (0 in y)
    np.testing.assert_array_equal(rows, x * BM + t // 8 + 4 * (v % (BM // 4)))
    np.testing.assert_array_equal(cols, t % 8 + 8 * (v // (BM // 4)))
    np.testing.assert_array_equal(dst, src)
    assert np.isnan(buf[m:]).all()


SW = lc.Swizzle(1, 2, 3)
ATOM = lc.make_layout((8, (4, 2)), (4, (1, 32)))  # CUTLASS example 59's (8,8) smem atom


@lc.kernel
def swizzled_row(
    src: lc.Tensor[lc.f32, "(8,8):(8,1)"],  # noqa: F722
    out: lc.Tensor[lc.f32, "(8,8):(8,1)"],  # noqa: F722
):
    tid = lc.thread_idx.x
    row = tid // 8 + tid % 8 - tid % 8 + 3 - tid // 8  # 3, known only to the passes
    s = lc.smem_tensor(lc.f32, lc.composition(SW, ATOM))
    if tid == 0:
        for r in range(8):
            for c in range(8):
                s[r, c] = src[r, c]
    lc.syncthreads()
    mine = s[row, _]  # a swizzled slice at an index the passes fold to 3
    out[tid, 0] = mine[tid]
    for c in range(1, 8):
        out[tid, c] = s[c - 1, tid]


@pytest.mark.parametrize("target", TARGETS)
def test_swizzled_row_at_an_index_the_passes_fold(target):
    src = np.arange(64, dtype=np.float32).reshape(8, 8) + 1
    out = np.full((8, 8), np.nan, np.float32)
    _run(swizzled_row, src, out, grid=1, block=8, target=target)
    expected = np.empty_like(out)
    expected[:, 0] = src[3, :]
    expected[:, 1:] = src[:7, :].T
    np.testing.assert_array_equal(out, expected)
