"""GEMM on the tensor cores: ``mma.sync.m16n8k8`` with TF32 inputs and FP32 accumulation.

``C = A @ B`` with A (M, K), B (K, N) and C (M, N) row-major numpy arrays (B passed as the
(N, K) view ``b.T``, CuTe's convention). A *tiled MMA* spreads the atom
``SM80_16x8x8_F32TF32TF32F32_TN`` (one warp computes a 16 x 8 x 8 product) over 2 x 2 warps;
``partition_A/B/C`` give each thread the fragments the atom wants in its registers, exactly as
CuTe defines them.

Per 64 x 64 tile of C, the block walks K in steps of 8: copy the (64, 8) slices of A and B to
shared memory, barrier, load each thread's A and B fragments from shared memory, issue the
MMAs (``gemm`` with the tiled MMA), barrier. The f32 inputs are rounded to TF32 (10-bit
mantissa) by the instruction; the example uses small integers, exact in TF32, so the check is
exact.

Run it:  layoutc run examples/gemm_mma_tf32.py [--size 4096]   (size = M = N = K)
"""

from __future__ import annotations

import layoutc as lc
import numpy as np

BM, BN, BK = 64, 64, 8
THREADS = 128  # 2 x 2 warps

MMA = lc.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((2, 2, 1)))
S_A = lc.make_layout((BM, BK))
S_B = lc.make_layout((BN, BK))
T_A = lc.make_layout((16, 8), (8, 1))  # copying A: threads along K, where A is contiguous
T_B = lc.make_layout((64, 2))  # copying B: threads along N, where b.T is contiguous


@lc.kernel
def gemm_tf32(
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
    tAgA = lc.local_partition(gA, T_A, tid)
    tAsA = lc.local_partition(sA, T_A, tid)
    tBgB = lc.local_partition(gB, T_B, tid)
    tBsB = lc.local_partition(sB, T_B, tid)

    thr = MMA.get_slice(tid)
    rA = thr.partition_fragment_A(sA)  # this thread's A values for the atom, in registers
    rB = thr.partition_fragment_B(sB)
    rC = thr.partition_fragment_C(gC)  # its accumulators
    lc.clear(rC)
    for k in lc.range(lc.size(gA, 2)):
        lc.copy(tAgA[lc._, lc._, k], tAsA)
        lc.copy(tBgB[lc._, lc._, k], tBsB)
        lc.syncthreads()
        lc.copy(thr.partition_A(sA), rA)
        lc.copy(thr.partition_B(sB), rB)
        lc.gemm(MMA, rA, rB, rC)
        lc.syncthreads()
    lc.copy(rC, thr.partition_C(gC))


def inputs(size: int, rng: np.random.Generator) -> dict:
    m = n = -(-size // BM) * BM
    k = -(-size // BK) * BK
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)  # exact in TF32
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    return {"a": a, "b": b.T, "c": np.full((m, n), np.nan, np.float32)}


EXAMPLE = lc.Example(
    kernel=gemm_tf32,
    inputs=inputs,
    launch=lambda a: {"grid": (a["c"].shape[0] // BM, a["c"].shape[1] // BN), "block": THREADS},
    reference=lambda a: {"c": (a["a"].astype(np.float64) @ a["b"].T).astype(np.float32)},
    size=64,
    gpu_size=4096,
    description="C = A @ B with mma.sync m16n8k8 TF32, 2x2 warps, 64x64x8 block tiles",
    flops=lambda a: 2 * a["a"].shape[0] * a["a"].shape[1] * a["c"].shape[1],
)
