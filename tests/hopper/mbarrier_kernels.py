"""Kernels synchronised by mbarriers and named barriers (tests/hopper)."""

import layoutc as lc

TILE = 32


def make_producer_consumer(stages: int, iters: int, consumer_parity_shift: int = 0):
    """One producer warp fills ``stages`` shared-memory buffers, one consumer warp doubles them
    into ``dst``; full/empty mbarriers per stage, parities tracked as CUTLASS does (the
    producer starts at parity 1). ``consumer_parity_shift=1`` is a phase bug."""

    @lc.kernel
    def producer_consumer(src: lc.Tensor, dst: lc.Tensor):
        tid = lc.thread_idx.x
        full = lc.smem_tensor(lc.i64, lc.make_layout(stages), align=8)
        empty = lc.smem_tensor(lc.i64, lc.make_layout(stages), align=8)
        buf = lc.smem_tensor(lc.f32, lc.make_layout((TILE, stages)))
        if tid == 0:
            for s in range(stages):
                lc.mbarrier_init(full.iterator + s, TILE)
                lc.mbarrier_init(empty.iterator + s, TILE)
            lc.mbarrier_init_fence()
        lc.syncthreads()
        if tid < TILE:
            for t in lc.range(iters):
                s = t % stages
                lc.mbarrier_wait(empty.iterator + s, (t // stages + 1) % 2)
                buf[tid, s] = src[t * TILE + tid]
                lc.mbarrier_arrive(full.iterator + s)
        else:
            c = tid - TILE
            for t in lc.range(iters):
                s = t % stages
                lc.mbarrier_wait(full.iterator + s, (t // stages + consumer_parity_shift) % 2)
                dst[t * TILE + c] = buf[c, s] * 2.0
                lc.mbarrier_arrive(empty.iterator + s)

    return producer_consumer


@lc.kernel
def phases(out: lc.Tensor):
    """Two threads arrive on a count-2 barrier ``len(out)`` times; each phase's wait must see
    the other thread's write of that phase."""
    tid = lc.thread_idx.x
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    val = lc.smem_tensor(lc.i32, lc.make_layout(2))
    if tid == 0:
        lc.mbarrier_init(bar, 2)
    lc.syncthreads()
    for k in lc.range(lc.size(out) // 2):
        val[tid] = k * 10 + tid
        lc.mbarrier_arrive(bar)
        lc.mbarrier_wait(bar, k % 2)
        out[2 * k + tid] = val[1 - tid]
        lc.syncthreads()


@lc.kernel
def over_arrive(out: lc.Tensor):
    """A count-1 phase kept open by pending transaction bytes gets a second arrival."""
    tid = lc.thread_idx.x
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_arrive_and_expect_tx(bar, 64)
        lc.mbarrier_arrive(bar)
    out[tid] = 1.0


@lc.kernel
def expect_tx_without_transfer(out: lc.Tensor):
    """The phase stays open while transaction bytes are pending: waiting on it never ends."""
    tid = lc.thread_idx.x
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
    lc.syncthreads()
    if tid == 0:
        lc.mbarrier_arrive_and_expect_tx(bar, 128)
    lc.mbarrier_wait(bar, 0)
    out[tid] = 1.0


@lc.kernel
def named_barriers(out: lc.Tensor):
    """Warps 0-1 exchange data through named barrier 1 (64 threads) while warp 2 uses barrier
    2 alone (32 threads); nobody waits for the block."""
    tid = lc.thread_idx.x
    buf = lc.smem_tensor(lc.f32, lc.make_layout(96))
    buf[tid] = lc.f32(tid)
    if tid < 64:
        lc.named_barrier_sync(1, 64)
        out[tid] = buf[63 - tid]
    else:
        lc.named_barrier_sync(2, 32)
        out[tid] = buf[96 + 63 - tid]


@lc.kernel
def elect(out: lc.Tensor):
    tid = lc.thread_idx.x
    out[tid] = 0.0
    if lc.elect_one_sync():
        out[tid] = 1.0
