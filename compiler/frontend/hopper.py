"""Hopper warp specialization, fences and clusters in the DSL: ``lc.warpgroup_reg_alloc``,
``lc.elect_one_sync``, ``lc.named_barrier_sync``, ``lc.fence_proxy_async``,
``lc.fence_barrier_init``, ``lc.cluster_arrive``/``lc.cluster_wait``, ``lc.block_rank_in_cluster``.

Names follow CUTLASS/CuTe (``cutlass::arch::warpgroup_reg_alloc<N>()``, ``elect_one_sync()``,
``NamedBarrier::sync``, ``fence_view_async_shared()``, ``cute::cluster_arrive()``). Each emits
the nvvm op of ir/dialects/nvvm_sm90.py, which carries its target requirement: a kernel using
them compiled for an older target is refused at the call's line (docs/codegen.md, "Target
features"). The CPU runtime gives each its hardware meaning (docs/hopper.md).
"""

from __future__ import annotations

from typing import Any

from ..ir.core.types import i32, index
from ..ir.dialects import nvvm_sm90 as N
from . import scalars, state
from .scalars import Bool, Int


def _static_regs(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise state.error(f"{what}: the register count must be a static int, got {n!r}")
    if n % 8 or not 24 <= n <= 256:
        raise state.error(
            f"{what}: the register count must be a multiple of 8 in [24, 256], got {n}"
        )
    return n


def warpgroup_reg_alloc(n: int) -> None:
    """``setmaxnreg.inc.sync.aligned.u32 n``: raise this warpgroup's register limit to ``n``
    (CUTLASS's ``warpgroup_reg_alloc<n>()``; sm_90a)."""
    state.emit(N.SetMaxRegisterOp("increase", _static_regs(n, "lc.warpgroup_reg_alloc")))


def warpgroup_reg_dealloc(n: int) -> None:
    """``setmaxnreg.dec.sync.aligned.u32 n``: lower this warpgroup's register limit to ``n``
    (CUTLASS's ``warpgroup_reg_dealloc<n>()``; sm_90a)."""
    state.emit(N.SetMaxRegisterOp("decrease", _static_regs(n, "lc.warpgroup_reg_dealloc")))


def elect_one_sync() -> Bool:
    """``elect.sync``: true in exactly one lane of the (converged) warp."""
    return Bool(state.emit(N.ElectSyncOp()).results[0])


def named_barrier_sync(barrier_id: Any, num_threads: Any) -> None:
    """``bar.sync id, n``: ``num_threads`` threads (a multiple of 32) meet at named barrier
    ``barrier_id`` (1..15; 0 is ``lc.syncthreads``'s). CUTLASS's ``NamedBarrier::sync``."""
    what = "lc.named_barrier_sync"
    if isinstance(barrier_id, int) and not 0 <= barrier_id < 16:
        raise state.error(f"{what}: the barrier id must be in [0, 16), got {barrier_id}")
    if isinstance(num_threads, int) and (num_threads <= 0 or num_threads % 32):
        raise state.error(
            f"{what}: the thread count must be a positive multiple of 32, got {num_threads}"
        )
    for name, v in (("barrier id", barrier_id), ("thread count", num_threads)):
        if isinstance(v, bool) or not isinstance(v, (int, Int)):
            raise state.error(f"{what}: the {name} must be an integer, got {v!r}")
    state.emit(N.BarrierOp(scalars.as_value(barrier_id, i32), scalars.as_value(num_threads, i32)))


def fence_proxy_async() -> None:
    """``fence.proxy.async.shared::cta``: make this thread's shared-memory writes visible to
    the async proxy (a TMA store or wgmma reading them). CuTe's ``fence_view_async_shared``."""
    state.emit(N.FenceProxyOp("async.shared", "cta"))


def fence_barrier_init() -> None:
    """``fence.mbarrier_init.release.cluster``: publish mbarrier initialisations to the
    cluster before other blocks (or TMA multicasts) use them."""
    state.emit(N.FenceMBarrierInitOp())


def cluster_arrive() -> None:
    """``barrier.cluster.arrive.aligned`` (release): this thread arrives at the cluster
    barrier."""
    state.emit(N.ClusterArriveOp())


def cluster_wait() -> None:
    """``barrier.cluster.wait.aligned`` (acquire): wait until every thread of every block of
    the cluster has arrived."""
    state.emit(N.ClusterWaitOp())


def cluster_sync() -> None:
    """``cute::cluster_sync()``: arrive then wait."""
    cluster_arrive()
    cluster_wait()


def _cluster_reg(name: str) -> Int:
    op = state.emit(N.CLUSTER_REGISTERS[name]())
    return scalars.wrap(scalars.cast_value(op.results[0], index), nonneg=True)


def block_rank_in_cluster() -> Int:
    """``%cluster_ctarank``: this block's rank in its cluster (CuTe's
    ``block_rank_in_cluster()``)."""
    return _cluster_reg("cluster.ctarank")


def cluster_size() -> Int:
    """``%cluster_nctarank``: the number of blocks in the cluster."""
    return _cluster_reg("cluster.nctarank")
