"""LLVM dialect value ops: constants, undef/poison/zero, aggregate and vector element access."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, DenseArrayAttr, FloatAttr, IntegerAttr
from ...core.constraints import Constraint
from ...core.dense import DenseElementsAttr
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, prop, result
from ...core.operation import Operation
from ...core.traits import ConstantLike, Pure
from ...core.types import Type, VectorType, i64
from ...core.values import Value
from .common import LLVMType, SignlessInteger
from .types import LLVMArrayType, LLVMStructType

_I64Array = Constraint(
    lambda a: isinstance(a, DenseArrayAttr) and a.element_type is i64, "i64 dense array"
)


class ConstantOp(Operation):
    """``%c = llvm.mlir.constant(42 : i32) : i32``, or of a vector:
    ``llvm.mlir.constant(dense<1.0> : vector<4xf32>) : vector<4xf32>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.mlir.constant"
    assembly_format = "`(` $value `)` attr-dict `:` type($res)"
    traits = (Pure, ConstantLike)
    value = prop((IntegerAttr, FloatAttr, DenseElementsAttr))
    res = result(LLVMType)

    def __init__(
        self, value: IntegerAttr | FloatAttr | DenseElementsAttr, loc: Location | None = None
    ):
        super().__init__(result_types=[value.type], properties={"value": value}, loc=loc)

    def verify_(self) -> None:
        if self.value.type is not self.res.type:
            raise VerifyError(
                f"value of type '{self.value.type.text}' does not match the result type "
                f"'{self.res.type.text}'"
            )

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        return [self.value]


class _NullaryValueOp(Operation):
    """``%u = llvm.mlir.<undef|poison|zero> : T``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    assembly_format = "attr-dict `:` type($res)"

    traits = (Pure,)
    res = result(LLVMType)

    def __init__(self, type: Type, loc: Location | None = None):
        super().__init__(result_types=[type], loc=loc)


class UndefOp(_NullaryValueOp):
    name = "llvm.mlir.undef"


class PoisonOp(_NullaryValueOp):
    name = "llvm.mlir.poison"


class ZeroOp(_NullaryValueOp):
    """The zero value of a type (``null`` for pointers, ``zeroinitializer`` for aggregates)."""

    name = "llvm.mlir.zero"


def indexed_type(container: Type, position: Sequence[int]) -> Type:
    """The type at ``position`` inside a struct/array (ValueError naming the bad step)."""
    t = container
    for depth, i in enumerate(position):
        if isinstance(t, LLVMStructType):
            if not 0 <= i < len(t.body):
                raise ValueError(f"position {i} at depth {depth} is out of range for '{t.text}'")
            t = t.body[i]
        elif isinstance(t, LLVMArrayType):
            if not 0 <= i < t.size:
                raise ValueError(f"position {i} at depth {depth} is out of range for '{t.text}'")
            t = t.element_type
        else:
            raise ValueError(f"'{t.text}' at depth {depth} is not a struct or array")
    return t


def _print_position(position: DenseArrayAttr) -> str:
    return "[" + ", ".join(str(v) for v in position.values) + "]"


def _parse_position(p: OpAsmParser) -> DenseArrayAttr:
    values = p.parse_comma_separated("[", p.parse_integer, "in position")
    return DenseArrayAttr(i64, values)


def _check_position(op: Operation, container: Type, position: DenseArrayAttr, want: Type) -> None:
    if not position.values:
        raise VerifyError("expected a non-empty position")
    try:
        found = indexed_type(container, position.values)
    except ValueError as e:
        raise VerifyError(str(e)) from None
    if found is not want:
        raise VerifyError(
            f"type '{want.text}' does not match the type '{found.text}' at position "
            f"{_print_position(position)} of '{container.text}'"
        )


class ExtractValueOp(Operation):
    """``%x = llvm.extractvalue %s[0, 1] : !llvm.struct<(i32, struct<(f32, f32)>)>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.extractvalue"
    traits = (Pure,)
    container = operand(LLVMType)
    res = result(LLVMType)
    position = prop(_I64Array)

    def __init__(self, container: Value, position: Sequence[int], loc: Location | None = None):
        t = indexed_type(container.type, position)
        super().__init__(
            operands=[container],
            result_types=[t],
            properties={"position": DenseArrayAttr(i64, position)},
            loc=loc,
        )

    def verify_(self) -> None:
        _check_position(self, self.container.type, self.position, self.res.type)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.container)
        p.write(_print_position(self.position))
        p.print_attr_dict(self, elided=("position",))
        p.write(f" : {self.container.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> ExtractValueOp:
        c = p.parse_operand()
        position = _parse_position(p)
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        t = p.parse_colon_type()
        try:
            res = indexed_type(t, position.values)
        except ValueError as e:
            raise p.error(str(e), at) from None
        return cls.create(
            [p.resolve_operand(c, t)],
            [res],
            properties={"position": position},
            attributes=attrs,
            loc=p.loc,
        )


class InsertValueOp(Operation):
    """``%s2 = llvm.insertvalue %v, %s[0] : !llvm.struct<(i32, f32)>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.insertvalue"
    traits = (Pure,)
    container = operand(LLVMType)
    value = operand(LLVMType)
    res = result(LLVMType)
    position = prop(_I64Array)

    def __init__(
        self, container: Value, value: Value, position: Sequence[int], loc: Location | None = None
    ):
        super().__init__(
            operands=[container, value],
            result_types=[container.type],
            properties={"position": DenseArrayAttr(i64, position)},
            loc=loc,
        )

    def verify_(self) -> None:
        if self.res.type is not self.container.type:
            raise VerifyError("result type must match the container type")
        _check_position(self, self.container.type, self.position, self.value.type)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.container)
        p.write(_print_position(self.position))
        p.print_attr_dict(self, elided=("position",))
        p.write(f" : {self.container.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> InsertValueOp:
        v = p.parse_operand()
        p.expect(",")
        c = p.parse_operand()
        position = _parse_position(p)
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        t = p.parse_colon_type()
        try:
            vt = indexed_type(t, position.values)
        except ValueError as e:
            raise p.error(str(e), at) from None
        return cls.create(
            [p.resolve_operand(c, t), p.resolve_operand(v, vt)],
            [t],
            properties={"position": position},
            attributes=attrs,
            loc=p.loc,
        )


def _check_vector(op: Operation, vector: Type, element: Type) -> None:
    if not isinstance(vector, VectorType) or len(vector.shape) != 1:
        raise VerifyError(f"expected a 1-D vector, got '{vector.text}'")
    if vector.element_type is not element:
        raise VerifyError(
            f"element type '{element.text}' does not match the vector '{vector.text}'"
        )


class ExtractElementOp(Operation):
    """``%e = llvm.extractelement %v[%i : i32] : vector<4xf32>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.extractelement"
    traits = (Pure,)
    vector = operand(LLVMType)
    position = operand(SignlessInteger)
    res = result(LLVMType)

    def __init__(self, vector: Value, position: Value, loc: Location | None = None):
        t = vector.type
        super().__init__(
            operands=[vector, position],
            result_types=[t.element_type if isinstance(t, VectorType) else t],
            loc=loc,
        )

    def verify_(self) -> None:
        _check_vector(self, self.vector.type, self.res.type)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.vector)
        p.write("[")
        p.print_operand(self.position)
        p.write(f" : {self.position.type.text}]")
        p.print_attr_dict(self)
        p.write(f" : {self.vector.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> ExtractElementOp:
        v = p.parse_operand()
        p.expect("[")
        i = p.parse_operand()
        it = p.parse_colon_type()
        p.expect("]")
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        vt = p.parse_colon_type()
        if not isinstance(vt, VectorType):
            raise p.error(f"expected a vector type, got '{vt.text}'", at)
        return cls.create(
            [p.resolve_operand(v, vt), p.resolve_operand(i, it)],
            [vt.element_type],
            attributes=attrs,
            loc=p.loc,
        )


class InsertElementOp(Operation):
    """``%w = llvm.insertelement %e, %v[%i : i32] : vector<4xf32>``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.insertelement"
    traits = (Pure,)
    vector = operand(LLVMType)
    value = operand(LLVMType)
    position = operand(SignlessInteger)
    res = result(LLVMType)

    def __init__(self, vector: Value, value: Value, position: Value, loc: Location | None = None):
        super().__init__(operands=[vector, value, position], result_types=[vector.type], loc=loc)

    def verify_(self) -> None:
        _check_vector(self, self.vector.type, self.value.type)
        if self.res.type is not self.vector.type:
            raise VerifyError("result type must match the vector type")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.vector)
        p.write("[")
        p.print_operand(self.position)
        p.write(f" : {self.position.type.text}]")
        p.print_attr_dict(self)
        p.write(f" : {self.vector.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> InsertElementOp:
        e = p.parse_operand()
        p.expect(",")
        v = p.parse_operand()
        p.expect("[")
        i = p.parse_operand()
        it = p.parse_colon_type()
        p.expect("]")
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        vt = p.parse_colon_type()
        if not isinstance(vt, VectorType):
            raise p.error(f"expected a vector type, got '{vt.text}'", at)
        values = [
            p.resolve_operand(v, vt),
            p.resolve_operand(e, vt.element_type),
            p.resolve_operand(i, it),
        ]
        return cls.create(values, [vt], attributes=attrs, loc=p.loc)


VALUE_OPS: list[type[Operation]] = [
    ConstantOp,
    UndefOp,
    PoisonOp,
    ZeroOp,
    ExtractValueOp,
    InsertValueOp,
    ExtractElementOp,
    InsertElementOp,
]
