"""The algorithms as traced IR: copy (plain, with an atom, cp.async), copy_if with a ragged tail,
axpby, fill, clear, and gemm in each of CuTe's five mode forms, with the user's locations."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import filecheck, mlir_loc, trace_ir

HERE = __file__
VEC = np.zeros(4096, np.float32)


@lc.kernel
def block_copy(src: lc.Tensor, dst: lc.Tensor):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    gS = lc.local_tile(src, (1024,), (bid,))
    gD = lc.local_tile(dst, (1024,), (bid,))
    tv = lc.make_layout((256, 4), (4, 1))
    lc.copy(lc.partition_tv(gS, tv, tid), lc.partition_tv(gD, tv, tid))  # @copy


def test_copy():
    ir = trace_ir(block_copy, VEC, VEC, block=256, debug_info=True)
    filecheck(
        ir,
        """
CHECK: %[[S:.*]] = tile.partition_tv {{.*}} -> !tile.tensor<f32, gmem, "(4):(1)", 16> <<1>>
CHECK: %[[D:.*]] = tile.partition_tv {{.*}} -> !tile.tensor<f32, gmem, "(4):(1)", 16> <<2>>
CHECK: tile.copy %[[S]], %[[D]] : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16> <<0>>
""",
        {
            "<<0>>": mlir_loc(HERE, "@copy", "lc.copy"),
            "<<1>>": mlir_loc(HERE, "@copy", "lc.partition_tv(gS"),
            "<<2>>": mlir_loc(HERE, "@copy", "lc.partition_tv(gD"),
        },
    )


@lc.kernel
def async_stage(src: lc.Tensor):
    tid = lc.thread_idx.x
    s = lc.smem_tensor(lc.f32, lc.make_layout(1024))
    atom = lc.make_copy_atom("cp.async.cg", lc.f32, bits=128)
    tc = lc.make_tiled_copy(atom, lc.make_layout(256), lc.make_layout(4))
    thr = tc.get_slice(tid)
    lc.copy(tc, thr.partition_S(lc.local_tile(src, (1024,), (lc.block_idx.x,))), thr.partition_D(s))
    lc.cp_async_commit()
    lc.cp_async_wait(0)
    lc.syncthreads()


def test_copy_with_an_atom_and_cp_async_groups():
    ir = trace_ir(async_stage, VEC, block=256)
    filecheck(
        ir,
        """
CHECK: tile.alloc_smem : !tile.tensor<f32, smem, "1024:1", 16>
CHECK: tile.copy %{{.*}}, %{{.*}} {atom = #tile.copy_atom<"cp.async.cg", 128>} : !tile.tensor<f32, gmem, "((4,1),(1)):((1,0),(0))", 16>, !tile.tensor<f32, smem, "((4,1),(1)):((1,0),(0))", 16>
CHECK-NEXT: tile.cp_async_commit
CHECK-NEXT: tile.cp_async_wait {pending = 0 : i64}
CHECK-NEXT: gpu.barrier
""",
    )


@lc.kernel
def ragged_tail(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    cS = lc.make_identity_tensor(src.shape)
    tv = lc.make_layout((256, 4), (4, 1))
    tS = lc.partition_tv(lc.local_tile(src, (1024,), (bid,)), tv, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (1024,), (bid,)), tv, tid)
    tC = lc.partition_tv(lc.local_tile(cS, (1024,), (bid,)), tv, tid)
    pred = lc.make_fragment_like(tC, lc.i1)
    for i in range(lc.size(pred)):
        pred[i] = lc.elem_less(tC[i], src.shape)
    lc.copy_if(pred, tS, tD)  # @copy-if


def test_copy_if_with_a_ragged_tail_predicate():
    n = 4000  # not a multiple of the 1024-element tile
    ir = trace_ir(
        ragged_tail, np.zeros(n, np.float32), np.zeros(n, np.float32), block=256, debug_info=True
    )
    filecheck(
        ir,
        """
CHECK: %[[P:.*]] = tile.alloc_fragment : !tile.tensor<i1, rmem, "(4):(1)", 1>
CHECK-COUNT-4: layout.elem_less
CHECK: tile.copy_if %[[P]], %{{.*}}, %{{.*}} : !tile.tensor<i1, rmem, "(4):(1)", 1>, !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16> <<0>>
""",
        {"<<0>>": mlir_loc(HERE, "@copy-if", "lc.copy_if")},
    )


@lc.kernel
def coord_predicate(src: lc.Tensor, dst: lc.Tensor):
    cS = lc.make_identity_tensor(src.shape)
    lc.copy_if(cS, src, dst, bounds=src.shape)


def test_copy_if_with_a_coordinate_tensor_and_bounds():
    ir = trace_ir(coord_predicate, VEC, VEC)
    filecheck(
        ir,
        """
CHECK: %[[C:.*]] = tile.make_identity_tensor
CHECK: %[[B:.*]] = layout.make_int_tuple %{{.*}} : !layout.int_tuple<"(?)">
CHECK: tile.copy_if %[[C]], %{{.*}}, %{{.*}}, %[[B]] : !tile.tensor<coord, "(?):(1@0)">
""",
    )


@lc.kernel
def scaled(x: lc.Tensor, y: lc.Tensor, alpha: float, beta: lc.Constexpr[float]):
    tid = lc.thread_idx.x
    tx = lc.local_partition(x, lc.make_layout(128), tid)
    ty = lc.local_partition(y, lc.make_layout(128), tid)
    lc.axpby(alpha, tx, beta, ty)  # @axpby
    r = lc.make_fragment_like(lc.local_tile(tx, (8,), (0,)))
    lc.fill(r, 2)  # @fill
    lc.clear(r)  # @clear


def test_axpby_fill_clear():
    ir = trace_ir(scaled, VEC, VEC, 1.5, 0.5, debug_info=True)
    filecheck(
        ir,
        """
CHECK: %[[X:.*]] = tile.local_partition %{{.*}}[%{{.*}}] {thr_layout = #layout.layout<"128:1">}
CHECK: %[[Y:.*]] = tile.local_partition
CHECK: %[[B:.*]] = arith.constant 5.000000e-01 : f32
CHECK: tile.axpby %alpha, %[[X]], %[[B]], %[[Y]] : f32, {{.*}} <<0>>
CHECK: %[[R:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "((8)):((1))", 4>
CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
CHECK: tile.fill %[[R]], %[[TWO]] : {{.*}} <<1>>
CHECK: tile.clear %[[R]] : {{.*}} <<2>>
""",
        {
            "<<0>>": mlir_loc(HERE, "@axpby", "lc.axpby"),
            "<<1>>": mlir_loc(HERE, "@fill", "lc.fill"),
            "<<2>>": mlir_loc(HERE, "@clear", "lc.clear"),
        },
    )


GEMM_FORMS = {
    "(V)x(V)=>(V)": ((8,), (8,), (8,)),
    "(M)x(N)=>(M,N)": ((4,), (8,), (4, 8)),
    "(M,K)x(N,K)=>(M,N)": ((4, 2), (8, 2), (4, 8)),
    "(V,M)x(V,N)=>(V,M,N)": ((2, 4), (2, 8), (2, 4, 8)),
    "(V,M,K)x(V,N,K)=>(V,M,N)": ((2, 4, 3), (2, 8, 3), (2, 4, 8)),
}


@lc.kernel
def gemm_form(sa: lc.Constexpr[tuple], sb: lc.Constexpr[tuple], sc: lc.Constexpr[tuple]):
    a = lc.make_fragment(sa, lc.f32)
    b = lc.make_fragment(sb, lc.f32)
    c = lc.make_fragment(sc, lc.f32)
    lc.clear(c)
    lc.gemm(a, b, c)  # @gemm


def _text(shape):
    from layoutc.ir.algebra import Layout

    return Layout(shape).format() if len(shape) > 1 else f"({shape[0]}):(1)"


@pytest.mark.parametrize("form", list(GEMM_FORMS))
def test_gemm_mode_forms(form):
    sa, sb, sc = GEMM_FORMS[form]
    ir = trace_ir(gemm_form, sa, sb, sc, block=32, debug_info=True)
    filecheck(
        ir,
        """
CHECK: %[[A:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "<<A>>", 4>
CHECK: %[[B:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "<<B>>", 4>
CHECK: %[[C:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "<<C>>", 4>
CHECK: tile.gemm %[[A]], %[[B]], %[[C]] : {{.*}} <<LOC>>
""",
        {
            "<<A>>": _text(sa),
            "<<B>>": _text(sb),
            "<<C>>": _text(sc),
            "<<LOC>>": mlir_loc(HERE, "@gemm", "lc.gemm"),
        },
    )


@lc.kernel
def mma_gemm():
    sa = lc.smem_tensor(lc.f32, lc.make_layout((32, 8)))
    sb = lc.smem_tensor(lc.f32, lc.make_layout((32, 8)))
    sc = lc.smem_tensor(lc.f32, lc.make_layout((32, 32)))
    mma = lc.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((2, 2, 1)))
    thr = mma.get_slice(lc.thread_idx.x)
    ra = thr.partition_fragment_A(sa)
    rb = thr.partition_fragment_B(sb)
    rc = thr.partition_fragment_C(sc)
    lc.copy(thr.partition_A(sa), ra)
    lc.copy(thr.partition_B(sb), rb)
    lc.clear(rc)
    lc.gemm(mma, ra, rb, rc)
    lc.copy(rc, thr.partition_C(sc))


def test_gemm_with_a_tiled_mma():
    ir = trace_ir(mma_gemm)
    filecheck(
        ir,
        """
CHECK: %[[RA:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2),1,1):((1,2),0,0)", 4>
CHECK: %[[RB:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "(2,2,1):(1,2,0)", 4>
CHECK: %[[RC:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2),1,2):((1,2),0,4)", 4>
CHECK: tile.gemm %[[RA]], %[[RB]], %[[RC]] {atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">}
""",
    )
