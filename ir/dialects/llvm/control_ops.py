"""LLVM dialect functions and control flow: ``llvm.func``, ``llvm.call``, ``llvm.return``,
``llvm.br``, ``llvm.cond_br``, ``llvm.unreachable``, with MLIR 22's properties and custom forms
(what ``convert-func-to-llvm`` and ``convert-cf-to-llvm`` produce)::

    llvm.func @k(%a: !llvm.ptr<1> {llvm.noalias}, %n: i32) attributes {nvvm.kernel} {
      llvm.cond_br %c, ^bb1(%n : i32), ^bb2
    ^bb1(%x: i32):
      llvm.br ^bb2
    ^bb2:
      llvm.return
    }
    llvm.func internal @g(i32) -> i32
    %r = llvm.call @g(%n) : (i32) -> i32
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.asm import Argument, OpAsmParser, OpAsmPrinter
from ...core.attributes import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    dict_body_text,
)
from ...core.block import Block, Region
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.function_like import DICT_ARRAY, FLAT_SYMBOL_REF, FunctionLike
from ...core.location import Location
from ...core.opdef import (
    operand,
    opt_operand,
    opt_prop,
    prop,
    region,
    successor,
    var_operand,
    var_result,
)
from ...core.operation import Operation
from ...core.traits import IsolatedFromAbove, ReturnLike, Symbol, Terminator
from ...core.types import FunctionType, Type, i1, i32, i64
from ...core.values import Value
from .attributes import (
    FASTMATH_NONE,
    CConvAttr,
    LinkageAttr,
    LLVMFastmathFlagsAttr,
    TailCallKindAttr,
)
from .common import LLVMType
from .types import LLVMFunctionType

_FunctionTypeAttr = Constraint(
    lambda a: isinstance(a, TypeAttr) and isinstance(a.type, LLVMFunctionType),
    "LLVM function type",
)
_FlatSymbolRef = FLAT_SYMBOL_REF
_DictArray = DICT_ARRAY
_I32Array = Constraint(
    lambda a: isinstance(a, DenseArrayAttr) and a.element_type is i32, "i32 dense array"
)
_I64Attr = Constraint(lambda a: isinstance(a, IntegerAttr) and a.type is i64, "64-bit integer")

CCC = CConvAttr("ccc")
EXTERNAL = LinkageAttr("external")
TAIL_NONE = TailCallKindAttr("none")
_NO_BUNDLES = DenseArrayAttr(i32, ())


class LLVMFuncOp(FunctionLike, Operation):
    """``llvm.func [linkage] @name(%arg0: T {attrs}) -> R attributes {...} { ... }``; a
    declaration has no body."""

    name = "llvm.func"
    traits = (IsolatedFromAbove, Symbol())
    sym_name = prop(StringAttr)
    function_type = prop(_FunctionTypeAttr)
    linkage = prop(LinkageAttr, default=EXTERNAL)
    CConv = prop(CConvAttr, default=CCC)
    visibility_ = prop(_I64Attr, default=IntegerAttr(0, i64))
    sym_visibility = opt_prop(StringAttr)
    unnamed_addr = opt_prop(_I64Attr)
    arg_attrs = opt_prop(_DictArray)
    res_attrs = opt_prop(_DictArray)
    body = region()

    def __init__(
        self,
        sym_name: str,
        function_type: LLVMFunctionType,
        *,
        linkage: str = "external",
        declaration: bool = False,
        attributes: dict[str, Attribute] | None = None,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "function_type": TypeAttr(function_type),
            "linkage": LinkageAttr(linkage),
        }
        body = Region() if declaration else Region([Block(function_type.inputs)])
        super().__init__(properties=props, attributes=attributes, regions=[body], loc=loc)

    def verify_(self) -> None:
        ftype = self.type
        self.verify_attribute_arrays()
        if self.is_declaration:
            if self.linkage.value not in ("external", "extern_weak"):
                raise VerifyError(
                    "external functions must have 'external' or 'extern_weak' linkage"
                )
            return
        args = self.entry_block.args
        if len(args) != len(ftype.inputs) or any(
            a.type is not t for a, t in zip(args, ftype.inputs)
        ):
            raise VerifyError("the entry block's arguments must match the function's parameters")

    _ELIDED = (
        "sym_name",
        "function_type",
        "linkage",
        "CConv",
        "visibility_",
        "unnamed_addr",
        "arg_attrs",
        "res_attrs",
    )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        if self.linkage is not EXTERNAL:
            p.write(f"{self.linkage.value} ")
        if self.CConv is not CCC:
            p.write(f"{self.CConv.value} ")
        p.print_symbol_name(self.sym_name.value)
        ftype = self.type
        arg_attrs = list(self.arg_attrs) if self.arg_attrs is not None else []
        p.write("(")
        for i, t in enumerate(ftype.inputs):
            if i:
                p.write(", ")
            if self.is_declaration:
                p.print_type(t)
            else:
                p.print_block_argument(self.entry_block.args[i], with_type=False)
                p.write(f": {t.text}")
            attrs = arg_attrs[i] if i < len(arg_attrs) else None
            if isinstance(attrs, DictionaryAttr) and len(attrs):
                p.write(" {" + dict_body_text(attrs.entries) + "}")
            if not self.is_declaration:
                p.print_optional_location(self.entry_block.args[i].loc)
        p.write(")")
        if ftype.result is not None:
            text = ftype.result.text
            res_attrs = list(self.res_attrs) if self.res_attrs is not None else []
            if res_attrs and isinstance(res_attrs[0], DictionaryAttr) and len(res_attrs[0]):
                text = f"({text} {{{dict_body_text(res_attrs[0].entries)}}})"
            p.write(f" -> {text}")
        p.print_optional_attr_dict_with_keyword(
            {**self.attributes, **self.properties}, elided=self._ELIDED
        )
        if not self.is_declaration:
            p.write(" ")
            p.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LLVMFuncOp:
        props: dict[str, Attribute] = {}
        word = p.parse_optional_keyword(*LinkageAttr.KEYWORDS)
        if word is not None:
            props["linkage"] = LinkageAttr(word)
        word = p.parse_optional_keyword(*CConvAttr.KEYWORDS)
        if word is not None:
            props["CConv"] = CConvAttr(word)
        name = p.parse_symbol_name()
        args: list[Argument] = []
        inputs: list[Type] = []
        arg_attrs: list[DictionaryAttr] = []
        named: bool | None = None
        p.expect("(", "to start function arguments")
        if not p.accept(")"):
            while True:
                at = p.pos
                if p.peek() == "...":
                    raise p.error("not supported: variadic LLVM functions", at)
                is_named = p.peek()[:1] == "%"
                if named is None:
                    named = is_named
                elif named != is_named:
                    raise p.error("expected SSA identifier" if named else "expected type", at)
                if is_named:
                    arg = p.parse_argument(with_type=True, with_attrs=True)
                    args.append(arg)
                    assert arg.type is not None
                    inputs.append(arg.type)
                    arg_attrs.append(DictionaryAttr(arg.attrs or {}))
                else:
                    inputs.append(p.parse_type())
                    arg_attrs.append(DictionaryAttr(p.parse_optional_attr_dict()))
                    p.parse_optional_location()
                if not p.accept(","):
                    break
            p.expect(")", "to end function arguments")
        result: Type | None = None
        res_attrs: DictionaryAttr | None = None
        if p.accept("->"):
            if p.accept("("):  # `-> (T {attrs})`: a result with attributes
                result = p.parse_type()
                res_attrs = DictionaryAttr(p.parse_optional_attr_dict())
                p.expect(")", "to end the function result")
            else:
                result = p.parse_type()
        attrs = p.parse_optional_attr_dict_with_keyword()
        at = p.pos
        try:
            ftype = LLVMFunctionType(inputs, result)
        except ValueError as e:
            raise p.error(str(e), at) from None
        props["sym_name"] = StringAttr(name)
        props["function_type"] = TypeAttr(ftype)
        if any(len(d) for d in arg_attrs):
            props["arg_attrs"] = ArrayAttr(arg_attrs)
        if res_attrs is not None and len(res_attrs):
            props["res_attrs"] = ArrayAttr([res_attrs])
        body = Region()
        if p.peek() == "{":
            if inputs and not named:
                raise p.error("expected named arguments (%name: type) for a function with a body")
            body = p.parse_region(args)
        return cls.create(properties=props, attributes=attrs, regions=[body], loc=p.loc)


class LLVMCallOp(Operation):
    """``%r = llvm.call @f(%a) : (i32) -> i32`` (direct calls; no operand bundles)."""

    name = "llvm.call"
    callee_operands = var_operand(LLVMType)
    op_bundle_operands = var_operand()
    res = var_result(LLVMType)
    callee = prop(_FlatSymbolRef)
    CConv = prop(CConvAttr, default=CCC)
    TailCallKind = prop(TailCallKindAttr, default=TAIL_NONE)
    fastmathFlags = prop(LLVMFastmathFlagsAttr, default=FASTMATH_NONE)
    op_bundle_sizes = prop(_I32Array, default=_NO_BUNDLES)
    var_callee_type = opt_prop(TypeAttr)
    arg_attrs = opt_prop(_DictArray)
    res_attrs = opt_prop(_DictArray)

    def __init__(
        self,
        callee: str,
        args: Sequence[Value],
        result_type: Type | None,
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[list(args), []],
            result_types=[[result_type] if result_type is not None else []],
            properties={"callee": SymbolRefAttr(callee)},
            loc=loc,
        )

    def verify_(self) -> None:
        if len(self.results) > 1:
            raise VerifyError("expected at most one result")
        if self.op_bundle_operands or len(self.op_bundle_sizes):
            raise VerifyError("not supported: operand bundles")
        if self.var_callee_type is not None:
            raise VerifyError("not supported: variadic calls")

    _ELIDED = ("callee", "CConv", "TailCallKind", "op_bundle_sizes", "operandSegmentSizes")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        if self.CConv is not CCC:
            p.write(f"{self.CConv.value} ")
        if self.TailCallKind is not TAIL_NONE:
            p.write(f"{self.TailCallKind.value} ")
        p.print_symbol_name(self.callee.root)
        p.write("(")
        p.print_operands(self.callee_operands)
        p.write(")")
        elided = self._ELIDED + (("fastmathFlags",) if self.fastmathFlags.is_none else ())
        p.print_attr_dict(self, elided)
        ins = ", ".join(v.type.text for v in self.callee_operands)
        out = self.results[0].type.text if self.results else "()"
        p.write(f" : ({ins}) -> {out}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LLVMCallOp:
        props: dict[str, Attribute] = {}
        word = p.parse_optional_keyword(*CConvAttr.KEYWORDS)
        if word is not None:
            props["CConv"] = CConvAttr(word)
        word = p.parse_optional_keyword(*TailCallKindAttr.KEYWORDS)
        if word is not None:
            props["TailCallKind"] = TailCallKindAttr(word)
        if p.peek()[:1] != "@":
            raise p.error("not supported: indirect calls")
        props["callee"] = SymbolRefAttr(p.parse_symbol_name())
        operands = p.parse_operand_list("(")
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType) or len(ftype.results) > 1:
            raise p.error("expected '(argument types) -> result type' with at most one result", at)
        values = p.resolve_operands(operands, ftype.inputs, at)
        props["op_bundle_sizes"] = _NO_BUNDLES
        props["operandSegmentSizes"] = DenseArrayAttr(i32, (len(values), 0))
        return cls.create(values, ftype.results, properties=props, attributes=attrs, loc=p.loc)


class LLVMReturnOp(Operation):
    """``llvm.return %x : i32`` or ``llvm.return``."""

    name = "llvm.return"
    traits = (Terminator, ReturnLike)
    arg = opt_operand(LLVMType)

    def __init__(self, value: Value | None = None, loc: Location | None = None):
        super().__init__(operands=[[value] if value is not None else []], loc=loc)

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.arg is not None:
            p.write(" ")
            p.print_operand(self.arg)
        p.print_attr_dict(self, ())
        if self.arg is not None:
            p.write(f" : {self.arg.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LLVMReturnOp:
        x = p.parse_optional_operand()
        attrs = p.parse_optional_attr_dict()
        values = []
        if x is not None:
            values = [p.resolve_operand(x, p.parse_colon_type())]
        return cls.create(values, [], attributes=attrs, loc=p.loc)


def _print_dest(p: OpAsmPrinter, dest: Block, values: Sequence[Value]) -> None:
    p.print_successor(dest)
    if values:
        p.write("(")
        p.print_operands(values)
        p.write(" : " + ", ".join(v.type.text for v in values) + ")")


class LLVMBrOp(Operation):
    """``llvm.br ^bb1(%x : i32)``."""

    name = "llvm.br"
    traits = (Terminator,)
    destOperands = var_operand(LLVMType)
    dest = successor()
    loop_annotation = opt_prop(Attribute)

    def __init__(self, dest: Block, operands: Sequence[Value] = (), loc: Location | None = None):
        super().__init__(operands=[list(operands)], successors=[dest], loc=loc)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        _print_dest(p, self.dest, self.destOperands)
        p.print_attr_dict(self, ())

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LLVMBrOp:
        dest, values = p.parse_successor_and_use_list()
        attrs = p.parse_optional_attr_dict()
        return cls.create(values, [], attributes=attrs, successors=[dest], loc=p.loc)


class LLVMCondBrOp(Operation):
    """``llvm.cond_br %c, ^bb1(%x : i32), ^bb2``."""

    name = "llvm.cond_br"
    traits = (Terminator,)
    condition = operand(i1)
    trueDestOperands = var_operand(LLVMType)
    falseDestOperands = var_operand(LLVMType)
    trueDest = successor()
    falseDest = successor()
    branch_weights = opt_prop(Attribute)
    loop_annotation = opt_prop(Attribute)

    def __init__(
        self,
        condition: Value,
        true_dest: Block,
        true_operands: Sequence[Value],
        false_dest: Block,
        false_operands: Sequence[Value],
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[condition, list(true_operands), list(false_operands)],
            successors=[true_dest, false_dest],
            loc=loc,
        )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.condition)
        p.write(", ")
        _print_dest(p, self.trueDest, self.trueDestOperands)
        p.write(", ")
        _print_dest(p, self.falseDest, self.falseDestOperands)
        p.print_attr_dict(self, ("operandSegmentSizes",))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LLVMCondBrOp:
        c = p.parse_operand()
        p.expect(",")
        t, tv = p.parse_successor_and_use_list()
        p.expect(",")
        f, fv = p.parse_successor_and_use_list()
        attrs = p.parse_optional_attr_dict()
        cond = p.resolve_operand(c, i1)
        props = {"operandSegmentSizes": DenseArrayAttr(i32, (1, len(tv), len(fv)))}
        return cls.create(
            [cond, *tv, *fv], [], properties=props, attributes=attrs, successors=[t, f], loc=p.loc
        )


class UnreachableOp(Operation):
    """``llvm.unreachable``."""

    name = "llvm.unreachable"
    traits = (Terminator,)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.print_attr_dict(self, ())

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> UnreachableOp:
        return cls.create(attributes=p.parse_optional_attr_dict(), loc=p.loc)


CONTROL_OPS: list[type[Operation]] = [
    LLVMFuncOp,
    LLVMCallOp,
    LLVMReturnOp,
    LLVMBrOp,
    LLVMCondBrOp,
    UnreachableOp,
]

__all__ = [
    "CONTROL_OPS",
    "LLVMBrOp",
    "LLVMCallOp",
    "LLVMCondBrOp",
    "LLVMFuncOp",
    "LLVMReturnOp",
    "UnreachableOp",
]
