"""LLVM dialect memory ops: ``getelementptr``, ``load``, ``store``, ``alloca``."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.asm import OpAsmParser, OpAsmPrinter, UnresolvedOperand
from ...core.attributes import (
    Attribute,
    DenseArrayAttr,
    IntegerAttr,
    StringAttr,
    TypeAttr,
    UnitAttr,
)
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import FloatType, FunctionType, IntegerType, Type, VectorType, i32, i64
from ...core.values import Value
from .attributes import GEP_ALL_FLAGS, GEP_KEYWORDS, AtomicOrdering, gep_flags_keywords
from .common import (
    I32Attr,
    I64Attr,
    LLVMType,
    Pointer,
    SignlessInteger,
    check_alignment,
    enum_attr,
    enum_value,
    parse_enum_keyword,
    parse_syncscope,
)
from .types import LLVMArrayType, LLVMPointerType, LLVMStructType, is_llvm_type

#: Marker in ``rawConstantIndices`` for an index given by an SSA operand (MLIR's kDynamicIndex).
DYNAMIC_INDEX = -(1 << 31)


def fits_gep_constant(index: int) -> bool:
    """Whether ``index`` can be a constant GEP index: MLIR keeps them as i32 (sign-extended by
    LLVM) and uses ``INT32_MIN`` as the dynamic marker, so only ``(-2^31, 2^31)`` fits. A larger
    offset must be an SSA index operand of a type wide enough to hold it."""
    return DYNAMIC_INDEX < index < (1 << 31)


_TypeAttr = Constraint(lambda a: isinstance(a, TypeAttr) and is_llvm_type(a.type), "LLVM type")
_I32Array = Constraint(
    lambda a: isinstance(a, DenseArrayAttr) and a.element_type is i32, "i32 dense array"
)
NOT_ATOMIC = enum_attr(AtomicOrdering.not_atomic)


class GEPOp(Operation):
    """``%q = llvm.getelementptr inbounds %p[%i, 1] : (!llvm.ptr, i64) -> !llvm.ptr, T``.

    Indices are SSA values or constants (``rawConstantIndices`` holds the constants and
    ``DYNAMIC_INDEX`` where an operand stands); ``elem_type`` is the type the first index
    steps over.
    """

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.getelementptr"
    traits = (Pure,)
    base = operand(Pointer)
    dynamicIndices = var_operand(SignlessInteger)
    res = result(Pointer)
    elem_type = prop(_TypeAttr)
    rawConstantIndices = prop(_I32Array)
    noWrapFlags = prop(I32Attr, default=IntegerAttr(0, i32))

    def __init__(
        self,
        base: Value,
        indices: Sequence[Value | int],
        elem_type: Type,
        flags: int = 0,
        loc: Location | None = None,
    ):
        raw = []
        dynamic = []
        for i in indices:
            if isinstance(i, Value):
                raw.append(DYNAMIC_INDEX)
                dynamic.append(i)
                continue
            i = int(i)
            if not DYNAMIC_INDEX < i < (1 << 31):  # fits_gep_constant
                raise ValueError(
                    f"GEP constant index {i} does not fit in i32: pass it as an index operand"
                )
            raw.append(i)
        super().__init__(
            operands=[base, dynamic],
            result_types=[base.type],
            properties={
                "elem_type": TypeAttr(elem_type),
                "rawConstantIndices": DenseArrayAttr(i32, raw),
                "noWrapFlags": IntegerAttr(flags, i32),
            },
            loc=loc,
        )

    @property
    def indices(self) -> list[Value | int]:
        """Every index in order: an SSA value or a constant."""
        dynamic = iter(self.dynamicIndices)
        return [next(dynamic) if i == DYNAMIC_INDEX else i for i in self.rawConstantIndices]

    @property
    def flags(self) -> int:
        return self.noWrapFlags.value

    def verify_(self) -> None:
        if self.res.type is not self.base.type:
            raise VerifyError("result type must be the base pointer type")
        raw = self.rawConstantIndices.values
        if not raw:
            raise VerifyError("expected at least one index")
        if sum(1 for i in raw if i == DYNAMIC_INDEX) != len(self.dynamicIndices):
            raise VerifyError(
                f"'rawConstantIndices' names {sum(1 for i in raw if i == DYNAMIC_INDEX)} "
                f"dynamic indices but the op has {len(self.dynamicIndices)} index operands"
            )
        if self.flags & ~GEP_ALL_FLAGS:
            raise VerifyError(f"invalid 'noWrapFlags' {self.flags}")
        t = self.elem_type.type
        for k, index in enumerate(self.indices[1:], start=1):
            if isinstance(t, LLVMStructType):
                if not isinstance(index, int):
                    raise VerifyError(f"index #{k} into '{t.text}' must be a constant")
                if not 0 <= index < len(t.body):
                    raise VerifyError(f"index #{k} ({index}) is out of range for '{t.text}'")
                t = t.body[index]
            elif isinstance(t, (LLVMArrayType, VectorType)):
                t = t.element_type
            else:
                raise VerifyError(f"type '{t.text}' cannot be indexed (index #{k})")

    def print_custom(self, p: OpAsmPrinter) -> None:
        words = gep_flags_keywords(self.flags)
        if words:
            p.write(" " + "|".join(words))
        p.write(" ")
        p.print_operand(self.base)
        p.write("[")
        p.write(
            ", ".join(p.value_name(i) if isinstance(i, Value) else str(i) for i in self.indices)
        )
        p.write("]")
        p.print_attr_dict(self, elided=("elem_type", "rawConstantIndices", "noWrapFlags"))
        p.write(" : ")
        p.print_type(FunctionType([v.type for v in self.operands], [self.res.type]))
        p.write(f", {self.elem_type.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> GEPOp:
        flags = 0
        while p.peek() in GEP_KEYWORDS:
            flags |= GEP_KEYWORDS[p.advance()]
            if not p.accept("|"):
                break
        base = p.parse_operand()
        raw: list[int] = []
        dynamic: list[UnresolvedOperand] = []

        def index() -> None:
            u = p.parse_optional_operand()
            if u is not None:
                dynamic.append(u)
                raw.append(DYNAMIC_INDEX)
            else:
                raw.append(p.parse_integer())

        p.parse_comma_separated("[", index, "in GEP indices")
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType) or len(ftype.results) != 1:
            raise p.error("expected '(base, index types...) -> result' function type", at)
        p.expect(",", "before the element type")
        elem = p.parse_type()
        values = p.resolve_operands([base, *dynamic], ftype.inputs, at)
        props: dict[str, Attribute] = {
            "elem_type": TypeAttr(elem),
            "rawConstantIndices": DenseArrayAttr(i32, raw),
            "noWrapFlags": IntegerAttr(flags, i32),
        }
        return cls.create(values, ftype.results, properties=props, attributes=attrs, loc=p.loc)


def _check_atomic_access(op: Operation, t: Type, ordering: AtomicOrdering, what: str) -> None:
    if ordering is AtomicOrdering.not_atomic:
        if op.properties.get("syncscope") is not None:
            raise VerifyError("'syncscope' needs an atomic ordering")
        return
    ok = isinstance(t, (IntegerType, FloatType, LLVMPointerType))
    if isinstance(t, (IntegerType, FloatType)):
        ok = t.width >= 8 and t.width & (t.width - 1) == 0
    if not ok:
        raise VerifyError(f"unsupported type '{t.text}' for an atomic {what}")
    if op.properties.get("alignment") is None:
        raise VerifyError(f"expected an alignment for an atomic {what}")


def _print_access_tail(op: Operation, p: OpAsmPrinter, ordering: AtomicOrdering) -> None:
    if ordering is not AtomicOrdering.not_atomic:
        p.write(" atomic")
        scope = op.properties.get("syncscope")
        if isinstance(scope, StringAttr):
            p.write(f" syncscope({scope.text})")
        p.write(f" {ordering.name}")


def _parse_access_tail(p: OpAsmParser, props: dict[str, Attribute]) -> None:
    if p.accept("atomic"):
        scope = parse_syncscope(p)
        if scope is not None:
            props["syncscope"] = StringAttr(scope)
        props["ordering"] = enum_attr(parse_enum_keyword(p, AtomicOrdering, "atomic ordering"))


_ACCESS_ELIDED = ("volatile_", "ordering", "syncscope", "invariant", "invariantGroup")


class LoadOp(Operation):
    """``%v = llvm.load volatile %p {alignment = 16 : i64, nontemporal} : !llvm.ptr<1> -> T``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.load"
    addr = operand(Pointer)
    res = result(LLVMType)
    alignment = opt_prop(I64Attr)
    volatile_ = opt_prop(UnitAttr)
    nontemporal = opt_prop(UnitAttr)
    invariant = opt_prop(UnitAttr)
    invariantGroup = opt_prop(UnitAttr)
    ordering = prop(I64Attr, default=NOT_ATOMIC)
    syncscope = opt_prop(StringAttr)

    def __init__(
        self,
        addr: Value,
        type: Type,
        alignment: int | None = None,
        *,
        volatile: bool = False,
        nontemporal: bool = False,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        if volatile:
            props["volatile_"] = UnitAttr()
        if nontemporal:
            props["nontemporal"] = UnitAttr()
        super().__init__(operands=[addr], result_types=[type], properties=props, loc=loc)

    @property
    def atomic_ordering(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.ordering, "ordering")  # type: ignore[return-value]

    def verify_(self) -> None:
        check_alignment(self.alignment)
        ordering = self.atomic_ordering
        if ordering in (AtomicOrdering.release, AtomicOrdering.acq_rel):
            raise VerifyError(f"unsupported ordering '{ordering.name}' for a load")
        _check_atomic_access(self, self.res.type, ordering, "load")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.volatile_ is not None:
            p.write(" volatile")
        p.write(" ")
        p.print_operand(self.addr)
        _print_access_tail(self, p, self.atomic_ordering)
        if self.invariant is not None:
            p.write(" invariant")
        if self.invariantGroup is not None:
            p.write(" invariant_group")
        p.print_attr_dict(self, elided=_ACCESS_ELIDED)
        p.write(f" : {self.addr.type.text} -> {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LoadOp:
        props: dict[str, Attribute] = {}
        if p.accept("volatile"):
            props["volatile_"] = UnitAttr()
        addr = p.parse_operand()
        _parse_access_tail(p, props)
        if p.accept("invariant"):
            props["invariant"] = UnitAttr()
        if p.accept("invariant_group"):
            props["invariantGroup"] = UnitAttr()
        attrs = p.parse_optional_attr_dict()
        pt = p.parse_colon_type()
        p.expect("->")
        t = p.parse_type()
        return cls.create(
            [p.resolve_operand(addr, pt)], [t], properties=props, attributes=attrs, loc=p.loc
        )


class StoreOp(Operation):
    """``llvm.store %v, %p {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.store"
    value = operand(LLVMType)
    addr = operand(Pointer)
    alignment = opt_prop(I64Attr)
    volatile_ = opt_prop(UnitAttr)
    nontemporal = opt_prop(UnitAttr)
    invariantGroup = opt_prop(UnitAttr)
    ordering = prop(I64Attr, default=NOT_ATOMIC)
    syncscope = opt_prop(StringAttr)

    def __init__(
        self,
        value: Value,
        addr: Value,
        alignment: int | None = None,
        *,
        volatile: bool = False,
        nontemporal: bool = False,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        if volatile:
            props["volatile_"] = UnitAttr()
        if nontemporal:
            props["nontemporal"] = UnitAttr()
        super().__init__(operands=[value, addr], properties=props, loc=loc)

    @property
    def atomic_ordering(self) -> AtomicOrdering:
        return enum_value(AtomicOrdering, self.ordering, "ordering")  # type: ignore[return-value]

    def verify_(self) -> None:
        check_alignment(self.alignment)
        ordering = self.atomic_ordering
        if ordering in (AtomicOrdering.acquire, AtomicOrdering.acq_rel):
            raise VerifyError(f"unsupported ordering '{ordering.name}' for a store")
        _check_atomic_access(self, self.value.type, ordering, "store")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.volatile_ is not None:
            p.write(" volatile")
        p.write(" ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.addr)
        _print_access_tail(self, p, self.atomic_ordering)
        if self.invariantGroup is not None:
            p.write(" invariant_group")
        p.print_attr_dict(self, elided=_ACCESS_ELIDED)
        p.write(f" : {self.value.type.text}, {self.addr.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> StoreOp:
        props: dict[str, Attribute] = {}
        if p.accept("volatile"):
            props["volatile_"] = UnitAttr()
        value = p.parse_operand()
        p.expect(",")
        addr = p.parse_operand()
        _parse_access_tail(p, props)
        if p.accept("invariant_group"):
            props["invariantGroup"] = UnitAttr()
        attrs = p.parse_optional_attr_dict()
        vt = p.parse_colon_type()
        p.expect(",")
        pt = p.parse_type()
        values = [p.resolve_operand(value, vt), p.resolve_operand(addr, pt)]
        return cls.create(values, properties=props, attributes=attrs, loc=p.loc)


class AllocaOp(Operation):
    """``%p = llvm.alloca %n x f32 {alignment = 16 : i64} : (i32) -> !llvm.ptr``: per-thread
    stack memory (registers once LLVM promotes it)."""

    name = "llvm.alloca"
    arraySize = operand(SignlessInteger)
    res = result(Pointer)
    alignment = opt_prop(I64Attr)
    elem_type = prop(_TypeAttr)
    inalloca = opt_prop(UnitAttr)

    def __init__(
        self,
        size: Value,
        elem_type: Type,
        alignment: int | None = None,
        result_type: Type | None = None,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {"elem_type": TypeAttr(elem_type)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        super().__init__(
            operands=[size],
            result_types=[result_type or LLVMPointerType(0)],
            properties=props,
            loc=loc,
        )

    def verify_(self) -> None:
        check_alignment(self.alignment)

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.inalloca is not None:
            p.write(" inalloca")
        p.write(" ")
        p.print_operand(self.arraySize)
        p.write(f" x {self.elem_type.type.text}")
        p.print_attr_dict(self, elided=("elem_type", "inalloca"))
        p.write(" : ")
        p.print_type(FunctionType([self.arraySize.type], [self.res.type]))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> AllocaOp:
        props: dict[str, Attribute] = {}
        if p.accept("inalloca"):
            props["inalloca"] = UnitAttr()
        size = p.parse_operand()
        p.parse_keyword("x")
        props["elem_type"] = TypeAttr(p.parse_type())
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType) or len(ftype.inputs) != 1:
            raise p.error("expected '(size type) -> pointer type'", at)
        return cls.create(
            [p.resolve_operand(size, ftype.inputs[0])],
            ftype.results,
            properties=props,
            attributes=attrs,
            loc=p.loc,
        )


MEMORY_OPS: list[type[Operation]] = [GEPOp, LoadOp, StoreOp, AllocaOp]
