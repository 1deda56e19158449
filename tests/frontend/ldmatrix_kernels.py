"""ldmatrix kernels whose annotations name their sizes (built per test: kept out of modules with
``from __future__ import annotations``, which would leave the sizes unevaluated)."""

import layoutc as lc


def ldmatrix_a(atom_name: str, m: int, n: int):
    """One warp: A through shared memory and ``make_tiled_copy_A(atom)`` into the MMA's
    fragment, the partitions as CuTe gives them (nested where a thread repeats the atom)."""
    ldsm = lc.make_copy_atom(atom_name, lc.f16)
    mma = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", lc.make_layout((1, 1, 1)), (m, n, 16))
    s_a = lc.make_layout((m, 16), (16, 1))

    @lc.kernel
    def ldmatrix_a(
        a: lc.Tensor[lc.f16, f"({m},16):(16,1)"],
        b: lc.Tensor[lc.f16, f"({n},16):(16,1)"],
        c: lc.Tensor[lc.f32, f"({m},{n}):({n},1)"],
    ):
        tid = lc.thread_idx.x
        sA = lc.smem_tensor(lc.f16, s_a)
        for i in lc.range(tid, m * 16, 32):
            sA[i // 16, i % 16] = a[i // 16, i % 16]
        lc.syncthreads()
        thr = mma.get_slice(tid)
        tCrA = thr.partition_fragment_A(sA)
        tCrB = thr.partition_fragment_B(b)
        lc.copy(thr.partition_B(b), tCrB)
        s2r = lc.make_tiled_copy_A(ldsm, mma).get_slice(tid)
        lc.copy(lc.make_tiled_copy_A(ldsm, mma), s2r.partition_S(sA), s2r.retile_D(tCrA))
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        lc.gemm(mma, tCrA, tCrB, tCrC)
        lc.copy(tCrC, thr.partition_C(c))

    return ldmatrix_a
