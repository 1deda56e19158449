"""llvm dialect ops -> LLVM IR (both flavours; the host maps address spaces to 0).

llvmlite lacks volatile and syncscope'd memory accesses and aligned ``atomicrmw``; the small
instruction classes below print them exactly as LLVM IR spells them.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from layoutc.ir.dialects import llvm
from layoutc.ir.dialects.llvm.attributes import GEP_INBOUNDS, AtomicOrdering
from llvmlite import ir

from .llvm_builder import InlineAsm, Instruction
from .translate_arith import constant, saturating_float_to_int
from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import I32, VOID, fail

LLVM_OPS = HandlerTable("translate llvm")


def escape_llvm_string(text: str) -> str:
    """Text for a quoted LLVM IR string: ``"`` and ``\\`` and non-printables as ``\\XX``."""
    if text.isascii():  # one table lookup per character (inline asm: 444 strings per GEMM)
        return text.translate(_ASCII_ESCAPES)
    out = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        if 0x20 <= byte < 0x7F and c not in '"\\':
            out.append(c)
        else:
            out.append(f"\\{byte:02X}")
    return "".join(out)


_ASCII_ESCAPES = {b: f"\\{b:02X}" for b in range(0x80) if not (0x20 <= b < 0x7F) or chr(b) in '"\\'}


class _MemoryAccess(Instruction):
    """``load``/``store`` with volatile, atomic ordering and syncscope."""

    __slots__ = ("align", "ordering", "scope", "volatile")

    def __init__(self, parent, opname, typ, operands, name, align, volatile, ordering, scope):
        super().__init__(parent, typ, opname, operands, name)
        self.align = align
        self.volatile = volatile
        self.ordering = ordering
        self.scope = scope

    def _body(self) -> str:
        scope = f' syncscope("{escape_llvm_string(self.scope)}")' if self.scope else ""
        order = f" {self.ordering}" if self.ordering else ""
        align = f", align {self.align}" if self.align else ""
        tail = f"{scope}{order}{align}{self._stringify_metadata(True)}"
        head = ("atomic " if self.ordering else "") + ("volatile " if self.volatile else "")
        if self.opname == "load":
            (ptr,) = self.operands
            return f"load {head}{self.type}, {ptr.type} {ptr.get_reference()}{tail}"
        val, ptr = self.operands
        return (
            f"store {head}{val.type} {val.get_reference()}, {ptr.type} {ptr.get_reference()}{tail}"
        )


class _AtomicRMW(Instruction):
    __slots__ = ("align", "op", "ordering", "scope", "volatile")

    def __init__(self, parent, op, ptr, val, ordering, align, volatile, scope, name):
        super().__init__(parent, val.type, "atomicrmw", [ptr, val], name)
        self.op, self.ordering, self.align = op, ordering, align
        self.volatile, self.scope = volatile, scope

    def _body(self) -> str:
        ptr, val = self.operands
        vol = "volatile " if self.volatile else ""
        scope = f' syncscope("{escape_llvm_string(self.scope)}")' if self.scope else ""
        align = f", align {self.align}" if self.align else ""
        return (
            f"atomicrmw {vol}{self.op} {ptr.type} {ptr.get_reference()}, {val.type} "
            f"{val.get_reference()}{scope} {self.ordering}{align}"
        )


class _CmpXchg(Instruction):
    __slots__ = ("align", "failure", "scope", "success", "volatile", "weak")

    def __init__(self, parent, ptr, cmp, val, success, failure, align, volatile, weak, scope, name):
        ty = ir.LiteralStructType([val.type, ir.IntType(1)])
        super().__init__(parent, ty, "cmpxchg", [ptr, cmp, val], name)
        self.success, self.failure, self.align = success, failure, align
        self.volatile, self.weak, self.scope = volatile, weak, scope

    def _body(self) -> str:
        ptr, cmp, val = self.operands
        flags = ("weak " if self.weak else "") + ("volatile " if self.volatile else "")
        scope = f' syncscope("{escape_llvm_string(self.scope)}")' if self.scope else ""
        align = f", align {self.align}" if self.align else ""
        return (
            f"cmpxchg {flags}{ptr.type} {ptr.get_reference()}, {cmp.type} {cmp.get_reference()}, "
            f"{val.type} {val.get_reference()}{scope} {self.success} {self.failure}{align}"
        )


def _ordering(ordering: AtomicOrdering) -> str | None:
    return None if ordering is AtomicOrdering.not_atomic else ordering.name


def _access_ordering(op: llvm.LoadOp | llvm.StoreOp) -> str | None:
    """A load's or store's atomic ordering, None if it is not atomic (the property absent, as
    for nearly all: then without converting it to the enum)."""
    return None if op.ordering is None else _ordering(op.atomic_ordering)


def _scope(ft: FunctionTranslator, op: Any) -> str | None:
    """The syncscope, or None (the host runs every scope as the system scope)."""
    scope = op.properties.get("syncscope")
    if scope is None or ft.types.host:
        return None
    return scope.value


def _nontemporal(ft: FunctionTranslator, instr: Instruction) -> None:
    instr.set_metadata("nontemporal", ft.module.llvm.add_metadata([I32(1)]))


@LLVM_OPS.register(llvm.LoadOp)
def _load(ft: FunctionTranslator, op: llvm.LoadOp) -> None:
    t = ft.result_type(op)
    ptr = ft.typed_pointer(ft.get(op.addr), t)
    align = op.alignment.value if op.alignment is not None else None
    instr = _MemoryAccess(
        ft.builder.block,
        "load",
        t,
        [ptr],
        ft.name(op),
        align,
        op.volatile_ is not None,
        _access_ordering(op),
        _scope(ft, op),
    )
    ft.builder._insert(instr)
    if op.nontemporal is not None:
        _nontemporal(ft, instr)
    if op.invariant is not None:  # MLIR's `invariant`: LLVM may hoist and merge the load
        instr.set_metadata("invariant.load", ft.module.llvm.add_metadata([]))
    ft.set_result(op, instr)


@LLVM_OPS.register(llvm.StoreOp)
def _store(ft: FunctionTranslator, op: llvm.StoreOp) -> None:
    value = ft.get(op.value)
    ptr = ft.typed_pointer(ft.get(op.addr), value.type)
    align = op.alignment.value if op.alignment is not None else None
    instr = _MemoryAccess(
        ft.builder.block,
        "store",
        VOID,
        [value, ptr],
        "",
        align,
        op.volatile_ is not None,
        _access_ordering(op),
        _scope(ft, op),
    )
    ft.builder._insert(instr)
    if op.nontemporal is not None:
        _nontemporal(ft, instr)


@functools.lru_cache(maxsize=4096)
def _index(i: int) -> ir.Constant:
    """A static GEP index (a struct field, an offset): one constant object per value."""
    return I32(i)


@LLVM_OPS.register(llvm.GEPOp)
def _gep(ft: FunctionTranslator, op: llvm.GEPOp) -> None:
    props = op.properties
    elem = ft.convert(props["elem_type"].type, op)
    operands = op._operands
    base = ft.typed_pointer(ft.get(operands[0].value), elem)
    raw = props["rawConstantIndices"].values
    if len(raw) == 1:  # (op.indices without building it: one index, the common GEP)
        i = raw[0]
        indices = [ft.get(operands[1].value) if i == llvm.DYNAMIC_INDEX else _index(i)]
    else:
        indices = [ft.get(i) if not isinstance(i, int) else _index(i) for i in op.indices]
    inbounds = props["noWrapFlags"].value & GEP_INBOUNDS == GEP_INBOUNDS
    p = ft.builder.gep(base, indices, inbounds=inbounds, name=ft.name(op))
    ft.set_result(op, ft.byte_pointer(p))


@LLVM_OPS.register(llvm.AllocaOp)
def _alloca(ft: FunctionTranslator, op: llvm.AllocaOp) -> None:
    elem = ft.convert(op.elem_type.type, op)
    b = ft.builder
    p = b.alloca(elem, size=ft.get(op.arraySize), name=ft.name(op))
    if op.alignment is not None:
        p.align = op.alignment.value
    raw = ft.byte_pointer(p)
    space = ft.types.address_space(op.res.type.address_space)
    if space != 0:
        raw = b.addrspacecast(raw, ir.PointerType(raw.type.pointee, space))
    ft.set_result(op, raw)


@LLVM_OPS.register(llvm.ConstantOp)
def _constant(ft: FunctionTranslator, op: llvm.ConstantOp) -> None:
    ft.set_result(op, constant(ft, op, op.value, ft.result_type(op)))


@LLVM_OPS.register(llvm.UndefOp, llvm.PoisonOp)
def _undef(ft: FunctionTranslator, op: llvm.UndefOp | llvm.PoisonOp) -> None:
    # poison is refined by undef; libNVVM's IR reader predates `poison`.
    ft.set_result(op, ir.Constant(ft.result_type(op), ir.Undefined))


@LLVM_OPS.register(llvm.ZeroOp)
def _zero(ft: FunctionTranslator, op: llvm.ZeroOp) -> None:
    ft.set_result(op, ir.Constant(ft.result_type(op), None))


@LLVM_OPS.register(llvm.ExtractValueOp)
def _extractvalue(ft: FunctionTranslator, op: llvm.ExtractValueOp) -> None:
    agg = ft.get(op.container)
    ft.set_result(op, ft.builder.extract_value(agg, list(op.position.values), name=ft.name(op)))


@LLVM_OPS.register(llvm.InsertValueOp)
def _insertvalue(ft: FunctionTranslator, op: llvm.InsertValueOp) -> None:
    agg, value = ft.get(op.container), ft.get(op.value)
    r = ft.builder.insert_value(agg, value, list(op.position.values), name=ft.name(op))
    ft.set_result(op, r)


@LLVM_OPS.register(llvm.ExtractElementOp)
def _extractelement(ft: FunctionTranslator, op: llvm.ExtractElementOp) -> None:
    v, i = ft.get(op.vector), ft.get(op.position)
    ft.set_result(op, ft.builder.extract_element(v, i, name=ft.name(op)))


@LLVM_OPS.register(llvm.InsertElementOp)
def _insertelement(ft: FunctionTranslator, op: llvm.InsertElementOp) -> None:
    v, e, i = ft.get(op.vector), ft.get(op.value), ft.get(op.position)
    ft.set_result(op, ft.builder.insert_element(v, e, i, name=ft.name(op)))


@LLVM_OPS.register(llvm.BitcastOp)
def _bitcast(ft: FunctionTranslator, op: llvm.BitcastOp) -> None:
    a = ft.get(op.arg)
    t = ft.result_type(op)
    ft.set_result(op, a if a.type == t else ft.builder.bitcast(a, t, name=ft.name(op)))


@LLVM_OPS.register(llvm.AddrSpaceCastOp)
def _addrspacecast(ft: FunctionTranslator, op: llvm.AddrSpaceCastOp) -> None:
    a = ft.get(op.arg)
    t = ft.result_type(op)
    if a.type == t:
        ft.set_result(op, a)
    elif {a.type.addrspace, t.addrspace} == {3, 7}:
        # shared::cta <-> shared::cluster: a block's own shared address is the same number in
        # both windows (PTX ISA, "Shared memory"); libNVVM's IR has no such cast.
        raw = ft.builder.ptrtoint(a, ir.IntType(64))
        ft.set_result(op, ft.builder.inttoptr(raw, t, name=ft.name(op)))
    else:
        ft.set_result(op, ft.builder.addrspacecast(a, t, name=ft.name(op)))


@LLVM_OPS.register(llvm.PtrToIntOp)
def _ptrtoint(ft: FunctionTranslator, op: llvm.PtrToIntOp) -> None:
    ft.set_result(op, ft.builder.ptrtoint(ft.get(op.arg), ft.result_type(op), name=ft.name(op)))


@LLVM_OPS.register(llvm.IntToPtrOp)
def _inttoptr(ft: FunctionTranslator, op: llvm.IntToPtrOp) -> None:
    ft.set_result(op, ft.builder.inttoptr(ft.get(op.arg), ft.result_type(op), name=ft.name(op)))


@LLVM_OPS.register(llvm.AddressOfOp)
def _addressof(ft: FunctionTranslator, op: llvm.AddressOfOp) -> None:
    ft.set_result(op, ft.module.global_address(ft, op, op.global_name.root))


_MEMBAR = {"block": "cta", "cta": "cta", "device": "gl", "agent": "gl", "gpu": "gl"}


@LLVM_OPS.register(llvm.FenceOp)
def _fence(ft: FunctionTranslator, op: llvm.FenceOp) -> None:
    if ft.types.host:
        ft.builder.fence(op.atomic_ordering.name)
        return
    # libNVVM has no `fence` instruction: NVVM's membar (a full fence, at least as strong as
    # any ordering) at the scope asked for, the whole system when none is named.
    scope = op.syncscope.value if op.syncscope is not None else ""
    level = _MEMBAR.get(scope, "sys")
    ft.builder.call(ft.module.intrinsic(f"llvm.nvvm.membar.{level}", ir.VoidType(), []), [])


@LLVM_OPS.register(llvm.AtomicRMWOp)
def _atomicrmw(ft: FunctionTranslator, op: llvm.AtomicRMWOp) -> None:
    val = ft.get(op.val)
    ptr = ft.typed_pointer(ft.get(op.ptr), val.type)
    instr = _AtomicRMW(
        ft.builder.block,
        op.operation.llvm_keyword,
        ptr,
        val,
        op.atomic_ordering.name,
        # libNVVM's atomicrmw takes no `align` (it is the natural one, which LLVM assumes).
        op.alignment.value if op.alignment is not None and ft.types.host else None,
        op.volatile_ is not None,
        _scope(ft, op),
        ft.name(op),
    )
    ft.builder._insert(instr)
    ft.set_result(op, instr)


@LLVM_OPS.register(llvm.CmpXchgOp)
def _cmpxchg(ft: FunctionTranslator, op: llvm.CmpXchgOp) -> None:
    val = ft.get(op.val)
    ptr = ft.typed_pointer(ft.get(op.ptr), val.type)
    instr = _CmpXchg(
        ft.builder.block,
        ptr,
        ft.get(op.cmp),
        val,
        op.success.name,
        op.failure.name,
        # as for atomicrmw, libNVVM takes no `align` (the natural one)
        op.alignment.value if op.alignment is not None and ft.types.host else None,
        op.volatile_ is not None,
        op.weak is not None,
        _scope(ft, op),
        ft.name(op),
    )
    ft.builder._insert(instr)
    ft.set_result(op, instr)


@LLVM_OPS.register(llvm.InlineAsmOp)
def _inline_asm(ft: FunctionTranslator, op: llvm.InlineAsmOp) -> None:
    if ft.types.host:
        from .translate_wgmma import emulate_inline_asm  # the one inline PTX the host runs

        emulate_inline_asm(ft, op)
        return
    if op.asm_dialect is not None and op.asm_dialect.value != 0:
        raise fail(op, "not supported: the Intel assembly dialect")
    args = ft.operands(op)
    ret = ft.result_type(op) if op.results else ir.VoidType()
    value = inline_asm(
        ft, op.asm_string.value, op.constraints.value, args, ret, op.has_side_effects is not None
    )
    if op.results:
        ft.set_result(op, value)


def inline_asm(
    ft: FunctionTranslator,
    asm: str,
    constraints: str,
    args: list[ir.Value],
    ret: ir.Type,
    side_effects: bool,
) -> ir.Value:
    """Emit ``call asm [sideeffect] "asm", "constraints"(args)``, ``convergent`` on the GPU
    (as clang marks all CUDA device inline asm): many of these instructions are warp- or
    warpgroup-collective (``bar.sync``, ``.sync.aligned`` ones), and without the attribute
    LLVM may tail-duplicate one into paths a warp takes divergently (a ``bar.sync`` under
    ``if lane == 0`` in one copy and outside it in the other), which hangs the GPU."""
    types = [a.type for a in args]
    key = ("asm", asm, constraints, side_effects, id(ret), *map(id, types))
    memo = ft.module.memo
    code = memo.get(key)
    if code is None:  # the callee references ret and types: their ids in the key stay theirs
        fnty = ir.FunctionType(ret, types)
        code = memo[key] = InlineAsm(
            fnty, escape_llvm_string(asm), escape_llvm_string(constraints), side_effects
        )
    attrs = () if ft.types.host else ("convergent",)
    return ft.builder.call(code, args, attrs=attrs)


_SATURATING = re.compile(r"llvm\.fpto([su])i\.sat\.")


@LLVM_OPS.register(llvm.CallIntrinsicOp)
def _call_intrinsic(ft: FunctionTranslator, op: llvm.CallIntrinsicOp) -> None:
    name = op.intrin.value
    if ft.types.host and name.startswith(("llvm.nvvm.", "llvm.nvptx.")):
        raise fail(op, f"not supported: GPU intrinsic '{name}' in the host flavour")
    sat = _SATURATING.match(name)
    if sat is not None and op.results:
        saturating_float_to_int(ft, op, signed=sat.group(1) == "s")
        return
    args = ft.operands(op)
    ret = ft.result_type(op) if op.results else ir.VoidType()
    fn = ft.module.intrinsic(name, ret, [a.type for a in args])
    flags = tuple(op.fastmathFlags.flags)
    value = ft.builder.call(fn, args, fastmath=flags)
    if op.results:
        ft.set_result(op, value)


__all__ = ["LLVM_OPS", "escape_llvm_string", "inline_asm"]
