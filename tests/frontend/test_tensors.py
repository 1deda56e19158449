"""Tensors in kernels: argument tensors, indexing and slicing the CuTe way, views, register
fragments, shared memory, identity tensors and predicates, tiled copies and MMAs (checked against
the tile dialect's pure-algebra TiledCopy/TiledMMA), and the layout functions on dynamic values."""

from __future__ import annotations

import layoutc as lc
import numpy as np
from frontend_helpers import filecheck, trace_ir
from layoutc import _
from layoutc.frontend.abi import build_abi
from layoutc.ir.algebra import Layout
from layoutc.ir.dialects.layout.symbolic_types import from_symbolic
from layoutc.ir.dialects.tile import tiled

X = np.zeros((64, 32), np.float32)


def module_of(kernel, *args, block=128):
    return kernel.trace(kernel.specialize(*args, block=block))


def tensor_types(module, op_name):
    """Result types of every op named ``op_name`` (in order)."""
    out = []
    for op in module.walk_ops():
        if op.name == op_name:
            out.append(op.results[0].type)
    return out


@lc.kernel
def indexing(a: lc.Tensor):
    r = lc.make_fragment(((2, 3), 4), lc.f32)
    x = a[3, 5]
    a[(4, 6)] = x * 2.0
    r[0] = 7  # converted to f32
    r[(1, 2), 3] = a[1]
    col = r[_, 2]  # noqa: F841
    sub = r[(_, 1), 3]  # noqa: F841
    row = a[5, _]  # noqa: F841


def test_indexing_loads_stores_and_slices_like_cute():
    ir = trace_ir(indexing, X)
    filecheck(
        ir,
        """
CHECK: %[[A:.*]] = tile.make_tensor %a, %{{.*}} -> !tile.tensor<f32, gmem, "(?,?):(?,1)", 16>
CHECK: %[[R:.*]] = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,3),4):((1,2),6)", 4>
CHECK: %[[X:.*]] = tile.load %[[A]][(3, 5)]
CHECK: %[[Y:.*]] = arith.mulf %[[X]]
CHECK: tile.store %[[Y]], %[[A]][(4, 6)]
CHECK: %[[C7:.*]] = arith.constant 7.000000e+00 : f32
CHECK: tile.store %[[C7]], %[[R]][0]
CHECK: %[[A1:.*]] = tile.load %[[A]][1]
CHECK: tile.store %[[A1]], %[[R]][((1, 2), 3)]
CHECK: tile.slice %[[R]][(_, 2)] {{.*}} -> !tile.tensor<f32, rmem, "((2,3)):((1,2))", 4>
CHECK: tile.slice %[[R]][((_, 1), 3)] {{.*}} -> !tile.tensor<f32, rmem, "(2):(1)", 4>
CHECK: tile.slice %[[A]][(5, _)] {{.*}} -> !tile.tensor<f32, gmem, "(?):(1)", 4>
""",
    )


@lc.kernel
def shapes(a: lc.Tensor, n: int):
    tid = lc.thread_idx.x
    rows, cols = a.shape
    assert isinstance(rows, lc.Int) and cols is not None
    g = lc.local_tile(a, (16, 8), (lc.block_idx.x, lc.block_idx.y))
    assert g.shape == (16, 8) and lc.size(g) == 128 and lc.rank(g) == 2
    assert lc.shape(g, 1) == 8
    off = lc.crd2idx((tid, 3), lc.make_layout((32, 4), (1, 32)))  # dynamic coordinate
    dyn = lc.make_layout((n, 4))  # a layout with a dynamic extent
    total = lc.size(dyn)
    a[0, 0] = lc.f32(off + total)


def test_shapes_sizes_and_layout_functions_on_dynamic_values():
    ir = trace_ir(shapes, X, 5)
    filecheck(
        ir,
        """
CHECK: %[[T:.*]] = gpu.thread_id x
CHECK: %[[C3:.*]] = arith.constant 96 : index
CHECK: %[[OFF:.*]] = arith.addi %[[T]], %[[C3]] : index
CHECK: %[[N:.*]] = arith.index_cast %n : i32 to index
CHECK: %[[TOT:.*]] = arith.muli %[[N]], %c4 : index
CHECK: arith.addi %[[OFF]], %[[TOT]] : index
""",
    )


@lc.kernel
def fragments(a: lc.Tensor):
    tid = lc.thread_idx.x
    g = lc.local_tile(a, (16, 32), (lc.block_idx.x, 0))
    t = lc.local_partition(g, lc.make_layout((4, 32), (32, 1)), tid)
    frag = lc.make_fragment_like(t)  # (4,1) partition of a row-major tile
    like = lc.make_tensor_like(t)
    half = lc.make_fragment_like(lc.make_layout((2, (2, 4)), (8, (1, 2))), lc.f16)
    lc.copy(t, frag)
    lc.copy(frag, like)
    lc.clear(half)


def test_fragments_follow_cute_make_fragment_like():
    module, _, _ = module_of(fragments, X)
    frags = [t.layout_text for t in tensor_types(module, "tile.alloc_fragment")]
    parts = [t.layout_text for t in tensor_types(module, "tile.local_partition")]
    assert parts == ["(4,1):(?,0)"]
    # make_fragment_like: tiled_product(mode 0 compact column-major, the other modes ordered
    # like the source's strides), as CuTe's layout.hpp computes it (take<1,R> keeps the rest as
    # one nested mode); make_tensor_like: the source's stride order
    assert frags == ["(4,(1)):(1,(0))", "(4,1):(1,0)", "(2,((2,4))):(1,((2,4)))"]


@lc.kernel
def shared_memory(a: lc.Tensor):
    s1 = lc.smem_tensor(lc.f32, lc.make_layout((32, 8)))
    s2 = lc.smem_tensor(lc.f16, lc.make_layout((64, 8), (8, 1)), align=128)
    lc.copy(lc.local_tile(a, (32, 8), (0, 0)), s1)
    lc.syncthreads()
    s2[0, 0] = s1[0, 0]


def test_shared_memory_allocations_are_counted_in_the_abi():
    module, _, abi = module_of(shared_memory, X)
    assert [t.text for t in tensor_types(module, "tile.alloc_smem")] == [
        '!tile.tensor<f32, smem, "(32,8):(1,32)", 16>',
        '!tile.tensor<f16, smem, "(64,8):(8,1)", 128>',
    ]
    assert abi.static_smem == 1024 + 1024
    assert abi.runtime_spec().static_smem == 2048


@lc.kernel
def predicated_tail(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    cS = lc.make_identity_tensor(src.shape)
    tv = lc.make_layout((128, 4), (4, 1))
    tS = lc.partition_tv(lc.local_tile(src, (512,), (bid,)), tv, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (512,), (bid,)), tv, tid)
    tC = lc.partition_tv(lc.local_tile(cS, (512,), (bid,)), tv, tid)
    pred = lc.make_fragment_like(tC, lc.i1)
    for i in range(lc.size(pred)):
        pred[i] = lc.elem_less(tC[i], src.shape)
    lc.copy_if(pred, tS, tD)


def test_predicates_from_identity_tensors_see_the_global_coordinate():
    ir = trace_ir(predicated_tail, np.zeros(1000, np.float32), np.zeros(1000, np.float32))
    filecheck(
        ir,
        """
CHECK: %[[N:.*]] = arith.index_cast %src_shape0 : i32 to index
CHECK: %[[B:.*]] = gpu.block_id x
CHECK: %[[T:.*]] = gpu.thread_id x
CHECK: tile.make_identity_tensor {{.*}} -> !tile.tensor<coord, "(?):(1@0)">
CHECK: tile.local_tile {{.*}}[(%[[B]])] {{.*}} -> !tile.tensor<coord, "((512)):((1@0))", origin = "(?)">
CHECK: %[[TC:.*]] = tile.partition_tv {{.*}}[%[[T]]] {{.*}} -> !tile.tensor<coord, "(4):(1@0)", origin = "(?)">
CHECK: %[[P:.*]] = tile.alloc_fragment : !tile.tensor<i1, rmem, "(4):(1)", 1>
CHECK: %[[CRD:.*]] = tile.load %[[TC]][0] : {{.*}} -> !layout.int_tuple<"(?)">
CHECK: %[[BND:.*]] = layout.make_int_tuple %[[N]] : !layout.int_tuple<"(?)">
CHECK: %[[LT:.*]] = layout.elem_less %[[CRD]], %[[BND]]
CHECK: tile.store %[[LT]], %[[P]][0]
CHECK-COUNT-3: layout.elem_less
CHECK: tile.copy_if %[[P]], %{{.*}}, %{{.*}} : !tile.tensor<i1, rmem, "(4):(1)", 1>
""",
    )


# ---------------------------------------------------------------------------------------------
# tiled copy and tiled MMA: the view-op chains give what the tile dialect's algebra gives
# ---------------------------------------------------------------------------------------------

SMEM = Layout((64, 16), (16, 1))


@lc.kernel
def tiled_copy_partitions(thr: lc.Constexpr[int]):
    s = lc.smem_tensor(lc.f32, SMEM)
    r = lc.smem_tensor(lc.f32, SMEM)
    atom = lc.make_copy_atom("universal", lc.f32, bits=128)
    tc = lc.make_tiled_copy(atom, lc.make_layout((16, 4), (4, 1)), lc.make_layout((1, 4)))
    part = tc.get_slice(thr)
    src, dst = part.partition_S(s), part.partition_D(r)
    lc.copy(tc, src, dst)


def test_tiled_copy_partition_matches_the_algebra():
    algebra = tiled.make_tiled_copy(
        tiled.make_copy_atom("universal", 128, "f32"), Layout((16, 4), (4, 1)), Layout((1, 4))
    )
    for thr in (0, 5, 63):
        module, _, _ = module_of(tiled_copy_partitions, thr, block=64)
        slices = tensor_types(module, "tile.slice")
        expect_s, _off = algebra.partition_S(SMEM, thr)
        expect_d, _off = algebra.partition_D(SMEM, thr)
        assert slices[0].layout_text == from_symbolic(expect_s)[0].layout_text
        assert slices[1].layout_text == from_symbolic(expect_d)[0].layout_text
    copies = [op for op in module.walk_ops() if op.name == "tile.copy"]
    assert copies[0].atom.text == '#tile.copy_atom<"universal", 128>'


@lc.kernel
def tiled_mma_partitions(thr: lc.Constexpr[int]):
    sa = lc.smem_tensor(lc.f32, Layout((32, 8)))
    sb = lc.smem_tensor(lc.f32, Layout((32, 8)))
    sc = lc.smem_tensor(lc.f32, Layout((32, 32)))
    mma = lc.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((2, 2, 1)))
    part = mma.get_slice(thr)
    ta, tb, tcc = part.partition_A(sa), part.partition_B(sb), part.partition_C(sc)
    ra = part.make_fragment_A(ta)
    rb = part.make_fragment_B(tb)
    rc = part.partition_fragment_C(sc)
    lc.copy(ta, ra)
    lc.copy(tb, rb)
    lc.clear(rc)
    lc.gemm(mma, ra, rb, rc)
    lc.copy(rc, tcc)


def test_tiled_mma_partitions_match_the_algebra():
    algebra = tiled.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", Layout((2, 2, 1)))
    for thr in (0, 7, 100):
        module, _, _ = module_of(tiled_mma_partitions, thr)
        slices = tensor_types(module, "tile.slice")
        for got, (fn, lay) in zip(
            slices,
            [
                (algebra.partition_A, Layout((32, 8))),
                (algebra.partition_B, Layout((32, 8))),
                (algebra.partition_C, Layout((32, 32))),
            ],
        ):
            assert got.layout_text == from_symbolic(fn(lay, thr)[0])[0].layout_text
    gemm = next(op for op in module.walk_ops() if op.name == "tile.gemm")
    assert gemm.atom.text == '#tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">'


@lc.kernel
def tiled_mma_dynamic_thread():
    sc = lc.smem_tensor(lc.f32, Layout((32, 32)))
    mma = lc.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((2, 2, 1)))
    rc = mma.get_slice(lc.thread_idx.x).partition_fragment_C(sc)
    lc.clear(rc)


def test_tiled_mma_thread_coordinates_are_computed_from_the_thread_index():
    ir = trace_ir(tiled_mma_dynamic_thread)
    # (v, m, n) of thread t in the (32,2,2,1) thread layout: t % 32, (t / 32) % 2, (t / 64) % 2
    filecheck(
        ir,
        """
CHECK: %[[T:.*]] = gpu.thread_id x
CHECK-DAG: arith.remsi %[[T]], %c32 : index
CHECK-DAG: %[[Q:.*]] = arith.divsi %[[T]], %c32 : index
CHECK-DAG: arith.remsi %[[Q]], %c2 : index
CHECK: tile.slice
CHECK: tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2),1,2):((1,2),0,4)", 4>
""",
    )


def test_abi_of_a_tensor_kernel():
    spec = predicated_tail.specialize(np.zeros(100, np.float32), np.zeros(100, np.float32))
    abi = build_abi("k", spec)
    assert abi.equal_carriers == (("src_shape0", "dst_shape0"),)
