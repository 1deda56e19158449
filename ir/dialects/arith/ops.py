"""Operations of the arith dialect (MLIR's names, operands, properties and custom forms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, FloatAttr, IntegerAttr, to_signed
from ...core.constraints import (
    BoolLike,
    Constraint,
    FloatLike,
    SignlessIntegerLike,
)
from ...core.dense import DenseElementsAttr
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result
from ...core.operation import Operation
from ...core.rewrite import RewritePattern, lazy_patterns
from ...core.traits import (
    Commutative,
    ConstantLike,
    NoMemoryEffect,
    Pure,
    SameOperandsAndResultShape,
    SameOperandsAndResultType,
    SameTypeOperands,
)
from ...core.types import (
    FloatType,
    IndexType,
    IntegerType,
    Type,
    VectorType,
    bit_width,
    element_type,
    i1,
    i64,
)
from ...core.values import Value
from . import semantics
from .attributes import (
    FASTMATH_NONE,
    OVERFLOW_NONE,
    CmpFPredicate,
    CmpIPredicate,
    FastMathFlagsAttr,
    IntegerOverflowFlagsAttr,
)
from .elementwise import lift1, lift2, scalar_of, select_elements, splat_like

_IntegerOrIndex = Constraint(
    lambda t: (isinstance(t, IntegerType) and t.is_signless) or isinstance(t, IndexType),
    "signless integer or index",
)
_IndexLike = Constraint(
    lambda t: isinstance(element_type(t), (IntegerType, IndexType)), "integer-or-index-like"
)
_FloatOrIntLike = Constraint(
    lambda t: isinstance(element_type(t), (IntegerType, IndexType, FloatType)),
    "integer, index or float like",
)


def _scalar_width(t: Type) -> int | None:
    """Bit width of a scalar integer/index type (folding works on scalars only)."""
    if isinstance(t, IntegerType):
        return t.width
    if isinstance(t, IndexType):
        return 64
    return None


def _int_bits(attr: Attribute | None) -> int | None:
    return attr.unsigned_value if isinstance(attr, IntegerAttr) else None


def _int_attr(bits: int, t: Type) -> IntegerAttr:
    return IntegerAttr(bits, t)


def _is_int_constant(attr: Attribute | None, value: int) -> bool:
    """``attr`` is an integer constant (or a splat of one) equal to ``value`` (``-1`` means all
    ones)."""
    attr = scalar_of(attr)
    if not isinstance(attr, IntegerAttr):
        return False
    width = _scalar_width(attr.type) or 0
    return attr.unsigned_value == value & ((1 << width) - 1)


def _int_splat(value: int, t: Type) -> Attribute:
    """The integer constant ``value`` of type ``t`` (a splat for a vector type)."""
    return splat_like(IntegerAttr(value, element_type(t)), t)


def _is_float_constant(attr: Attribute | None, value: float, negative_zero: bool = False) -> bool:
    """``attr`` is a float constant (or a splat of one) equal to ``value``."""
    attr = scalar_of(attr)
    if not isinstance(attr, FloatAttr):
        return False
    if value == 0.0:
        neg = attr.bits >> (attr.type.format.width - 1) == 1
        return attr.value == 0.0 and neg == negative_zero
    return attr.value == value


# ---------------------------------------------------------------------------------------------
# constant
# ---------------------------------------------------------------------------------------------


class ConstantOp(Operation):
    """``%c4 = arith.constant 4 : index``; ``%cst = arith.constant dense<1.0> : vector<4xf32>``."""

    name = "arith.constant"
    assembly_format = "attr-dict $value"
    traits = (Pure, ConstantLike)
    value = prop((IntegerAttr, FloatAttr, DenseElementsAttr))
    result = result()

    def __init__(self, value: Attribute, loc: Location | None = None):
        if not isinstance(value, (IntegerAttr, FloatAttr, DenseElementsAttr)):
            raise TypeError(
                f"arith.constant needs an IntegerAttr, FloatAttr or DenseElementsAttr, got {value!r}"
            )
        super().__init__(result_types=[value.type], properties={"value": value}, loc=loc)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Type], props: Any) -> list[Type]:
        """The constant has its value's type."""
        return [props["value"].type]

    @staticmethod
    def from_int(value: int, type: Type, loc: Location | None = None) -> ConstantOp:
        return ConstantOp(IntegerAttr(value, type), loc)

    @staticmethod
    def from_float(value: float, type: FloatType, loc: Location | None = None) -> ConstantOp:
        return ConstantOp(FloatAttr(value, type), loc)

    def verify_(self) -> None:
        v = self.value
        t = self.results[0].type
        if v.type is not t:
            raise VerifyError(
                f"failed to verify that all of {{value, result}} have same type "
                f"('{v.type.text}' vs '{t.text}')"
            )
        elt = element_type(t)
        if isinstance(elt, IntegerType) and not elt.is_signless:
            raise VerifyError("integer return type must be signless")

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        return [self.value]

    def asm_result_names(self) -> Sequence[str | None]:
        v = self.value
        if isinstance(v, IntegerAttr):
            t = v.type
            if t is i1:
                return ["true" if v.value else "false"]
            if isinstance(t, IndexType):
                return [f"c{v.value}"]
            return [f"c{v.value}_{t.text}"]
        return ["cst"]


# ---------------------------------------------------------------------------------------------
# binary integer and float ops
# ---------------------------------------------------------------------------------------------


class _BinaryOp(Operation):
    """``%r = arith.<op> %a, %b [flags] : t`` with operands and result of one type."""

    lhs: Any
    rhs: Any
    kind: ClassVar[str] = ""
    """The op's name without the dialect (``addi``): the key of :mod:`.semantics`; derived."""
    flags_prop: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__ and "kind" not in cls.__dict__:
            cls.kind = cls.name.partition(".")[2]

    def __init__(
        self, lhs: Value, rhs: Value, flags: Attribute | None = None, loc: Location | None = None
    ):
        props = {self.flags_prop: flags} if flags is not None and self.flags_prop else None
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type], properties=props, loc=loc)

    def _swap_constant_to_right(
        self, operands: Sequence[Attribute | None]
    ) -> Sequence[Attribute | Value] | None:
        """Commutative ops keep constants on the right (an in-place fold, as in MLIR)."""
        if self.has_trait(Commutative) and operands[0] is not None and operands[1] is None:
            a, b = self.operands
            self.set_operand(0, b)
            self.set_operand(1, a)
            return [self.results[0]]
        return None


class _IntBinaryOp(_BinaryOp):
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"
    traits = (Pure, SameOperandsAndResultType)
    lhs = operand(SignlessIntegerLike)
    rhs = operand(SignlessIntegerLike)
    result = result(SignlessIntegerLike)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        if operands[0] is not None and operands[1] is not None:
            kind = self.kind

            def element(x: Attribute, y: Attribute) -> IntegerAttr | None:
                width = _scalar_width(x.type) if isinstance(x, IntegerAttr) else None
                if width is None or not isinstance(y, IntegerAttr):
                    return None
                bits = semantics.int_binary(kind, x.unsigned_value, y.unsigned_value, width)
                return None if bits is None else _int_attr(bits, x.type)

            folded = lift2(operands[0], operands[1], self.results[0].type, element)
            # None: undefined on these constants (e.g. division by zero): keep the op
            return [folded] if folded is not None else None
        # at most one constant (most folds in a compile): nothing to evaluate
        simplified = self.fold_identity(operands)
        if simplified is not None:
            return [simplified]
        return self._swap_constant_to_right(operands)

    def fold_identity(self, operands: Sequence[Attribute | None]) -> Attribute | Value | None:
        """Algebraic simplification with at most one constant operand."""
        return None


class _IntBinaryOverflowOp(_IntBinaryOp):
    assembly_format = "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)"
    flags_prop = "overflowFlags"
    overflowFlags = prop(IntegerOverflowFlagsAttr, default=OVERFLOW_NONE)


class AddIOp(_IntBinaryOverflowOp):
    name = "arith.addi"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import AddIAddConstant, AddISubConstant

        return (AddIAddConstant(), AddISubConstant())

    def fold_identity(self, operands):
        if _is_int_constant(operands[1], 0):
            return self.lhs
        if _is_int_constant(operands[0], 0):
            return self.rhs
        return None


class SubIOp(_IntBinaryOverflowOp):
    name = "arith.subi"

    def fold_identity(self, operands):
        if _is_int_constant(operands[1], 0):
            return self.lhs
        if self.lhs is self.rhs:
            return _int_splat(0, self.results[0].type)
        return None


class MulIOp(_IntBinaryOverflowOp):
    name = "arith.muli"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import MulIMulConstant

        return (MulIMulConstant(),)

    def fold_identity(self, operands):
        for k in (1, 0):
            other = self.operands[1 - k]
            if _is_int_constant(operands[k], 1):
                return other
            if _is_int_constant(operands[k], 0):
                return operands[k]
        return None


class ShLIOp(_IntBinaryOverflowOp):
    name = "arith.shli"

    def fold_identity(self, operands):
        return self.lhs if _is_int_constant(operands[1], 0) else None


class _DivisionOp(_IntBinaryOp):
    """The integer divisions: ``x / 1`` is ``x``; division by zero is undefined behaviour, so
    they are not speculatable (no ``Pure``)."""

    traits = (NoMemoryEffect, SameOperandsAndResultType)

    def fold_identity(self, operands):
        return self.lhs if _is_int_constant(operands[1], 1) else None


class DivUIOp(_DivisionOp):
    name = "arith.divui"


class DivSIOp(_DivisionOp):
    name = "arith.divsi"


class CeilDivUIOp(_DivisionOp):
    name = "arith.ceildivui"


class CeilDivSIOp(_DivisionOp):
    name = "arith.ceildivsi"


class FloorDivSIOp(_DivisionOp):
    name = "arith.floordivsi"


class RemUIOp(_IntBinaryOp):
    name = "arith.remui"
    traits = (NoMemoryEffect, SameOperandsAndResultType)

    def fold_identity(self, operands):
        if _is_int_constant(operands[1], 1):
            return _int_splat(0, self.results[0].type)
        return None


class RemSIOp(_IntBinaryOp):
    name = "arith.remsi"
    traits = (NoMemoryEffect, SameOperandsAndResultType)

    def fold_identity(self, operands):
        if _is_int_constant(operands[1], 1) or _is_int_constant(operands[1], -1):
            return _int_splat(0, self.results[0].type)
        return None


class _MinMaxIOp(_IntBinaryOp):
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        return self.lhs if self.lhs is self.rhs else None


class MinSIOp(_MinMaxIOp):
    name = "arith.minsi"


class MaxSIOp(_MinMaxIOp):
    name = "arith.maxsi"


class MinUIOp(_MinMaxIOp):
    name = "arith.minui"


class MaxUIOp(_MinMaxIOp):
    name = "arith.maxui"


class AndIOp(_IntBinaryOp):
    name = "arith.andi"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        if self.lhs is self.rhs:
            return self.lhs
        if _is_int_constant(operands[1], 0):
            return operands[1]
        if _is_int_constant(operands[1], -1):
            return self.lhs
        return None


class OrIOp(_IntBinaryOp):
    name = "arith.ori"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        if self.lhs is self.rhs:
            return self.lhs
        if _is_int_constant(operands[1], 0):
            return self.lhs
        if _is_int_constant(operands[1], -1):
            return operands[1]
        return None


class XOrIOp(_IntBinaryOp):
    name = "arith.xori"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        if self.lhs is self.rhs:
            return _int_splat(0, self.results[0].type)
        if _is_int_constant(operands[1], 0):
            return self.lhs
        return None


class ShRUIOp(_IntBinaryOp):
    name = "arith.shrui"

    def fold_identity(self, operands):
        return self.lhs if _is_int_constant(operands[1], 0) else None


class ShRSIOp(_IntBinaryOp):
    name = "arith.shrsi"

    def fold_identity(self, operands):
        return self.lhs if _is_int_constant(operands[1], 0) else None


class _FloatBinaryOp(_BinaryOp):
    traits = (Pure, SameOperandsAndResultType)
    assembly_format = "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"
    flags_prop = "fastmath"
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    result = result(FloatLike)
    fastmath = prop(FastMathFlagsAttr, default=FASTMATH_NONE)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        kind = self.kind

        def element(x: Attribute, y: Attribute) -> FloatAttr | None:
            if not (isinstance(x, FloatAttr) and isinstance(y, FloatAttr)):
                return None
            return FloatAttr(semantics.float_binary(kind, x.value, y.value, x.type.format), x.type)

        folded = lift2(operands[0], operands[1], self.results[0].type, element)
        if folded is not None:
            return [folded]
        if operands[0] is not None and operands[1] is not None:
            return None  # undefined on these constants (e.g. division by zero): keep the op
        simplified = self.fold_identity(operands)
        if simplified is not None:
            return [simplified]
        return self._swap_constant_to_right(operands)

    def fold_identity(self, operands: Sequence[Attribute | None]) -> Attribute | Value | None:
        return None


class AddFOp(_FloatBinaryOp):
    name = "arith.addf"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        # x + -0.0 == x for every x (x + +0.0 is not: -0.0 + 0.0 = +0.0).
        return self.lhs if _is_float_constant(operands[1], 0.0, negative_zero=True) else None


class SubFOp(_FloatBinaryOp):
    name = "arith.subf"

    def fold_identity(self, operands):
        return self.lhs if _is_float_constant(operands[1], 0.0, negative_zero=False) else None


class MulFOp(_FloatBinaryOp):
    name = "arith.mulf"
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        return self.lhs if _is_float_constant(operands[1], 1.0) else None


class DivFOp(_FloatBinaryOp):
    name = "arith.divf"

    def fold_identity(self, operands):
        return self.lhs if _is_float_constant(operands[1], 1.0) else None


class RemFOp(_FloatBinaryOp):
    name = "arith.remf"


class _FloatMinMaxOp(_FloatBinaryOp):
    traits = (Pure, Commutative, SameOperandsAndResultType)

    def fold_identity(self, operands):
        return self.lhs if self.lhs is self.rhs else None


class MaximumFOp(_FloatMinMaxOp):
    name = "arith.maximumf"


class MinimumFOp(_FloatMinMaxOp):
    name = "arith.minimumf"


class MaxNumFOp(_FloatMinMaxOp):
    name = "arith.maxnumf"


class MinNumFOp(_FloatMinMaxOp):
    name = "arith.minnumf"


def _negate(a: Attribute) -> FloatAttr | None:
    """-a by its sign bit (as MLIR's APFloat negation: NaNs and zeros flip too)."""
    if not isinstance(a, FloatAttr):
        return None
    return FloatAttr.from_bits(a.bits ^ (1 << (a.type.format.width - 1)), a.type)


class UnaryFloatOp(Operation):
    """A pure one-operand float op with fast-math flags: ``%r = <name> %x fastmath<f> : t``.

    The shape shared by ``arith.negf`` and ``math.*`` (upstream's syntax); a subclass names
    itself and gives ``fold_constant``, the elementwise fold of a constant operand.
    """

    assembly_format = "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"
    traits = (Pure, SameOperandsAndResultType)
    operand = operand(FloatLike)
    result = result(FloatLike)
    fastmath = prop(FastMathFlagsAttr, default=FASTMATH_NONE)

    @staticmethod
    def fold_constant(a: Attribute) -> Attribute | None:
        raise NotImplementedError

    def __init__(
        self, value: Value, fastmath: FastMathFlagsAttr | None = None, loc: Location | None = None
    ):
        props = None if fastmath is None else {"fastmath": fastmath}
        super().__init__(operands=[value], result_types=[value.type], properties=props, loc=loc)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        folded = lift1(operands[0], self.results[0].type, type(self).fold_constant)
        return None if folded is None else [folded]


class NegFOp(UnaryFloatOp):
    """``%r = arith.negf %x : f32``; ``-(-x)`` folds to ``x``."""

    name = "arith.negf"
    fold_constant = staticmethod(_negate)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        folded = super().fold(operands)
        if folded is not None:
            return folded
        inner = self.operand.defining_op
        if isinstance(inner, NegFOp):
            return [inner.operand]
        return None


# ---------------------------------------------------------------------------------------------
# comparisons and select
# ---------------------------------------------------------------------------------------------


def _i1_like(t: Type) -> Type:
    return VectorType(t.shape, i1, t.scalable) if isinstance(t, VectorType) else i1


class _CmpOp(Operation):
    predicates: ClassVar[type[Any]]
    lhs: Any
    rhs: Any
    predicate: Any

    def __init__(self, predicate: Any, lhs: Value, rhs: Value, loc: Location | None = None):
        if isinstance(predicate, str):
            predicate = self.predicates[predicate]
        super().__init__(
            operands=[lhs, rhs],
            result_types=[_i1_like(lhs.type)],
            properties={"predicate": IntegerAttr(int(predicate), i64)},
            loc=loc,
        )

    @property
    def predicate_enum(self) -> Any:
        return self.predicates(self.predicate.value)

    def verify_(self) -> None:
        pred = self.predicate
        if pred.type is not i64 or pred.value not in {int(p) for p in self.predicates}:
            raise VerifyError(f"invalid predicate {pred.text}")
        want = _i1_like(self.lhs.type)
        if self.results[0].type is not want:
            raise VerifyError(
                f"result type must be '{want.text}' for operands of type '{self.lhs.type.text}'"
            )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(f" {self.predicate_enum.name}, ")
        p.print_operands(self.operands)
        elided = ["predicate"]
        fm = self.properties.get("fastmath")
        if isinstance(fm, FastMathFlagsAttr):
            elided.append("fastmath")
            if not fm.is_none:
                p.write(f" fastmath<{fm.keyword_text()}>")
        p.print_attr_dict(self, elided)
        p.write(f" : {self.lhs.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        at = p.pos
        word = p.parse_keyword()
        if word not in cls.predicates.__members__:
            names = ", ".join(cls.predicates.__members__)
            raise p.error(
                f"unknown predicate '{word}' for '{cls.name}'; expected one of {names}", at
            )
        p.expect(",")
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        props: dict[str, Attribute] = {"predicate": IntegerAttr(int(cls.predicates[word]), i64)}
        if p.accept("fastmath"):
            p.expect("<")
            props["fastmath"] = FastMathFlagsAttr.parse_body(p)
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        values = p.resolve_operands([a, b], [t, t])
        return cls.create(values, [_i1_like(t)], properties=props, attributes=attrs, loc=p.loc)


class CmpIOp(_CmpOp):
    """``%b = arith.cmpi slt, %x, %y : i32``."""

    name = "arith.cmpi"
    traits = (Pure, SameTypeOperands)
    predicates = CmpIPredicate
    predicate = prop(IntegerAttr)
    lhs = operand(SignlessIntegerLike)
    rhs = operand(SignlessIntegerLike)
    result = result(BoolLike)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        pred = self.predicate_enum
        t = self.results[0].type

        def element(x: Attribute, y: Attribute) -> IntegerAttr | None:
            width = _scalar_width(x.type) if isinstance(x, IntegerAttr) else None
            if width is None or not isinstance(y, IntegerAttr):
                return None
            holds = semantics.int_compare(pred, x.unsigned_value, y.unsigned_value, width)
            return IntegerAttr(int(holds), i1)

        folded = lift2(operands[0], operands[1], t, element)
        if folded is not None:
            return [folded]
        if self.lhs is self.rhs:
            holds = pred in (
                CmpIPredicate.eq,
                CmpIPredicate.sle,
                CmpIPredicate.sge,
                CmpIPredicate.ule,
                CmpIPredicate.uge,
            )
            return [_int_splat(int(holds), t)]
        if operands[0] is not None and operands[1] is None:
            # Constant to the right, with the mirrored predicate (in place).
            x, y = self.operands
            self.set_operand(0, y)
            self.set_operand(1, x)
            self.predicate = IntegerAttr(int(pred.swapped()), i64)
            return [self.results[0]]
        return None


class CmpFOp(_CmpOp):
    """``%b = arith.cmpf olt, %x, %y : f32``."""

    name = "arith.cmpf"
    traits = (Pure, SameTypeOperands)
    predicates = CmpFPredicate
    predicate = prop(IntegerAttr)
    fastmath = prop(FastMathFlagsAttr, default=FASTMATH_NONE)
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    result = result(BoolLike)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        pred = self.predicate_enum
        t = self.results[0].type

        def element(x: Attribute, y: Attribute) -> IntegerAttr | None:
            if not (isinstance(x, FloatAttr) and isinstance(y, FloatAttr)):
                return None
            return IntegerAttr(int(semantics.float_compare(pred, x.value, y.value)), i1)

        folded = lift2(operands[0], operands[1], t, element)
        if folded is not None:
            return [folded]
        if pred in (CmpFPredicate.false, CmpFPredicate.true):
            return [_int_splat(int(pred is CmpFPredicate.true), t)]
        return None


class SelectOp(Operation):
    """``%r = arith.select %cond, %a, %b : i32`` (``: vector<4xi1>, vector<4xi32>`` for masks)."""

    name = "arith.select"
    traits = (Pure,)
    condition = operand(BoolLike)
    true_value = operand()
    false_value = operand()
    result = result()

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import SelectNotCondition

        return (SelectNotCondition(),)

    def __init__(
        self, condition: Value, true_value: Value, false_value: Value, loc: Location | None = None
    ):
        super().__init__(
            operands=[condition, true_value, false_value], result_types=[true_value.type], loc=loc
        )

    def verify_(self) -> None:
        t = self.results[0].type
        if self.true_value.type is not t or self.false_value.type is not t:
            raise VerifyError(
                "failed to verify that all of {true_value, false_value, result} have same type"
            )
        ct = self.condition.type
        if isinstance(ct, VectorType) and (
            not isinstance(t, VectorType) or ct.shape != t.shape or ct.scalable != t.scalable
        ):
            raise VerifyError(
                f"expected condition type to have the same shape as the result type, "
                f"expected '{_i1_like(t).text}', but got '{ct.text}'"
            )

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        cond = operands[0]
        if isinstance(cond, IntegerAttr):
            return [self.true_value if cond.value else self.false_value]
        if isinstance(cond, DenseElementsAttr):
            if cond.is_splat:
                return [self.true_value if cond.elements[0].value else self.false_value]
            picked = select_elements(cond, operands[1], operands[2], self.results[0].type)
            if picked is not None:
                return [picked]
        if self.true_value is self.false_value:
            return [self.true_value]
        if (
            self.results[0].type is i1
            and _is_int_constant(operands[1], 1)
            and _is_int_constant(operands[2], 0)
        ):
            return [self.condition]
        return None

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.operands)
        p.print_attr_dict(self)
        p.write(" : ")
        if isinstance(self.condition.type, VectorType):
            p.write(f"{self.condition.type.text}, ")
        p.print_type(self.results[0].type)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> SelectOp:
        c = p.parse_operand()
        p.expect(",")
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        attrs = p.parse_optional_attr_dict()
        types = p.parse_colon_type_list()
        if len(types) > 2:
            raise p.error("expected at most two types (condition, result)")
        ct = types[0] if len(types) == 2 else i1
        t = types[-1]
        values = p.resolve_operands([c, a, b], [ct, t, t])
        return cls.create(values, [t], attributes=attrs, loc=p.loc)


# ---------------------------------------------------------------------------------------------
# casts
# ---------------------------------------------------------------------------------------------


class _CastOp(Operation):
    """``%r = arith.<cast> %x : t1 to t2``."""

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"
    traits = (Pure, SameOperandsAndResultShape)
    input: Any

    def __init__(self, value: Value, result_type: Type, loc: Location | None = None):
        super().__init__(operands=[value], result_types=[result_type], loc=loc)

    @property
    def src_type(self) -> Type:
        return element_type(self.input.type)

    @property
    def dst_type(self) -> Type:
        return element_type(self.results[0].type)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        folded = lift1(operands[0], self.results[0].type, self.fold_element)
        if folded is not None:
            return [folded]
        return self.fold_chain()

    def fold_element(self, a: Attribute) -> Attribute | None:
        """The cast of one constant element (of ``src_type``) to ``dst_type``; None: no fold."""
        return None

    def fold_chain(self) -> Sequence[Attribute | Value] | None:
        """Folds that look through the operand's defining op (cast of a cast)."""
        return None


def _widths(op: _CastOp) -> tuple[int, int]:
    return bit_width(op.src_type) or 0, bit_width(op.dst_type) or 0


class _IntExtTruncOp(_CastOp):
    input = operand(SignlessIntegerLike)
    result = result(SignlessIntegerLike)
    wider: ClassVar[bool] = True

    def verify_(self) -> None:
        src, dst = _widths(self)
        for t in (self.src_type, self.dst_type):
            if not isinstance(t, IntegerType):
                raise VerifyError(f"operand and result must be integers, got '{t.text}'")
        if self.wider and dst <= src:
            raise VerifyError(
                f"result type '{self.results[0].type.text}' must be wider than operand type '{self.input.type.text}'"
            )
        if not self.wider and dst >= src:
            raise VerifyError(
                f"result type '{self.results[0].type.text}' must be shorter than operand type '{self.input.type.text}'"
            )


def _int_cast_element(op: _CastOp, a: Attribute, signedness: str) -> IntegerAttr | None:
    bits = _int_bits(a)
    if bits is None:
        return None
    src, dst = _widths(op)
    return _int_attr(semantics.int_cast(signedness, bits, src, dst), op.dst_type)


class ExtSIOp(_IntExtTruncOp):
    name = "arith.extsi"

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import ExtOfExt

        return (ExtOfExt(),)

    def fold_element(self, a):
        return _int_cast_element(self, a, "signed")


class ExtUIOp(_IntExtTruncOp):
    name = "arith.extui"

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import ExtOfExt

        return (ExtOfExt(),)

    def fold_element(self, a):
        return _int_cast_element(self, a, "unsigned")


class TruncIOp(_IntExtTruncOp):
    name = "arith.trunci"
    assembly_format = (
        "$input (`overflow` `` $overflowFlags^)? attr-dict `:` type($input) `to` type($result)"
    )
    wider = False
    overflowFlags = opt_prop(IntegerOverflowFlagsAttr)

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        from .canonicalize import TruncOfTrunc

        return (TruncOfTrunc(),)

    def fold_element(self, a):
        return _int_cast_element(self, a, "unsigned")

    def fold_chain(self):
        inner = self.input.defining_op
        if isinstance(inner, (ExtSIOp, ExtUIOp)) and inner.input.type is self.results[0].type:
            return [inner.input]
        return None


class _IndexCastBase(_CastOp):
    input = operand(_IndexLike)
    result = result(_IndexLike)
    signedness: ClassVar[str] = "signed"

    def verify_(self) -> None:
        a, b = self.src_type, self.dst_type
        ok = (isinstance(a, IndexType) and isinstance(b, IntegerType) and b.is_signless) or (
            isinstance(b, IndexType) and isinstance(a, IntegerType) and a.is_signless
        )
        if not ok:
            raise VerifyError(
                f"operand type '{self.input.type.text}' and result type "
                f"'{self.results[0].type.text}' are cast incompatible"
            )

    def fold_element(self, a):
        return _int_cast_element(self, a, self.signedness)

    def fold_chain(self):
        inner = self.input.defining_op
        if type(inner) is type(self) and inner.input.type is self.results[0].type:
            return [inner.input]
        return None


class IndexCastOp(_IndexCastBase):
    name = "arith.index_cast"


class IndexCastUIOp(_IndexCastBase):
    name = "arith.index_castui"
    signedness = "unsigned"


class _IntToFloatOp(_CastOp):
    input = operand(SignlessIntegerLike)
    result = result(FloatLike)
    signed: ClassVar[bool] = True

    def verify_(self) -> None:
        if not isinstance(self.src_type, IntegerType):
            raise VerifyError(f"operand must be an integer, got '{self.input.type.text}'")

    def fold_element(self, a):
        bits = _int_bits(a)
        t = self.dst_type
        if bits is None or not isinstance(t, FloatType):
            return None
        value = to_signed(bits, _widths(self)[0]) if self.signed else bits
        return FloatAttr(semantics.int_to_float(value, t.format), t)


class SIToFPOp(_IntToFloatOp):
    name = "arith.sitofp"


class UIToFPOp(_IntToFloatOp):
    name = "arith.uitofp"
    signed = False


class _FloatToIntOp(_CastOp):
    input = operand(FloatLike)
    result = result(SignlessIntegerLike)
    signed: ClassVar[bool] = True

    def verify_(self) -> None:
        if not isinstance(self.dst_type, IntegerType):
            raise VerifyError(f"result must be an integer, got '{self.results[0].type.text}'")

    def fold_element(self, a):
        t = self.dst_type
        if not isinstance(a, FloatAttr) or not isinstance(t, IntegerType):
            return None
        bits = semantics.float_to_int(a.value, t.width, self.signed)
        return None if bits is None else _int_attr(bits, t)


class FPToSIOp(_FloatToIntOp):
    name = "arith.fptosi"


class FPToUIOp(_FloatToIntOp):
    name = "arith.fptoui"
    signed = False


class ExtFOp(_CastOp):
    name = "arith.extf"
    input = operand(FloatLike)
    result = result(FloatLike)
    fastmath = opt_prop(FastMathFlagsAttr)

    def verify_(self) -> None:
        src, dst = _widths(self)
        if dst <= src and not (self.src_type.text == "f16" and self.dst_type.text == "bf16"):
            raise VerifyError(
                f"result type '{self.results[0].type.text}' must be wider than operand type '{self.input.type.text}'"
            )

    def fold_element(self, a):
        t = self.dst_type
        if isinstance(a, FloatAttr) and isinstance(t, FloatType):
            return FloatAttr(a.value, t)
        return None


class TruncFOp(_CastOp):
    name = "arith.truncf"
    input = operand(FloatLike)
    result = result(FloatLike)
    fastmath = opt_prop(FastMathFlagsAttr)

    def verify_(self) -> None:
        src, dst = _widths(self)
        if dst >= src and not (self.src_type.text == "bf16" and self.dst_type.text == "f16"):
            raise VerifyError(
                f"result type '{self.results[0].type.text}' must be shorter than operand type '{self.input.type.text}'"
            )

    def fold_element(self, a):
        t = self.dst_type
        if isinstance(a, FloatAttr) and isinstance(t, FloatType):
            return FloatAttr(a.value, t)
        return None


class BitcastOp(_CastOp):
    name = "arith.bitcast"
    input = operand(_FloatOrIntLike)
    result = result(_FloatOrIntLike)

    def verify_(self) -> None:
        src, dst = _widths(self)
        if (
            src != dst
            or isinstance(self.src_type, IndexType)
            or isinstance(self.dst_type, IndexType)
        ):
            raise VerifyError(
                f"operand type '{self.input.type.text}' and result type "
                f"'{self.results[0].type.text}' are cast incompatible"
            )

    def fold(self, operands):
        if self.input.type is self.results[0].type:
            return [self.input]
        return super().fold(operands)

    def fold_chain(self):
        inner = self.input.defining_op
        if isinstance(inner, BitcastOp) and inner.input.type is self.results[0].type:
            return [inner.input]
        return None

    def fold_element(self, a):
        t = self.dst_type
        if isinstance(a, IntegerAttr):
            bits = a.unsigned_value
        elif isinstance(a, FloatAttr):
            bits = a.bits
        else:
            return None
        if isinstance(t, FloatType):
            return FloatAttr.from_bits(bits, t)
        if isinstance(t, IntegerType):
            return IntegerAttr(bits, t)
        return None


ALL_OPS: list[type[Operation]] = [
    ConstantOp,
    AddIOp,
    SubIOp,
    MulIOp,
    DivUIOp,
    DivSIOp,
    CeilDivUIOp,
    CeilDivSIOp,
    FloorDivSIOp,
    RemUIOp,
    RemSIOp,
    MinSIOp,
    MaxSIOp,
    MinUIOp,
    MaxUIOp,
    AndIOp,
    OrIOp,
    XOrIOp,
    ShLIOp,
    ShRUIOp,
    ShRSIOp,
    AddFOp,
    SubFOp,
    MulFOp,
    DivFOp,
    RemFOp,
    MaximumFOp,
    MinimumFOp,
    MaxNumFOp,
    MinNumFOp,
    NegFOp,
    CmpIOp,
    CmpFOp,
    SelectOp,
    ExtSIOp,
    ExtUIOp,
    TruncIOp,
    IndexCastOp,
    IndexCastUIOp,
    SIToFPOp,
    UIToFPOp,
    FPToSIOp,
    FPToUIOp,
    ExtFOp,
    TruncFOp,
    BitcastOp,
]
