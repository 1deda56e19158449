"""A multistage TMA pipeline written with lc.PipelineTmaAsync (tests/hopper)."""

import layoutc as lc


def make_pipelined_scale(bm: int, bk: int, stages: int, swizzle: bool):
    """Block i streams row-block i of A (M, K) through ``stages`` smem buffers: warp 0's
    elected lane is the TMA producer, warps 1-2 consume (out = 2 * A) and release."""
    inner = lc.make_layout((bm, bk), (bk, 1))
    ring = lc.make_layout((bm, bk, stages), (bk, 1, bm * bk))
    sl = lc.composition(lc.Swizzle(3, 2, 3), inner) if swizzle else inner
    sring = lc.composition(lc.Swizzle(3, 2, 3), ring) if swizzle else ring
    consumers = 64

    @lc.kernel
    def pipelined_scale(A: lc.Tensor, out: lc.Tensor, k_tiles):
        tid = lc.thread_idx.x
        bmi = lc.block_idx.x
        tma = lc.make_tma_copy("SM90_TMA_LOAD", A, sl)
        buf = lc.smem_tensor(lc.f32, sring, align=1024)
        pipe = lc.PipelineTmaAsync(stages, tma.tx_bytes, consumers)
        gA = tma.get_tma_tensor()
        if tid < 32:
            if lc.elect_one_sync():
                for k in lc.range(k_tiles):
                    pipe.producer_acquire(k)
                    tile = lc.local_tile(gA, (bm, bk), (bmi, k))
                    off = lc.assume((k % stages) * (bm * bk), divisible_by=bm * bk)
                    stage = lc.make_tensor(buf.iterator + off, sl)
                    lc.tma_copy(tma, tile, stage, mbar=pipe.producer_mbar(k))
        else:
            c = tid - 32
            for k in lc.range(k_tiles):
                pipe.consumer_wait(k)
                s = k % stages
                for i in range(bm * bk // consumers):
                    e = i * consumers + c
                    m = e // bk
                    kk = e % bk
                    out[bmi * bm + m, k * bk + kk] = buf[m, kk, s] * 2.0
                pipe.consumer_release(k)

    return pipelined_scale
