"""LLVM dialect atomics: ``llvm.fence``, ``llvm.atomicrmw`` and ``llvm.cmpxchg``."""

from __future__ import annotations

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr, StringAttr, UnitAttr
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result
from ...core.operation import Operation
from ...core.types import FloatType, IntegerType, Type, i1, i64
from ...core.values import Value
from .attributes import AtomicBinOp, AtomicOrdering
from .common import (
    I64Attr,
    LLVMType,
    Pointer,
    check_alignment,
    enum_attr,
    enum_value,
    parse_enum_keyword,
    parse_syncscope,
)
from .types import LLVMPointerType, LLVMStructType


def _print_scope(op: Operation, p: OpAsmPrinter) -> None:
    scope = op.properties.get("syncscope")
    if isinstance(scope, StringAttr):
        p.write(f" syncscope({scope.text})")


class FenceOp(Operation):
    """``llvm.fence syncscope("agent") seq_cst``."""

    name = "llvm.fence"
    ordering = prop(I64Attr)
    syncscope = opt_prop(StringAttr)

    def __init__(
        self, ordering: AtomicOrdering, syncscope: str | None = None, loc: Location | None = None
    ):
        props: dict[str, Attribute] = {"ordering": enum_attr(ordering)}
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(properties=props, loc=loc)

    @property
    def atomic_ordering(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.ordering, "ordering")  # type: ignore[return-value]

    def verify_(self) -> None:
        if self.atomic_ordering in (
            AtomicOrdering.not_atomic,
            AtomicOrdering.unordered,
            AtomicOrdering.monotonic,
        ):
            raise VerifyError("can be given only acquire, release, acq_rel, and seq_cst orderings")

    def print_custom(self, p: OpAsmPrinter) -> None:
        _print_scope(self, p)
        p.write(f" {self.atomic_ordering.name}")
        p.print_attr_dict(self, elided=("ordering", "syncscope"))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> FenceOp:
        props: dict[str, Attribute] = {}
        scope = parse_syncscope(p)
        if scope is not None:
            props["syncscope"] = StringAttr(scope)
        props["ordering"] = enum_attr(parse_enum_keyword(p, AtomicOrdering, "atomic ordering"))
        attrs = p.parse_optional_attr_dict()
        return cls.create(properties=props, attributes=attrs, loc=p.loc)


class AtomicRMWOp(Operation):
    """``%old = llvm.atomicrmw add %p, %v monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32``."""

    name = "llvm.atomicrmw"
    ptr = operand(Pointer)
    val = operand(LLVMType)
    res = result(LLVMType)
    bin_op = prop(I64Attr)
    ordering = prop(I64Attr)
    syncscope = opt_prop(StringAttr)
    alignment = opt_prop(I64Attr)
    volatile_ = opt_prop(UnitAttr)

    def __init__(
        self,
        bin_op: AtomicBinOp,
        ptr: Value,
        val: Value,
        ordering: AtomicOrdering,
        alignment: int | None = None,
        syncscope: str | None = None,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {"bin_op": enum_attr(bin_op), "ordering": enum_attr(ordering)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(operands=[ptr, val], result_types=[val.type], properties=props, loc=loc)

    @property
    def operation(self) -> AtomicBinOp:
        return enum_value(AtomicBinOp, self.bin_op, "bin_op")  # type: ignore[return-value]

    @property
    def atomic_ordering(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.ordering, "ordering")  # type: ignore[return-value]

    def verify_(self) -> None:
        check_alignment(self.alignment)
        if self.res.type is not self.val.type:
            raise VerifyError("result type must match the value type")
        if self.atomic_ordering in (AtomicOrdering.not_atomic, AtomicOrdering.unordered):
            raise VerifyError("expected at least 'monotonic' ordering")
        op, t = self.operation, self.val.type
        if op is AtomicBinOp.xchg:
            ok = _is_atomic_scalar(t) or isinstance(t, LLVMPointerType)
        elif op.is_float:
            ok = isinstance(t, FloatType)
        else:
            ok = isinstance(t, IntegerType) and _is_atomic_scalar(t)
        if not ok:
            raise VerifyError(f"unexpected LLVM IR type '{t.text}' for '{op.keyword}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.volatile_ is not None:
            p.write(" volatile")
        p.write(f" {self.operation.keyword} ")
        p.print_operands([self.ptr, self.val])
        _print_scope(self, p)
        p.write(f" {self.atomic_ordering.name}")
        p.print_attr_dict(self, elided=("bin_op", "ordering", "syncscope", "volatile_"))
        p.write(f" : {self.ptr.type.text}, {self.val.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> AtomicRMWOp:
        props: dict[str, Attribute] = {}
        if p.accept("volatile"):
            props["volatile_"] = UnitAttr()
        at = p.pos
        word = p.parse_keyword()
        op = AtomicBinOp.from_keyword(word)
        if op is None:
            names = ", ".join(o.keyword for o in AtomicBinOp)
            raise p.error(f"unknown atomic operation '{word}'; expected one of {names}", at)
        props["bin_op"] = enum_attr(op)
        ptr = p.parse_operand()
        p.expect(",")
        val = p.parse_operand()
        scope = parse_syncscope(p)
        if scope is not None:
            props["syncscope"] = StringAttr(scope)
        props["ordering"] = enum_attr(parse_enum_keyword(p, AtomicOrdering, "atomic ordering"))
        attrs = p.parse_optional_attr_dict()
        pt = p.parse_colon_type()
        p.expect(",")
        vt = p.parse_type()
        values = [p.resolve_operand(ptr, pt), p.resolve_operand(val, vt)]
        return cls.create(values, [vt], properties=props, attributes=attrs, loc=p.loc)


class CmpXchgOp(Operation):
    """``%r = llvm.cmpxchg %p, %cmp, %v syncscope("device") monotonic monotonic : !llvm.ptr<1>,
    i32``: MLIR's op (weak/volatile flags before the operands); the result is
    ``!llvm.struct<(i32, i1)>``: the old value and whether it was replaced."""

    name = "llvm.cmpxchg"
    ptr = operand(Pointer)
    cmp = operand(LLVMType)
    val = operand(LLVMType)
    res = result(LLVMStructType)
    success_ordering = prop(I64Attr)
    failure_ordering = prop(I64Attr)
    syncscope = opt_prop(StringAttr)
    alignment = opt_prop(I64Attr)
    weak = opt_prop(UnitAttr)
    volatile_ = opt_prop(UnitAttr)

    def __init__(
        self,
        ptr: Value,
        cmp: Value,
        val: Value,
        success: AtomicOrdering,
        failure: AtomicOrdering,
        alignment: int | None = None,
        syncscope: str | None = None,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {
            "success_ordering": enum_attr(success),
            "failure_ordering": enum_attr(failure),
        }
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        rt = LLVMStructType((val.type, i1))
        super().__init__(operands=[ptr, cmp, val], result_types=[rt], properties=props, loc=loc)

    @property
    def success(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.success_ordering, "success_ordering")  # type: ignore[return-value]

    @property
    def failure(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.failure_ordering, "failure_ordering")  # type: ignore[return-value]

    def verify_(self) -> None:
        check_alignment(self.alignment)
        t = self.val.type
        if self.cmp.type is not t:
            raise VerifyError(
                "expected LLVM IR element type for operand #1 to match type for operand #2"
            )
        if not (
            isinstance(t, LLVMPointerType) or (isinstance(t, IntegerType) and _is_atomic_scalar(t))
        ):
            raise VerifyError(f"unexpected LLVM IR type '{t.text}'")
        if self.res.type is not LLVMStructType((t, i1)):
            raise VerifyError(f"result must be '!llvm.struct<({t.text}, i1)>'")
        weak = (AtomicOrdering.not_atomic, AtomicOrdering.unordered)
        if self.success in weak or self.failure in weak:
            raise VerifyError("ordering must be at least 'monotonic'")
        if self.failure in (AtomicOrdering.release, AtomicOrdering.acq_rel):
            raise VerifyError("failure ordering cannot be 'release' or 'acq_rel'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.weak is not None:
            p.write(" weak")
        if self.volatile_ is not None:
            p.write(" volatile")
        p.write(" ")
        p.print_operands([self.ptr, self.cmp, self.val])
        _print_scope(self, p)
        p.write(f" {self.success.name} {self.failure.name}")
        elided = ("success_ordering", "failure_ordering", "syncscope", "weak", "volatile_")
        p.print_attr_dict(self, elided=elided)
        p.write(f" : {self.ptr.type.text}, {self.val.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> CmpXchgOp:
        props: dict[str, Attribute] = {}
        if p.accept("weak"):
            props["weak"] = UnitAttr()
        if p.accept("volatile"):
            props["volatile_"] = UnitAttr()
        ptr = p.parse_operand()
        p.expect(",")
        cmp = p.parse_operand()
        p.expect(",")
        val = p.parse_operand()
        scope = parse_syncscope(p)
        if scope is not None:
            props["syncscope"] = StringAttr(scope)
        props["success_ordering"] = enum_attr(
            parse_enum_keyword(p, AtomicOrdering, "atomic ordering")
        )
        props["failure_ordering"] = enum_attr(
            parse_enum_keyword(p, AtomicOrdering, "atomic ordering")
        )
        attrs = p.parse_optional_attr_dict()
        pt = p.parse_colon_type()
        p.expect(",")
        vt = p.parse_type()
        values = [
            p.resolve_operand(ptr, pt),
            p.resolve_operand(cmp, vt),
            p.resolve_operand(val, vt),
        ]
        rt = LLVMStructType((vt, i1))
        return cls.create(values, [rt], properties=props, attributes=attrs, loc=p.loc)


def _is_atomic_scalar(t: Type) -> bool:
    return isinstance(t, (IntegerType, FloatType)) and t.width >= 8 and not t.width & (t.width - 1)


ATOMIC_OPS: list[type[Operation]] = [FenceOp, AtomicRMWOp, CmpXchgOp]
