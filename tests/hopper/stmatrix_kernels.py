"""A warp's f16 MMA whose accumulators go to shared memory with stmatrix (CuTe's epilogue:
``make_tiled_copy_C(SM90_U32x4_STSM_N, mma)``, ``retile_S`` of the accumulators,
``partition_D`` of the shared tile, ``copy``), then to global memory. The partitions are
passed as CuTe gives them: where a thread repeats the atom, their mode 0 is nested (e.g.
``((8,4),1,1)``) and the copy peels it, as CuTe's ``Copy_Atom::call`` does."""

import layoutc as lc

ROW_MAJOR = lc.make_layout((16, 16), (16, 1))  # stmatrix: a row of C is 8 contiguous f16
COL_MAJOR = lc.make_layout((16, 16), (1, 16))  # stmatrix .trans: a column of C


def smem_layout(m: int, n: int, trans: bool):
    """C's shared tile: row-major for stmatrix, column-major for stmatrix .trans."""
    return lc.make_layout((m, n), (1, m) if trans else (n, 1))


def make(atom_name, s_c, tile=(16, 16)):
    """The kernel for an ``m x n`` tile of C = A @ B.T (A: m x 16, B: n x 16), one warp."""
    m, n = tile
    stsm = lc.make_copy_atom(atom_name, lc.f16)
    mma = lc.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", lc.make_layout((1, 1, 1)), (m, n, 16))

    @lc.kernel
    def mma_stmatrix(
        a: lc.Tensor[lc.f16, f"({m},16):(16,1)"],
        b: lc.Tensor[lc.f16, f"({n},16):(16,1)"],
        c: lc.Tensor[lc.f16, f"({m},{n}):({n},1)"],
    ):
        tid = lc.thread_idx.x
        sC = lc.smem_tensor(lc.f16, s_c)
        thr = mma.get_slice(tid)
        tCrA = thr.partition_fragment_A(a)
        tCrB = thr.partition_fragment_B(b)
        lc.copy(thr.partition_A(a), tCrA)
        lc.copy(thr.partition_B(b), tCrB)
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        lc.gemm(mma, tCrA, tCrB, tCrC)
        r2s = lc.make_tiled_copy_C(stsm, mma)
        r2s_thr = r2s.get_slice(tid)
        lc.copy(r2s, r2s_thr.retile_S(tCrC), r2s_thr.partition_D(sC))
        lc.syncthreads()
        for i in lc.range(tid, m * n, 32):
            c[i // n, i % n] = sC[i // n, i % n]

    return mma_stmatrix
