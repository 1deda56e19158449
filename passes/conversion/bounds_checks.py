"""``insert-bounds-checks``: a memcheck compiled into the kernel (runs after convert-to-llvm).

Every memory access is checked, before it happens, against the object its pointer derives from
(through GEPs, casts, selects, branch arguments and an empty inline asm tied to its operand,
the opaque base of a gathered access): a pointer parameter (its span), a
shared-memory global (static: its size; dynamic: the launch's dynamic bytes, from the record)
or a thread's own array indexed at run time. A pointer that may come from several objects is
checked against each of them (inside one of them is in bounds).
A bad access is not performed: its pointer is redirected to a scratch area of the bounds record
(a load reads junk, a store writes junk there), and the first bad access of the launch is
written to the record by the thread that wins an ``atomicrmw add`` on its counter, through the
module's one out-of-line report function (cold, noinline: a checked block's cold path is a count
and a call, not ten stores). The launcher reads the record back after the launch and raises an
error naming the kernel, thread, block, tensor, coordinate and offset (runtime/bounds.py). Works alike on the GPU and the CPU: the code
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
| 11 | the launch's dynamic shared-memory bytes (runtime) |
| 16-47 | scratch: where a bad access goes instead (256 bytes) |
| 48 + 2p, 49 + 2p | first and one-past-last byte address of pointer parameter p (runtime) |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from layoutc.ir.core.attributes import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from layoutc.ir.core.block import Block
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import FloatType, FunctionType, IntegerType, Type, VectorType, i64
from layoutc.ir.core.values import BlockArgument, Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.arith.attributes import CmpIPredicate
from layoutc.ir.dialects.cf import BranchOp, CondBranchOp
from layoutc.ir.dialects.func import CallOp, FuncOp, ReturnOp
from layoutc.ir.dialects.llvm import (
    AddressOfOp,
    AddrSpaceCastOp,
    AllocaOp,
    AtomicBinOp,
    AtomicOrdering,
    AtomicRMWOp,
    BitcastOp,
    GEPOp,
    GlobalOp,
    InlineAsmOp,
    LoadOp,
    PtrToIntOp,
    StoreOp,
)
from layoutc.ir.dialects.llvm import ConstantOp as LLVMConstantOp
from layoutc.ir.dialects.llvm.arith_ops import (
    AddOp,
    AndOp,
    ICmpOp,
    LShrOp,
    OrOp,
    SubOp,
    ZExtOp,
)
from layoutc.ir.dialects.llvm.arith_ops import SelectOp as LLVMSelectOp
from layoutc.ir.dialects.llvm.call_ops import CallIntrinsicOp
from layoutc.ir.dialects.llvm.types import LLVMArrayType, LLVMPointerType, LLVMStructType
from layoutc.ir.dialects.nvvm import SPECIAL_REGISTERS, CpAsyncOp, LdMatrixOp
from layoutc.ir.dialects.nvvm_sm90 import (
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
)
from layoutc.ir.dialects.nvvm_wgmma import StMatrixOp

from ..base import Pass
from ..registry import register_pass
from .kernel_abi import CONTEXT_ARG_ATTR, KERNEL_ATTR

RECORD_ATTR = "layoutc.bounds_record"
SITES_ATTR = "layoutc.bounds_sites"
COUNT, SITE, PARAM, ADDRESS, BYTES, TID, CTAID, DYNAMIC_SMEM = 0, 1, 2, 3, 4, 5, 8, 11
SCRATCH, SCRATCH_BYTES = 16, 256
SPANS = 48
SHARED, SEVERAL, LOCAL = -1, -2, -3
"""Values of the PARAM word that are not parameter indices: shared memory, one of several
objects, a thread's own array."""


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


_Access = tuple[int, int, str]
"""(operand index of the pointer, bytes, kind) of one access."""

_ACCESS_RULES: dict[type, Callable[[Any], list[_Access]]] = {}


def _access_rule(*classes: type) -> Callable:
    """Register how ops of ``classes`` access memory."""

    def register(fn: Callable[[Any], list[_Access]]) -> Callable:
        for cls in classes:
            _ACCESS_RULES[cls] = fn
        return fn

    return register


@_access_rule(LoadOp)
def _load_access(op: LoadOp) -> list[_Access]:
    return [(0, type_bytes(op.res.type), "load")]


@_access_rule(StoreOp)
def _store_access(op: StoreOp) -> list[_Access]:
    return [(1, type_bytes(op.value.type), "store")]


@_access_rule(AtomicRMWOp)
def _atomic_access(op: AtomicRMWOp) -> list[_Access]:
    return [(0, type_bytes(op.val.type), "atomic")]


@_access_rule(CpAsyncOp)
def _cp_async_access(op: CpAsyncOp) -> list[_Access]:
    n = op.size.value
    return [(0, n, "cp.async store"), (1, n, "cp.async load")]


@_access_rule(LdMatrixOp)
def _ldmatrix_access(op: LdMatrixOp) -> list[_Access]:
    return [(0, 16, "ldmatrix")]  # each lane addresses one 16-byte row


@_access_rule(StMatrixOp)
def _stmatrix_access(op: StMatrixOp) -> list[_Access]:
    return [(0, 16, "stmatrix")]


@_access_rule(MBarrierInitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp, MBarrierTryWaitParityOp)
def _mbarrier_access(op: Operation) -> list[_Access]:
    if isinstance(op, MBarrierArriveOp) and op.is_cluster:
        return []  # another block's mbarrier (a mapa address): not an object of this block
    return [(0, 8, "mbarrier")]


_RULE_OF_CLASS: dict[type, Callable[[Any], list[_Access]] | None] = {}
"""Each op class's rule (None: the class touches no memory), found once per class: the
pass and :func:`written_parameters` ask for every op of a kernel."""


def _accesses(op: Operation) -> list[_Access]:
    """Every access ``op`` makes (none for ops that touch no memory)."""
    cls = type(op)
    try:
        rule = _RULE_OF_CLASS[cls]
    except KeyError:
        rule = next((_ACCESS_RULES[c] for c in cls.__mro__ if c in _ACCESS_RULES), None)
        _RULE_OF_CLASS[cls] = rule
    return rule(op) if rule is not None else []


def _root(v: Value) -> Value:
    """The pointer ``v`` is derived from, looking through GEPs, casts and the empty inline
    asm tied to its operand that keeps a base opaque to LLVM (``tile.ptr_offset`` of a
    gathered row, docs/codegen.md): the same register."""
    while True:
        op = v.defining_op
        if isinstance(op, GEPOp):
            v = op.base
        elif isinstance(op, (AddrSpaceCastOp, BitcastOp)) or _is_tied_identity(op):
            v = op.operands[0]
        else:
            return v


def _is_tied_identity(op: Operation | None) -> bool:
    """An inline asm with no instructions whose one result is tied to its one operand."""
    if not isinstance(op, InlineAsmOp):
        return False
    constraints = op.properties["constraints"].value.split(",")
    return (
        op.properties["asm_string"].value.strip() == ""
        and len(op.operands) == 1
        and len(constraints) == 2
        and constraints[0].startswith("=")
        and constraints[1] == "0"
    )


def _incoming(arg: BlockArgument) -> list[Value] | None:
    """The values the branches to ``arg``'s block pass for it (None: a branch this cannot
    read)."""
    block = arg.owner
    values: list[Value] = []
    for pred in block.predecessors:
        term = pred.last_op
        get = getattr(term, "successor_operands", None)
        if term is None or get is None:
            return None
        for k, succ in enumerate(term.successors):
            if succ.block is block:
                values.append(get(k)[arg.index])
    return values


def _roots(v: Value, entry: Block) -> list[Value] | None:
    """Every object ``v`` may point into (entry-block arguments, globals' addresses, allocas),
    followed through GEPs, casts, selects and branch arguments. None when a path leads
    somewhere this cannot follow (a pointer loaded from memory, say)."""
    roots: dict[Value, None] = {}
    seen: set[Value] = set()
    pending = [v]
    while pending:
        r = _root(pending.pop())
        if r in seen:
            continue
        seen.add(r)
        op = r.defining_op
        if isinstance(op, (arith.SelectOp, LLVMSelectOp)):
            pending += list(op.operands[1:])
        elif isinstance(r, BlockArgument) and r.owner is not entry:
            incoming = _incoming(r)
            if incoming is None:
                return None
            pending += incoming
        elif isinstance(r, BlockArgument) or isinstance(op, (AddressOfOp, AllocaOp)):
            roots[r] = None
        else:
            return None
    return list(roots)


def _indexed_at_run_time(v: Value, alloca: Value) -> bool:
    """Whether the address ``v`` into ``alloca`` is not a fixed element: a GEP on the way has a
    run-time index, or the way goes through a select or a branch. Fixed elements of a thread's
    array are checked by the front end, and checking them would keep LLVM from promoting the
    array to registers."""
    while v is not alloca:
        op = v.defining_op
        if isinstance(op, GEPOp):
            if len(op.dynamicIndices):
                return True
            v = op.base
        elif isinstance(op, (AddrSpaceCastOp, BitcastOp)):
            v = op.operands[0]
        else:
            return True
    return False


def _constant_int(v: Value) -> int | None:
    op = v.defining_op
    value = getattr(op, "value", None) if op is not None else None
    if isinstance(op, (arith.ConstantOp, LLVMConstantOp)) and hasattr(value, "value"):
        return int(value.value)
    return None


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
        self.objects: dict[Value, _Object | None] = {}
        self.pending: dict[Block, list[_Check]] = {}
        self.globals = {
            op.sym_name.value: op
            for op in module.walk_ops(include_self=False)
            if isinstance(op, GlobalOp)
        }

    def add_record(self) -> Value:
        args = self.entry.args
        ctx = len(args)
        attrs = list(self.func.arg_attrs) if self.func.arg_attrs is not None else []
        attrs += [DictionaryAttr()] * (len(args) - len(attrs))
        for i, a in enumerate(attrs):
            if CONTEXT_ARG_ATTR in dict(a.entries):
                ctx = i
        self.host = ctx < len(args)  # the CPU's kernels take a thread context
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
        self.prelude = b  # later objects' spans go here too, before the function's own ops
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
        return b.create(LLVMConstantOp, IntegerAttr(v, i64)).results[0]

    def _object(self, root: Value) -> _Object | None:
        """The object ``root`` is, with its first byte address and size made where they dominate
        every access through it; None when the object is none this pass knows (the record
        itself, the CPU's thread context)."""
        if root in self.objects:
            return self.objects[root]
        found = self._make_object(root)
        self.objects[root] = found
        return found

    def _make_object(self, root: Value) -> _Object | None:
        if isinstance(root, BlockArgument):
            span = self.spans.get(root.index) if root.owner is self.entry else None
            if span is None:
                return None
            lo, hi = span
            size = self.prelude.create(SubOp, hi, lo).results[0]
            return _Object(lo, size, root.index, self.scratch, self.prelude)
        op = root.defining_op
        if isinstance(op, AddressOfOp):
            g = self.globals.get(op.global_name.root)
            if g is None or not isinstance(root.type, LLVMPointerType):
                return None
            b = self.prelude
            base = b.create(AddressOfOp, op.global_name.root, root.type).results[0]
            lo = b.create(PtrToIntOp, base, i64).results[0]
            size = type_bytes(g.global_type.type)
            # A global of no bytes is the dynamic (extern) shared memory: the launch's bytes.
            extent = size if size else self._invariant_load(b, DYNAMIC_SMEM)
            return _Object(lo, extent, SHARED, base, b)
        if isinstance(op, AllocaOp) and op.parent is self.entry:
            count = _constant_int(op.arraySize)
            if count is None:
                return None
            b = Builder(InsertionPoint.after_op(op))
            lo = b.create(PtrToIntOp, root, i64).results[0]
            return _Object(lo, count * type_bytes(op.elem_type.type), LOCAL, root, b)
        return None

    def _starts(self, b: Builder, obj: _Object, nbytes: int) -> Value:
        """How many byte offsets an access of ``nbytes`` may start at inside ``obj``: its size
        minus ``nbytes - 1``, or 0 when it is smaller than the access (made once per object and
        width, where the object's size is known; a constant for a static size)."""
        if isinstance(obj.size, int):
            return self._const(b, max(obj.size - nbytes + 1, 0))
        found = obj.starts.get(nbytes)
        if found is None:
            p = obj.builder
            fits = p.create(ICmpOp, CmpIPredicate.uge, obj.size, self._const(p, nbytes)).results[0]
            less = p.create(SubOp, obj.size, self._const(p, nbytes - 1)).results[0]
            found = p.create(LLVMSelectOp, fits, less, self._const(p, 0)).results[0]
            obj.starts[nbytes] = found
        return found

    def _safe(self, b: Builder, safe: Value, ptr: Value) -> Value | None:
        """``safe`` as a pointer of ``ptr``'s type (a generic pointer takes any address space's
        stand-in through a cast); None when there is no such stand-in."""
        if safe.type is ptr.type:
            return safe
        t = ptr.type
        if isinstance(t, LLVMPointerType) and t.address_space == 0:
            return b.create(AddrSpaceCastOp, safe, t).results[0]
        return None

    def instrument(self, op: Operation, accesses: list[_Access]) -> None:
        """Check ``op``'s ``accesses`` (:func:`_accesses`)."""
        for operand, nbytes, kind in accesses:
            ptr = op.operands[operand]
            roots = _roots(ptr, self.entry)
            if not roots:
                continue  # a pointer read from memory: no object to check against
            objects = []
            for root in roots:
                obj = self._object(root)
                if obj is None:
                    break
                if obj.param == LOCAL and not _indexed_at_run_time(ptr, root):
                    break  # a constant element of a thread's array: checked by the front end
                objects.append(obj)
            else:
                self._check(op, operand, nbytes, kind, objects)

    def _address_of(self, b: Builder, ptr: Value) -> Value:
        """``ptr`` for its address in the check: on the CPU through
        ``llvm.strip.invariant.group`` (the same pointer, lowered to nothing), so that LLVM's
        InstCombine does not rewrite every check's ``ptrtoint`` of a GEP into its base plus the
        GEP's offset arithmetic: on benchmarks/compile.py's GEMM that rewriting was 13-14 ms
        of the CPU JIT's -O1 passes (130-133 ms), and the example GEMM's checked CPU launch is
        no slower (211 against 212 ms). Not on the GPU: libNVVM accepts only the intrinsics the
        NVVM IR specification lists."""
        if not self.host:
            return ptr
        strip = CallIntrinsicOp("llvm.strip.invariant.group.p0", [ptr], ptr.type)
        return b.insert(strip).results[0]

    def _check(self, op: Operation, operand: int, nbytes: int, kind: str, objects: list) -> None:
        """Redirect a bad access to a safe stand-in and remember its check: the block reports
        its first bad access once, at its end (see :meth:`report`), so checks add no branches
        between a block's accesses and LLVM keeps scheduling them freely.

        An access of ``nbytes`` at address ``a`` lies inside an object of ``size`` bytes at
        ``lo`` when ``a - lo`` (unsigned, wrapping below ``lo``) is less than the object's
        ``size - nbytes + 1`` start offsets: one compare per object. The block counts the
        checks that passed (an integer sum, not a chain of ``and``: LLVM's InstCombine spends
        quadratic time proving implications along long boolean chains)."""
        ptr = op.operands[operand]
        b = Builder(InsertionPoint.before_op(op))
        safe = self._safe(b, objects[0].safe, ptr)
        if safe is None:
            return  # no stand-in in this address space: leave the access unchecked
        param = objects[0].param if len(objects) == 1 else SEVERAL
        what = {SHARED: " in shared memory", LOCAL: " in a thread's array"}.get(param, "")
        site = len(self.sites)
        self.sites.append(_site(op, kind, nbytes, what))
        addr = b.create(PtrToIntOp, self._address_of(b, ptr), i64).results[0]
        ok: Value | None = None
        for obj in objects:
            offset = b.create(SubOp, addr, obj.lo).results[0]
            starts = self._starts(b, obj, nbytes)
            inside = b.create(ICmpOp, CmpIPredicate.ult, offset, starts).results[0]
            ok = inside if ok is None else b.create(OrOp, ok, inside).results[0]
        assert ok is not None
        if kind == "cp.async load" and op.cpSize is not None:  # zero fill reads nothing
            zero = b.create(LLVMConstantOp, IntegerAttr(0, op.cpSize.type)).results[0]
            off = b.create(ICmpOp, CmpIPredicate.eq, op.cpSize, zero).results[0]
            ok = b.create(OrOp, ok, off).results[0]
        redirected = b.create(LLVMSelectOp, ok, ptr, safe).results[0]
        op.set_operand(operand, redirected)
        block = op.parent
        assert block is not None
        checks = self.pending.setdefault(block, [])
        good = b.create(ZExtOp, ok, i64).results[0]
        if checks:
            good = b.create(AddOp, checks[-1].passed, good).results[0]
        checks.append(_Check(ok, good, _pack(site, param, nbytes), addr))

    def report(self) -> None:
        """End every checked block with one branch to a cold block that counts its bad
        accesses and, for the first bad access of the launch, calls the module's report
        function (:func:`_report_function`). The first failing check's site, parameter and
        bytes travel packed in one word (one select per check instead of three)."""
        for block, checks in self.pending.items():
            term = block.last_op
            assert term is not None and block.parent is not None
            cont = block.split_before(term)
            fail = Block()
            block.parent.insert_block(block.index_in_region() + 1, fail)
            b = Builder(InsertionPoint.at_end(block))
            passed = checks[-1].passed
            all_ok = checks[0].ok
            if len(checks) > 1:
                total = self._const(b, len(checks))
                all_ok = b.create(ICmpOp, CmpIPredicate.eq, passed, total).results[0]
            b.create(CondBranchOp, all_ok, cont, [], fail, [])
            b = Builder(InsertionPoint.at_end(fail))
            bad = b.create(SubOp, self._const(b, len(checks)), passed).results[0]
            first = checks[-1]
            addr = first.addr
            if len(checks) == 1:
                site, param, nbytes = (self._const(b, v) for v in _unpack(first.packed))
            else:
                packed = self._const(b, first.packed)
                for c in reversed(checks[:-1]):  # the first failing check wins
                    packed = b.create(LLVMSelectOp, c.ok, packed, self._const(b, c.packed)).results[
                        0
                    ]
                    addr = b.create(LLVMSelectOp, c.ok, addr, c.addr).results[0]
                site = b.create(LShrOp, packed, self._const(b, _SITE_SHIFT)).results[0]
                fields = b.create(AndOp, packed, self._const(b, _FIELD_MASK)).results[0]
                param = b.create(LShrOp, fields, self._const(b, _PARAM_SHIFT)).results[0]
                param = b.create(SubOp, param, self._const(b, _PARAM_BIAS)).results[0]
                nbytes = b.create(AndOp, packed, self._const(b, _BYTES_MASK)).results[0]
            self._count(b, bad, cont, [site, param, addr, nbytes])

    def _count(self, b: Builder, bad: Value, cont: Block, fields: list[Value]) -> None:
        """Count ``bad`` accesses; the launch's first calls the report function with
        ``fields`` (site, parameter, address, bytes), then goes on to ``cont``."""
        count = self._word_ptr(b, COUNT)
        old = b.create(
            AtomicRMWOp, AtomicBinOp.add, count, bad, AtomicOrdering.monotonic, 8
        ).results[0]
        first = b.create(ICmpOp, CmpIPredicate.eq, old, self._const(b, 0)).results[0]
        block = b.insertion_point.block
        assert block.parent is not None and self.func.parent is not None
        write, done = Block(), Block()  # (done: the block numbering stays the inline one's)
        block.parent.insert_block(block.index_in_region() + 1, write)
        block.parent.insert_block(block.index_in_region() + 2, done)
        b.create(CondBranchOp, first, write, [], done, [])
        w = Builder(InsertionPoint.at_end(write))
        report = _report_function(self.func.parent)
        w.create(CallOp, report.sym_name.value, [self.record, *fields], [])
        w.create(BranchOp, done)
        Builder(InsertionPoint.at_end(done)).create(BranchOp, cont)


REPORT_FUNCTION = "__layoutc_bounds_report"
"""The module's out-of-line report: ``(record, site, parameter, address, bytes)``."""


def _report_function(top: Block) -> FuncOp:
    """The report function of the kernels in ``top``, made once: it writes the record's
    words of the launch's first bad access, with the thread and block indices read here (the
    special registers: on the CPU, from the thread context the CPU translation passes every
    function). Out of line, ``no_inline`` and ``cold``: inline, its ten stores after every
    checked block were most of a checked GEMM's LLVM IR and of its CPU JIT time (docs/runtime.md,
    "The bounds check"); ``cold`` lets LLVM lay the calling blocks out of the hot path."""
    for op in top.ops:
        if isinstance(op, FuncOp) and op.sym_name.value == REPORT_FUNCTION:
            return op
    rec_t = LLVMPointerType(1)
    func = FuncOp(
        REPORT_FUNCTION,
        FunctionType([rec_t, i64, i64, i64, i64], []),
        visibility="private",
        attributes={"passthrough": ArrayAttr([StringAttr("cold")])},
    )
    func.no_inline = UnitAttr()
    top.append(func)
    entry = func.body.blocks[0]
    record, *fields = entry.args
    w = Builder(InsertionPoint.at_end(entry))
    words = list(zip((SITE, PARAM, ADDRESS, BYTES), fields, strict=True))
    for k, reg in enumerate(("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")):
        v = w.create(SPECIAL_REGISTERS[reg]).results[0]
        wide = w.create(ZExtOp, v, i64).results[0]
        words.append(((TID if k < 3 else CTAID) + k % 3, wide))
    for index, value in words:
        w.create(StoreOp, value, w.create(GEPOp, record, [index], i64).results[0])
    w.create(ReturnOp)
    return func


@dataclass
class _Object:
    """An object accesses are checked against: its first byte address, its size in bytes (an
    int when static), the record's PARAM for it, the safe stand-in a bad access goes to, and
    where values derived from a run-time size are made (dominating every access)."""

    lo: Value
    size: Value | int
    param: int
    safe: Value
    builder: Builder
    starts: dict[int, Value] = field(default_factory=dict)


@dataclass(frozen=True)
class _Check:
    """One checked access, waiting for its block's report."""

    ok: Value
    passed: Value  # how many of the block's checks up to this one passed (i64)
    packed: int  # site, parameter and bytes (:func:`_pack`)
    addr: Value


_BYTES_BITS, _PARAM_BITS = 16, 16
_PARAM_SHIFT, _SITE_SHIFT = _BYTES_BITS, _BYTES_BITS + _PARAM_BITS
_BYTES_MASK = (1 << _BYTES_BITS) - 1
_FIELD_MASK = (1 << _SITE_SHIFT) - 1
_PARAM_BIAS = 8  # SHARED, SEVERAL and LOCAL are negative


def _pack(site: int, param: int, nbytes: int) -> int:
    """Site, parameter and bytes of a check in one non-negative i64 word."""
    biased = param + _PARAM_BIAS
    if not (0 <= nbytes <= _BYTES_MASK and 0 <= biased < 1 << _PARAM_BITS and 0 <= site < 1 << 31):
        raise ValueError(
            f"bounds check: site {site}, parameter {param}, {nbytes} bytes do not pack"
        )
    return site << _SITE_SHIFT | biased << _PARAM_SHIFT | nbytes


def _unpack(packed: int) -> tuple[int, int, int]:
    """The inverse of :func:`_pack` (what the cold block computes at run time)."""
    fields = packed & _FIELD_MASK
    return packed >> _SITE_SHIFT, (fields >> _PARAM_SHIFT) - _PARAM_BIAS, packed & _BYTES_MASK


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
                if isinstance(select, (arith.SelectOp, LLVMSelectOp)):  # the check's redirection
                    pending += select.operands[1:]
                elif isinstance(root, BlockArgument) and root.owner is entry:
                    written.add(root.index)
                elif isinstance(root, BlockArgument):  # a pointer through a branch: assume all
                    return {a.index for a in entry.args if isinstance(a.type, LLVMPointerType)}
    return written


def insert_bounds_checks(module: Operation) -> None:
    """Instrument every kernel of ``module`` (after convert-to-llvm) in place."""
    for func in [op for op in module.walk_ops(include_self=False) if isinstance(op, FuncOp)]:
        if KERNEL_ATTR not in func.attributes or not func.body.blocks:
            continue
        ins = _Instrumenter(func, module)
        ins.add_record()
        found = [(op, a) for op in func.walk_ops(include_self=False) if (a := _accesses(op))]
        for op, accesses in found:
            ins.instrument(op, accesses)
        ins.report()
        func.attributes[SITES_ATTR] = ArrayAttr([StringAttr(s) for s in ins.sites])


@register_pass
class InsertBoundsChecks(Pass):
    """Check every global and static shared-memory access against its object at run time."""

    argument = "insert-bounds-checks"
    summary = "Compile a memcheck into kernels: bad accesses are skipped and reported"
    anchor = "builtin.module"

    def run_on_operation(self, op: Operation) -> None:
        insert_bounds_checks(op)
