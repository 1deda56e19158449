"""TMA kernels for tests/hopper: one box per block, read back logically and physically."""

import layoutc as lc


def make_box_loader(
    box_m: int, box_k: int, dtype, swizzle_bits: int, swizzle_base: int, dynamic: bool = False
):
    """Block (i, j) loads box (i, j) of A (M, K row-major) into smem with the given swizzle
    (Swizzle<bits, base, 3> on elements, or none), then writes it out twice: through the
    swizzled layout (``logical``: the box itself) and as raw shared memory (``physical``).
    With ``dynamic`` the box is in dynamic shared memory behind the static mbarrier (the layout
    tests/hopper/test_dynamic_smem_align.py checks)."""
    alloc = lc.dynamic_smem_tensor if dynamic else lc.smem_tensor
    inner = lc.make_layout((box_m, box_k), (box_k, 1))
    if swizzle_bits:
        sl = lc.composition(lc.Swizzle(swizzle_bits, swizzle_base, 3), inner)
    else:
        sl = inner
    n = box_m * box_k

    @lc.kernel
    def box_loader(A: lc.Tensor, logical: lc.Tensor, physical: lc.Tensor):
        tid = lc.thread_idx.x
        bm, bk = lc.block_idx.x, lc.block_idx.y
        tma = lc.make_tma_copy("SM90_TMA_LOAD", A, sl)
        sA = alloc(dtype, sl, align=1024)
        raw = lc.make_tensor(sA.iterator, lc.make_layout(n))
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        if tid == 0:
            lc.mbarrier_init(bar, 1)
            lc.mbarrier_init_fence()
        lc.syncthreads()
        gA = lc.local_tile(tma.get_tma_tensor(), (box_m, box_k), (bm, bk))
        if tid == 0:
            lc.mbarrier_arrive_and_expect_tx(bar, tma.tx_bytes)
            lc.tma_copy(tma, gA, sA, mbar=bar)
        lc.mbarrier_wait(bar, 0)
        blk = bm * lc.grid_dim.y + bk
        for i in range(n // 32):
            e = i * 32 + tid
            logical[blk, e] = sA[e // box_k, e % box_k]
            physical[blk, e] = raw[e]

    return box_loader


def make_box_storer(box_m: int, box_k: int, dtype):
    """Block (i, j) fills a smem box with ``src``'s box (i, j) + 1 and TMA-stores it into
    ``dst``; boxes past the tensor's edge are clipped by the hardware."""
    sl = lc.make_layout((box_m, box_k), (box_k, 1))
    n = box_m * box_k

    @lc.kernel
    def box_storer(src: lc.Tensor, dst: lc.Tensor):
        tid = lc.thread_idx.x
        bm, bk = lc.block_idx.x, lc.block_idx.y
        tma = lc.make_tma_copy("SM90_TMA_STORE", dst, sl)
        sD = lc.smem_tensor(dtype, sl, align=128)
        for i in range(n // 32):
            e = i * 32 + tid
            m = bm * box_m + e // box_k
            k = bk * box_k + e % box_k
            sD[e // box_k, e % box_k] = src[m, k] + 1
        lc.fence_proxy_async()
        lc.syncthreads()
        gD = lc.local_tile(tma.get_tma_tensor(), (box_m, box_k), (bm, bk))
        if tid == 0:
            lc.tma_copy(tma, sD, gD)
            lc.tma_store_arrive()
            lc.tma_store_wait(0)

    return box_storer
