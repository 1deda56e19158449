"""``insert-bounds-checks``: a memcheck compiled into the kernel (runs after convert-to-llvm).

Every memory access whose pointer derives (through GEPs and address-space casts) from a pointer
parameter or a static shared-memory global is checked against that object before it happens.
A bad access is not performed: its pointer is redirected to a scratch area of the bounds record
(a load reads junk, a store writes junk there), and the first bad access of the launch is
written to the record by the thread that wins an ``atomicrmw add`` on its counter. The launcher
reads the record back after the launch and raises an error naming the kernel, thread, block,
tensor, coordinate and offset (runtime/bounds.py). Works alike on the GPU and the CPU: the code
is plain llvm/arith/cf/nvvm ops (thread and block indices through ``nvvm.read.ptx.sreg``).

The record is one more kernel parameter, ``!llvm.ptr<1>``, after the others (before the CPU's
thread context), marked ``layoutc.bounds_record``. Its layout, in 64-bit words (mirrored by
runtime/bounds.py, a test keeps them equal):

| words | meaning |
|---|---|
| 0 | number of bad accesses (the first writes the rest) |
| 1 | site: index into the kernel's ``layoutc.bounds_sites`` (location and kind of the access) |
| 2 | parameter index (LLVM order), or -1 for shared memory |
| 3, 4 | address and bytes of the access |
| 5-7, 8-10 | ``threadIdx`` x, y, z and ``blockIdx`` x, y, z |
| 16-47 | scratch: where a bad access goes instead (256 bytes) |
| 48 + 2p, 49 + 2p | first and one-past-last byte address of pointer parameter p (runtime) |
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import ArrayAttr, DictionaryAttr, StringAttr, UnitAttr
from layoutc.ir.core.block import Block
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import FloatType, FunctionType, IntegerType, Type, VectorType, i64
from layoutc.ir.core.values import BlockArgument, Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.arith.attributes import CmpIPredicate
from layoutc.ir.dialects.cf import BranchOp, CondBranchOp
from layoutc.ir.dialects.llvm import (
    AddressOfOp,
    AtomicBinOp,
    AtomicOrdering,
    AtomicRMWOp,
    GEPOp,
    LoadOp,
    PtrToIntOp,
    StoreOp,
)
from layoutc.ir.dialects.llvm.arith_ops import SelectOp
from layoutc.ir.dialects.llvm.types import LLVMArrayType, LLVMPointerType, LLVMStructType
from layoutc.ir.dialects.nvvm import SPECIAL_REGISTERS, CpAsyncOp

from ..base import Pass
from ..registry import register_pass
from .kernel_abi import CONTEXT_ARG_ATTR, KERNEL_ATTR

RECORD_ATTR = "layoutc.bounds_record"
SITES_ATTR = "layoutc.bounds_sites"
COUNT, SITE, PARAM, ADDRESS, BYTES, TID, CTAID = 0, 1, 2, 3, 4, 5, 8
SCRATCH, SCRATCH_BYTES = 16, 256
SPANS = 48
SHARED = -1


def type_bytes(t: Type) -> int:
    """Bytes an access of ``t`` touches."""
    if isinstance(t, (IntegerType, FloatType)):
        return max(1, t.width // 8)
    if isinstance(t, VectorType):
        n = 1
        for d in t.shape:
            n *= d
        return n * type_bytes(t.element_type)
    if isinstance(t, LLVMArrayType):
        return t.size * type_bytes(t.element_type)
    if isinstance(t, LLVMStructType):
        return sum(type_bytes(x) for x in t.body)
    if isinstance(t, LLVMPointerType):
        return 8
    raise ValueError(f"no byte size for '{t.text}'")


def _accesses(op: Operation) -> list[tuple[int, int, str]]:
    """(operand index of the pointer, bytes, kind) of each access ``op`` makes."""
    if isinstance(op, LoadOp):
        return [(0, type_bytes(op.res.type), "load")]
    if isinstance(op, StoreOp):
        return [(1, type_bytes(op.value.type), "store")]
    if isinstance(op, AtomicRMWOp):
        return [(0, type_bytes(op.val.type), "atomic")]
    if isinstance(op, CpAsyncOp):
        n = op.size.value
        return [(0, n, "cp.async store"), (1, n, "cp.async load")]
    return []


def _root(v: Value) -> Value:
    """The pointer ``v`` is derived from, looking through GEPs and casts."""
    while True:
        op = v.defining_op
        if isinstance(op, GEPOp):
            v = op.base
        elif op is not None and op.name in ("llvm.addrspacecast", "llvm.bitcast"):
            v = op.operands[0]
        else:
            return v


def _site(op: Operation, kind: str, nbytes: int, what: str) -> str:
    flc = op.location.file_line_col() if op.location is not None else None
    where = f"{flc[0]}:{flc[1]}:{flc[2]}" if flc else "unknown location"
    return f"{where}: {kind} of {nbytes} bytes{what}"


class _Instrumenter:
    def __init__(self, func: Any, module: Operation) -> None:
        self.func = func
        self.module = module
        self.entry: Block = func.body.blocks[0]
        self.sites: list[str] = []
        self.spans: dict[int, tuple[Value, Value]] = {}
        self.globals = {
            op.sym_name.value: op
            for op in module.walk_ops(include_self=False)
            if op.name == "llvm.mlir.global"
        }

    def add_record(self) -> Value:
        args = self.entry.args
        ctx = len(args)
        attrs = list(self.func.arg_attrs) if self.func.arg_attrs is not None else []
        attrs += [DictionaryAttr()] * (len(args) - len(attrs))
        for i, a in enumerate(attrs):
            if CONTEXT_ARG_ATTR in dict(a.entries):
                ctx = i
        rec_t = LLVMPointerType(1)
        record = self.entry.insert_argument(ctx, rec_t, self.func.location)
        record.name_hint = "bounds"
        attrs.insert(ctx, DictionaryAttr({RECORD_ATTR: UnitAttr()}))
        ftype: FunctionType = self.func.type
        inputs = list(ftype.inputs)
        inputs.insert(ctx, rec_t)
        from layoutc.ir.core.attributes import TypeAttr

        self.func.function_type = TypeAttr(FunctionType(inputs, ftype.results))
        self.func.arg_attrs = ArrayAttr(attrs)
        self.record = record
        # Everything shared by the checks is made up front in the entry block, before any split,
        # so that it dominates every access.
        b = Builder(InsertionPoint.at_start(self.entry))
        self.scratch = self._word_ptr(b, SCRATCH)
        for p, a in enumerate(args):
            if isinstance(a.type, LLVMPointerType) and a is not record and p != ctx + 1:
                lo = self._invariant_load(b, SPANS + 2 * p)
                hi = self._invariant_load(b, SPANS + 2 * p + 1)
                self.spans[p] = (lo, hi)
        return record

    def _invariant_load(self, b: Builder, word: int) -> Value:
        """A span word: written before the launch, never during it (LLVM may hoist it out of
        the CPU launcher's loop over threads)."""
        load = b.create(LoadOp, self._word_ptr(b, word), i64, alignment=8)
        load.properties["invariant"] = UnitAttr()
        return load.results[0]

    def _word_ptr(self, b: Builder, word: int) -> Value:
        return b.create(GEPOp, self.record, [word], i64).results[0]

    def _const(self, b: Builder, v: int) -> Value:
        return b.insert(arith.ConstantOp.from_int(v, i64)).results[0]

    def _span(self, root: Value) -> tuple[Value, Value, int] | None:
        """(first, one-past-last byte address, parameter index) of the object ``root`` is."""
        if isinstance(root, BlockArgument):
            span = self.spans.get(root.index) if root.owner is self.entry else None
            return None if span is None else (*span, root.index)
        op = root.defining_op
        if isinstance(op, AddressOfOp):
            g = self.globals.get(op.global_name.root)
            if g is None or not isinstance(root.type, LLVMPointerType):
                return None
            size = type_bytes(g.global_type.type)
            if size == 0:  # dynamic (extern) shared memory: its size is the launch's
                return None
            b = Builder(InsertionPoint.after_op(op))
            lo = b.create(PtrToIntOp, root, i64).results[0]
            hi = b.create(arith.AddIOp, lo, self._const(b, size)).results[0]
            return lo, hi, SHARED
        return None

    def instrument(self, op: Operation) -> None:
        for operand, nbytes, kind in _accesses(op):
            ptr = op.operands[operand]
            span = self._span(_root(ptr))
            if span is None:
                continue
            lo, hi, param = span
            what = " in shared memory" if param == SHARED else ""
            site = len(self.sites)
            self.sites.append(_site(op, kind, nbytes, what))
            b = Builder(InsertionPoint.before_op(op))
            addr = b.create(PtrToIntOp, ptr, i64).results[0]
            end = b.create(arith.AddIOp, addr, self._const(b, nbytes)).results[0]
            ge = b.create(arith.CmpIOp, CmpIPredicate.uge, addr, lo).results[0]
            le = b.create(arith.CmpIOp, CmpIPredicate.ule, end, hi).results[0]
            ok = b.create(arith.AndIOp, ge, le).results[0]
            safe = self.scratch if param != SHARED else _root(ptr)
            if safe.type is not ptr.type:
                continue  # no safe stand-in in this address space: leave the access unchecked
            redirected = b.create(arith.SelectOp, ok, ptr, safe).results[0]
            op.set_operand(operand, redirected)
            block = op.parent
            assert block is not None and block.parent is not None
            cont = block.split_before(op)
            fail = Block()
            block.parent.insert_block(block.index_in_region() + 1, fail)
            Builder(InsertionPoint.at_end(block)).create(CondBranchOp, ok, cont, [], fail, [])
            last = self._record(Builder(InsertionPoint.at_end(fail)), site, param, addr, nbytes)
            Builder(InsertionPoint.at_end(last)).create(BranchOp, cont)

    def _record(self, b: Builder, site: int, param: int, addr: Value, nbytes: int) -> Block:
        """Count the bad access; the first one writes the record. Returns the block to leave."""
        count = self._word_ptr(b, COUNT)
        one = self._const(b, 1)
        old = b.create(
            AtomicRMWOp, AtomicBinOp.add, count, one, AtomicOrdering.monotonic, 8
        ).results[0]
        first = b.create(arith.CmpIOp, CmpIPredicate.eq, old, self._const(b, 0)).results[0]
        block = b.insertion_point.block
        assert block.parent is not None
        write = Block()
        done = Block()
        region = block.parent
        region.insert_block(block.index_in_region() + 1, write)
        region.insert_block(block.index_in_region() + 2, done)
        b.create(CondBranchOp, first, write, [], done, [])
        w = Builder(InsertionPoint.at_end(write))
        words = [(SITE, self._const(w, site)), (PARAM, self._const(w, param))]
        words += [(ADDRESS, addr), (BYTES, self._const(w, nbytes))]
        for k, reg in enumerate(("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")):
            v = w.create(SPECIAL_REGISTERS[reg]).results[0]
            wide = w.create(arith.ExtUIOp, v, i64).results[0]
            words.append(((TID if k < 3 else CTAID) + k % 3, wide))
        for word, value in words:
            w.create(StoreOp, value, self._word_ptr(w, word))
        w.create(BranchOp, done)
        return done


def written_parameters(func: Any) -> set[int]:
    """Indices of the parameters of ``func`` (LLVM level) that an access may store through:
    stores, atomics and cp.async destinations whose pointer derives from the parameter, or any
    pointer that escapes where this cannot be followed (then every pointer parameter counts)."""
    entry = func.body.blocks[0]
    written: set[int] = set()
    for op in func.walk_ops(include_self=False):
        for operand, _, kind in _accesses(op):
            if kind == "load" or kind == "cp.async load":
                continue
            pending = [op.operands[operand]]
            while pending:
                root = _root(pending.pop())
                select = root.defining_op
                if isinstance(select, (arith.SelectOp, SelectOp)):  # the check's redirection
                    pending += select.operands[1:]
                elif isinstance(root, BlockArgument) and root.owner is entry:
                    written.add(root.index)
                elif isinstance(root, BlockArgument):  # a pointer through a branch: assume all
                    return {a.index for a in entry.args if isinstance(a.type, LLVMPointerType)}
    return written


def insert_bounds_checks(module: Operation) -> None:
    """Instrument every kernel of ``module`` (after convert-to-llvm) in place."""
    for func in [op for op in module.walk_ops(include_self=False) if op.name == "func.func"]:
        if KERNEL_ATTR not in func.attributes or not func.body.blocks:
            continue
        ins = _Instrumenter(func, module)
        ins.add_record()
        ops = [op for op in func.walk_ops(include_self=False) if _accesses(op)]
        for op in ops:
            ins.instrument(op)
        func.attributes[SITES_ATTR] = ArrayAttr([StringAttr(s) for s in ins.sites])


@register_pass
class InsertBoundsChecks(Pass):
    """Check every global and static shared-memory access against its object at run time."""

    argument = "insert-bounds-checks"
    display_name = "InsertBoundsChecks"
    summary = "Compile a memcheck into kernels: bad accesses are skipped and reported"
    anchor = "builtin.module"

    def run_on_operation(self, op: Operation) -> None:
        insert_bounds_checks(op)
