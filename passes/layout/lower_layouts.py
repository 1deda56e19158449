"""``lower-layouts``: every layout value and tensor becomes ``arith`` on ``index`` and
pointer + offset accesses.

- Memory accesses (``tile.load``/``store``, ``load_vector``/``store_vector``, ``ldmatrix``,
  ``cp_async``) on a tensor or on a ``tile.ptr_offset`` chain become accesses to the root
  pointer (a kernel argument, or ``tile.get_ptr`` of an allocation) at one element offset: the
  analysis's ``offset + layout(coordinate)``, emitted by one :class:`IndexEmitter` per function,
  so address arithmetic is shared between accesses, loop-invariant parts are hoisted and
  power-of-two divisions and remainders become shifts and masks. A register fragment must end
  up indexed by a constant (registers cannot be addressed at run time).
- ``index`` results of layout ops (``crd2idx``, ``size``, ``slice`` offsets, ...) become their
  emitted expressions; ``layout.elem_less`` becomes ``arith.cmpi``/``andi``.
- ``tile.get_ptr`` of a view becomes ``tile.ptr_offset`` of its base; ``tile.assume`` is
  replaced by its operand (its facts have been used).
- Then every layout op, tensor view, ``tile.make_tensor``, identity tensor, coordinate load and
  dead pointer op is erased. One still in use (a layout crossing control flow, say) is an error.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.symbolic import SymInt
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import RecursiveMemoryEffects, is_memory_effect_free
from layoutc.ir.core.types import IndexType, IntegerType
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import gpu, nvvm  # noqa: F401 (nvvm first: it loads nvvm_wgmma)
from layoutc.ir.dialects import layout as LD
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.func import FuncOp
from layoutc.ir.dialects.nvvm_sm90 import FenceProxyOp
from layoutc.ir.dialects.nvvm_wgmma import (
    WgmmaFenceAlignedOp,
    WgmmaGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
)
from layoutc.ir.dialects.tile.gathered import GatheredOffset
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from ..analysis.emitter import IndexEmitter, emittable_before
from ..analysis.ranges import exact_bounds
from ..analysis.symbolic import AnalysisError, GatherPointer, SymbolicAnalysis
from ..base import Pass, Statistic
from ..registry import register_pass
from .common import ALGORITHM_OPS
from .predicates import elem_less

__all__ = ["LowerLayouts"]

PREFETCH = 16
"""The most index-buffer entries :meth:`_Lowering._prefetch` loads ahead of one access (their
registers stay live until their accesses)."""
WINDOW = 64
"""How many ops after an access :meth:`_Lowering._prefetch` looks at."""
_UNSET = object()

_ACCESSES = (
    TD.LoadOp,
    TD.StoreOp,
    TD.LoadVectorOp,
    TD.StoreVectorOp,
    TD.LdmatrixOp,
    TD.StmatrixOp,
    TD.CpAsyncOp,
    TD.AtomicRMWOp,
    TD.AtomicCASOp,
)
_REMOVABLE_TILE = (
    TD.MakeTensorOp,
    TD.MakeIdentityTensorOp,
    TD.GetLayoutOp,
    TD.GetPtrOp,
    TD.PtrOffsetOp,
    TD.AssumeOp,
)


# Pointer ops that stay when something other than a memory access uses them: convert-to-llvm
# lowers them (a GEP, the base pointer), e.g. the address of an mbarrier in shared memory.
_POINTER_OPS = (TD.GetPtrOp, TD.PtrOffsetOp, TD.AssumeOp)


class _Failure(Exception):
    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.message = message
        self.op = op


def _is_view(op: Operation) -> bool:
    return isinstance(op, TD.ViewOp)


@register_pass
class LowerLayouts(Pass):
    argument = "lower-layouts"
    summary = "Lower layouts and tensors to index arithmetic and pointer + offset accesses"
    description = (
        "crd2idx/idx2crd/slice offsets and every layout value become arith on index (shared "
        "subexpressions, hoisted loop invariants, shifts and masks for powers of two); tensor "
        "accesses become pointer + offset; no layout op or tensor view remains."
    )

    num_accesses = Statistic("Tensor accesses rewritten to pointer + offset")
    num_gather_reuses = Statistic("Index-buffer entries reused from an earlier load")
    num_index_ops = Statistic("arith ops emitted for index arithmetic")
    num_erased = Statistic("Layout and tensor ops erased")

    def run_on_operation(self, op: Any) -> None:
        analysis = self.get_analysis(SymbolicAnalysis)
        builder = Builder()
        emitter = IndexEmitter(builder)
        lowering = _Lowering(self, analysis, builder, emitter)
        try:
            for alg in op.walk_ops():
                if isinstance(alg, ALGORITHM_OPS):
                    raise _Failure(
                        f"'{alg.name}' must be lowered first (run lower-algorithms before "
                        "lower-layouts)",
                        alg,
                    )
            lowering.run(op)
        except _Failure as e:
            self.emit_error(e.op.location, e.message)
            self.signal_failure()
            return
        except AnalysisError as e:
            self.emit_error(e.location, e.message)
            self.signal_failure()
            return
        self.num_index_ops += emitter.num_ops


class _Lowering:
    def __init__(
        self, p: LowerLayouts, analysis: SymbolicAnalysis, builder: Builder, emitter: IndexEmitter
    ):
        self.p = p
        self._local_memory: set[Value] = set()
        self.analysis = analysis
        self.builder = builder
        self.emitter = emitter
        self._alloc_ptrs: dict[Value, Value] = {}
        self._addresses: dict[Operation, list[tuple[Value, Any, str]]] = {}
        # index-buffer entries loaded so far: (buffer, position) -> (its symbol, the load op);
        # dropped by any op that may write them (see _clobber)
        self._entries: dict[tuple[int, Any], tuple[Any, Operation, GatherPointer, Any]] = {}
        self._effects: dict[Operation, Any] = {}  # _effect_ahead's
        # the (index buffer, position) of each entry a gathered access reads, by access
        self._gathered_entries: dict[Operation, list[tuple[GatherPointer, Any]]] = {}
        # per block barrier: the writes that may run between the block-wide barrier before its
        # top-level op and the function's end (None: one of unknown extent), see _stable_across
        self._writers: dict[Operation, list | None] = {}
        self._stable: dict[tuple[Operation, int, Any], bool] = {}
        self._async_writes: list = []  # the effects of the function's cp.async ops

    def at(self, op: Operation) -> None:
        self.builder.insertion_point = InsertionPoint.before_op(op)
        self.builder.loc = op.location
        self.emitter.loc = op.location

    # -- driver -----------------------------------------------------------------------------------
    def run(self, root: Operation) -> None:
        ops = list(root.walk_ops())
        if self._rebase_recasts(ops):
            # (the new pointer ops stay out of the list, as _base_pointer's do)
            self.analysis.invalidate()
            ops = [o for o in ops if o.parent is not None]
        # The analysis reads the IR as it is; ask it everything before the first rewrite.
        self._addresses = {}
        for op in ops:
            if isinstance(op, _ACCESSES) and self._addresses_memory(op):
                self._addresses[op] = [
                    self._offset(op, memory, coords, pattern)
                    for memory, coords, pattern in _addressed(op)
                ]
        self._gathered_entries = {
            op: [
                (func.indices, func.indices.info.offset + position)
                for _base, offset, _space in found
                if isinstance(offset, GatheredOffset)
                for func, position, _scale in offset.terms
                if isinstance(func.indices, GatherPointer)
            ]
            for op, found in self._addresses.items()
            if any(isinstance(offset, GatheredOffset) for _, offset, _ in found)
        }
        if self._gathered_entries:
            for op in ops:
                if isinstance(op, gpu.BarrierOp):
                    self._writers[op] = self._writes_after(op)
            # every cp.async's write: a wait may land one of them (see _forget_async)
            self._async_writes = [self._effect_ahead(o) for o in ops if isinstance(o, TD.CpAsyncOp)]
        # what an op may write matters only to the index-buffer entries of gathered accesses
        gathered = bool(self._gathered_entries)
        addresses = self._addresses
        for op in ops:
            if op.parent is None:
                continue  # erased by an earlier rewrite
            effect = self._effect(op) if gathered else None
            if gathered and isinstance(op, gpu.BarrierOp) and self._writers.get(op) is not None:
                self._op = op
                self._prefetch(op)  # the next accesses' entries, if stable across the barrier
                self._forget_across(op)
                continue
            if op in addresses:  # (an access to memory: asked before the first rewrite)
                if _final_fragment_access(op):
                    self.at(op)
                    self._op = op
                    self._prefetch(op)  # as _access would, and the access stays as it is
                else:
                    self._access(op)
                self._forget(effect)  # after the access: its own index loads come first
            elif isinstance(op, LD.ElemLessOp):
                self._elem_less(op)
            elif op.dialect is LD.DIALECT and any(_is_int(r) for r in op.results):
                self._index_results(op)
            elif isinstance(op, TD.GetPtrOp) and self._get_ptr(op):
                pass
            if op.parent is not None:
                if isinstance(op, TD.CpAsyncWaitOp):
                    self._forget_async()
                elif not isinstance(op, _KEEP_ENTRIES):
                    self._forget(effect)
        for op in ops:
            if op.parent is not None and isinstance(op, TD.AssumeOp):
                op.results[0].replace_all_uses_with(op.operands[0])
        self._erase_dead(ops)

    def _rebase_recasts(self, ops: list[Operation]) -> bool:
        """``recast_ptr(get_ptr(view))`` -> ``ptr_offset(recast_ptr(root), offset in new
        elements)`` where the view's offset is a whole number of new elements: the recast
        pointer then starts where the memory starts, so every access through it is at a
        non-negative offset (a swizzled row seen as words reaches before its first element)."""
        from layoutc.ir.algebra import intops

        from ..analysis.proofs import known_divisor

        changed = False
        for op in ops:
            if not isinstance(op, TD.RecastPtrOp) or not isinstance(
                op.ptr.defining_op, TD.GetPtrOp
            ):
                continue
            info = self.analysis.tensor_of(op.ptr.defining_op.tensor)
            old_bits, new_bits = op.ptr.type.element_bits, op.result.type.element_bits
            if info.base is None or not intops.divides(new_bits, info.offset * old_bits):
                continue
            offset = info.offset * old_bits // new_bits
            self.at(op)
            root = self._base_pointer(info.base)
            rep = self.builder.create(TD.RecastPtrOp, root, op.result.type.element).results[0]
            if not (type(offset) is int and offset == 0):
                off = self.emitter.emit(offset)
                k = known_divisor(offset)
                if k > 1:
                    off = self.builder.create(TD.AssumeOp, off, divisible_by=k).results[0]
                rep = self.builder.create(TD.PtrOffsetOp, rep, off).results[0]
            if rep.type.alignment < op.result.type.alignment:  # type: ignore[attr-defined]
                continue  # keep the recast of the view (its accesses are then relative to it)
            op.result.replace_all_uses_with(rep)
            op.erase()
            changed = True
        return changed

    def _addresses_memory(self, op: Operation) -> bool:
        t = _memory_operand(op).type
        if isinstance(t, TensorType):
            return t.space != "coord"
        return isinstance(t, PtrType)

    # -- accesses ---------------------------------------------------------------------------------
    def _base_pointer(self, base: Value) -> Value:
        """The pointer of a base: itself, or ``tile.get_ptr`` of an allocation or a tensor
        parameter (made once)."""
        if isinstance(base.type, PtrType):
            return base
        found = self._alloc_ptrs.get(base)
        if found is None:
            alloc = base.defining_op
            if alloc is None:  # a tensor parameter: its pointer at the entry of the function
                block = base.block  # type: ignore[attr-defined]
                get = TD.GetPtrOp(base, loc=block.parent_op.location)
                block.insert_before(get, block.first_op)
            else:
                get = TD.GetPtrOp(base, loc=alloc.location)
                alloc.parent.insert_after(get, alloc)
            found = self._alloc_ptrs[base] = get.results[0]
        return found

    def _offset(
        self, op: Operation, memory: Value, coords: Any, pattern: str
    ) -> tuple[Value, Any, str]:
        """(base, element offset expression, memory space) of one address of an access."""
        t = memory.type
        try:
            offset = self.analysis.element_offset(op, memory, coords, pattern)
        except LayoutError as e:
            raise _Failure(f"'{op.name}' op: {e}", op) from None
        if isinstance(t, PtrType):
            return self.analysis.pointer_of(memory).base, offset, t.space
        info = self.analysis.tensor_of(memory)
        assert info.base is not None
        return info.base, offset, info.space

    def _address(self, op: Operation, which: int) -> tuple[Value, Any]:
        """(root pointer, offset operand: an int or an index value) of an access."""
        base, offset, space = self._addresses[op][which]
        if type(offset) is not int and space == "rmem" and base not in self._local_memory:
            # CUDA keeps an array indexed at run time in local memory (registers have no
            # addresses): so does LLVM with the fragment's alloca. Say so once per fragment.
            self._local_memory.add(base)
            self.p.emit_remark(
                op,
                "register fragment indexed at run time: it lives in "
                "local memory (an alloca), as CUDA keeps dynamically indexed arrays; unroll "
                "the loop that indexes it to keep it in registers",
            )
        ptr = self._base_pointer(base)
        if isinstance(offset, GatheredOffset):
            ptr, offset = self._gathered(ptr, offset)
        if type(offset) is int:
            # A recast pointer is a root inside its memory (a swizzled row seen as words may
            # reach before it); any other root is where its memory starts.
            if offset < 0 and not isinstance(ptr.defining_op, TD.RecastPtrOp):
                raise _Failure(f"'{op.name}' addresses element {offset} before its base", op)
            return ptr, offset
        return ptr, self.emitter.emit(offset)

    def _gathered(self, ptr: Value, g: GatheredOffset) -> tuple[Value, Any]:
        """(pointer, element offset) of an access through a gather layout.

        Each index-buffer entry is loaded (``tile.load`` of the buffer's pointer at the entry's
        position, or reused: :meth:`_entry`). A term with a static scale is the *row term*:
        ``entry * scale`` computed in 64 bits (``arith.extsi`` + ``arith.muli``, exact for any
        32-bit entry whatever the index width) and applied last, as a ``tile.ptr_offset`` with
        an ``i64`` offset on the pointer moved by the dense part (``plain`` less its constant,
        which stays the access's offset: the address's immediate). So the address is
        ``(base + plain) + entry * scale``: the dense part is shared by every row of an access
        pattern and each row costs one wide multiply-add (``mad.wide.s32``, docs/codegen.md),
        where one ``index`` expression ``plain + entry * scale`` costs a 32-bit multiply-add
        and a widening one per row. Other terms (a run-time scale) are added to ``plain`` in
        ``index``."""
        from layoutc.ir.algebra.sym.expr import terms_of
        from layoutc.ir.core.types import i64
        from layoutc.ir.dialects import arith
        from layoutc.ir.dialects.arith.attributes import IntegerOverflowFlagsAttr

        from ..analysis.proofs import known_divisor

        b = self.builder
        plain = g.plain
        rows: list[Value] = []
        for func, position, scale in g.terms:
            buf = func.indices
            if not isinstance(buf, GatherPointer):
                raise _Failure(
                    f"not supported: the gather function {func} has no index buffer", self._op
                )
            sym, load = self._entry(buf, buf.info.offset + position)
            raw = load.results[0]
            narrow = isinstance(raw.type, IntegerType) and raw.type.width <= 32
            if not (type(scale) is int and 0 < abs(scale) < 1 << 31 and narrow):
                plain = plain + sym * scale
                continue
            # |sext(entry)| <= 2^31 and |scale| < 2^31: the product cannot wrap an i64
            wide = b.insert(arith.ExtSIOp(raw, i64, loc=b.loc)).results[0]
            c = b.insert(arith.ConstantOp.from_int(scale, i64, loc=b.loc)).results[0]
            mul = arith.MulIOp(wide, c, loc=b.loc)
            mul.properties["overflowFlags"] = IntegerOverflowFlagsAttr(("nsw",))
            row = b.insert(mul).results[0]
            if abs(scale) > 1:  # the pointer keeps its alignment
                row = b.insert(TD.AssumeOp(row, divisible_by=abs(scale), loc=b.loc)).results[0]
            rows.append(row)
        if not rows:
            return ptr, plain
        constant = 0  # a non-negative constant stays the access's offset
        if type(plain) is int:
            if plain >= 0:
                constant, plain = plain, 0
        elif not isinstance(plain, SwizzledOffset):
            c, _ = terms_of(plain)
            if c > 0:
                constant, plain = c, plain - c
        if not (type(plain) is int and plain == 0):
            off = self.emitter.emit(plain)
            k = 1 if isinstance(plain, SwizzledOffset) else known_divisor(plain)
            if k > 1:
                off = b.insert(TD.AssumeOp(off, divisible_by=k, loc=b.loc)).results[0]
            ptr = b.insert(TD.PtrOffsetOp(ptr, off, loc=b.loc)).results[0]
        for row in rows:
            ptr = b.insert(TD.PtrOffsetOp(ptr, row, loc=b.loc)).results[0]
        return ptr, constant

    def _entry(self, buf: GatherPointer, at: Any) -> tuple[Any, Operation]:
        """(symbol, load) of the index-buffer entry ``buf[at]``: an earlier load of it in this
        block while nothing since may have written it (:meth:`_forget`), prefetched ones
        included (:meth:`_prefetch`), else a ``tile.load`` here."""
        from layoutc.ir.core.types import index
        from layoutc.ir.dialects import arith

        key = (id(buf.value), at)
        found = self._entries.get(key)
        if found is not None and found[1].parent is self._op.parent:
            self.p.num_gather_reuses += 1
            return found[0], found[1]
        root = self._base_pointer(buf.info.base)
        where = at if type(at) is int else self.emitter.emit(at)
        load = self.builder.insert(TD.LoadOp(root, where, loc=self.builder.loc))
        entry = load.results[0]
        if not isinstance(entry.type, IndexType):
            entry = self.builder.insert(
                arith.IndexCastOp(entry, index, loc=self.builder.loc)
            ).results[0]
        sym = self.analysis.bind(entry, f"{buf.name}_entry", (1, 0, None))
        self._entries[key] = (sym, load, buf, at)
        return sym, load

    def _prefetch(self, op: Operation) -> None:
        """Load, right before the access ``op``, the index-buffer entries of the gathered
        accesses among the :data:`WINDOW` ops that follow it in its block (at most
        :data:`PREFETCH` entries), while nothing on the way may write them and their
        positions are computable here.

        The row numbers of a run of gathered copies then load together, ahead of the copies
        that precede them (a K-tile's dense copies, say) and of the gathered copies
        themselves: their latencies overlap that work, and the copies issue back to back. On
        sm_90 ptxas puts three dummy shared-memory loads before a ``cp.async`` that follows an
        ``ld.shared`` (``@!PT LDS RZ, [RZ]`` in the SASS), so a row number loaded right before
        each copy cost three more instructions per copy (docs/example59.md)."""
        if not self._gathered_entries:
            return  # no gathered access in the function (the window walk costs 7% of a GEMM)
        wanted = []  # (op, buffer, position) of the entries not loaded yet, in order
        nxt: Operation | None = op
        for _ in range(WINDOW):
            if nxt is None or nxt.regions:
                break  # (what runs inside a region is not looked at)
            for buf, at in self._gathered_entries.get(nxt, ()):
                found = self._entries.get((id(buf.value), at))
                if found is None or found[1].parent is not op.parent:
                    wanted.append((nxt, buf, at))
            nxt = nxt.next_op
        seen: list[Any] = []  # the effects of the ops from op to the one looked at
        fetched = 0
        nxt = op
        across = isinstance(op, gpu.BarrierOp)  # each entry proven stable: _stable_across
        anchor = self._anchor(op) if across else op
        self.at(anchor)
        for user, buf, at in wanted:
            while nxt is not user:  # the effects on the way to the access that uses the entry
                effect = self._effect_ahead(nxt)
                if effect == "all" and across and isinstance(nxt, _WRITE_NO_MEMORY):
                    effect = None  # a barrier (this one): _stable_across below
                if effect == "all":
                    return
                seen.append(effect)
                nxt = nxt.next_op  # type: ignore[union-attr]
            if fetched >= PREFETCH:
                return
            found = self._entries.get((id(buf.value), at))
            if found is not None and found[1].parent is op.parent:
                continue  # wanted twice
            if (
                emittable_before(at, anchor)
                and all(e is None or _disjoint(e, buf, at) for e in seen)
                and (not across or self._stable_across(op, buf, at))
            ):
                self._entry(buf, at)
                fetched += 1

    def _writes_after(self, barrier: Operation) -> list | None:
        """The writes (:meth:`_effect`) of every op that may run, in any thread, after the last
        block-wide barrier ``T`` before ``barrier``'s top-level op (the op holding it in its
        function's one-block body), and the asynchronous writes (``cp.async``) issued before
        ``T``, which may land after it; None when ``T`` is missing or an op there may write
        anything. Asked before any rewrite."""
        top = barrier
        while top.parent_op is not None and not isinstance(top.parent_op, FuncOp):
            top = top.parent_op
        if top.parent_op is None or len(top.parent_op.regions[0].blocks) != 1:
            return None  # (other blocks of the body could run after T)
        fence = top.prev_op
        while fence is not None and not isinstance(fence, gpu.BarrierOp):
            fence = fence.prev_op
        if fence is None:
            return None
        writes = []
        # before T: an asynchronous write (cp.async; an unknown op may be a TMA load) can
        # land after T, so it counts too; T waits for the synchronous ones
        before = fence.parent.first_op
        while before is not fence:
            for inner in before.walk_ops():
                effect = self._effect_ahead(inner)
                if effect is None or isinstance(inner, _WRITE_NO_MEMORY):
                    continue
                if effect == "all":
                    return None
                if isinstance(inner, TD.CpAsyncOp):
                    writes.append(effect)
            before = before.next_op
        nxt = fence.next_op
        while nxt is not None:
            for inner in nxt.walk_ops():
                effect = self._effect_ahead(inner)
                if effect is None or isinstance(inner, _WRITE_NO_MEMORY):
                    continue
                if effect == "all":
                    return None
                writes.append(effect)
            nxt = nxt.next_op
        return writes

    def _stable_across(self, barrier: Operation, buf: GatherPointer, at: Any) -> bool:
        """Whether the index-buffer entry ``buf[at]`` reads the same before ``barrier`` as
        after it, so that its load may move above it (:meth:`_prefetch`).

        Proof: the entry is in shared memory (no other block writes it) and no op that may
        run after the block-wide barrier ``T`` preceding ``barrier``'s top-level op writes it
        (:meth:`_writes_after`; ops in every thread, the loop's other iterations included).
        Both loads run after ``T`` in every thread, and every write of the entry finished
        before ``T`` and is visible after it: both read the value it left. (A staged index
        slice: written once before the loop, read in every K-tile.)"""
        key = (barrier, id(buf.value), at)
        found = self._stable.get(key)
        if found is None:
            writes = self._writers.get(barrier)
            found = (
                writes is not None
                and buf.value.type.space == "smem"  # type: ignore[attr-defined]
                and all(_disjoint(w, buf, at) for w in writes)
            )
            self._stable[key] = found
        return found

    def _anchor(self, barrier: Operation) -> Operation:
        """Where the loads of entries stable across ``barrier`` go: before the run of
        synchronization ops (``cp.async`` waits, proxy fences) and ops without memory
        effects right before it in its block, so that their latency overlaps those waits.
        (The entries are constant after the block-wide barrier before the loop:
        :meth:`_stable_across`.)"""
        anchor = barrier
        prev = barrier.prev_op
        while prev is not None and (
            isinstance(prev, (TD.CpAsyncWaitOp, FenceProxyOp))
            or (is_memory_effect_free(prev) and not prev.regions)
        ):
            anchor, prev = prev, prev.prev_op
        return anchor

    def _forget_across(self, barrier: Operation) -> None:
        """At a barrier: drop the loaded entries except those :meth:`_stable_across` it."""
        for key, (_sym, _load, buf, at) in list(self._entries.items()):
            if not self._stable_across(barrier, buf, at):
                del self._entries[key]

    def _effect_ahead(self, op: Operation) -> Any:
        """:meth:`_effect` of an op not rewritten yet, memoised (:meth:`_prefetch` asks it of
        the same ops from every access before them)."""
        found = self._effects.get(op, _UNSET)
        if found is _UNSET:
            found = self._effects[op] = self._effect(op)
        return found

    def _effect(self, op: Operation) -> Any:
        """What ``op`` may write, for :meth:`_forget`: None (nothing), ``"all"`` (anything:
        a barrier, after which other threads' writes are visible; a call; an unknown op), or
        the (base, offset, space, bytes) of an access's write. Asked before the op is
        rewritten."""
        if isinstance(op, _READS) or is_memory_effect_free(op):
            return None
        if op.has_trait(RecursiveMemoryEffects) and op.regions:
            return None  # its nested ops are visited in turn
        written = _written(op, self._addresses.get(op))
        return "all" if written is None else written

    def _forget(self, effect: Any) -> None:
        """Drop the loaded index-buffer entries a write may change.

        An entry is reused (the same row number for another access of the same block, e.g.
        the second 16-byte chunk of a gathered row) only while every op since its load
        provably leaves it alone: ops without memory effects, reads, and writes to another
        memory space or, in the same memory, to bytes the analysis proves disjoint from the
        entry's."""
        if effect is None or not self._entries:
            return
        if effect == "all":
            self._entries.clear()
            return
        for key, (_sym, _load, buf, at) in list(self._entries.items()):
            if not _disjoint(effect, buf, at):
                del self._entries[key]

    def _forget_async(self) -> None:
        """At a ``cp.async`` wait: drop the loaded entries that an asynchronous copy of the
        function may write (one issued before the entry's load may land at the wait; the
        other ops of :data:`_KEEP_ENTRIES` write no memory a load reads)."""
        for key, (_sym, _load, buf, at) in list(self._entries.items()):
            if not all(w is not None and w != "all" and _disjoint(w, buf, at)
                       for w in self._async_writes):  # fmt: skip
                del self._entries[key]

    def _access(self, op: Any) -> None:
        self.at(op)
        self._op = op
        self._prefetch(op)
        loc = op.location
        try:
            if isinstance(op, TD.LoadOp):
                ptr, off = self._address(op, 0)
                new = TD.LoadOp(ptr, off, loc=loc)
            elif isinstance(op, TD.StoreOp):
                ptr, off = self._address(op, 0)
                new = TD.StoreOp(op.value, ptr, off, loc=loc)
            elif isinstance(op, TD.LoadVectorOp):
                ptr, off = self._address(op, 0)
                new = TD.LoadVectorOp(ptr, off, op.width.value, _align(op), loc=loc)
            elif isinstance(op, TD.StoreVectorOp):
                ptr, off = self._address(op, 0)
                new = TD.StoreVectorOp(op.value, ptr, off, _align(op), loc=loc)
            elif isinstance(op, TD.LdmatrixOp):
                ptr, off = self._address(op, 0)
                new = TD.LdmatrixOp(op.atom, ptr, off, loc=loc)
            elif isinstance(op, TD.StmatrixOp):
                ptr, off = self._address(op, 0)
                new = TD.StmatrixOp(op.atom, ptr, off, list(op.values), loc=loc)
            elif isinstance(op, TD.AtomicRMWOp):
                ptr, off = self._address(op, 0)
                new = TD.AtomicRMWOp(op.kind.value, op.value, ptr, off, loc=loc)
            elif isinstance(op, TD.AtomicCASOp):
                ptr, off = self._address(op, 0)
                new = TD.AtomicCASOp(op.compare, op.value, ptr, off, loc=loc)
            else:  # tile.cp_async
                sp, so = self._address(op, 0)
                dp, do = self._address(op, 1)
                cache = op.cache.value if op.cache is not None else None
                new = TD.CpAsyncOp(sp, so, dp, do, op.bytes.value, cache, loc=loc, pred=op.pred)
        except LayoutError as e:
            raise _Failure(f"'{op.name}' op: {e}", op) from None
        for k, v in op.attributes.items():
            new.attributes[k] = v
        self.builder.insert(new)
        for old, rep in zip(op.results, new.results):
            old.replace_all_uses_with(rep)
            self.analysis.replace_value(old, rep)
        op.erase()
        self.p.num_accesses += 1

    # -- layout ops with index and i1 results -------------------------------------------------------
    def _index_results(self, op: Operation) -> None:
        self.at(op)
        for r in op.results:
            if not _is_int(r) or r.use_empty:
                continue
            x = self.analysis.sym_of(r)
            r.replace_all_uses_with(self.emitter.emit(x))

    def _elem_less(self, op: Any) -> None:
        self.at(op)
        a = self.analysis.value_of(op.a)
        b = self.analysis.value_of(op.b)
        try:
            value = elem_less(a, b, self.emitter)
        except LayoutError as e:
            raise _Failure(f"'layout.elem_less' op: {e}", op) from None
        op.results[0].replace_all_uses_with(value)

    def _get_ptr(self, op: Any) -> bool:
        info = self.analysis.tensor_of(op.tensor)
        if info.base is None:
            return False
        self.at(op)
        base = self._base_pointer(info.base)
        offset = info.offset
        if type(offset) is int and offset == 0:
            rep = base
        else:
            off = self.emitter.emit(offset)
            from ..analysis.proofs import known_divisor

            k = known_divisor(offset)
            if k > 1:
                off = self.builder.create(
                    TD.AssumeOp, off, divisible_by=k, loc=op.location
                ).results[0]
            rep = self.builder.create(TD.PtrOffsetOp, base, off, loc=op.location).results[0]
        if rep.type is not op.result.type and rep.type.alignment < op.result.type.alignment:  # type: ignore[attr-defined]
            return False
        op.result.replace_all_uses_with(rep)
        return True

    # -- cleanup ------------------------------------------------------------------------------------
    def _keep_alignment(self, op: Any) -> None:
        """A kept ``tile.ptr_offset`` whose offset's ``tile.assume`` was used up: state the
        divisibility its (verified) result alignment was proven from, as ``_get_ptr`` does."""
        pt, rt = op.ptr.type, op.result.type
        if op.infer(pt, op.offset).alignment % rt.alignment == 0:
            return
        k = max(1, rt.alignment // max(1, pt.element_bits // 8))
        b = Builder(InsertionPoint.before_op(op), op.location)
        off = b.create(TD.AssumeOp, op.offset, divisible_by=k, loc=op.location).results[0]
        op.set_operand(1, off)

    def _erase_dead(self, ops: list[Operation]) -> None:
        removable = [o for o in ops if o.parent is not None and _removable(o)]
        # one worklist, users first (the last op first), an erased op's producers looked at
        # again: the chains die in one sweep instead of sweeps repeated until none erases
        candidates = set(removable)
        worklist = list(removable)
        while worklist:
            o = worklist.pop()
            if o.parent is None or not all(r.use_empty for r in o.results):
                continue
            producers = [u.value.defining_op for n in o.walk_ops() for u in n.operand_uses]
            o.erase()
            self.p.num_erased += 1
            worklist.extend(d for d in producers if d in candidates)
        for o in removable:
            if o.parent is None:
                continue
            if isinstance(o, _POINTER_OPS) and isinstance(o.results[0].type, PtrType):
                # a pointer some other op takes (an mbarrier or TMA address): a GEP later
                if isinstance(o, TD.PtrOffsetOp):
                    self._keep_alignment(o)
                continue
            user = next(u for r in o.results for u in r.users())
            raise _Failure(
                f"not supported: '{o.name}' is still used by '{user.name}' after lowering "
                "(layouts and tensors may not cross control flow or function boundaries)",
                user,
            )


_READS = (TD.LoadOp, TD.LoadVectorOp, TD.LdmatrixOp)
# Ops whose effects touch no memory a load reads (synchronization, fences, async-group
# bookkeeping, wgmma: it reads shared memory and writes registers): not writers for
# _Lowering._writes_after.
_WRITE_NO_MEMORY = (
    gpu.BarrierOp,
    TD.CpAsyncCommitOp,
    TD.CpAsyncWaitOp,
    TD.FenceOperandOp,
    TD.AllocFragmentOp,
    TD.AllocSmemOp,
    TD.WgmmaOp,
    TD.WgmmaRSOp,
    FenceProxyOp,
    WgmmaFenceAlignedOp,
    WgmmaGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
)


# Of those, the ones after which a loaded index-buffer entry stays valid in its thread: not a
# barrier (other threads' writes become visible; _forget_across decides there), nor a cp.async
# wait (an earlier asynchronous copy may land; _forget_async decides there).
_KEEP_ENTRIES = tuple(t for t in _WRITE_NO_MEMORY if t not in (gpu.BarrierOp, TD.CpAsyncWaitOp))


def _written(op: Any, addresses: list | None) -> tuple[Value, Any, str, int] | None:
    """(base, element offset, space, bytes from the offset) an access writes; None when
    unknown (not an access this pass lowers, or a write of unknown extent)."""
    if addresses is None:
        return None
    if isinstance(op, TD.CpAsyncOp):
        base, offset, space = addresses[1]
        return base, offset, space, op.bytes.value
    if isinstance(op, (TD.StoreOp, TD.StoreVectorOp, *TD.ATOMIC_OPS)):
        base, offset, space = addresses[0]
        element = _element_bytes(op.dest)
        if element is None:
            return None
        width = op.width.value if isinstance(op, TD.StoreVectorOp) else 1
        return base, offset, space, width * element
    return None


def _same_memory(a: Value, b: Value) -> bool | None:
    """Whether two bases are the same memory (True), disjoint memories (False), or may
    overlap anywhere (None: two global pointers)."""
    if a is b:
        return True
    dyn_a = isinstance(a.defining_op, TD.DynamicSmemOp)
    dyn_b = isinstance(b.defining_op, TD.DynamicSmemOp)
    if dyn_a and dyn_b:
        return True  # every tile.dynamic_smem is the block's dynamic shared memory
    if isinstance(a.defining_op, (TD.DynamicSmemOp, TD.AllocSmemOp, TD.AllocFragmentOp)) and (
        isinstance(b.defining_op, (TD.DynamicSmemOp, TD.AllocSmemOp, TD.AllocFragmentOp))
    ):
        return False  # distinct allocations
    return None


def _byte_range(offset: Any, element_bytes: int, span: int) -> tuple[int, int] | None:
    """[lo, hi) bytes from the base of ``offset`` elements and ``span`` bytes; None if the
    analysis cannot bound it."""
    if isinstance(offset, GatheredOffset):
        return None
    if isinstance(offset, SwizzledOffset):
        from ..analysis.proofs import known_divisor

        arg = offset.arg
        divisor = known_divisor(arg) if type(arg) is not int else 1
        bounds = offset.bounds_from(exact_bounds, divisor if divisor > 0 else 1)
    elif isinstance(offset, (int, SymInt)):
        bounds = exact_bounds(offset)
    else:
        return None
    lo, hi = bounds
    if lo is None or hi is None:
        return None
    return lo * element_bytes, hi * element_bytes + span


def _disjoint(written: tuple[Value, Any, str, int], buf: GatherPointer, at: Any) -> bool:
    """Whether a write provably leaves the index-buffer entry ``buf[at]`` alone."""
    base, offset, space, span = written
    buf_type = buf.value.type
    if space != buf_type.space:  # type: ignore[attr-defined]
        return True
    same = _same_memory(base, buf.info.base)
    if same is False:
        return True
    if same is None:
        return False
    w_bytes = _element_bytes(base)
    e_bytes = max(buf_type.element_bits // 8, 1)  # type: ignore[attr-defined]
    if w_bytes is None:
        return False
    w = _byte_range(offset, w_bytes, span)
    e = _byte_range(at, e_bytes, e_bytes)
    return w is not None and e is not None and (w[1] <= e[0] or e[1] <= w[0])


def _element_bytes(memory: Value) -> int | None:
    """Bytes of an element of a pointer or tensor (None for coordinates)."""
    t = memory.type
    if not isinstance(t, (PtrType, TensorType)) or getattr(t, "is_coord", False) is True:
        return None
    bits = t.element_bits
    return max(bits // 8, 1) if isinstance(bits, int) else None


def _addressed(op: Any) -> list[tuple[Value, Any, str]]:
    """(memory operand, coordinate operands, pattern) of each address an access uses."""
    if isinstance(op, TD.CpAsyncOp):
        return [
            (op.src, op.src_coords, op.src_coord.value),
            (op.dst, op.dst_coords, op.dst_coord.value),
        ]
    return [(_memory_operand(op), op.coords, op.coord.value)]


_DEST_OPS = (TD.StoreOp, TD.StoreVectorOp, TD.StmatrixOp, *TD.ATOMIC_OPS)


def _memory_operand(op: Any) -> Value:
    """The tensor or pointer an element access addresses (stores and atomics: ``dest``; the
    others, cp.async's source included: the first operand)."""
    if isinstance(op, _DEST_OPS):
        return op.dest
    return op.operands[0]


def _final_fragment_access(op: Operation) -> bool:
    """``tile.load``/``tile.store`` at a static offset of a register fragment's own pointer
    (``tile.get_ptr`` of its ``tile.alloc_fragment``), as lower-algorithms builds the unrolled
    accesses to fragments (passes/layout/lowering.py): :meth:`_Lowering._access` would rebuild
    the same op (its pointer becomes the allocation's pointer with the get_ptr's other uses)."""
    if not isinstance(op, (TD.LoadOp, TD.StoreOp)) or op.coords:
        return False
    get = op.source.defining_op
    if not isinstance(get, TD.GetPtrOp) or not isinstance(
        get.operands[0].defining_op, TD.AllocFragmentOp
    ):
        return False
    return op.coord.value.isdigit()


def _removable(op: Operation) -> bool:
    if op.dialect is LD.DIALECT:
        return True
    if _is_view(op):
        return True
    if isinstance(op, TD.LoadOp):
        return (
            op.operands[0].type.space == "coord"
            if isinstance(op.operands[0].type, TensorType)
            else False
        )
    return isinstance(op, _REMOVABLE_TILE)


def _is_int(v: Value) -> bool:
    t = v.type
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width > 1)


def _align(op: Any) -> int | None:
    a = op.alignment
    return a.value if a is not None else None
