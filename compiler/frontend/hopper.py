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


# -------------------------------------------------------------------------------------------
# mbarriers
# -------------------------------------------------------------------------------------------


def barrier_pointer(bar: Any, what: str) -> Any:
    """The ``!llvm.ptr<3>`` of an mbarrier: an smem ``i64`` tensor (its first element) or a
    pointer into one (``bars.iterator + stage``)."""
    from ..ir.dialects.builtin import UnrealizedConversionCastOp
    from ..ir.dialects.llvm.types import LLVMPointerType
    from ..ir.dialects.tile.types import PtrType
    from .tensor import Pointer, Tensor

    if isinstance(bar, Tensor):
        bar = bar.iterator
    if not isinstance(bar, Pointer):
        raise state.error(
            f"{what}: an mbarrier is an i64 shared-memory tensor or a pointer into one "
            f"(lc.smem_tensor(lc.i64, stages)), got {bar!r}"
        )
    t = bar.value.type
    if not isinstance(t, PtrType) or t.space != "smem" or t.element.text != "i64":
        raise state.error(
            f"{what}: an mbarrier lives in shared memory as an i64, got a pointer {t.text}"
        )
    if t.alignment < 8:
        raise state.error(f"{what}: an mbarrier must be 8-byte aligned, got {t.alignment}")
    return state.emit(UnrealizedConversionCastOp([bar.value], [LLVMPointerType(3)])).results[0]


def _i32_operand(x: Any, what: str, name: str) -> Any:
    if isinstance(x, bool) or not isinstance(x, (int, Int)):
        raise state.error(f"{what}: the {name} must be an integer, got {x!r}")
    if isinstance(x, int) and not 0 <= x < (1 << 20):
        raise state.error(f"{what}: the {name} must be in [0, 2^20), got {x}")
    return scalars.as_value(x, i32)


def mbarrier_init(bar: Any, count: Any) -> None:
    """``mbarrier.init``: phase 0, ``count`` expected arrivals, no pending transactions. One
    thread initialises; ``lc.mbarrier_init_fence()`` and a block barrier publish it."""
    what = "lc.mbarrier_init"
    if isinstance(count, int) and count < 1:
        raise state.error(f"{what}: the arrival count must be at least 1, got {count}")
    ptr = barrier_pointer(bar, what)
    state.emit(N.MBarrierInitOp(ptr, _i32_operand(count, what, "arrival count")))


def mbarrier_init_fence() -> None:
    """``fence.mbarrier_init.release.cluster`` (CuTe DSL's ``mbarrier_init_fence``)."""
    fence_barrier_init()


def mbarrier_arrive(bar: Any, cta_id: Any = None) -> None:
    """``mbarrier.arrive``: one arrival on the current phase. With ``cta_id`` (the CuTe DSL's
    ``mbarrier_arrive(mbar, peer_cta_rank_in_cluster)``, CuTe's ``ClusterBarrier::arrive(
    cta_id)``): on the same mbarrier of block ``cta_id`` of the cluster (``mapa``, then
    ``mbarrier.arrive.shared::cluster``)."""
    what = "lc.mbarrier_arrive"
    ptr = barrier_pointer(bar, what)
    if cta_id is None:
        state.emit(N.MBarrierArriveOp(ptr))
        return
    remote = state.emit(N.MapaSharedClusterOp(ptr, _i32_operand(cta_id, what, "cta_id")))
    state.emit(N.MBarrierArriveOp(remote.results[0]))  # shared::cluster: no state result


def mbarrier_arrive_and_expect_tx(bar: Any, tx_bytes: Any) -> None:
    """``mbarrier.arrive.expect_tx``: expect ``tx_bytes`` more bytes of TMA transfers in the
    current phase, then arrive once."""
    what = "lc.mbarrier_arrive_and_expect_tx"
    ptr = barrier_pointer(bar, what)
    state.emit(N.MBarrierArriveExpectTxOp(ptr, _i32_operand(tx_bytes, what, "byte count")))


def mbarrier_wait(bar: Any, phase: Any) -> None:
    """Wait until the phase of parity ``phase`` (0 or 1) has completed (``try_wait.parity`` in a
    loop). A waiter tracks the parity itself: it flips after each completed phase."""
    what = "lc.mbarrier_wait"
    if isinstance(phase, int) and not isinstance(phase, bool) and phase not in (0, 1):
        raise state.error(f"{what}: the phase parity must be 0 or 1, got {phase}")
    if isinstance(phase, bool) or not isinstance(phase, (int, Int)):
        raise state.error(f"{what}: the phase parity must be an integer, got {phase!r}")
    ptr = barrier_pointer(bar, what)
    parity = scalars.as_value(phase, i32)
    ticks = scalars.as_value(0x989680, i32)
    state.emit(N.MBarrierTryWaitParityOp(ptr, parity, ticks))
