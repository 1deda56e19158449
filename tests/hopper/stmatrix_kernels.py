"""A warp's f16 MMA whose accumulators go to shared memory with stmatrix (CuTe's epilogue:
``make_tiled_copy_C(SM90_U32x4_STSM_N, mma)``, ``retile_S`` of the accumulators,
``partition_D`` of the shared tile), then to global memory."""

import layoutc as lc

MMA = lc.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", lc.make_layout((1, 1, 1)), (16, 16, 16))
ROW_MAJOR = lc.make_layout((16, 16), (16, 1))  # stmatrix: a row of C is 8 contiguous f16
COL_MAJOR = lc.make_layout((16, 16), (1, 16))  # stmatrix .trans: a column of C


def make(atom_name, s_c):
    stsm = lc.make_copy_atom(atom_name, lc.f16)

    @lc.kernel
    def mma_stmatrix(
        a: lc.Tensor[lc.f16, "(16,16):(16,1)"],  # noqa: F722
        b: lc.Tensor[lc.f16, "(16,16):(16,1)"],  # noqa: F722
        c: lc.Tensor[lc.f16, "(16,16):(16,1)"],  # noqa: F722
    ):
        tid = lc.thread_idx.x
        sC = lc.smem_tensor(lc.f16, s_c)
        thr = MMA.get_slice(tid)
        tCrA = thr.partition_fragment_A(a)
        tCrB = thr.partition_fragment_B(b)
        lc.copy(thr.partition_A(a), tCrA)
        lc.copy(thr.partition_B(b), tCrB)
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        lc.gemm(MMA, tCrA, tCrB, tCrC)
        r2s = lc.make_tiled_copy_C(stsm, MMA)
        r2s_thr = r2s.get_slice(tid)
        lc.copy(r2s, r2s_thr.retile_S(tCrC), r2s_thr.partition_D(sC))
        lc.syncthreads()
        for i in lc.range(tid, 256, 32):
            c[i // 16, i % 16] = sC[i // 16, i % 16]

    return mma_stmatrix
