"""The sm_80 double-precision tensor-core atom SM80_8x8x4_F64F64F64F64_TN: its fragment layouts are
the PTX ISA's (mma.m8n8k4 .f64), a tiled-MMA DGEMM computes A @ B.T on the CPU runtime (and the
GPU where there is one), and its PTX issues mma.sync.aligned.m8n8k4 and assembles."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.ir.dialects.tile.atoms import mma_operation

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
ATOM = "SM80_8x8x4_F64F64F64F64_TN"


def test_fragments_are_the_ptx_isa_ones():
    """PTX ISA, mma.m8n8k4 with .f64: groupID = lane >> 2, threadID_in_group = lane % 4;
    a0 at (row groupID, col threadID_in_group); b0 at (row threadID_in_group, col groupID);
    c0, c1 at (row groupID, col 2 * threadID_in_group + i)."""
    op = mma_operation(ATOM)
    assert op.shape_mnk == (8, 8, 4) and op.num_threads == 32
    for lane in range(32):
        g, t = lane >> 2, lane % 4
        assert op.layout_a(lane, 0) == g + 8 * t  # (M,K) column-major
        assert op.layout_b(lane, 0) == g + 8 * t  # (N,K) column-major: n = groupID, k = t
        for i in range(2):
            assert op.layout_c(lane, i) == g + 8 * (2 * t + i)
    assert op.asm() == (
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {$0, $1}, {$2}, {$3}, {$4, $5};"
    )
    assert op.constraints() == "=d,=d,d,d,d,d"


MMA = lc.make_tiled_mma(ATOM, lc.make_layout((2, 2, 1)))


@lc.kernel
def dgemm(
    A: lc.Tensor(lc.f64, "(M,K):(K,1)"),
    B: lc.Tensor(lc.f64, "(N,K):(K,1)"),
    C: lc.Tensor(lc.f64, "(M,N):(N,1)"),
):
    thr = MMA.get_slice(lc.thread_idx.x)
    gA = lc.local_tile(A, (16, 4), (lc.block_idx.x, _))
    gB = lc.local_tile(B, (16, 4), (lc.block_idx.y, _))
    gC = lc.local_tile(C, (16, 16), (lc.block_idx.x, lc.block_idx.y))
    tCgA, tCgB, tCgC = thr.partition_A(gA), thr.partition_B(gB), thr.partition_C(gC)
    tCrA = thr.make_fragment_A(tCgA[_, _, _, 0])
    tCrB = thr.make_fragment_B(tCgB[_, _, _, 0])
    tCrC = thr.make_fragment_C(tCgC)
    lc.clear(tCrC)
    for k in lc.range(lc.size(gA, 2)):
        lc.copy(tCgA[_, _, _, k], tCrA)
        lc.copy(tCgB[_, _, _, k], tCrB)
        lc.gemm(MMA, tCrA, tCrB, tCrC)
    lc.copy(tCrC, tCgC)


@pytest.mark.parametrize("target", TARGETS)
def test_dgemm_matches_numpy(target):
    rng = np.random.default_rng(0)
    a = rng.integers(-8, 9, (48, 20)).astype(np.float64)  # exact in any order of summation
    b = rng.integers(-8, 9, (32, 20)).astype(np.float64)
    c = np.full((48, 32), np.nan)
    ck = lc.compile(dgemm, a, b, c, block=128, target=target, cache=False)
    ck(a, b, c, grid=(3, 2), block=128)
    np.testing.assert_array_equal(c, a @ b.T)
    a = rng.standard_normal((16, 8))
    b = rng.standard_normal((16, 8))
    c = np.full((16, 16), np.nan)
    ck(a, b, c, grid=(1, 1), block=128)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-13, atol=1e-13)


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx_issues_the_f64_mma(arch):
    a = np.zeros((32, 16))
    ck = lc.compile(dgemm, a, a, np.zeros((32, 32)), block=128, target=arch, cache=False)
    assert "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64" in ck.ptx and ck.cubin


def test_f64_atom_refuses_other_types():
    @lc.kernel
    def wrong(c: lc.Tensor):
        mma = lc.make_tiled_mma(ATOM, lc.make_layout((1, 1, 1)))
        thr = mma.get_slice(lc.thread_idx.x)
        rA = lc.make_fragment((1, 1, 1), lc.f32)
        rB = lc.make_fragment((1, 1, 1), lc.f32)
        rC = lc.make_fragment((2, 1, 1), lc.f32)
        lc.gemm(mma, rA, rB, rC)
        del thr

    with pytest.raises(
        lc.CompileError, match=f"atom '{ATOM}' needs A of element type f64, got f32"
    ):
        wrong.trace(wrong.specialize(np.zeros(4), block=32))
