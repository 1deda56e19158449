"""Hopper nvvm ops (ir/dialects/nvvm_sm90.py) -> LLVM IR for the host: their hardware
semantics on the CPU runtime (docs/hopper.md, "On the CPU").

- mbarriers are 8-byte objects in the block's shared memory, changed only by the runtime's
  helpers (``runtime/cpu_support_ir.py``): init, arrive (with expected transaction bytes),
  complete_tx (the asynchronous side of a TMA copy) and the parity wait, which parks the fiber
  until the phase flips (a wait nothing will complete is reported as a deadlock);
- named barriers (``bar.sync id, n``) count arrivals per id in the scheduler and park the
  fiber until ``n`` threads arrived;
- ``elect.sync`` elects lane 0 (the lowest lane of a converged warp);
- ``setmaxnreg`` and the proxy/mbarrier-init fences have no effect on the CPU (there is one
  proxy, memory is coherent, and TMA transfers complete when issued);
- a thread block cluster's blocks run together (the runtime's scheduler holds all their
  threads): the cluster registers come from the thread context, ``mapa`` maps an address to
  the same offset of another block's shared window, a remote mbarrier arrival is an arrival on
  that address, a TMA multicast copies the box into every block of the mask (each completing
  its own mbarrier) and ``barrier.cluster.arrive/wait`` is a barrier of every thread of the
  cluster.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import nvvm_sm90
from layoutc.runtime import cpu_context as cc
from llvmlite import ir

from .translate_function import FunctionTranslator
from .translate_host import NVVM_HOST, _runtime_helper, context_field
from .translate_nvvm_sm90 import refuse_tma_extras
from .translate_types import I32, I64, VOID

_NO_EFFECT = (
    nvvm_sm90.SetMaxRegisterOp,
    nvvm_sm90.FenceMBarrierInitOp,
    nvvm_sm90.FenceProxyOp,
    nvvm_sm90.PrefetchOp,
)


@NVVM_HOST.register(*_NO_EFFECT)
def _no_effect(ft: FunctionTranslator, op: Any) -> None:
    return None


@NVVM_HOST.register(nvvm_sm90.ClusterArriveOp, nvvm_sm90.ClusterArriveRelaxedOp)
def _cluster_arrive(ft: FunctionTranslator, op: Any) -> None:
    ft.builder.call(_runtime_helper(ft, cc.CLUSTER_ARRIVE, VOID, []), [ft.context_struct])


@NVVM_HOST.register(nvvm_sm90.ClusterWaitOp)
def _cluster_wait(ft: FunctionTranslator, op: nvvm_sm90.ClusterWaitOp) -> None:
    ft.builder.call(_runtime_helper(ft, cc.CLUSTER_WAIT, VOID, []), [ft.context_struct])


@NVVM_HOST.register(nvvm_sm90.ElectSyncOp)
def _elect_sync(ft: FunctionTranslator, op: nvvm_sm90.ElectSyncOp) -> None:
    lane = context_field(ft, op, "lane_id")
    ft.set_result(op, ft.builder.icmp_unsigned("==", lane, I32(0), name=ft.name(op)))


@NVVM_HOST.register(nvvm_sm90.BarrierOp)
def _barrier(ft: FunctionTranslator, op: nvvm_sm90.BarrierOp) -> None:
    if op.barrierId is None:
        ft.builder.call(_runtime_helper(ft, cc.BARRIER, VOID, []), [ft.context_struct])
        return
    bar_id = ft.get(op.barrierId)
    if op.numberOfThreads is not None:
        count = ft.get(op.numberOfThreads)
    else:
        count = context_field(ft, op, "block_threads")
    fn = _runtime_helper(ft, cc.NAMED_BARRIER, VOID, [I32, I32])
    ft.builder.call(fn, [ft.context_struct, bar_id, count])


def _cluster_sreg(ft: FunctionTranslator, op: Any) -> None:
    """The cluster registers from the context: the rank and the cluster shape, the block's
    position in its cluster (``cluster.ctaid``) and the cluster's in the grid (``clusterid``)."""
    reg = op.register
    b = ft.builder
    if reg == "cluster.ctarank":
        value = context_field(ft, op, "cluster_rank")
    elif reg == "cluster.nctarank":
        x, y, z = (context_field(ft, op, f"cluster_{a}") for a in "xyz")
        value = b.mul(b.mul(x, y), z)
    else:
        kind, axis = reg.rsplit(".", 1)
        shape = context_field(ft, op, f"cluster_{axis}")
        if kind == "cluster.nctaid":
            value = shape
        elif kind == "cluster.ctaid":
            value = b.urem(context_field(ft, op, f"ctaid_{axis}"), shape)
        elif kind == "clusterid":
            value = b.udiv(context_field(ft, op, f"ctaid_{axis}"), shape)
        else:  # nclusterid
            value = b.udiv(context_field(ft, op, f"nctaid_{axis}"), shape)
    ft.set_result(op, value)


def _register_cluster_registers() -> None:
    from layoutc.ir.dialects.nvvm_sm90 import CLUSTER_REGISTERS

    NVVM_HOST.register(*CLUSTER_REGISTERS.values())(_cluster_sreg)


_register_cluster_registers()


@NVVM_HOST.register(nvvm_sm90.MapaSharedClusterOp)
def _mapa(ft: FunctionTranslator, op: nvvm_sm90.MapaSharedClusterOp) -> None:
    p = ir.PointerType(ir.IntType(8))
    fn = _runtime_helper(ft, cc.MAPA, p, [p, I32])
    source = ft.get(op.a)
    mapped = ft.builder.call(fn, [ft.context_struct, _i8p(ft, op.a), ft.get(op.b)])
    if mapped.type != source.type:
        mapped = ft.builder.bitcast(mapped, source.type)
    ft.set_result(op, mapped)


@NVVM_HOST.register(nvvm_sm90.MBarrierInitOp)
def _mbar_init(ft: FunctionTranslator, op: nvvm_sm90.MBarrierInitOp) -> None:
    fn = _runtime_helper(ft, cc.MBAR_INIT, VOID, [ir.PointerType(ir.IntType(8)), I32])
    ft.builder.call(fn, [ft.context_struct, _i8p(ft, op.addr), ft.get(op.count)])


def _i8p(ft: FunctionTranslator, value: Any) -> Any:
    v = ft.get(value)
    want = ir.PointerType(ir.IntType(8))
    return v if v.type == want else ft.builder.bitcast(v, want)


def _arrive(ft: FunctionTranslator, op: Any, count: Any, tx: Any) -> Any:
    fn = _runtime_helper(ft, cc.MBAR_ARRIVE, I64, [ir.PointerType(ir.IntType(8)), I32, I32])
    return ft.builder.call(fn, [ft.context_struct, _i8p(ft, op.addr), count, tx])


@NVVM_HOST.register(nvvm_sm90.MBarrierArriveOp)
def _mbar_arrive(ft: FunctionTranslator, op: nvvm_sm90.MBarrierArriveOp) -> None:
    """``count`` arrivals (1 without it), on this block's mbarrier or, through a
    shared::cluster address, another block's (no state then)."""
    count = ft.get(op.count) if op.count is not None else I32(1)
    state = _arrive(ft, op, count, I32(0))
    if op.res is not None:
        ft.set_result(op, state)


@NVVM_HOST.register(nvvm_sm90.MBarrierArriveExpectTxOp)
def _mbar_expect_tx(ft: FunctionTranslator, op: nvvm_sm90.MBarrierArriveExpectTxOp) -> None:
    _arrive(ft, op, I32(1), ft.get(op.txcount))


@NVVM_HOST.register(nvvm_sm90.MBarrierTryWaitParityOp)
def _mbar_wait(ft: FunctionTranslator, op: nvvm_sm90.MBarrierTryWaitParityOp) -> None:
    fn = _runtime_helper(ft, cc.MBAR_WAIT, VOID, [ir.PointerType(ir.IntType(8)), I32])
    ft.builder.call(fn, [ft.context_struct, _i8p(ft, op.addr), ft.get(op.phase)])


# -- TMA ---------------------------------------------------------------------------------------


def _coords5(ft: FunctionTranslator, op: Any) -> list[Any]:
    coords = [ft.get(c) for c in op.coordinates]
    return coords + [I32(0)] * (5 - len(coords))


@NVVM_HOST.register(nvvm_sm90.CpAsyncBulkTensorGlobalToSharedClusterOp)
def _tma_load(
    ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkTensorGlobalToSharedClusterOp
) -> None:
    refuse_tma_extras(op, ("tile", "im2col"))
    p = ir.PointerType(ir.IntType(8))
    args = [_i8p(ft, op.dstMem), _i8p(ft, op.tmaDescriptor), _i8p(ft, op.mbar)]
    if op.mode.value == "im2col":
        _tma_load_im2col(ft, op, args)
        return
    if op.multicastMask is not None:  # .multicast::cluster: into every block of the mask
        fn = _runtime_helper(ft, cc.TMA_LOAD_MULTICAST, VOID, [p, p, p, I32, *[I32] * 5])
        mask = ft.builder.zext(ft.get(op.multicastMask), I32)
        ft.builder.call(fn, [ft.context_struct, *args, mask, *_coords5(ft, op)])
        return
    fn = _runtime_helper(ft, cc.TMA_LOAD, VOID, [p, p, p, *[I32] * 5])
    ft.builder.call(fn, [ft.context_struct, *args, *_coords5(ft, op)])


def _tma_load_im2col(ft: FunctionTranslator, op: Any, args: list[Any]) -> None:
    """The runtime's im2col load takes the rank-5 form (c, w, h, d, n) with offsets (w, h, d)
    that the CPU descriptor normalises every tensor to (missing spatial dimensions: 0)."""
    coords = [ft.get(c) for c in op.coordinates]
    spatial = coords[1:-1]
    coords = [coords[0], *spatial, *[I32(0)] * (3 - len(spatial)), coords[-1]]
    offsets = [ft.builder.sext(ft.get(o), I32) for o in op.im2colOffsets]
    offsets += [I32(0)] * (3 - len(offsets))
    p = ir.PointerType(ir.IntType(8))
    if op.multicastMask is not None:  # .multicast::cluster: into every block of the mask
        fn = _runtime_helper(ft, cc.TMA_LOAD_IM2COL_MULTICAST, VOID, [p, p, p, I32, *[I32] * 8])
        mask = ft.builder.zext(ft.get(op.multicastMask), I32)
        ft.builder.call(fn, [ft.context_struct, *args, mask, *coords, *offsets])
        return
    fn = _runtime_helper(ft, cc.TMA_LOAD_IM2COL, VOID, [p, p, p, *[I32] * 8])
    ft.builder.call(fn, [ft.context_struct, *args, *coords, *offsets])


@NVVM_HOST.register(nvvm_sm90.CpAsyncBulkTensorSharedCTAToGlobalOp)
def _tma_store(ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkTensorSharedCTAToGlobalOp) -> None:
    refuse_tma_extras(op)
    p = ir.PointerType(ir.IntType(8))
    fn = _runtime_helper(ft, cc.TMA_STORE, VOID, [p, p, *[I32] * 5])
    args = [_i8p(ft, op.tmaDescriptor), _i8p(ft, op.srcMem)]
    ft.builder.call(fn, [ft.context_struct, *args, *_coords5(ft, op)])


@NVVM_HOST.register(nvvm_sm90.CpAsyncBulkCommitGroupOp, nvvm_sm90.CpAsyncBulkWaitGroupOp)
def _bulk_group(
    ft: FunctionTranslator,
    op: nvvm_sm90.CpAsyncBulkCommitGroupOp | nvvm_sm90.CpAsyncBulkWaitGroupOp,
) -> None:
    return None  # CPU TMA stores complete when issued
