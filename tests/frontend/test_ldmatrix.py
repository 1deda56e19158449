"""ldmatrix from the DSL, the CuTe way: ``make_tiled_copy_A/B(atom, tiled_mma)``, the thread's
``partition_S`` of shared memory and ``retile_D`` of the MMA's register fragment, then
``lc.copy(tiled_copy, ...)``. An F16 GEMM loads A and B with ``ldmatrix.x4`` and is checked
against numpy on the CPU path (and on the GPU where there is one); its PTX uses the instruction.
"""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _
from layoutc.ir.dialects.tile import tiled as tile_algebra
from ldmatrix_kernels import ldmatrix_a

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]

BM, BN, BK = 32, 32, 16
# 2x2 warps of m16n8k16; the N permutation 32 gives each warp two atoms along N, so that a
# thread holds 8 values of B, as ldmatrix.x4 delivers them (CUTLASS's sm80 gemm does the same)
MMA = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", lc.make_layout((2, 2, 1)), (32, 32, 16))
LDSM = lc.make_copy_atom("ldmatrix.x4", lc.f16)  # x4 fixes the width: 128 bits per thread
S_A = lc.make_layout((BM, BK), (BK, 1))  # K-major: each ldmatrix row is 8 contiguous f16
S_B = lc.make_layout((BN, BK), (BK, 1))
T_G = lc.make_layout((32, 4), (4, 1))  # global -> shared: 128 threads along K


@lc.kernel
def gemm_ldmatrix(
    a: lc.Tensor[lc.f16, "(M,K):(K,1)"],  # noqa: F722
    b: lc.Tensor[lc.f16, "(N,K):(K,1)"],  # noqa: F722
    c: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
):
    where = (lc.block_idx.x, lc.block_idx.y, _)
    gA = lc.local_tile(a, (BM, BN, BK), where, proj=(1, None, 1))
    gB = lc.local_tile(b, (BM, BN, BK), where, proj=(None, 1, 1))
    gC = lc.local_tile(c, (BM, BN, BK), where, proj=(1, 1, None))
    sA = lc.smem_tensor(lc.f16, S_A)
    sB = lc.smem_tensor(lc.f16, S_B)
    tid = lc.thread_idx.x
    tAgA, tAsA = lc.local_partition(gA, T_G, tid), lc.local_partition(sA, T_G, tid)
    tBgB, tBsB = lc.local_partition(gB, T_G, tid), lc.local_partition(sB, T_G, tid)

    thr_mma = MMA.get_slice(tid)
    tCrA = thr_mma.partition_fragment_A(sA)
    tCrB = thr_mma.partition_fragment_B(sB)
    tCrC = thr_mma.partition_fragment_C(gC)
    lc.clear(tCrC)

    copy_a = lc.make_tiled_copy_A(LDSM, MMA)
    copy_b = lc.make_tiled_copy_B(LDSM, MMA)
    thr_a, thr_b = copy_a.get_slice(tid), copy_b.get_slice(tid)
    tXsA, tXrA = thr_a.partition_S(sA), thr_a.retile_D(tCrA)
    tXsB, tXrB = thr_b.partition_S(sB), thr_b.retile_D(tCrB)
    for k in lc.range(lc.size(gA, 2)):
        lc.copy(tAgA[_, _, k], tAsA)
        lc.copy(tBgB[_, _, k], tBsB)
        lc.syncthreads()
        lc.copy(copy_a, tXsA, tXrA)  # ldmatrix.x4
        lc.copy(copy_b, tXsB, tXrB)
        lc.gemm(MMA, tCrA, tCrB, tCrC)
        lc.syncthreads()
    lc.copy(tCrC, thr_mma.partition_C(gC))


def _inputs(m: int, n: int, k: int):
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)  # exact in f16 and in the f32 sums
    b = rng.integers(-4, 5, (n, k)).astype(np.float16)
    return a, b, np.full((m, n), np.nan, np.float32)


@pytest.mark.parametrize("target", TARGETS)
def test_f16_gemm_with_ldmatrix_matches_numpy(target):
    a, b, c = _inputs(64, 32, 32)
    ck = lc.compile(gemm_ldmatrix, a, b, c, block=128, target=target, cache=False)
    ck(a, b, c, grid=(64 // BM, 32 // BN), block=128)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64).T)


def test_the_ptx_uses_ldmatrix_x4():
    a, b, c = _inputs(64, 32, 32)
    spec = gemm_ldmatrix.specialize(a, b, c, block=128)
    module, _name, _abi = gemm_ldmatrix.trace(spec)
    copies = [line for line in module.to_text().splitlines() if "ldmatrix.x4" in line]
    assert len(copies) == 2 and all("tile.copy" in line for line in copies)
    ck = lc.compile(gemm_ldmatrix, a, b, c, block=128, target="sm_80", cache=False)
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ck.ptx


def test_single_width_atoms_need_no_bits():
    assert LDSM.atom.op.bits == 128
    assert lc.make_copy_atom("ldmatrix.x2", lc.f16).atom.op.bits == 64
    assert lc.make_copy_atom("cp.async.cg", lc.f32).atom.op.bits == 128
    with pytest.raises(lc.CompileError, match=r"needs its width in bits \(one of 32, 64, 128\)"):
        lc.make_copy_atom("cp.async.ca", lc.f32)


@lc.kernel
def retiled(which: lc.Constexpr[str]):
    tid = lc.thread_idx.x
    thr = MMA.get_slice(tid)
    frag = thr.partition_fragment_A(lc.smem_tensor(lc.f16, S_A))
    if which == "B":
        frag = thr.partition_fragment_B(lc.smem_tensor(lc.f16, S_B))
    tiled = lc.make_tiled_copy_A(LDSM, MMA) if which == "A" else lc.make_tiled_copy_B(LDSM, MMA)
    view = tiled.get_slice(tid).retile_D(frag)
    lc.clear(view)


@pytest.mark.parametrize("which", ["A", "B"])
def test_retile_views_are_the_algebras(which):
    """The traced view chain gives CuTe's retile of the fragment's layout (the tile dialect's
    algebra, itself checked against NVIDIA's CuTe DSL)."""
    module, _n, _abi = retiled.trace(retiled.specialize(which, block=128))
    cleared = [op for op in _ops(module) if op.name == "tile.clear"]
    (clear,) = cleared
    mma = tile_algebra.make_tiled_mma(
        "SM80_16x8x16_F32F16F16F32_TN", lc.make_layout((2, 2, 1)), (32, 32, 16)
    )
    make = tile_algebra.make_tiled_copy_A if which == "A" else tile_algebra.make_tiled_copy_B
    tiled = make(tile_algebra.make_copy_atom("ldmatrix.x4", None, "f16"), mma)
    fragment = getattr(mma, f"partition_fragment_{which}")(S_A if which == "A" else S_B, 0)
    expected = tiled.retile(fragment)
    assert clear.operands[0].type.layout() == expected


def _ops(module):
    out = []
    module.walk(out.append)
    return out


@pytest.mark.parametrize(
    ("atom", "m", "n"),
    [
        ("SM75_U32x4_LDSM_N", 64, 16),  # ((8,4),1,1): 4 ldmatrix.x4 per thread
        ("SM75_U32x2_LDSM_N", 16, 8),  # rows (8,2) in shared memory, (4,2) in registers
        ("SM75_U32x1_LDSM_N", 32, 8),  # ((8,(2,2,2)),1,1) rows, ((2,8),1,1) registers
    ],
)
def test_ldmatrix_takes_the_nested_partitions_of_every_width(atom, m, n):
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (m, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (n, 16)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    ldmatrix_a(atom, m, n)(a, b, c, grid=1, block=32)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64).T)
