"""Kernels launched in thread block clusters (tests/hopper/test_cluster_cpu.py): the cluster
registers, remote mbarrier arrivals (``mapa``) and the cluster barrier."""

import layoutc as lc


@lc.kernel
def cluster_ids(out: lc.Tensor):
    """``out[block, :] = (rank in the cluster, blocks in the cluster)`` for a 2-D grid."""
    if lc.thread_idx.x == 0:
        blk = lc.block_idx.x + lc.block_idx.y * lc.grid_dim.x
        out[blk, 0] = lc.block_rank_in_cluster()
        out[blk, 1] = lc.cluster_size()


@lc.kernel
def remote_arrive(out: lc.Tensor):
    """Clusters of two: rank 0's mbarrier expects 1 arrival, rank 1's expects 3, and each gets
    them only from its peer (threads 0-2 of rank 0 arrive on rank 1's, thread 0 of rank 1 on
    rank 0's). An arrival that stayed in its own block would overflow rank 0's barrier."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1 + 2 * rank)
        lc.mbarrier_init_fence()
    lc.cluster_sync()  # the peer's barrier is initialised before any remote arrival
    if tid < 3 - 2 * rank:
        lc.mbarrier_arrive(bar, cta_id=1 - rank)
    lc.mbarrier_wait(bar, 0)
    out[lc.block_idx.x * lc.block_dim.x + tid] = 1 + rank
    lc.cluster_sync()  # no block leaves while its peer may still arrive on its barrier


@lc.kernel
def cluster_barrier_orders(flag: lc.Tensor, out: lc.Tensor):
    """Rank 1 arrives at the cluster barrier, then releases rank 0's thread 0 (a remote
    arrival), which only then writes ``flag``; rank 1 reads it after the cluster barrier's
    wait, which must wait for every thread of rank 0 too."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    cid = lc.block_idx.x // 2
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.cluster_sync()
    if rank == 0:
        if tid == 0:
            lc.mbarrier_wait(bar, 0)
            flag[cid] = 7 + cid
        lc.cluster_arrive()
        lc.cluster_wait()
    else:
        lc.cluster_arrive()
        if tid == 0:
            lc.mbarrier_arrive(bar, cta_id=0)
        lc.cluster_wait()
        if tid == 0:
            out[cid] = flag[cid]


@lc.kernel
def rank_1_leaves(out: lc.Tensor):
    """A cluster barrier that rank 1 exits before: exited threads count as arrived."""
    if lc.block_rank_in_cluster() == 0:
        lc.cluster_sync()
    out[lc.block_idx.x] = 1


HALF = lc.make_layout((8, 32), (32, 1))  # one TMA box: 8 rows of 32 f32 (128 bytes)


@lc.kernel
def multicast_halves(A: lc.Tensor, out: lc.Tensor):
    """Clusters of two: rank r TMA-loads rows 8r..8r+7 of its cluster's 16 x 32 tile of A and
    multicasts them into both blocks, completing each block's own mbarrier; every block waits
    for both halves and writes its whole tile to ``out[block]``."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    tma = lc.make_tma_copy("SM90_TMA_LOAD_MULTICAST", A, HALF, multicast=2)
    buf = lc.smem_tensor(lc.f32, lc.make_layout((16, 32), (32, 1)), align=128)
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.cluster_sync()
    if tid == 0:
        lc.mbarrier_arrive_and_expect_tx(bar, 2 * tma.tx_bytes)
        half = lc.make_tensor(buf.iterator + lc.assume(rank * 256, divisible_by=256), HALF)
        gA = lc.local_tile(tma.get_tma_tensor(), (8, 32), ((lc.block_idx.x // 2) * 2 + rank, 0))
        lc.tma_copy(tma, gA, half, mbar=bar, mcast_mask=3)
    lc.mbarrier_wait(bar, 0)
    for i in range(16):
        e = i * 32 + tid
        out[lc.block_idx.x, e] = buf[e // 32, e % 32]
    lc.cluster_sync()  # no block leaves while its peer may still multicast into it


@lc.kernel(cluster=(2, 1, 1))
def fixed_pairs(out: lc.Tensor):
    """Compiled for clusters of two (CUDA's ``__cluster_dims__(2, 1, 1)``)."""
    if lc.thread_idx.x == 0:
        out[lc.block_idx.x] = lc.block_rank_in_cluster()
    lc.cluster_sync()


@lc.kernel(cluster="explicit", max_cluster_size=4)
def explicit_up_to_4(out: lc.Tensor):
    """Launched in clusters only, of a shape the launch chooses, of at most 4 blocks."""
    if lc.thread_idx.x == 0:
        out[lc.block_idx.x] = lc.block_rank_in_cluster() + 10 * lc.cluster_size()
    lc.cluster_sync()


@lc.kernel
def all_to_all(vals: lc.Tensor, out: lc.Tensor):
    """Clusters of 2 to 16 blocks in a 1-D grid: every block's mbarrier expects one remote
    arrival from each peer (thread ``t`` arrives on block ``t``'s), and after a cluster barrier
    that orders each block's write of ``vals[block]`` before the reads, each block reads its
    successor's value in the cluster: ``out[block] = (vals[next], rank, cluster size)``."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    csize = lc.cluster_size()
    blk = lc.block_idx.x
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, csize - 1)
        lc.mbarrier_init_fence()
        vals[blk] = 3 * blk + 1
    lc.cluster_sync()  # every barrier initialised, every value written
    if tid < csize:  # noqa: SIM102 (both dynamic)
        if tid != rank:
            lc.mbarrier_arrive(bar, cta_id=tid)
    lc.mbarrier_wait(bar, 0)
    if tid == 0:
        out[blk, 0] = vals[blk - rank + (rank + 1) % csize]
        out[blk, 1] = rank
        out[blk, 2] = csize
    lc.cluster_sync()  # no block leaves while a peer may still arrive on its barrier


@lc.kernel(cluster=(16, 1, 1))
def fixed_16(out: lc.Tensor):
    """Compiled for clusters of 16 blocks, a non-portable size (``.reqnctapercluster 16``)."""
    if lc.thread_idx.x == 0:
        out[lc.block_idx.x] = lc.block_rank_in_cluster() + 100 * lc.cluster_size()
    lc.cluster_sync()


@lc.kernel
def multicast_slices(A: lc.Tensor, out: lc.Tensor):
    """Clusters of n <= 16 blocks in a 1-D grid: rank r TMA-loads rows 8r..8r+7 of its
    cluster's 8n x 32 tile of A and multicasts them into every block of the cluster (mask
    2^n - 1), each block's mbarrier expecting all n slices; every block then writes the
    tile it holds to ``out[block]`` (its first 8n rows)."""
    tid = lc.thread_idx.x
    rank = lc.block_rank_in_cluster()
    n = lc.cluster_size()
    tma = lc.make_tma_copy("SM90_TMA_LOAD_MULTICAST", A, HALF, multicast=16)
    buf = lc.smem_tensor(lc.f32, lc.make_layout((128, 32), (32, 1)), align=128)
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    if tid == 0:
        lc.mbarrier_init(bar, 1)
        lc.mbarrier_init_fence()
    lc.cluster_sync()
    if tid == 0:
        lc.mbarrier_arrive_and_expect_tx(bar, n * tma.tx_bytes)
        part = lc.make_tensor(buf.iterator + lc.assume(rank * 256, divisible_by=256), HALF)
        gA = lc.local_tile(tma.get_tma_tensor(), (8, 32), ((lc.block_idx.x // n) * n + rank, 0))
        lc.tma_copy(tma, gA, part, mbar=bar, mcast_mask=(1 << n) - 1)
    lc.mbarrier_wait(bar, 0)
    for e in lc.range(tid, n * 256, 32):
        out[lc.block_idx.x, e] = buf[e // 32, e % 32]
    lc.cluster_sync()  # no block leaves while a peer may still multicast into it
