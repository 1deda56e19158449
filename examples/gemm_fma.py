"""SGEMM with FMA, tiled over a thread block through shared memory (CuTe's sgemm_1 tutorial).

``C = A @ B`` for row-major numpy matrices A (M, K), B (K, N), C (M, N). In CuTe's convention
the kernel sees A as (M, K), B as (N, K) and C as (M, N): B is passed as ``b.T`` (an (N, K) view
with strides (1, N)), so no data moves to change conventions.

Each thread block computes a 128 x 128 tile of C. It walks K in steps of 8: the block copies
the (128, 8) slices of A and B into shared memory (every thread moving 4 elements of each), waits
at a barrier, then each of its 16 x 16 threads accumulates an 8 x 8 sub-tile of C in registers
with ``gemm`` (one FMA per element pair), and waits again before the next step overwrites the
shared tiles. At the end the accumulators go to C.

Run it:  layoutc run examples/gemm_fma.py [--size 4096]   (size = M = N = K)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM, BN, BK = 128, 128, 8
THREADS = 256

S_A = lc.make_layout((BM, BK))  # shared tiles, M- and N-major (column-major)
S_B = lc.make_layout((BN, BK))
T_A = lc.make_layout((32, 8), (8, 1))  # threads for copying A: along K, where A is contiguous
T_B = lc.make_layout((32, 8))  # threads for copying B: along N, where b.T is contiguous
T_C = lc.make_layout((16, 16))  # threads for computing: a 16 x 16 grid over the C tile


@lc.kernel
def gemm_fma(
    a: lc.Tensor[lc.f32, "(M,K):(K,1)"],  # noqa: F722
    b: lc.Tensor[lc.f32, "(N,K):(1,N)"],  # noqa: F722
    c: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
):
    tile = (BM, BN, BK)
    where = (lc.block_idx.x, lc.block_idx.y, lc._)
    gA = lc.local_tile(a, tile, where, proj=(1, None, 1))  # (BM, BK, k-tiles)
    gB = lc.local_tile(b, tile, where, proj=(None, 1, 1))  # (BN, BK, k-tiles)
    gC = lc.local_tile(c, tile, where, proj=(1, 1, None))  # (BM, BN)

    sA = lc.smem_tensor(lc.f32, S_A)
    sB = lc.smem_tensor(lc.f32, S_B)
    tid = lc.thread_idx.x
    tAgA = lc.local_partition(gA, T_A, tid)  # (4, 1, k-tiles): this thread's share of A
    tAsA = lc.local_partition(sA, T_A, tid)
    tBgB = lc.local_partition(gB, T_B, tid)
    tBsB = lc.local_partition(sB, T_B, tid)

    tCsA = lc.local_partition(sA, T_C, tid, proj=(1, None))  # (8, BK): rows of A for my C
    tCsB = lc.local_partition(sB, T_C, tid, proj=(None, 1))  # (8, BK): columns of B
    tCgC = lc.local_partition(gC, T_C, tid, proj=(1, 1))  # (8, 8): my elements of C
    acc = lc.make_fragment_like(tCgC)  # accumulators in registers
    lc.clear(acc)

    for k in lc.range(lc.size(gA, 2)):
        lc.copy(tAgA[lc._, lc._, k], tAsA)
        lc.copy(tBgB[lc._, lc._, k], tBsB)
        lc.syncthreads()
        lc.gemm(tCsA, tCsB, acc)
        lc.syncthreads()
    lc.copy(acc, tCgC)


def inputs(size: int, rng: np.random.Generator) -> dict:
    m = n = -(-size // BM) * BM
    k = -(-size // BK) * BK
    # small integers: every product and partial sum is exact in f32, so the check is exact
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    return {"a": a, "b": b.T, "c": np.full((m, n), np.nan, np.float32)}


EXAMPLE = lc.Example(
    kernel=gemm_fma,
    inputs=inputs,
    launch=lambda a: {"grid": (a["c"].shape[0] // BM, a["c"].shape[1] // BN), "block": THREADS},
    reference=lambda a: {"c": (a["a"].astype(np.float64) @ a["b"].T).astype(np.float32)},
    size=128,
    gpu_size=4096,
    description="C = A @ B with FMA, 128x128x8 block tiles through shared memory",
    flops=lambda a: 2 * a["a"].shape[0] * a["a"].shape[1] * a["c"].shape[1],
)
