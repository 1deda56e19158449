"""Single-warpgroup register-A wgmma tiles (CuTe's ``_RS`` atoms) for the tests:
C(64,N) = A(64,BK) @ B(N,BK).T with A and B staged in shared memory in a GMMA layout atom tiled
to the tile, A then loaded into each thread's registers (the atom's A fragment) by a plain
copy of ``partition_A`` or by ``ldmatrix`` through ``make_tiled_copy_A``."""

import layoutc as lc

TAGS = {("f16", "f32"): "F32F16F16", ("bf16", "f32"): "F32BF16BF16", ("f16", "f16"): "F16F16F16"}


def rs_atom(n, dtype, acc):
    if dtype.bits == 32:
        return f"SM90_64x{n}x8_F32TF32TF32F32_RS_TN"
    return f"SM90_64x{n}x16_{TAGS[(dtype.name, acc.name)]}_RS"


def make_rs_tile_gemm(n, major_b="K", swizzle="SW128", dtype=lc.f16, acc=lc.f32, load="copy"):
    """The kernel ``(a, b, c)`` and its BK; ``load`` is ``"copy"`` (``lc.copy`` of the
    thread's ``partition_A`` into its fragment) or ``"ldmatrix"`` (``SM75_U32x4_LDSM_N``
    through ``make_tiled_copy_A``, 16-bit types)."""
    k = 16 if dtype.bits == 16 else 8
    bk = 4 * k
    mma = lc.make_tiled_mma(rs_atom(n, dtype, acc))
    s_a = lc.tile_to_shape(lc.gmma_layout_atom("K", swizzle, dtype), (64, bk))
    s_b = lc.tile_to_shape(lc.gmma_layout_atom(major_b, swizzle, dtype), (n, bk))
    A = lc.Tensor[dtype, f"(64,{bk}):({bk},1)"]
    B = lc.Tensor[dtype, f"({n},{bk}):({bk},1)"]
    C = lc.Tensor[acc, f"(64,{n}):({n},1)"]

    @lc.kernel
    def wgmma_rs_tile(a: A, b: B, c: C):
        tid = lc.thread_idx.x
        sA = lc.smem_tensor(dtype, s_a, align=1024)
        sB = lc.smem_tensor(dtype, s_b, align=1024)
        for i in lc.range(tid, 64 * bk, 128):
            sA[i % 64, i // 64] = a[i % 64, i // 64]
        for i in lc.range(tid, n * bk, 128):
            sB[i % n, i // n] = b[i % n, i // n]
        lc.syncthreads()
        thr = mma.get_slice(tid)
        tCrA = thr.partition_fragment_A(sA)  # (A_V, M, K): 8 (4 for tf32) values per K-block
        if load == "ldmatrix":
            s2r = lc.make_tiled_copy_A(lc.make_copy_atom("SM75_U32x4_LDSM_N", dtype), mma)
            s2r_thr = s2r.get_slice(tid)
            lc.copy(s2r, s2r_thr.partition_S(sA), s2r_thr.retile_D(tCrA))
        else:
            lc.copy(thr.partition_A(sA), tCrA)
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        lc.warpgroup_arrive()
        lc.gemm(mma, tCrA, thr.partition_B(sB), tCrC)
        lc.warpgroup_commit_batch()
        lc.warpgroup_wait(0)
        lc.warpgroup_fence_operand(tCrC)
        lc.copy(tCrC, thr.partition_C(c))

    return wgmma_rs_tile, bk


FP8_TAGS = {"f8e4m3": "E4M3", "f8e5m2": "E5M2"}


def make_fp8_tile_gemm(n, a_dtype=lc.f8e4m3, b_dtype=lc.f8e4m3, kind="SS", swizzle="SW128"):
    """An FP8 tile (K = 32 per wgmma, both operands K-major as wgmma requires for 8-bit
    types, C f32): ``kind`` "SS" reads A through its descriptor, "RS" from registers (a plain
    copy of ``partition_A``). Returns the kernel ``(a, b, c)`` and its BK."""
    bk = 128
    tag = f"F32{FP8_TAGS[a_dtype.name]}{FP8_TAGS[b_dtype.name]}"
    mma = lc.make_tiled_mma(f"SM90_64x{n}x32_{tag}_{kind}_TN")
    s_a = lc.tile_to_shape(lc.gmma_layout_atom("K", swizzle, a_dtype), (64, bk))
    s_b = lc.tile_to_shape(lc.gmma_layout_atom("K", swizzle, b_dtype), (n, bk))
    A = lc.Tensor[a_dtype, f"(64,{bk}):({bk},1)"]
    B = lc.Tensor[b_dtype, f"({n},{bk}):({bk},1)"]
    C = lc.Tensor[lc.f32, f"(64,{n}):({n},1)"]

    @lc.kernel
    def wgmma_fp8_tile(a: A, b: B, c: C):
        tid = lc.thread_idx.x
        sA = lc.smem_tensor(a_dtype, s_a, align=1024)
        sB = lc.smem_tensor(b_dtype, s_b, align=1024)
        for i in lc.range(tid, 64 * bk, 128):
            sA[i // bk, i % bk] = a[i // bk, i % bk]
        for i in lc.range(tid, n * bk, 128):
            sB[i // bk, i % bk] = b[i // bk, i % bk]
        lc.syncthreads()
        thr = mma.get_slice(tid)
        tCrC = thr.partition_fragment_C(c)
        lc.clear(tCrC)
        if kind == "RS":
            tCrA = thr.partition_fragment_A(sA)  # (16, 1, 4): 16 FP8 values per K-block
            lc.copy(thr.partition_A(sA), tCrA)
            lc.warpgroup_arrive()
            lc.gemm(mma, tCrA, thr.partition_B(sB), tCrC)
        else:
            lc.warpgroup_arrive()
            lc.gemm(mma, thr.partition_A(sA), thr.partition_B(sB), tCrC)
        lc.warpgroup_commit_batch()
        lc.warpgroup_wait(0)
        lc.warpgroup_fence_operand(tCrC)
        lc.copy(tCrC, thr.partition_C(c))

    return wgmma_fp8_tile, bk
