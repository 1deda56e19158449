"""TMA im2col kernels for tests/hopper: one load per block, read back logically and physically."""

import layoutc as lc


def make_im2col_loader(pixels: int, channels: int, dtype, swizzle_bits: int, swizzle_base: int,
                       lower: tuple, upper: tuple):  # fmt: skip
    """Block b issues one im2col load from the first pixel ``at[b, :rank]`` (tensor mode order)
    with the filter tap ``at[b, rank:]`` (spatial mode order), then writes the smem matrix out
    through its (swizzled) layout (``logical``) and raw (``physical``)."""
    inner = lc.make_layout((pixels, channels), (channels, 1))
    sl = lc.composition(lc.Swizzle(swizzle_bits, swizzle_base, 3), inner) if swizzle_bits else inner
    n = pixels * channels
    spatial = len(lower)
    rank = spatial + 2

    @lc.kernel
    def im2col_loader(act: lc.Tensor, at: lc.Tensor, logical: lc.Tensor, physical: lc.Tensor):
        tid = lc.thread_idx.x
        blk = lc.block_idx.x
        tma = lc.make_im2col_tma_copy("SM90_TMA_LOAD_IM2COL", act, sl, lower, upper)
        sA = lc.smem_tensor(dtype, sl, align=1024)
        raw = lc.make_tensor(sA.iterator, lc.make_layout(n))
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        if tid == 0:
            lc.mbarrier_init(bar, 1)
            lc.mbarrier_init_fence()
        lc.syncthreads()
        if tid == 0:
            first = tuple(at[blk, i] for i in range(rank))
            taps = tuple(at[blk, rank + i] for i in range(spatial))
            lc.mbarrier_arrive_and_expect_tx(bar, tma.tx_bytes)
            lc.tma_copy(tma, first, sA, mbar=bar, offsets=taps)
        lc.mbarrier_wait(bar, 0)
        for i in range(n // 32):
            e = i * 32 + tid
            logical[blk, e] = sA[e // channels, e % channels]
            physical[blk, e] = raw[e]

    return im2col_loader
