"""Coordinate (identity) tensors carry their origin: the predicates of ragged tiles, built the
CuTe way (``cS = make_identity_tensor(shape)``, tile by block, partition by thread,
``elem_less(tC(i), shape)``), see global coordinates. Every (block, thread, value) coordinate
and predicate is written out and compared with numpy, and the predicated copy leaves the
canaries past the end untouched. CPU path (and the GPU where there is one)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import filecheck, trace_ir

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]

TILE, THREADS, VALUES = 64, 16, 4
TV = lc.make_layout((THREADS, VALUES), (VALUES, 1))  # thread t: elements 4t..4t+3 of a tile


@lc.kernel
def ragged_copy(
    src: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    crd: lc.Tensor[lc.i32, "(G,T,V):(?,?,1)"],  # noqa: F722
    ok: lc.Tensor[lc.i32, "(G,T,V):(?,?,1)"],  # noqa: F722
):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    cS = lc.make_identity_tensor(src.shape)
    tS = lc.partition_tv(lc.local_tile(src, (TILE,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (TILE,), (bid,)), TV, tid)
    tC = lc.partition_tv(lc.local_tile(cS, (TILE,), (bid,)), TV, tid)
    keep = lc.make_fragment_like(tC, lc.i1)
    for i in range(lc.size(keep)):
        keep[i] = lc.elem_less(tC(i), src.shape)
        crd[bid, tid, i] = tC(i)[0]
        ok[bid, tid, i] = lc.i32(keep[i])
    lc.copy_if(keep, tS, tD)


def _run(kernel, *args, grid, block, target):
    compiled = lc.compile(kernel, *args, target=target, block=block, cache=False)
    compiled(*args, grid=grid, block=block)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, 63, 200, 256])
def test_ragged_tail_predicates_see_global_coordinates(target, n):
    grid = -(-n // TILE)
    src = np.arange(1, n + 1, dtype=np.float32)
    buf = np.full(grid * TILE + 8, np.nan, np.float32)  # canaries past the end
    dst = buf[:n]
    crd = np.full((grid, THREADS, VALUES), -1, np.int32)
    ok = np.full((grid, THREADS, VALUES), -1, np.int32)
    _run(ragged_copy, src, dst, crd, ok, grid=grid, block=THREADS, target=target)
    b, t, v = np.meshgrid(np.arange(grid), np.arange(THREADS), np.arange(VALUES), indexing="ij")
    expected = b * TILE + t * VALUES + v  # CuTe: origin (b * TILE) + TV(t, v)
    np.testing.assert_array_equal(crd, expected)
    np.testing.assert_array_equal(ok, (expected < n).astype(np.int32))
    np.testing.assert_array_equal(dst, src)
    assert np.isnan(buf[n:]).all()


BM, BN = 8, 16
THR = lc.make_layout((4, 8), (8, 1))  # 32 threads, row-major over the 8 x 16 tile


@lc.kernel
def ragged_copy_2d(
    src: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
    rows: lc.Tensor[lc.i32, "(X,Y,T,V):(?,?,?,1)"],  # noqa: F722
    cols: lc.Tensor[lc.i32, "(X,Y,T,V):(?,?,?,1)"],  # noqa: F722
):
    bx, by, tid = lc.block_idx.x, lc.block_idx.y, lc.thread_idx.x
    cS = lc.make_identity_tensor(src.shape)
    tS = lc.local_partition(lc.local_tile(src, (BM, BN), (bx, by)), THR, tid)
    tD = lc.local_partition(lc.local_tile(dst, (BM, BN), (bx, by)), THR, tid)
    tC = lc.local_partition(lc.local_tile(cS, (BM, BN), (bx, by)), THR, tid)
    keep = lc.make_fragment_like(tC, lc.i1)
    for i in range(lc.size(keep)):
        keep[i] = lc.elem_less(tC(i), src.shape)
        rows[bx, by, tid, i] = tC(i)[0]
        cols[bx, by, tid, i] = tC(i)[1]
    lc.copy_if(keep, tS, tD)


@pytest.mark.parametrize("target", TARGETS)
def test_ragged_2d_tiles_predicate_each_coordinate(target):
    m, n = 21, 37  # neither a multiple of the 8 x 16 tile
    gx, gy = -(-m // BM), -(-n // BN)
    src = np.arange(m * n, dtype=np.float32).reshape(m, n) + 1
    buf = np.full((m + 1, n), np.nan, np.float32)  # one canary row past the end
    dst = buf[:m]
    per_thread = (BM // 4) * (BN // 8)
    rows = np.full((gx, gy, 32, per_thread), -1, np.int32)
    cols = np.full_like(rows, -1)
    _run(ragged_copy_2d, src, dst, rows, cols, grid=(gx, gy), block=32, target=target)
    # thread t = 8 * tm + tn owns rows tm + 4 a, columns tn + 8 c (CuTe's outer partition), its
    # values in colexicographic order of (a, c)
    x, y, t, v = np.meshgrid(
        np.arange(gx), np.arange(gy), np.arange(32), np.arange(per_thread), indexing="ij"
    )
    np.testing.assert_array_equal(rows, x * BM + t // 8 + 4 * (v % (BM // 4)))
    np.testing.assert_array_equal(cols, y * BN + t % 8 + 8 * (v // (BM // 4)))
    np.testing.assert_array_equal(dst, src)
    assert np.isnan(buf[m:]).all()


def test_coordinate_views_carry_their_origin_in_the_ir():
    x = np.zeros(1000, np.float32)
    ir = trace_ir(
        ragged_copy,
        x,
        x.copy(),
        np.zeros((16, THREADS, VALUES), np.int32),
        np.zeros((16, THREADS, VALUES), np.int32),
        block=THREADS,
    )
    filecheck(
        ir,
        """
CHECK: tile.make_identity_tensor {{.*}} -> !tile.tensor<coord, "(?):(1@0)">
CHECK: tile.local_tile {{.*}} -> !tile.tensor<coord, "((64)):((1@0))", origin = "(?)">
CHECK: %[[TC:.*]] = tile.partition_tv {{.*}} -> !tile.tensor<coord, "(4):(1@0)", origin = "(?)">
CHECK: %[[X:.*]] = tile.load %[[TC]][0] : {{.*}} -> !layout.int_tuple<"(?)">
CHECK: layout.elem_less %[[X]], {{.*}} : !layout.int_tuple<"(?)">, !layout.int_tuple<"(?)">
""",
    )
