"""``lc.gemm(..., accumulate=False)``: a warpgroup MMA whose first K-step takes scale-d 0
(CuTe's ``GMMA::ScaleOut::Zero``), so C's values before it are ignored (no clearing), on the
CPU runtime against numpy, in the PTX, and refused where the atom has no scale-d."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest

ATOM = "SM90_64x32x16_F32F16F16_SS"
BK = 64


def make_kernel(second: bool):
    """C = A @ B.T with C first filled with NaN (ignored by scale-d 0); ``second``: then the
    same product accumulated on top (scale-d 1), C = 2 A @ B.T."""
    mma = lc.make_tiled_mma(ATOM)
    s_a = lc.tile_to_shape(lc.gmma_layout_atom("K", "SW128", lc.f16), (64, BK))
    s_b = lc.tile_to_shape(lc.gmma_layout_atom("K", "SW128", lc.f16), (32, BK))

    @lc.kernel
    def scale_d_tile(
        a: lc.Tensor[lc.f16, "(64,64):(64,1)"],  # noqa: F722
        b: lc.Tensor[lc.f16, "(32,64):(64,1)"],  # noqa: F722
        c: lc.Tensor[lc.f32, "(64,32):(32,1)"],  # noqa: F722
    ):
        tid = lc.thread_idx.x
        sA = lc.smem_tensor(lc.f16, s_a, align=1024)
        sB = lc.smem_tensor(lc.f16, s_b, align=1024)
        for i in lc.range(tid, 64 * BK, 128):
            sA[i % 64, i // 64] = a[i % 64, i // 64]
        for i in lc.range(tid, 32 * BK, 128):
            sB[i % 32, i // 32] = b[i % 32, i // 32]
        lc.syncthreads()
        thr = mma.get_slice(tid)
        tCrC = thr.partition_fragment_C(c)
        for e in range(lc.size(tCrC)):
            tCrC[e] = float("nan")
        lc.warpgroup_fence_operand(tCrC)
        lc.warpgroup_arrive()
        lc.gemm(mma, thr.partition_A(sA), thr.partition_B(sB), tCrC, accumulate=False)
        if second:
            lc.gemm(mma, thr.partition_A(sA), thr.partition_B(sB), tCrC)
        lc.warpgroup_commit_batch()
        lc.warpgroup_wait(0)
        lc.warpgroup_fence_operand(tCrC)
        lc.copy(tCrC, thr.partition_C(c))

    return scale_d_tile


@pytest.mark.parametrize("second", [False, True])
def test_gemm_without_accumulate_ignores_c_on_the_cpu(second):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, BK)).astype(np.float16)
    b = rng.standard_normal((32, BK)).astype(np.float16)
    c = np.full((64, 32), np.nan, np.float32)
    make_kernel(second)(a, b, c, grid=1, block=128)
    ref = (2.0 if second else 1.0) * (a.astype(np.float64) @ b.astype(np.float64).T)
    np.testing.assert_allclose(c, ref, rtol=2e-5, atol=2e-4)


def test_gemm_without_accumulate_gives_the_first_k_step_scale_d_zero_in_the_ptx():
    """Four K-steps of 16: the first wgmma's scale-d operand is 0, the other three 1."""
    a = np.zeros((64, BK), np.float16)
    b = np.zeros((32, BK), np.float16)
    c = np.zeros((64, 32), np.float32)
    ck = lc.compile(make_kernel(False), a, b, c, block=128, target="sm_90a", cubin="never")
    assert ck.ptx.count("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16") == 4
    regs = re.findall(r"setp\.ne\.b32\s+p,\s*(%r\d+),\s*0;", ck.ptx)
    values = {r: int(v) for r, v in re.findall(r"mov\.[bu]32\s+(%r\d+),\s*(\d+);", ck.ptx)}
    assert [values[r] for r in regs] == [0, 1, 1, 1], regs


def test_gemm_without_accumulate_needs_a_warpgroup_mma():
    @lc.kernel
    def fma_gemm(c: lc.Tensor[lc.f32, "(4,4):(4,1)"]):  # noqa: F722
        a = lc.make_fragment(lc.make_layout(4), lc.f32)
        b = lc.make_fragment(lc.make_layout(4), lc.f32)
        lc.clear(a)
        lc.clear(b)
        f = lc.make_fragment(lc.make_layout((4, 4)), lc.f32)
        lc.gemm(a, b, f, accumulate=False)
        lc.copy(f, c)

    with pytest.raises(lc.CompileError, match=r"accumulate=False\) takes a warpgroup MMA"):
        fma_gemm(np.zeros((4, 4), np.float32), grid=1, block=1)
