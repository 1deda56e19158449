"""Kernels whose threads exit while others still synchronise (tests/hopper/test_barrier_exits.py):
PTX's barriers wait for the non-exited threads only (``barrier.cluster``, ``bar.sync``), and
"barriers exclusively waiting on arrivals from exited threads are always released" (``exit``)."""

import layoutc as lc


@lc.kernel
def cluster_phases(steps: lc.Tensor, stamps: lc.Tensor, seen: lc.Tensor):
    """Thread t of a cluster (global index g) runs ``steps[g]`` cluster barriers, then exits.
    Before barrier i it stamps ``stamps[i, g] = 1``; after it, it counts the stamps of its
    cluster's threads for phase i into ``seen[i, g]``. With the hardware's rule (exited threads
    count as arrived) phase i completes once every thread still running has stamped: the count
    is the number of threads with more than i steps."""
    n = lc.block_dim.x * lc.cluster_size()
    g = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    first = (lc.block_idx.x // lc.cluster_size()) * n
    for i in lc.range(steps[g]):
        stamps[i, g] = 1
        lc.cluster_sync()
        total = 0
        for u in lc.range(n):
            total += stamps[i, first + u]
        seen[i, g] = total


@lc.kernel
def block_phases(steps: lc.Tensor, stamps: lc.Tensor, seen: lc.Tensor):
    """The same with ``__syncthreads`` (``bar.sync 0``) in one block."""
    n = lc.block_dim.x
    g = lc.block_idx.x * n + lc.thread_idx.x
    first = lc.block_idx.x * n
    for i in lc.range(steps[g]):
        stamps[i, g] = 1
        lc.syncthreads()
        total = 0
        for u in lc.range(n):
            total += stamps[i, first + u]
        seen[i, g] = total


@lc.kernel
def named_phases(steps: lc.Tensor, stamps: lc.Tensor, seen: lc.Tensor, count: lc.Constexpr[int]):
    """The same with ``bar.sync 1, count`` (a named barrier of ``count`` threads)."""
    n = lc.block_dim.x
    g = lc.block_idx.x * n + lc.thread_idx.x
    first = lc.block_idx.x * n
    for i in lc.range(steps[g]):
        stamps[i, g] = 1
        lc.named_barrier_sync(1, count)
        total = 0
        for u in lc.range(n):
            total += stamps[i, first + u]
        seen[i, g] = total


@lc.kernel
def arrive_then_exit(out: lc.Tensor):
    """Clusters of two: rank 1 arrives at the cluster barrier and exits without waiting; rank 0
    passes that phase (rank 1's arrival) and a second one (rank 1 has exited)."""
    if lc.block_rank_in_cluster() == 1:
        lc.cluster_arrive()
    else:
        lc.cluster_sync()
        lc.cluster_sync()
        out[lc.block_idx.x] = 1


@lc.kernel
def rank_1_stuck(out: lc.Tensor):
    """Rank 1 waits on an mbarrier phase nothing completes while rank 0 waits at the cluster
    barrier: a live thread never arrives, a deadlock (a hang on a GPU)."""
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if lc.thread_idx.x == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.syncthreads()
    if lc.block_rank_in_cluster() == 1:
        lc.mbarrier_wait(bar, 0)
    lc.cluster_sync()
    out[lc.block_idx.x] = 1


@lc.kernel
def named_with_live_straggler(out: lc.Tensor):
    """Warp 0 waits at ``bar.sync 1, 64``, warp 1 on an mbarrier phase nothing completes, warps
    2 and 3 exit: the barrier still misses a live thread's arrival, a deadlock."""
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if lc.thread_idx.x == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.syncthreads()
    w = lc.thread_idx.x // 32
    if w == 0:
        lc.named_barrier_sync(1, 64)
    if w == 1:
        lc.mbarrier_wait(bar, 0)
    out[lc.thread_idx.x] = 1


@lc.kernel
def pending_arrival_then_exit(flag: lc.Tensor, out: lc.Tensor):
    """Clusters of two blocks of 64. Rank 1 arrives at phase 1 and exits before the phase
    completes (its arrival still pending), releasing rank 0's warp 1 (a remote mbarrier
    arrival) on its way out; warp 1 writes ``flag`` and only then arrives. Phase 1 must wait
    for warp 1: counting rank 1 both as arrived and as exited would let warp 0 read ``flag``
    too early."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    cid = lc.block_idx.x // 2
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.cluster_sync()
    if rank == 1:
        lc.cluster_arrive()
        if tid == 0:
            lc.mbarrier_arrive(bar, cta_id=0)
    else:
        if tid >= 32:
            lc.mbarrier_wait(bar, 0)
            flag[cid] = 5 + cid
        lc.cluster_sync()
        if tid == 0:
            out[cid] = flag[cid]
