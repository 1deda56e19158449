"""Swizzled shared memory at run-time coordinates, on the CPU path (and the GPU where there is
one): a thread's slice of ``Sw<B,M,S> o L`` is ``Sw o (offset) o L'`` with a dynamic offset,
and every access goes to ``Sw(offset + L'(c))``. Checked against numpy: a transpose through a
swizzled tile (write rows, barrier, read columns), a round trip through a swizzled buffer, and
the physical placement in shared memory (read back through a plain view) against CuTe's
swizzle function."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _run(kernel, *args, grid, block, target):
    compiled = lc.compile(kernel, *args, target=target, block=block, cache=False)
    compiled(*args, grid=grid, block=block)


# -- transpose: 128-bit row writes into the swizzled tile, column reads out of it ----------------

BM = BN = 32
VEC = lc.make_copy_atom("universal", lc.f32, bits=128)
READ = lc.make_tiled_copy(VEC, lc.make_layout((32, 8), (8, 1)), lc.make_layout((1, 4)))
WRITE = lc.make_tiled_copy(VEC, lc.make_layout((8, 32), (1, 8)), lc.make_layout((4, 1)))
# 4-float chunks of a row XOR-ed with the row index: the column reads hit different banks
STAGE = lc.composition(lc.Swizzle(3, 2, 3), lc.make_layout((BM, BN), (BN, 1)))


@lc.kernel
def transpose(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722   out.T
):
    tile = (lc.block_idx.y, lc.block_idx.x)
    gS = lc.local_tile(src, (BM, BN), tile)
    gD = lc.local_tile(dst, (BM, BN), tile)
    sT = lc.smem_tensor(lc.f32, STAGE)
    tid = lc.thread_idx.x
    reader = READ.get_slice(tid)
    tRgS = reader.partition_S(gS)
    rows = lc.make_fragment_like(tRgS)
    lc.copy(READ, tRgS, rows)
    lc.copy(rows, reader.partition_D(sT))  # 128-bit stores through the swizzle
    lc.syncthreads()
    writer = WRITE.get_slice(tid)
    tWgD = writer.partition_D(gD)
    cols = lc.make_fragment_like(tWgD)
    lc.copy(writer.partition_S(sT), cols)
    lc.copy(WRITE, cols, tWgD)


@pytest.mark.parametrize("target", TARGETS)
def test_transpose_through_a_swizzled_tile(target):
    m, n = 64, 96
    src = np.random.default_rng(3).standard_normal((m, n), dtype=np.float32)
    out = np.full((n, m), np.nan, np.float32)
    _run(transpose, src, out.T, grid=(n // BN, m // BM), block=256, target=target)
    np.testing.assert_array_equal(out, src.T)


# -- CUTLASS example 59's shared-memory atom: round trip and physical placement ------------------

SW59 = lc.Swizzle(1, 2, 3)
ATOM = lc.make_layout((8, (4, 2)), (4, (1, 32)))  # (8,8) logical, 64 elements
SMEM59 = lc.composition(SW59, ATOM)


def _placement(swizzled: bool) -> np.ndarray:
    """Where CuTe puts logical element (r, c) of the atom: Sw<1,2,3>(ATOM(r, c)) (or, for
    comparison, ATOM(r, c) without the swizzle)."""
    where = np.zeros((8, 8), np.int64)
    for r in range(8):
        for c in range(8):
            k = ATOM((r, (c % 4, c // 4)))
            where[r, c] = SW59(k) if swizzled else k
    return where


@lc.kernel
def round_trip(
    src: lc.Tensor[lc.f32, "(R,C):(C,1)"],  # noqa: F722
    back: lc.Tensor[lc.f32, "(R,C):(C,1)"],  # noqa: F722
    cols: lc.Tensor[lc.f32, "(R,C):(C,1)"],  # noqa: F722
    raw: lc.Tensor[lc.f32, "(K):(1)"],  # noqa: F722
):
    tid = lc.thread_idx.x
    s = lc.smem_tensor(lc.f32, SMEM59)
    # the (8,8) tiles of the arrays: static sizes, like the shared-memory tile's
    gS, gB = lc.local_tile(src, (8, 8), (0, 0)), lc.local_tile(back, (8, 8), (0, 0))
    lc.copy(gS[tid, _], s[tid, _])  # thread t writes row t: Sw o (4t) o ((4,2)):((1,32))
    lc.syncthreads()
    lc.copy(s[tid, _], gB[tid, _])  # ... and reads it back
    for j in lc.range(8):  # run-time coordinates: element (j, t) of the tile
        cols[tid, j] = s[j, tid]
    # the bytes as they lie in shared memory, through a plain view of the same allocation
    flat = lc.make_tensor(s.iterator, lc.make_layout(64))
    lc.copy(
        lc.local_partition(flat, lc.make_layout(8), tid),
        lc.local_partition(lc.local_tile(raw, (64,), (0,)), lc.make_layout(8), tid),
    )


@pytest.mark.parametrize("target", TARGETS)
def test_round_trip_through_a_swizzled_buffer_is_the_identity(target):
    src = np.arange(64, dtype=np.float32).reshape(8, 8) + 1
    back = np.full_like(src, np.nan)
    cols = np.full_like(src, np.nan)
    raw = np.full(64, np.nan, np.float32)
    _run(round_trip, src, back, cols, raw, grid=1, block=8, target=target)
    np.testing.assert_array_equal(back, src)
    np.testing.assert_array_equal(cols, src.T)
    # the swizzle really happened, and where CuTe says: raw[Sw(ATOM(r, c))] == src[r, c]
    where = _placement(swizzled=True)
    assert sorted(where.ravel()) == list(range(64))
    np.testing.assert_array_equal(raw[where], src)
    assert not np.array_equal(raw[_placement(swizzled=False)], src)
