"""Single-warpgroup wgmma GEMM tiles for the tests: C(64,N) = A(64,BK) @ B(N,BK).T with A and
B staged in shared memory in a GMMA layout atom tiled to the tile (``lc.tile_to_shape``)."""

import layoutc as lc
from layoutc import _

TAGS = {("f16", "f32"): "F32F16F16", ("bf16", "f32"): "F32BF16BF16", ("f16", "f16"): "F16F16F16"}


def make_tile_gemm(
    n,
    major_a="K",
    major_b="K",
    swizzle="SW128",
    dtype=lc.f16,
    acc=lc.f32,
    smem=None,
    dynamic=False,
    k_steps=False,
):
    """The kernel ``(a, b, c)`` and its BK. With ``dynamic``, A and B are in *dynamic* shared
    memory (``align=1024``) behind a static array of 5 ints, and the kernel takes a fourth
    argument ``flags`` (5 ints) that gets the array's values ``3*t`` back: the layout
    tests/hopper/test_dynamic_smem_align.py checks. With ``k_steps``, the gemm is issued one
    K-step at a time (CuTe's ``(V,M)x(V,N)=>(V,M,N)`` form on ``tCsA[_, _, k]``) in two commit
    groups, the first K-step and the rest, with a ``warpgroup_wait(1)`` between them (the
    sm90 GEMM's ``mma_lead``)."""
    k = 16 if dtype.bits == 16 else 8
    bk = 4 * k
    if dtype.bits == 32:
        atom = f"SM90_64x{n}x8_F32TF32TF32_SS_TN"
    else:
        atom = f"SM90_64x{n}x16_{TAGS[(dtype.name, acc.name)]}_SS"
    mma = lc.make_tiled_mma(atom)
    if smem is None:
        s_a = lc.tile_to_shape(lc.gmma_layout_atom(major_a, swizzle, dtype), (64, bk))
        s_b = lc.tile_to_shape(lc.gmma_layout_atom(major_b, swizzle, dtype), (n, bk))
    else:
        s_a, s_b = smem

    alloc = lc.dynamic_smem_tensor if dynamic else lc.smem_tensor

    @lc.func
    def tile(a, b, c):
        """Stage A and B in shared memory, one wgmma batch, C out."""
        tid = lc.thread_idx.x
        sA = alloc(dtype, s_a, align=1024)
        sB = alloc(dtype, s_b, align=1024)
        for i in lc.range(tid, 64 * bk, 128):
            sA[i % 64, i // 64] = a[i % 64, i // 64]
        for i in lc.range(tid, n * bk, 128):
            sB[i % n, i // n] = b[i % n, i // n]
        lc.syncthreads()
        thr = mma.get_slice(tid)
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        lc.warpgroup_arrive()
        if k_steps:
            tCsA, tCsB = thr.partition_A(sA), thr.partition_B(sB)
            lc.gemm(mma, tCsA[_, _, 0], tCsB[_, _, 0], tCrC)
            lc.warpgroup_commit_batch()
            lc.warpgroup_wait(1)
            for kk in range(1, 4):
                lc.gemm(mma, tCsA[_, _, kk], tCsB[_, _, kk], tCrC)
        else:
            lc.gemm(mma, thr.partition_A(sA), thr.partition_B(sB), tCrC)
        lc.warpgroup_commit_batch()
        lc.warpgroup_wait(0)
        lc.warpgroup_fence_operand(tCrC)
        lc.copy(tCrC, thr.partition_C(c))

    A = lc.Tensor[dtype, f"(64,{bk}):({bk},1)"]
    B = lc.Tensor[dtype, f"({n},{bk}):({bk},1)"]
    C = lc.Tensor[acc, f"(64,{n}):({n},1)"]
    if not dynamic:

        @lc.kernel
        def wgmma_tile(a: A, b: B, c: C):
            tile(a, b, c)

        return wgmma_tile, bk

    @lc.kernel
    def dynamic_wgmma_tile(a: A, b: B, c: C, flags: lc.Tensor[lc.i32, "(5):(1)"]):  # noqa: F722
        tid = lc.thread_idx.x
        marks = lc.smem_tensor(lc.i32, lc.make_layout(5))  # 20 static bytes before the tiles
        if tid < 5:
            marks[tid] = tid * 3
        tile(a, b, c)
        if tid < 5:
            flags[tid] = marks[tid]

    return dynamic_wgmma_tile, bk
