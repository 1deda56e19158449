"""Hopper nvvm ops (ir/dialects/nvvm_sm90.py) -> LLVM IR for the GPU, as inline PTX.

Every op is the PTX instruction the ISA documents, in an ``asm sideeffect`` block, for the
same reasons as cp.async and mma.sync (translate_nvvm.py): the text is exact, greppable, and
needs no intrinsic that libNVVM or LLVM's NVPTX may lack. Shared-memory and tensor-map
addresses are 64-bit ``l`` operands (the NVVM data layout's pointer size). Ops that order
memory clobber ``memory``. The instructions need PTX ISA 8.0 (sm_90's minimum, compat.py).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import nvvm_sm90
from llvmlite import ir

from .translate_function import FunctionTranslator
from .translate_llvm import inline_asm
from .translate_nvvm import NVVM_GPU
from .translate_types import I1, I32, VOID, fail

_MEM = "~{memory}"


def _asm(ft: FunctionTranslator, text: str, constraints: str = "", args: Any = ()) -> Any:
    c = ",".join(x for x in (constraints, _MEM) if x)
    return inline_asm(ft, text, c, list(args), VOID, True)


@NVVM_GPU.register(nvvm_sm90.SetMaxRegisterOp)
def _setmaxregister(ft: FunctionTranslator, op: nvvm_sm90.SetMaxRegisterOp) -> None:
    kind = "inc" if op.action.value == "increase" else "dec"
    _asm(ft, f"setmaxnreg.{kind}.sync.aligned.u32 {op.regCount.value};")


@NVVM_GPU.register(nvvm_sm90.ElectSyncOp)
def _elect_sync(ft: FunctionTranslator, op: nvvm_sm90.ElectSyncOp) -> None:
    text = "{ .reg .pred P; elect.sync _|P, 0xffffffff; selp.u32 $0, 1, 0, P; }"
    bit = inline_asm(ft, text, "=r", [], I32, True)
    ft.set_result(op, ft.builder.trunc(bit, I1, name=ft.name(op)))


@NVVM_GPU.register(nvvm_sm90.BarrierOp)
def _barrier(ft: FunctionTranslator, op: nvvm_sm90.BarrierOp) -> None:
    if op.barrierId is None:
        _asm(ft, "bar.sync 0;")
    elif op.numberOfThreads is None:
        _asm(ft, "bar.sync $0;", "r", [ft.get(op.barrierId)])
    else:
        _asm(ft, "bar.sync $0, $1;", "r,r", [ft.get(op.barrierId), ft.get(op.numberOfThreads)])


@NVVM_GPU.register(nvvm_sm90.FenceMBarrierInitOp)
def _fence_mbarrier_init(ft: FunctionTranslator, op: nvvm_sm90.FenceMBarrierInitOp) -> None:
    _asm(ft, "fence.mbarrier_init.release.cluster;")


@NVVM_GPU.register(nvvm_sm90.FenceProxyOp)
def _fence_proxy(ft: FunctionTranslator, op: nvvm_sm90.FenceProxyOp) -> None:
    _asm(ft, op.ptx)


@NVVM_GPU.register(
    nvvm_sm90.ClusterArriveOp, nvvm_sm90.ClusterArriveRelaxedOp, nvvm_sm90.ClusterWaitOp
)
def _cluster_sync(ft: FunctionTranslator, op: Any) -> None:
    _asm(ft, op.ptx)


def _cluster_sreg(ft: FunctionTranslator, op: Any) -> None:
    reg = "%" + op.register.replace("cluster.", "cluster_", 1)
    ft.set_result(op, inline_asm(ft, f"mov.u32 $0, {reg};", "=r", [], I32, False))


def _register_cluster_registers() -> None:
    from layoutc.ir.dialects.nvvm_sm90 import CLUSTER_REGISTERS

    NVVM_GPU.register(*CLUSTER_REGISTERS.values())(_cluster_sreg)


_register_cluster_registers()


@NVVM_GPU.register(nvvm_sm90.MapaSharedClusterOp)
def _mapa(ft: FunctionTranslator, op: nvvm_sm90.MapaSharedClusterOp) -> None:
    ptr = ft.get(op.a)
    ret = ft.result_type(op)
    addr = ft.builder.ptrtoint(ptr, ir.IntType(64))
    out = inline_asm(
        ft,
        "mapa.shared::cluster.u64 $0, $1, $2;",
        "=l,l,r",
        [addr, ft.get(op.b)],
        ir.IntType(64),
        False,
    )
    ft.set_result(op, ft.builder.inttoptr(out, ret, name=ft.name(op)))


def _space(op: Any, value: Any) -> str:
    return ".shared" if value.type.address_space == 3 else ""


@NVVM_GPU.register(nvvm_sm90.MBarrierInitOp)
def _mbarrier_init(ft: FunctionTranslator, op: nvvm_sm90.MBarrierInitOp) -> None:
    sp = _space(op, op.addr)
    _asm(ft, f"mbarrier.init{sp}.b64 [$0], $1;", "l,r", [ft.get(op.addr), ft.get(op.count)])


@NVVM_GPU.register(nvvm_sm90.MBarrierArriveOp)
def _mbarrier_arrive(ft: FunctionTranslator, op: nvvm_sm90.MBarrierArriveOp) -> None:
    """PTX ``mbarrier.arrive{.release.cluster}{.shared|.shared::cluster}.b64 state|_, [addr]
    {, count}``. Without qualifiers the PTX defaults (``.release``, ``.cta``), as CUTLASS's
    ``ClusterBarrier::arrive(cta_id)``: ``.release.cluster`` made the consumers of a 2-block
    cluster GEMM 2.3x slower on an H100."""
    if op.relaxed.value:
        raise fail(op, "not supported: relaxed mbarrier.arrive (PTX ISA 8.6)")
    scope = ".release.cluster" if op.scope.value == "cluster" else ""
    args = [ft.get(op.addr)] + ([ft.get(op.count)] if op.count is not None else [])
    count = ", $1" if op.count is not None else ""
    if op.is_cluster:
        cons = "l" + (",r" if op.count is not None else "") + "," + _MEM
        text = f"mbarrier.arrive{scope}.shared::cluster.b64 _, [$0]{count};"
        inline_asm(ft, text, cons, args, VOID, True)
        return
    sp = _space(op, op.addr)
    count = ", $2" if op.count is not None else ""
    text = f"mbarrier.arrive{scope}{sp}.b64 $0, [$1]{count};"
    cons = "=l,l" + (",r" if op.count is not None else "") + "," + _MEM
    state = inline_asm(ft, text, cons, args, ir.IntType(64), True)
    if op.res is not None:
        ft.set_result(op, state)


@NVVM_GPU.register(nvvm_sm90.MBarrierArriveExpectTxOp)
def _mbarrier_expect_tx(ft: FunctionTranslator, op: nvvm_sm90.MBarrierArriveExpectTxOp) -> None:
    sp = _space(op, op.addr)
    _asm(
        ft,
        f"mbarrier.arrive.expect_tx{sp}.b64 _, [$0], $1;",
        "l,r",
        [ft.get(op.addr), ft.get(op.txcount)],
    )


@NVVM_GPU.register(nvvm_sm90.MBarrierTryWaitParityOp)
def _mbarrier_try_wait(ft: FunctionTranslator, op: nvvm_sm90.MBarrierTryWaitParityOp) -> None:
    """MLIR's lowering: a ``try_wait`` loop that only leaves once the phase completed."""
    sp = _space(op, op.addr)
    text = (
        "{ .reg .pred P1; LAB_WAIT: "
        f"mbarrier.try_wait.parity{sp}.b64 P1, [$0], $1, $2; "
        "@P1 bra.uni DONE; bra.uni LAB_WAIT; DONE: }"
    )
    _asm(ft, text, "l,r,r", [ft.get(op.addr), ft.get(op.phase), ft.get(op.ticks)])


def _box(first: int, n: int) -> str:
    return "{" + ", ".join(f"${first + i}" for i in range(n)) + "}"


def refuse_tma_extras(op: Any, modes: tuple[str, ...] = ("tile",)) -> None:
    """The parts of MLIR 22's TMA ops code generation does not implement yet."""
    extras = []
    if op.mode.value not in modes:
        extras.append(f"mode {op.mode.value}")
    for what in ("l2CacheHint", "predicate"):
        if getattr(op, what) is not None:
            extras.append(what)
    if op.properties.get("isCTAOnly") is not None and op.isCTAOnly.value:
        extras.append("isCTAOnly")
    if extras:
        raise fail(op, f"not supported: TMA with {', '.join(extras)}")


@NVVM_GPU.register(nvvm_sm90.CpAsyncBulkTensorGlobalToSharedClusterOp)
def _tma_load(
    ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkTensorGlobalToSharedClusterOp
) -> None:
    """Tile mode, or im2col mode (``.im2col``: the coordinates name the first pixel, the
    16-bit offsets the filter tap, PTX ISA "Im2col mode")."""
    refuse_tma_extras(op, ("tile", "im2col"))
    n = len(op.coordinates)
    args = [ft.get(op.dstMem), ft.get(op.tmaDescriptor), ft.get(op.mbar)]
    args += [ft.get(c) for c in op.coordinates]
    constraints = "l,l,l" + ",r" * n
    mode = op.mode.value
    text = f"cp.async.bulk.tensor.{n}d.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes"
    operands = f"[$0], [$1, {_box(3, n)}], [$2]"
    if op.im2colOffsets:
        offsets = len(op.im2colOffsets)
        operands += ", " + _box(len(args), offsets)
        args += [ft.get(o) for o in op.im2colOffsets]
        constraints += ",h" * offsets
    if op.multicastMask is not None:
        text += ".multicast::cluster"
        operands += f", ${len(args)}"
        args.append(ft.get(op.multicastMask))
        constraints += ",h"
    _asm(ft, f"{text} {operands};", constraints, args)


@NVVM_GPU.register(nvvm_sm90.CpAsyncBulkTensorSharedCTAToGlobalOp)
def _tma_store(ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkTensorSharedCTAToGlobalOp) -> None:
    refuse_tma_extras(op)
    n = len(op.coordinates)
    args = [ft.get(op.tmaDescriptor), ft.get(op.srcMem)] + [ft.get(c) for c in op.coordinates]
    text = f"cp.async.bulk.tensor.{n}d.global.shared::cta.tile.bulk_group [$0, {_box(2, n)}], [$1];"
    _asm(ft, text, "l,l" + ",r" * n, args)


@NVVM_GPU.register(nvvm_sm90.CpAsyncBulkCommitGroupOp)
def _bulk_commit(ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkCommitGroupOp) -> None:
    _asm(ft, "cp.async.bulk.commit_group;")


@NVVM_GPU.register(nvvm_sm90.CpAsyncBulkWaitGroupOp)
def _bulk_wait(ft: FunctionTranslator, op: nvvm_sm90.CpAsyncBulkWaitGroupOp) -> None:
    read = ".read" if op.read is not None else ""
    _asm(ft, f"cp.async.bulk.wait_group{read} {op.group.value};")


@NVVM_GPU.register(nvvm_sm90.PrefetchOp)
def _prefetch(ft: FunctionTranslator, op: nvvm_sm90.PrefetchOp) -> None:
    """PTX ``prefetch{.const|.param}.tensormap [desc]`` (the form layoutc emits)."""
    if op.tensormap is None or op.predicate is not None:
        what = "a predicate" if op.tensormap is not None else "a cache level (only tensormap)"
        raise fail(op, f"not supported: nvvm.prefetch with {what}")
    space = ".const" if op.addr.type.address_space == 4 else ""
    if op.in_param_space is not None:
        space = ".param"
    _asm(ft, f"prefetch{space}.tensormap [$0];", "l", [ft.get(op.addr)])
