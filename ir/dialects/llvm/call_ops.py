"""LLVM dialect calls: ``llvm.inline_asm`` (exact PTX on the GPU) and ``llvm.call_intrinsic``."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import opt_prop, opt_result, prop, var_operand
from ...core.operation import Operation
from ...core.types import FunctionType, Type, i32, i64
from ...core.values import Value
from .attributes import FASTMATH_NONE, AsmDialect, LLVMFastmathFlagsAttr, TailCallKindAttr
from .common import I64Attr, LLVMType, enum_value

_I32Array = Constraint(
    lambda a: isinstance(a, DenseArrayAttr) and a.element_type is i32, "i32 dense array"
)


def _print_signature(p: OpAsmPrinter, operands: Sequence[Value], results: Sequence[Value]) -> None:
    p.write(" : ")
    p.print_type(FunctionType([v.type for v in operands], [r.type for r in results]))


class InlineAsmOp(Operation):
    """``%r = llvm.inline_asm has_side_effects "mov.u32 $0, %laneid;", "=r" : () -> i32``.

    ``$N`` in the string names operand N of the constraint list (outputs first); several
    outputs come back as one ``!llvm.struct``.
    """

    name = "llvm.inline_asm"
    operands_ = var_operand(LLVMType)
    res = opt_result(LLVMType)
    asm_string = prop(StringAttr)
    constraints = prop(StringAttr)
    has_side_effects = opt_prop(UnitAttr)
    is_align_stack = opt_prop(UnitAttr)
    tail_call_kind = opt_prop(TailCallKindAttr)
    asm_dialect = opt_prop(I64Attr)
    operand_attrs = opt_prop(ArrayAttr)

    def __init__(
        self,
        asm: str,
        constraints: str,
        operands: Sequence[Value] = (),
        result_type: Type | None = None,
        *,
        has_side_effects: bool = False,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {
            "asm_string": StringAttr(asm),
            "constraints": StringAttr(constraints),
        }
        if has_side_effects:
            props["has_side_effects"] = UnitAttr()
        super().__init__(
            operands=[list(operands)],
            result_types=[[result_type] if result_type is not None else []],
            properties=props,
            loc=loc,
        )

    def verify_(self) -> None:
        if self.asm_dialect is not None:
            enum_value(AsmDialect, self.asm_dialect, "asm_dialect")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.has_side_effects is not None:
            p.write(" has_side_effects")
        if self.is_align_stack is not None:
            p.write(" is_align_stack")
        if self.tail_call_kind is not None:
            p.write(f" tail_call_kind = {self.tail_call_kind.text}")
        if self.asm_dialect is not None:
            dialect = enum_value(AsmDialect, self.asm_dialect, "asm_dialect")
            p.write(f" asm_dialect = {dialect.name}")
        if self.operand_attrs is not None:
            p.write(f" operand_attrs = {self.operand_attrs.text}")
        p.write(f" {self.asm_string.text}, {self.constraints.text}")
        if self.operands:
            p.write(" ")
            p.print_operands(self.operands)
        p.print_attr_dict(
            self,
            elided=(
                "has_side_effects",
                "is_align_stack",
                "tail_call_kind",
                "asm_dialect",
                "operand_attrs",
                "asm_string",
                "constraints",
            ),
        )
        _print_signature(p, self.operands, self.results)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> InlineAsmOp:
        props: dict[str, Attribute] = {}
        if p.accept("has_side_effects"):
            props["has_side_effects"] = UnitAttr()
        if p.accept("is_align_stack"):
            props["is_align_stack"] = UnitAttr()
        if p.accept("tail_call_kind"):
            p.expect("=")
            at = p.pos
            kind = p.parse_attribute()
            if not isinstance(kind, TailCallKindAttr):
                raise p.error("expected '#llvm.tailcallkind<...>'", at)
            props["tail_call_kind"] = kind
        if p.accept("asm_dialect"):
            p.expect("=")
            at = p.pos
            word = p.parse_keyword()
            if word not in AsmDialect.__members__:
                raise p.error(f"unknown asm dialect '{word}'; expected att or intel", at)
            props["asm_dialect"] = IntegerAttr(int(AsmDialect[word]), i64)
        if p.accept("operand_attrs"):
            p.expect("=")
            props["operand_attrs"] = p.parse_attribute()
        props["asm_string"] = StringAttr(p.parse_string())
        p.expect(",")
        props["constraints"] = StringAttr(p.parse_string())
        operands = p.parse_operand_list()
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType) or len(ftype.results) > 1:
            raise p.error("expected '(operand types) -> result type' with at most one result", at)
        values = p.resolve_operands(operands, ftype.inputs, at)
        return cls.create(values, ftype.results, properties=props, attributes=attrs, loc=p.loc)


class CallIntrinsicOp(Operation):
    """``%r = llvm.call_intrinsic "llvm.fma.f32"(%a, %b, %c) : (f32, f32, f32) -> f32``.

    The intrinsic's full (mangled) name; operand bundles are not supported.
    """

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "llvm.call_intrinsic"
    args = var_operand(LLVMType)
    op_bundle_operands = var_operand()
    res = opt_result(LLVMType)
    intrin = prop(StringAttr)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)
    op_bundle_sizes = prop(_I32Array, default=DenseArrayAttr(i32, ()))
    op_bundle_tags = opt_prop(ArrayAttr)

    def __init__(
        self,
        intrin: str,
        args: Sequence[Value] = (),
        result_type: Type | None = None,
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[list(args), []],
            result_types=[[result_type] if result_type is not None else []],
            properties={"intrin": StringAttr(intrin)},
            loc=loc,
        )

    def verify_(self) -> None:
        if not self.intrin.value.startswith("llvm."):
            raise VerifyError(f"intrinsic name must start with 'llvm.', got '{self.intrin.value}'")
        if self.op_bundle_operands or len(self.op_bundle_sizes):
            raise VerifyError("not supported: operand bundles")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(f" {self.intrin.text}(")
        p.print_operands(self.args)
        p.write(")")
        _print_signature(p, self.args, self.results)
        elided = ["intrin", "op_bundle_sizes", "operandSegmentSizes"]
        if self.fastmathFlags.is_none:
            elided.append("fastmathFlags")
        p.print_attr_dict(self, elided=elided)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> CallIntrinsicOp:
        intrin = p.parse_string()
        operands = p.parse_operand_list("(")
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType) or len(ftype.results) > 1:
            raise p.error("expected '(argument types) -> result type' with at most one result", at)
        values = p.resolve_operands(operands, ftype.inputs, at)
        attrs = p.parse_optional_attr_dict()
        props: dict[str, Attribute] = {
            "intrin": StringAttr(intrin),
            "op_bundle_sizes": DenseArrayAttr(i32, ()),
            "operandSegmentSizes": DenseArrayAttr(i32, (len(values), 0)),
        }
        for k in [k for k in attrs if k in cls._def.props]:  # type: ignore[union-attr]
            props[k] = attrs.pop(k)
        return cls.create(values, ftype.results, properties=props, attributes=attrs, loc=p.loc)


CALL_OPS: list[type[Operation]] = [InlineAsmOp, CallIntrinsicOp]
