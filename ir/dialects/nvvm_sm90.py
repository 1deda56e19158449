"""Hopper (sm_90/sm_90a) ops of the nvvm dialect, with MLIR's names, operands and forms.

Warp specialization: ``nvvm.setmaxregister``, ``nvvm.elect.sync``, named barriers
(``nvvm.barrier id = %i number_of_threads = %n``); proxy fences (``nvvm.fence.proxy``,
``nvvm.fence.mbarrier.init``); clusters (``nvvm.cluster.arrive``/``wait`` and the cluster
special registers); mbarriers (``nvvm.mbarrier.init``, ``arrive``, ``arrive.expect_tx``,
``try_wait.parity``); the tensor memory accelerator (``nvvm.cp.async.bulk.tensor.*``,
``nvvm.cp.async.bulk.commit.group``/``wait_group``, ``nvvm.prefetch tensormap``).

Each op states the architecture it needs with the ``RequiresTarget`` trait (checked by the
``verify-target`` pass, docs/codegen.md "Target features"). The NVVM translation emits the
PTX instruction (inline assembly) and the host translation calls the CPU runtime's helper that
gives it the hardware's semantics (docs/hopper.md).
"""

from __future__ import annotations

from typing import ClassVar

from ..core.asm import OpAsmParser, OpAsmPrinter
from ..core.attributes import (
    Attribute,
    DenseArrayAttr,
    EnumAttr,
    IntegerAttr,
    NamespaceEnumAttr,
    UnitAttr,
)
from ..core.constraints import Constraint, integer_attr
from ..core.errors import VerifyError
from ..core.location import Location
from ..core.opdef import operand, opt_operand, opt_prop, opt_result, prop, result, var_operand
from ..core.operation import Operation
from ..core.traits import AttrSizedOperandSegments, Pure, RequiresTarget, TargetRequirement
from ..core.types import i1, i16, i32, i64
from ..core.values import Value
from .llvm.types import LLVMPointerType
from .nvvm_base import SpecialRegisterOp, _NoOperandOp

SM90_ELECT = RequiresTarget("sm_90", "elect.sync")
SM90_FENCE = RequiresTarget("sm_90", "proxy and mbarrier-init fences")
SM90_PARITY_WAIT = RequiresTarget("sm_90", "mbarrier.try_wait")
SM90_TMA = RequiresTarget("sm_90", "TMA")
SM90_CLUSTER = RequiresTarget("sm_90", "thread block clusters")
SM90A_SETMAXNREG = RequiresTarget("sm_90a", "setmaxnreg")

_Shared = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space == 3,
    "shared-memory pointer",
    exact=LLVMPointerType(3),
    storage=LLVMPointerType,  # upstream's LLVM_PointerShared: printed stripped (`<3>`) there
)
_SharedOrGeneric = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space in (0, 3),
    "shared or generic pointer",
)
_AnyPtr = Constraint(lambda t: isinstance(t, LLVMPointerType), "LLVM pointer")
_I32Attr = integer_attr(i32, "32-bit integer")
_BoolProp = Constraint(
    lambda a: isinstance(a, IntegerAttr) and a.type is i1, "bool attribute (true/false)"
)


def _segments(groups: list[list[Value]]) -> DenseArrayAttr:
    return DenseArrayAttr(i32, [len(g) for g in groups])


# ---------------------------------------------------------------------------------------------
# attributes
# ---------------------------------------------------------------------------------------------


class SetMaxRegisterActionAttr(NamespaceEnumAttr):
    """``#nvvm<action increase>``: ``setmaxnreg.inc`` or ``.dec`` (upstream's namespace form)."""

    __slots__ = ()
    name = "nvvm.action"
    VALUES = ("decrease", "increase")


class ProxyKindAttr(EnumAttr):
    """``#nvvm.proxy_kind<async.shared>``: the proxy a ``fence.proxy`` orders with."""

    __slots__ = ()
    name = "nvvm.proxy_kind"
    VALUES = ("alias", "async", "async.global", "async.shared")


class MemScopeKindAttr(EnumAttr):
    """``#nvvm.mem_scope<cta>``: the threads that observe a memory-ordering effect (MLIR 22's
    ``MemScopeKindAttr``; ``nvvm.mbarrier.arrive`` takes ``cta`` or ``cluster``)."""

    __slots__ = ()
    name = "nvvm.mem_scope"
    VALUES = ("cta", "cluster", "gpu", "sys")


class PrefetchCacheLevelAttr(NamespaceEnumAttr):
    """``#nvvm<prefetch_cache_level L2>``: the cache ``nvvm.prefetch`` fills."""

    __slots__ = ()
    name = "nvvm.prefetch_cache_level"
    VALUES = ("L1", "L2")


class CacheEvictionPriorityAttr(NamespaceEnumAttr):
    """``#nvvm<cache_eviction_priority evict_last>``: ``nvvm.prefetch``'s L2 eviction
    priority."""

    __slots__ = ()
    name = "nvvm.cache_eviction_priority"
    VALUES = ("evict_normal", "evict_first", "evict_last", "evict_unchanged", "no_allocate")


class SharedSpaceAttr(EnumAttr):
    """``#nvvm.shared_space<cta>``: the state space of ``fence.proxy.async.shared::{cta,cluster}``."""

    __slots__ = ()
    name = "nvvm.shared_space"
    VALUES = ("cta", "cluster")


# ---------------------------------------------------------------------------------------------
# warp specialization
# ---------------------------------------------------------------------------------------------


class SetMaxRegisterOp(Operation):
    """``nvvm.setmaxregister increase 232``: PTX ``setmaxnreg.{inc,dec}.sync.aligned.u32``.

    Every thread of the warpgroup executes it (``.sync.aligned``); the count is a multiple of 8
    in [24, 256]."""

    name = "nvvm.setmaxregister"
    assembly_format = "$action $regCount attr-dict"
    traits = (SM90A_SETMAXNREG,)
    regCount = prop(_I32Attr)
    action = prop(SetMaxRegisterActionAttr)

    def __init__(self, action: str, count: int, loc: Location | None = None):
        super().__init__(
            properties={
                "regCount": IntegerAttr(count, i32),
                "action": SetMaxRegisterActionAttr(action),
            },
            loc=loc,
        )

    def verify_(self) -> None:
        n = self.regCount.value
        if n % 8 or not 24 <= n <= 256:
            raise VerifyError(f"the register count must be a multiple of 8 in [24, 256], got {n}")


class ElectSyncOp(Operation):
    """``%p = nvvm.elect.sync -> i1``: PTX ``elect.sync _|p, 0xffffffff``: true in exactly one
    (the lowest active) lane of the warp."""

    name = "nvvm.elect.sync"
    traits = (SM90_ELECT,)
    pred = result(i1)
    assembly_format = "attr-dict `->` type($pred)"

    def __init__(self, loc: Location | None = None):
        super().__init__(result_types=[i1], loc=loc)


class BarrierOp(Operation):
    """``nvvm.barrier id = %id number_of_threads = %n``: PTX ``bar.sync id, n`` (a named
    barrier: ``n`` threads, a multiple of 32, meet at barrier ``id`` in 0..15)."""

    name = "nvvm.barrier"
    traits = (AttrSizedOperandSegments,)
    barrierId = opt_operand(i32)
    numberOfThreads = opt_operand(i32)
    # upstream's third segment (bar.red's predicate); layoutc emits no reductions
    reductionPredicate = opt_operand(i32)

    def __init__(
        self, barrier_id: Value | None, threads: Value | None, loc: Location | None = None
    ):
        super().__init__(
            operands=[
                [barrier_id] if barrier_id is not None else [],
                [threads] if threads is not None else [],
                [],
            ],
            loc=loc,
        )

    def verify_(self) -> None:
        if self.numberOfThreads is not None and self.barrierId is None:
            raise VerifyError("'number_of_threads' needs a barrier 'id'")
        if self.reductionPredicate is not None:
            raise VerifyError("not supported: barrier reductions (bar.red)")

    # MLIR: (`id` `=` $barrierId^)? (`number_of_threads` `=` $numberOfThreads^)? attr-dict
    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.barrierId is not None:
            p.write(" id = ")
            p.print_operand(self.barrierId)
        if self.numberOfThreads is not None:
            p.write(" number_of_threads = ")
            p.print_operand(self.numberOfThreads)
        p.print_attr_dict(self, elided=("operandSegmentSizes",))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        groups: list[list[Value]] = [[], [], []]
        for i, word in enumerate(("id", "number_of_threads")):
            if p.parse_optional_keyword(word):
                p.expect("=")
                groups[i] = [p.resolve_operand(p.parse_operand(), i32)]
        attrs = p.parse_optional_attr_dict()
        return cls.create(
            [v for g in groups for v in g],
            properties={"operandSegmentSizes": _segments(groups)},
            attributes=attrs,
            loc=p.loc,
        )


class FenceMBarrierInitOp(_NoOperandOp):
    """``nvvm.fence.mbarrier.init``: PTX ``fence.mbarrier_init.release.cluster``: makes
    mbarrier initialisations visible to the cluster (and the async proxy) before use."""

    name = "nvvm.fence.mbarrier.init"
    traits = (SM90_FENCE,)


class FenceProxyOp(Operation):
    """``nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space =
    #nvvm.shared_space<cta>}``: PTX ``fence.proxy.async.shared::cta``: orders this thread's
    generic-proxy shared-memory accesses with later async-proxy ones (TMA, wgmma)."""

    name = "nvvm.fence.proxy"
    traits = (SM90_FENCE,)
    kind = prop(ProxyKindAttr)
    space = opt_prop(SharedSpaceAttr)
    assembly_format = "attr-dict"

    def __init__(self, kind: str, space: str | None = None, loc: Location | None = None):
        props: dict[str, Attribute] = {"kind": ProxyKindAttr(kind)}
        if space is not None:
            props["space"] = SharedSpaceAttr(space)
        super().__init__(properties=props, loc=loc)

    def verify_(self) -> None:
        shared = self.kind.value == "async.shared"
        if shared != (self.space is not None):
            raise VerifyError("'space' is given exactly for the async.shared proxy kind")

    @property
    def ptx(self) -> str:
        if self.space is not None:
            return f"fence.proxy.async.shared::{self.space.value};"
        return f"fence.proxy.{self.kind.value};"


# ---------------------------------------------------------------------------------------------
# clusters
# ---------------------------------------------------------------------------------------------


class _ClusterSync(Operation):
    """``nvvm.cluster.arrive {aligned}``: every thread of the cluster's blocks arrives."""

    traits = (SM90_CLUSTER,)
    aligned = opt_prop(UnitAttr)
    PTX: ClassVar[str] = ""

    def __init__(self, aligned: bool = True, loc: Location | None = None):
        super().__init__(properties={"aligned": UnitAttr()} if aligned else {}, loc=loc)

    @property
    def ptx(self) -> str:
        return self.PTX.format(".aligned" if self.aligned is not None else "")


class ClusterArriveOp(_ClusterSync):
    """``nvvm.cluster.arrive``: PTX ``barrier.cluster.arrive[.aligned]`` (release)."""

    name = "nvvm.cluster.arrive"
    assembly_format = "attr-dict"
    PTX = "barrier.cluster.arrive{};"


class ClusterArriveRelaxedOp(_ClusterSync):
    """``nvvm.cluster.arrive.relaxed``: PTX ``barrier.cluster.arrive.relaxed[.aligned]``."""

    name = "nvvm.cluster.arrive.relaxed"
    assembly_format = "attr-dict"
    PTX = "barrier.cluster.arrive.relaxed{};"


class ClusterWaitOp(_ClusterSync):
    """``nvvm.cluster.wait``: PTX ``barrier.cluster.wait[.aligned]`` (acquire)."""

    name = "nvvm.cluster.wait"
    assembly_format = "attr-dict"
    PTX = "barrier.cluster.wait{};"


def _cluster_register(register: str) -> type[SpecialRegisterOp]:
    cls_name = "".join(part.capitalize() for part in register.replace(".", "_").split("_"))
    return type(
        f"Read{cls_name}Op",
        (SpecialRegisterOp,),
        {
            "__slots__": (),
            "__doc__": f"``nvvm.read.ptx.sreg.{register}``: PTX's ``%{register}``.",
            "name": f"nvvm.read.ptx.sreg.{register}",
            "register": register,
            "traits": (Pure, SM90_CLUSTER),
        },
    )


#: cluster special registers (sm_90): block rank and ids within the cluster, cluster ids.
CLUSTER_REGISTERS: dict[str, type[SpecialRegisterOp]] = {
    reg: _cluster_register(reg)
    for reg in [
        "cluster.ctarank",
        "cluster.nctarank",
        *(f"cluster.{b}.{a}" for b in ("ctaid", "nctaid") for a in "xyz"),
        *(f"{b}.{a}" for b in ("clusterid", "nclusterid") for a in "xyz"),
    ]
}


class MapaSharedClusterOp(Operation):
    """``%r = nvvm.mapa %p, %rank : !llvm.ptr<3> -> !llvm.ptr<7>``: PTX
    ``mapa.shared::cluster.u32``: the address of the same shared-memory location in block
    ``rank`` of the cluster."""

    name = "nvvm.mapa"
    traits = (Pure, SM90_CLUSTER)
    a = operand(_Shared)
    b = operand(i32)
    res = result(
        Constraint(
            lambda t: isinstance(t, LLVMPointerType) and t.address_space == 7,
            "shared::cluster pointer",
        )
    )
    assembly_format = "$a `,` $b attr-dict `:` type($a) `->` type($res)"

    def __init__(self, a: Value, rank: Value, loc: Location | None = None):
        super().__init__(operands=[a, rank], result_types=[LLVMPointerType(7)], loc=loc)


# ---------------------------------------------------------------------------------------------
# mbarrier
# ---------------------------------------------------------------------------------------------


class MBarrierInitOp(Operation):
    """``nvvm.mbarrier.init %addr, %count : !llvm.ptr<3>, i32``: phase 0, pending = expected =
    ``count`` arrivals, transaction count 0."""

    name = "nvvm.mbarrier.init"
    addr = operand(_SharedOrGeneric)
    count = operand(i32)
    assembly_format = "$addr `,` $count attr-dict `:` type($addr) `,` type($count)"

    def __init__(self, addr: Value, count: Value, loc: Location | None = None):
        super().__init__(operands=[addr, count], loc=loc)


class MBarrierArriveOp(Operation):
    """``%s = nvvm.mbarrier.arrive %addr (, %count)? : !llvm.ptr<3> -> i64``, MLIR 22's op:
    ``count`` arrivals (1 without it) on the current phase; the result is the opaque state
    (the phase before the arrival). On a shared::cluster address (``!llvm.ptr<7>``, from
    ``nvvm.mapa``: an mbarrier of another block of the cluster) there is no result: PTX
    ``mbarrier.arrive.shared::cluster.b64 _, [addr]``. ``scope`` (``cta`` or ``cluster``) and
    ``relaxed`` are upstream's properties; the defaults (``.release.cta``) are CUTLASS's
    ``ClusterBarrier::arrive``."""

    name = "nvvm.mbarrier.arrive"
    traits = (RequiresTarget(when=lambda op: op.requirement()),)
    addr = operand(
        Constraint(
            lambda t: isinstance(t, LLVMPointerType) and t.address_space in (0, 3, 7),
            "generic, shared or shared::cluster pointer",
        )
    )
    count = opt_operand(i32)
    scope = prop(MemScopeKindAttr, default=MemScopeKindAttr("cta"))
    relaxed = prop(_BoolProp, default=IntegerAttr(0, i1))
    res = opt_result(i64)
    assembly_format = "$addr (`,` $count^)? attr-dict `:` type($addr) (`->` type($res)^)?"

    def __init__(
        self,
        addr: Value,
        count: Value | None = None,
        *,
        result: bool | None = None,
        loc: Location | None = None,
    ):
        cluster = isinstance(addr.type, LLVMPointerType) and addr.type.address_space == 7
        want = not cluster if result is None else result
        super().__init__(
            operands=[addr, [count] if count is not None else []],
            result_types=[[i64] if want else []],
            loc=loc,
        )

    @property
    def is_cluster(self) -> bool:
        """On an mbarrier of another block of the cluster (a shared::cluster address)."""
        return self.addr.type.address_space == 7

    def requirement(self) -> TargetRequirement | None:
        """sm_90 for a remote arrive (clusters), a count or a cluster scope (PTX ISA 7.8/8.0
        forms); none for the plain arrive (sm_80)."""
        if self.is_cluster:
            return SM90_CLUSTER.requirement
        if self.count is not None or self.scope.value != "cta":
            return TargetRequirement("sm_90", "mbarrier.arrive with a count or cluster scope")
        return None

    def verify_(self) -> None:
        if self.scope.value not in ("cta", "cluster"):
            raise VerifyError("mbarrier scope must be either CTA or Cluster")
        if self.is_cluster and self.res is not None:
            raise VerifyError("mbarrier in shared_cluster space cannot return any value")


class MBarrierArriveExpectTxOp(Operation):
    """``nvvm.mbarrier.arrive.expect_tx %addr, %txcount : !llvm.ptr<3>, i32``: expect
    ``txcount`` more bytes of asynchronous transactions, then arrive once."""

    name = "nvvm.mbarrier.arrive.expect_tx"
    traits = (SM90_TMA,)
    addr = operand(_AnyPtr)
    txcount = operand(i32)
    assembly_format = "$addr `,` $txcount attr-dict `:` type($addr) `,` type($txcount)"

    def __init__(self, addr: Value, txcount: Value, loc: Location | None = None):
        super().__init__(operands=[addr, txcount], loc=loc)


class MBarrierTryWaitParityOp(Operation):
    """``nvvm.mbarrier.try_wait.parity %addr, %phase, %ticks : !llvm.ptr<3>, i32, i32``: wait
    (a ``try_wait`` loop) until the phase of parity ``phase`` has completed, i.e. until the
    barrier's current phase parity differs from ``phase``."""

    name = "nvvm.mbarrier.try_wait.parity"
    traits = (SM90_PARITY_WAIT,)
    addr = operand(_AnyPtr)
    phase = operand(i32)
    ticks = operand(i32)
    assembly_format = (
        "$addr `,` $phase `,` $ticks attr-dict `:` type($addr) `,` type($phase) `,` type($ticks)"
    )

    def __init__(self, addr: Value, phase: Value, ticks: Value, loc: Location | None = None):
        super().__init__(operands=[addr, phase, ticks], loc=loc)


# ---------------------------------------------------------------------------------------------
# TMA
# ---------------------------------------------------------------------------------------------


class TMALoadModeAttr(EnumAttr):
    """``#nvvm.tma_load_mode<tile>``: how a TMA load reads the tensor."""

    __slots__ = ()
    name = "nvvm.tma_load_mode"
    VALUES = ("tile", "im2col", "im2col_w", "im2col_w_128", "tile_gather4")


class TMAStoreModeAttr(EnumAttr):
    """``#nvvm.tma_store_mode<tile>``: how a TMA store writes the tensor."""

    __slots__ = ()
    name = "nvvm.tma_store_mode"
    VALUES = ("tile", "im2col", "tile_scatter4")


_Cluster = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space in (3, 7),
    "shared::cta (3) or shared::cluster (7) pointer",
)


class CpAsyncBulkTensorGlobalToSharedClusterOp(Operation):
    """``nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %mbar, box[%c0, %c1]
    (multicast_mask = %m)? (l2_cache_hint = %h)? (predicate = %p)? : !llvm.ptr<7>, !llvm.ptr``
    (MLIR 22's operands: the destination in shared::cluster memory, address space 7, unless
    ``isCTAOnly``; PTX
    ``cp.async.bulk.tensor.{1-5}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    [.multicast::cluster]``): copy the box at ``coordinates`` (innermost first) of the tensor
    the descriptor describes into shared memory, completing ``mbar``'s transaction count by
    the box's bytes (in every block of ``multicast_mask``)."""

    name = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
    assembly_format = "$dstMem `,` $tmaDescriptor `,` $mbar `,` `box` `[` $coordinates `]` (`im2col` `[` $im2colOffsets^ `]`)? (`multicast_mask` `=` $multicastMask^)? (`l2_cache_hint` `=` $l2CacheHint^)? (`predicate` `=` $predicate^)? attr-dict `:` type($dstMem) `,` type($tmaDescriptor)"
    traits = (AttrSizedOperandSegments, SM90_TMA)
    dstMem = operand(_Cluster)
    tmaDescriptor = operand(_AnyPtr)
    coordinates = var_operand(i32)
    mbar = operand(_Shared)
    im2colOffsets = var_operand(i16)
    multicastMask = opt_operand(i16)
    l2CacheHint = opt_operand(i64)
    predicate = opt_operand(i1)
    isCTAOnly = prop(_BoolProp, default=IntegerAttr(0, i1))
    mode = prop(TMALoadModeAttr, default=TMALoadModeAttr("tile"))
    group = opt_prop(Attribute)

    def __init__(
        self,
        dst: Value,
        desc: Value,
        coordinates: list[Value],
        mbar: Value,
        multicast_mask: Value | None = None,
        im2col_offsets: list[Value] | None = None,
        mode: str = "tile",
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[
                dst,
                desc,
                list(coordinates),
                mbar,
                list(im2col_offsets or []),
                [multicast_mask] if multicast_mask is not None else [],
                [],
                [],
            ],
            properties={"mode": TMALoadModeAttr(mode)} if mode != "tile" else None,
            loc=loc,
        )

    def verify_(self) -> None:
        if not 1 <= len(self.coordinates) <= 5:
            raise VerifyError(
                f"expects 1 to 5 coordinates (a tensor of rank 1-5), got {len(self.coordinates)}"
            )
        cta_only = bool(self.isCTAOnly.value)
        if not cta_only and self.dstMem.type.address_space != 7:
            raise VerifyError("Shared::cluster destination requires address-space 7.")
        if cta_only and self.dstMem.type.address_space != 3:
            raise VerifyError("Shared::cta destination requires address-space 3.")
        if cta_only and self.multicastMask is not None:
            raise VerifyError("Multicast is not supported with shared::cta mode.")
        verify_tma_load_mode(self.mode.value, len(self.coordinates), len(self.im2colOffsets))


def verify_tma_load_mode(mode: str, dims: int, offsets: int) -> None:
    """MLIR's ``verifyTMALoadParams``: im2col modes need a tensor of rank 3 or more and
    ``rank - 2`` offsets (``im2col``) or 2 (``im2col_w``, ``im2col_w_128``); the tile modes
    none; ``tile_gather4`` five coordinates."""
    if mode == "tile_gather4" and dims != 5:
        raise VerifyError("Gather4 mode expects 5 coordinates")
    im2col = mode.startswith("im2col")
    if im2col and dims < 3:
        raise VerifyError(f"to use {mode} mode, the tensor has to be at least 3-dimensional")
    expected = dims - 2 if mode == "im2col" else 2 if im2col else 0
    if offsets != expected:
        raise VerifyError(f"im2col offsets expected {expected} (provided {offsets})")


class CpAsyncBulkTensorSharedCTAToGlobalOp(Operation):
    """``nvvm.cp.async.bulk.tensor.global.shared.cta %desc, %src, box[%c0, %c1]
    (l2_cache_hint = %h)? (, predicate = %p)? : !llvm.ptr, !llvm.ptr<3>`` (MLIR 22's
    operands; PTX ``cp.async.bulk.tensor.{1-5}d.global.shared::cta.tile.bulk_group``): store
    a shared-memory box to the tensor (elements outside it are not written)."""

    name = "nvvm.cp.async.bulk.tensor.global.shared.cta"
    assembly_format = "$tmaDescriptor `,` $srcMem `,` `box` `[` $coordinates `]` (`l2_cache_hint` `=` $l2CacheHint^)? (`,` `predicate` `=` $predicate^)? attr-dict `:` type($tmaDescriptor) `,` type($srcMem)"
    traits = (AttrSizedOperandSegments, SM90_TMA)
    tmaDescriptor = operand(_AnyPtr)
    srcMem = operand(_Shared)
    coordinates = var_operand(i32)
    l2CacheHint = opt_operand(i64)
    predicate = opt_operand(i1)
    mode = prop(TMAStoreModeAttr, default=TMAStoreModeAttr("tile"))

    def __init__(
        self, desc: Value, src: Value, coordinates: list[Value], loc: Location | None = None
    ):
        super().__init__(operands=[desc, src, list(coordinates), [], []], loc=loc)

    def verify_(self) -> None:
        if not 1 <= len(self.coordinates) <= 5:
            raise VerifyError(
                f"expects 1 to 5 coordinates (a tensor of rank 1-5), got {len(self.coordinates)}"
            )
        if self.predicate is not None and self.l2CacheHint is not None:
            raise VerifyError("Inline-ptx lowering unsupported with L2 cache-hint.")


class CpAsyncBulkCommitGroupOp(_NoOperandOp):
    """``nvvm.cp.async.bulk.commit.group``: PTX ``cp.async.bulk.commit_group``."""

    name = "nvvm.cp.async.bulk.commit.group"
    traits = (SM90_TMA,)


class CpAsyncBulkWaitGroupOp(Operation):
    """``nvvm.cp.async.bulk.wait_group 0 {read}``: PTX ``cp.async.bulk.wait_group[.read] N``:
    wait until at most ``N`` bulk groups are pending (``read``: only until their sources have
    been read)."""

    name = "nvvm.cp.async.bulk.wait_group"
    assembly_format = "$group attr-dict"
    traits = (SM90_TMA,)
    group = prop(_I32Attr)
    read = opt_prop(UnitAttr)

    def __init__(self, group: int, read: bool = False, loc: Location | None = None):
        props: dict[str, Attribute] = {"group": IntegerAttr(group, i32)}
        if read:
            props["read"] = UnitAttr()
        super().__init__(properties=props, loc=loc)

    def verify_(self) -> None:
        if self.group.value < 0:
            raise VerifyError("the number of pending groups must be non-negative")


class PrefetchOp(Operation):
    """``nvvm.prefetch tensormap, %desc : !llvm.ptr``, MLIR 22's prefetch op with its
    properties (``level = L2, evict_priority = ...``, ``uniform``, ``in_param_space``, a
    ``predicate``). layoutc emits and translates the ``tensormap`` form (PTX
    ``prefetch.tensormap [desc]``: bring a TMA descriptor into the cache early); the
    translation refuses the others."""

    name = "nvvm.prefetch"
    traits = (RequiresTarget(when=lambda op: SM90_TMA.requirement if op.tensormap else None),)
    addr = operand(_AnyPtr)
    predicate = opt_operand(i1)
    cacheLevel = opt_prop(PrefetchCacheLevelAttr)
    evictPriority = opt_prop(CacheEvictionPriorityAttr)
    tensormap = opt_prop(UnitAttr)
    uniform = opt_prop(UnitAttr)
    in_param_space = opt_prop(UnitAttr)
    # MLIR: (`level` `=` $cacheLevel^ (`uniform` $uniform^)? `,`)? (`evict_priority` `=`
    # $evictPriority^ `,`)? (`tensormap` $tensormap^ (`in_param_space` $in_param_space^)?
    # `,`)? $addr (`,` `predicate` `=` $predicate^)? attr-dict `:` type($addr)
    # (`,` type($predicate)^)?  (nested optional groups: written out below)
    _PRINTED = ("cacheLevel", "evictPriority", "tensormap", "uniform", "in_param_space")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.cacheLevel is not None:
            p.write(f" level = {self.cacheLevel.value}")
            p.write(" uniform," if self.uniform is not None else ",")
        if self.evictPriority is not None:
            p.write(f" evict_priority = {self.evictPriority.value},")
        if self.tensormap is not None:
            p.write(
                " tensormap in_param_space," if self.in_param_space is not None else " tensormap,"
            )
        p.write(" ")
        p.print_operand(self.addr)
        if self.predicate is not None:
            p.write(", predicate = ")
            p.print_operand(self.predicate)
        p.print_attr_dict(self, elided=self._PRINTED)
        p.write(f" : {self.addr.type.text}")
        if self.predicate is not None:
            p.write(f", {self.predicate.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        props: dict[str, Attribute] = {}
        if p.parse_optional_keyword("level"):
            p.expect("=")
            props["cacheLevel"] = PrefetchCacheLevelAttr.parse_parameters(p)
            if p.parse_optional_keyword("uniform"):
                props["uniform"] = UnitAttr()
            p.expect(",")
        if p.parse_optional_keyword("evict_priority"):
            p.expect("=")
            props["evictPriority"] = CacheEvictionPriorityAttr.parse_parameters(p)
            p.expect(",")
        if p.parse_optional_keyword("tensormap"):
            props["tensormap"] = UnitAttr()
            if p.parse_optional_keyword("in_param_space"):
                props["in_param_space"] = UnitAttr()
            p.expect(",")
        addr = p.parse_operand()
        predicate = None
        if p.parse_optional_punctuation(","):
            p.parse_keyword("predicate")
            p.expect("=")
            predicate = p.parse_operand()
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        operands = [p.resolve_operand(addr, p.parse_type())]
        if predicate is not None:
            p.expect(",")
            operands.append(p.resolve_operand(predicate, p.parse_type()))
        return cls.create(operands, properties=props, attributes=attrs, loc=p.loc)

    def __init__(self, addr: Value, *, tensormap: bool = False, loc: Location | None = None):
        super().__init__(
            operands=[addr, []],
            properties={"tensormap": UnitAttr()} if tensormap else None,
            loc=loc,
        )

    def verify_(self) -> None:
        space = self.addr.type.address_space
        if self.tensormap is not None:
            if self.cacheLevel is not None:
                raise VerifyError("cannot specify both tensormap and cache level")
            if space not in (0, 4):
                raise VerifyError("prefetch tensormap requires a generic or constant pointer")
            if self.in_param_space is not None and space != 0:
                raise VerifyError("in_param_space can only be specified for a generic pointer")
        elif self.in_param_space is not None:
            raise VerifyError("in_param_space can only be specified with tensormap")
        if self.uniform is not None and self.cacheLevel is None:
            raise VerifyError("uniform can only be specified with a cache level")
        if self.evictPriority is not None and (
            self.cacheLevel is None or self.cacheLevel.value != "L2"
        ):
            raise VerifyError("cache eviction priority supported only for cache level L2")


SM90_OPS: list[type[Operation]] = [
    SetMaxRegisterOp,
    ElectSyncOp,
    BarrierOp,
    FenceMBarrierInitOp,
    FenceProxyOp,
    ClusterArriveOp,
    ClusterArriveRelaxedOp,
    ClusterWaitOp,
    *CLUSTER_REGISTERS.values(),
    MapaSharedClusterOp,
    MBarrierInitOp,
    MBarrierArriveOp,
    MBarrierArriveExpectTxOp,
    MBarrierTryWaitParityOp,
    CpAsyncBulkTensorGlobalToSharedClusterOp,
    CpAsyncBulkTensorSharedCTAToGlobalOp,
    CpAsyncBulkCommitGroupOp,
    CpAsyncBulkWaitGroupOp,
    PrefetchOp,
]

SM90_ATTRIBUTES = [
    SetMaxRegisterActionAttr,
    MemScopeKindAttr,
    PrefetchCacheLevelAttr,
    CacheEvictionPriorityAttr,
    ProxyKindAttr,
    SharedSpaceAttr,
    TMALoadModeAttr,
    TMAStoreModeAttr,
]
