"""LLVM dialect arithmetic: integer and float binary ops, ``fneg``, ``icmp``/``fcmp``,
``select``, the value conversions and the min/max intrinsics, with MLIR 22's operands,
properties and custom forms (what ``convert-arith-to-llvm`` produces)::

    %0 = llvm.add %a, %b overflow<nsw> : i32
    %1 = llvm.udiv exact %a, %b : i32
    %2 = llvm.fadd %x, %y {fastmathFlags = #llvm.fastmath<fast>} : f32
    %3 = llvm.icmp "slt" %a, %b : i32
    %4 = llvm.select %3, %a, %b : i1, i32
    %5 = llvm.zext nneg %a : i32 to i64
    %6 = llvm.intr.smin(%a, %b) : (i32, i32) -> i32

``overflowFlags`` is MLIR's ``i32`` bit set (nsw = 1, nuw = 2); predicates are ``i64``
properties numbered as MLIR's (and as arith's) enums.
"""

from __future__ import annotations

from typing import ClassVar

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr, UnitAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result
from ...core.operation import Operation
from ...core.traits import Pure, SameOperandsAndResultType
from ...core.types import FloatType, IntegerType, Type, VectorType, i1, i32, i64
from ...core.values import Value
from ..arith.attributes import CmpFPredicate, CmpIPredicate
from .attributes import FASTMATH_NONE, LLVMFastmathFlagsAttr
from .common import I32Attr, I64Attr, LLVMType
from .types import is_llvm_type


def _scalar(t: Type) -> Type:
    return t.element_type if isinstance(t, VectorType) else t


IntLike = Constraint(
    lambda t: isinstance(_scalar(t), IntegerType) and _scalar(t).is_signless,
    "signless integer or vector of signless integers",
)
FloatLike = Constraint(
    lambda t: isinstance(_scalar(t), FloatType) and is_llvm_type(t),
    "floating point LLVM type or vector of floating point LLVM types",
)
BoolLike = Constraint(lambda t: _scalar(t) is i1, "1-bit signless integer or vector of them")

NSW, NUW = 1, 2
_OVERFLOW_NAMES = (("nsw", NSW), ("nuw", NUW))


def overflow_attr(flags: int) -> IntegerAttr:
    """The ``overflowFlags`` property (``nsw`` = 1, ``nuw`` = 2)."""
    return IntegerAttr(flags, i32)


OVERFLOW_NONE = overflow_attr(0)


def _print_overflow(p: OpAsmPrinter, attr: IntegerAttr | None) -> None:
    bits = attr.value if attr is not None else 0
    if bits:
        p.write(f" overflow<{', '.join(n for n, b in _OVERFLOW_NAMES if bits & b)}>")


def _parse_overflow(p: OpAsmParser) -> IntegerAttr:
    bits = 0
    if p.accept("overflow"):
        p.expect("<", "after 'overflow'")
        while True:
            at = p.pos
            word = p.parse_keyword()
            if word == "nsw":
                bits |= NSW
            elif word == "nuw":
                bits |= NUW
            elif word != "none":
                raise p.error(f"unknown overflow flag '{word}'; expected nsw or nuw", at)
            if not p.accept(","):
                break
        p.expect(">", "to close 'overflow<'")
    return overflow_attr(bits)


def _fastmath_elided(op: Operation) -> tuple[str, ...]:
    """``fastmathFlags`` is printed in the attribute dictionary unless it is ``none``."""
    return ("fastmathFlags",) if op.properties.get("fastmathFlags") is FASTMATH_NONE else ()


# -- binary ops ------------------------------------------------------------------------------
class _BinaryOp(Operation):
    """``%r = llvm.<op> [keyword] %a, %b [overflow<..>] {attrs} : t``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    traits = (Pure, SameOperandsAndResultType)
    lhs: Value
    rhs: Value
    res: Value
    #: A unit property printed as a keyword before the operands (``exact``, ``disjoint``).
    unit_keyword: ClassVar[tuple[str, str] | None] = None
    has_overflow: ClassVar[bool] = False
    has_fastmath: ClassVar[bool] = False

    def __init__(self, lhs: Value, rhs: Value, loc: Location | None = None, **properties):
        super().__init__(
            operands=[lhs, rhs], result_types=[lhs.type], properties=properties or None, loc=loc
        )

    def print_custom(self, p: OpAsmPrinter) -> None:
        elided: tuple[str, ...] = ()
        if self.unit_keyword is not None:
            prop_name, keyword = self.unit_keyword
            elided = (prop_name,)
            if self.properties.get(prop_name) is not None:
                p.write(f" {keyword}")
        p.write(" ")
        p.print_operands(self.operands)
        if self.has_overflow:
            _print_overflow(p, self.properties.get("overflowFlags"))
            elided += ("overflowFlags",)
        if self.has_fastmath:
            elided += _fastmath_elided(self)
        p.print_attr_dict(self, elided)
        p.write(f" : {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        props: dict[str, Attribute] = {}
        if cls.unit_keyword is not None and p.accept(cls.unit_keyword[1]):
            props[cls.unit_keyword[0]] = UnitAttr()
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        if cls.has_overflow:
            props["overflowFlags"] = _parse_overflow(p)
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        values = p.resolve_operands([a, b], [t, t])
        return cls.create(values, [t], properties=props, attributes=attrs, loc=p.loc)


class _IntBinaryOp(_BinaryOp):
    lhs = operand(IntLike)
    rhs = operand(IntLike)
    res = result(IntLike)


class _OverflowOp(_IntBinaryOp):
    has_overflow = True
    overflowFlags = prop(I32Attr, default=OVERFLOW_NONE)


class _ExactOp(_IntBinaryOp):
    unit_keyword = ("isExact", "exact")
    isExact = opt_prop(UnitAttr)


class AddOp(_OverflowOp):
    name = "llvm.add"


class SubOp(_OverflowOp):
    name = "llvm.sub"


class MulOp(_OverflowOp):
    name = "llvm.mul"


class ShlOp(_OverflowOp):
    name = "llvm.shl"


class UDivOp(_ExactOp):
    name = "llvm.udiv"


class SDivOp(_ExactOp):
    name = "llvm.sdiv"


class LShrOp(_ExactOp):
    name = "llvm.lshr"


class AShrOp(_ExactOp):
    name = "llvm.ashr"


class URemOp(_IntBinaryOp):
    name = "llvm.urem"


class SRemOp(_IntBinaryOp):
    name = "llvm.srem"


class AndOp(_IntBinaryOp):
    name = "llvm.and"


class OrOp(_IntBinaryOp):
    name = "llvm.or"
    unit_keyword = ("isDisjoint", "disjoint")
    isDisjoint = opt_prop(UnitAttr)


class XOrOp(_IntBinaryOp):
    name = "llvm.xor"


class _FloatBinaryOp(_BinaryOp):
    has_fastmath = True
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    res = result(FloatLike)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)


class FAddOp(_FloatBinaryOp):
    name = "llvm.fadd"


class FSubOp(_FloatBinaryOp):
    name = "llvm.fsub"


class FMulOp(_FloatBinaryOp):
    name = "llvm.fmul"


class FDivOp(_FloatBinaryOp):
    name = "llvm.fdiv"


class FRemOp(_FloatBinaryOp):
    name = "llvm.frem"


class FNegOp(Operation):
    """``%r = llvm.fneg %x : f32``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.fneg"
    traits = (Pure, SameOperandsAndResultType)
    operand_ = operand(FloatLike)
    res = result(FloatLike)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)

    def __init__(self, x: Value, loc: Location | None = None, **properties):
        super().__init__(
            operands=[x], result_types=[x.type], properties=properties or None, loc=loc
        )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.operands[0])
        p.print_attr_dict(self, _fastmath_elided(self))
        p.write(f" : {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        x = p.parse_operand()
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        return cls.create([p.resolve_operand(x, t)], [t], attributes=attrs, loc=p.loc)


# -- comparisons and select --------------------------------------------------------------------
def _bool_like(t: Type) -> Type:
    return VectorType(t.shape, i1, t.scalable) if isinstance(t, VectorType) else i1


_FCMP_NAMES = {p: ("_" + p.name if p.name in ("false", "true") else p.name) for p in CmpFPredicate}


class _CmpOp(Operation):
    rules_by_signature = True  # verify_op checks the rules once per signature
    traits = (Pure,)
    predicates: ClassVar[dict] = {}
    lhs: Value
    rhs: Value
    res: Value

    def __init__(self, predicate, lhs: Value, rhs: Value, loc: Location | None = None, **props):
        props["predicate"] = IntegerAttr(int(predicate), i64)
        super().__init__(
            operands=[lhs, rhs], result_types=[_bool_like(lhs.type)], properties=props, loc=loc
        )

    @property
    def predicate_enum(self):
        return self.enum(self.predicate.value)

    def verify_(self) -> None:
        try:
            self.enum(self.predicate.value)
        except ValueError:
            raise VerifyError(f"invalid predicate {self.predicate.value}") from None
        if self.lhs.type is not self.rhs.type:
            raise VerifyError("requires both operands to have the same type")
        if self.res.type is not _bool_like(self.lhs.type):
            raise VerifyError(f"result type must be '{_bool_like(self.lhs.type).text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(f' "{self.names[self.predicate_enum]}" ')
        p.print_operands(self.operands)
        p.print_attr_dict(self, ("predicate", *_fastmath_elided(self)))
        p.write(f" : {self.lhs.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        at = p.pos
        word = p.parse_string()
        by_name = {n: e for e, n in cls.names.items()}
        if word not in by_name:
            raise p.error(f"unknown predicate '{word}' for '{cls.name}'", at)
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        values = p.resolve_operands([a, b], [t, t])
        props = {"predicate": IntegerAttr(int(by_name[word]), i64)}
        return cls.create(values, [_bool_like(t)], properties=props, attributes=attrs, loc=p.loc)


class ICmpOp(_CmpOp):
    """``%r = llvm.icmp "slt" %a, %b : i32``."""

    name = "llvm.icmp"
    enum = CmpIPredicate
    names: ClassVar[dict] = {e: e.name for e in CmpIPredicate}
    lhs = operand(LLVMType)
    rhs = operand(LLVMType)
    res = result(BoolLike)
    predicate = prop(I64Attr)


class FCmpOp(_CmpOp):
    """``%r = llvm.fcmp "olt" %a, %b : f32`` (``"_false"``/``"_true"`` for the constants)."""

    name = "llvm.fcmp"
    enum = CmpFPredicate
    names: ClassVar[dict] = _FCMP_NAMES
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    res = result(BoolLike)
    predicate = prop(I64Attr)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)


class SelectOp(Operation):
    """``%r = llvm.select %c, %a, %b : i1, i32``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.select"
    traits = (Pure,)
    condition = operand(BoolLike)
    trueValue = operand(LLVMType)
    falseValue = operand(LLVMType)
    res = result(LLVMType)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)

    def __init__(self, c: Value, a: Value, b: Value, loc: Location | None = None):
        super().__init__(operands=[c, a, b], result_types=[a.type], loc=loc)

    def verify_(self) -> None:
        t = self.trueValue.type
        if self.falseValue.type is not t or self.res.type is not t:
            raise VerifyError("requires the two values and the result to have one type")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.operands)
        p.print_attr_dict(self, _fastmath_elided(self))
        p.write(f" : {self.condition.type.text}, {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        c = p.parse_operand()
        p.expect(",")
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        attrs = p.parse_optional_attr_dict()
        ct = p.parse_colon_type()
        p.expect(",")
        t = p.parse_type()
        values = p.resolve_operands([c, a, b], [ct, t, t])
        return cls.create(values, [t], attributes=attrs, loc=p.loc)


# -- conversions -------------------------------------------------------------------------------
class _ConvOp(Operation):
    """``%r = llvm.<op> [nneg] %x [overflow<..>] {attrs} : t1 to t2``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    traits = (Pure,)
    arg: Value
    res: Value
    nneg: ClassVar[bool] = False
    has_overflow: ClassVar[bool] = False
    #: (source kind, result kind, width relation): "int"/"float", and "<", ">" or None.
    kinds: ClassVar[tuple[str, str, str | None]] = ("int", "int", None)

    def __init__(self, x: Value, t: Type, loc: Location | None = None, **properties):
        super().__init__(operands=[x], result_types=[t], properties=properties or None, loc=loc)

    def verify_(self) -> None:
        a, b = self.arg.type, self.res.type
        if isinstance(a, VectorType) != isinstance(b, VectorType) or (
            isinstance(a, VectorType) and a.shape != b.shape
        ):
            raise VerifyError("operand and result must be scalars or vectors of one shape")
        src, dst = _scalar(a), _scalar(b)
        for t, kind in ((src, self.kinds[0]), (dst, self.kinds[1])):
            want = IntegerType if kind == "int" else FloatType
            if not isinstance(t, want):
                raise VerifyError(f"'{t.text}' is not an {kind} type")
        rel = self.kinds[2]
        if rel == "<" and not src.width < dst.width:
            raise VerifyError("the result must be wider than the operand")
        if rel == ">" and not src.width > dst.width:
            raise VerifyError("the result must be narrower than the operand")

    def print_custom(self, p: OpAsmPrinter) -> None:
        elided: tuple[str, ...] = ()
        if self.nneg:
            elided = ("nonNeg",)
            if self.properties.get("nonNeg") is not None:
                p.write(" nneg")
        p.write(" ")
        p.print_operand(self.arg)
        if self.has_overflow:
            _print_overflow(p, self.properties.get("overflowFlags"))
            elided += ("overflowFlags",)
        p.print_attr_dict(self, elided)
        p.write(f" : {self.arg.type.text} to {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        props: dict[str, Attribute] = {}
        if cls.nneg and p.accept("nneg"):
            props["nonNeg"] = UnitAttr()
        x = p.parse_operand()
        if cls.has_overflow:
            props["overflowFlags"] = _parse_overflow(p)
        attrs = p.parse_optional_attr_dict()
        src = p.parse_colon_type()
        p.parse_keyword("to")
        dst = p.parse_type()
        return cls.create(
            [p.resolve_operand(x, src)], [dst], properties=props, attributes=attrs, loc=p.loc
        )


class SExtOp(_ConvOp):
    name = "llvm.sext"
    arg = operand(IntLike)
    res = result(IntLike)
    kinds = ("int", "int", "<")


class ZExtOp(_ConvOp):
    name = "llvm.zext"
    arg = operand(IntLike)
    res = result(IntLike)
    kinds = ("int", "int", "<")
    nneg = True
    nonNeg = opt_prop(UnitAttr)


class TruncOp(_ConvOp):
    name = "llvm.trunc"
    arg = operand(IntLike)
    res = result(IntLike)
    kinds = ("int", "int", ">")
    has_overflow = True
    overflowFlags = prop(I32Attr, default=OVERFLOW_NONE)


class SIToFPOp(_ConvOp):
    name = "llvm.sitofp"
    arg = operand(IntLike)
    res = result(FloatLike)
    kinds = ("int", "float", None)


class UIToFPOp(_ConvOp):
    name = "llvm.uitofp"
    arg = operand(IntLike)
    res = result(FloatLike)
    kinds = ("int", "float", None)
    nneg = True
    nonNeg = opt_prop(UnitAttr)


class FPToSIOp(_ConvOp):
    name = "llvm.fptosi"
    arg = operand(FloatLike)
    res = result(IntLike)
    kinds = ("float", "int", None)


class FPToUIOp(_ConvOp):
    name = "llvm.fptoui"
    arg = operand(FloatLike)
    res = result(IntLike)
    kinds = ("float", "int", None)


class FPExtOp(_ConvOp):
    name = "llvm.fpext"
    arg = operand(FloatLike)
    res = result(FloatLike)
    kinds = ("float", "float", "<")


class FPTruncOp(_ConvOp):
    name = "llvm.fptrunc"
    arg = operand(FloatLike)
    res = result(FloatLike)
    kinds = ("float", "float", ">")


# -- intrinsics --------------------------------------------------------------------------------
class _BinaryIntrinsic(Operation):
    """``%r = llvm.intr.<name>(%a, %b) {attrs} : (t, t) -> t``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    traits = (Pure, SameOperandsAndResultType)
    a: Value
    b: Value
    res: Value

    def __init__(self, a: Value, b: Value, loc: Location | None = None):
        super().__init__(operands=[a, b], result_types=[a.type], loc=loc)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write("(")
        p.print_operands(self.operands)
        p.write(")")
        p.print_attr_dict(self, _fastmath_elided(self))
        t = self.res.type.text
        p.write(f" : ({t}, {t}) -> {t}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        p.expect("(")
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        p.expect(")")
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        p.expect("(")
        ta = p.parse_type()
        p.expect(",")
        tb = p.parse_type()
        p.expect(")")
        p.expect("->")
        t = p.parse_type()
        values = p.resolve_operands([a, b], [ta, tb])
        return cls.create(values, [t], attributes=attrs, loc=p.loc)


class _IntIntrinsic(_BinaryIntrinsic):
    a = operand(IntLike)
    b = operand(IntLike)
    res = result(IntLike)


class _FloatIntrinsic(_BinaryIntrinsic):
    a = operand(FloatLike)
    b = operand(FloatLike)
    res = result(FloatLike)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)


class SMinOp(_IntIntrinsic):
    name = "llvm.intr.smin"


class SMaxOp(_IntIntrinsic):
    name = "llvm.intr.smax"


class UMinOp(_IntIntrinsic):
    name = "llvm.intr.umin"


class UMaxOp(_IntIntrinsic):
    name = "llvm.intr.umax"


class MaxNumOp(_FloatIntrinsic):
    name = "llvm.intr.maxnum"


class MinNumOp(_FloatIntrinsic):
    name = "llvm.intr.minnum"


class MaximumOp(_FloatIntrinsic):
    name = "llvm.intr.maximum"


class MinimumOp(_FloatIntrinsic):
    name = "llvm.intr.minimum"


ARITH_OPS: list[type[Operation]] = [
    AddOp,
    SubOp,
    MulOp,
    ShlOp,
    UDivOp,
    SDivOp,
    LShrOp,
    AShrOp,
    URemOp,
    SRemOp,
    AndOp,
    OrOp,
    XOrOp,
    FAddOp,
    FSubOp,
    FMulOp,
    FDivOp,
    FRemOp,
    FNegOp,
    ICmpOp,
    FCmpOp,
    SelectOp,
    SExtOp,
    ZExtOp,
    TruncOp,
    SIToFPOp,
    UIToFPOp,
    FPToSIOp,
    FPToUIOp,
    FPExtOp,
    FPTruncOp,
    SMinOp,
    SMaxOp,
    UMinOp,
    UMaxOp,
    MaxNumOp,
    MinNumOp,
    MaximumOp,
    MinimumOp,
]

__all__ = [op.__name__ for op in ARITH_OPS] + ["ARITH_OPS", "NSW", "NUW", "overflow_attr"]
