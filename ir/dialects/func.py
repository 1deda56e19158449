"""The func dialect: ``func.func``, ``func.return``, ``func.call`` (MLIR's definitions)."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.asm import Argument, OpAsmParser, OpAsmPrinter
from ..core.attributes import (
    ArrayAttr,
    Attribute,
    DictionaryAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
    dict_body_text,
)
from ..core.block import Block, Region
from ..core.constraints import Constraint
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.function_like import DICT_ARRAY, FLAT_SYMBOL_REF, FunctionLike
from ..core.location import Location
from ..core.opdef import opt_prop, prop, region, var_operand, var_result
from ..core.operation import Operation
from ..core.symbols import lookup_nearest_symbol_from
from ..core.traits import HasParent, IsolatedFromAbove, Pure, ReturnLike, Symbol, Terminator
from ..core.types import FunctionType, Type
from ..core.values import Value

_FunctionTypeAttr = Constraint(
    lambda a: isinstance(a, TypeAttr) and isinstance(a.type, FunctionType), "function type"
)
_FlatSymbolRef = FLAT_SYMBOL_REF
_DictArray = DICT_ARRAY
_VISIBILITIES = ("public", "private", "nested")


class FuncOp(FunctionLike, Operation):
    """``func.func @name(%arg0: i32) -> i32 { ... }``; a declaration has no body."""

    name = "func.func"
    traits = (IsolatedFromAbove, Symbol())
    default_dialect = "func"
    sym_name = prop(StringAttr)
    function_type = prop(_FunctionTypeAttr)
    sym_visibility = opt_prop(StringAttr)
    arg_attrs = opt_prop(_DictArray)
    res_attrs = opt_prop(_DictArray)
    no_inline = opt_prop(UnitAttr)
    body = region()

    def __init__(
        self,
        sym_name: str,
        function_type: FunctionType,
        *,
        visibility: str | None = None,
        declaration: bool = False,
        attributes: dict[str, Attribute] | None = None,
        loc: Location | None = None,
    ):
        """A function whose entry block has the signature's arguments (none if a declaration)."""
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "function_type": TypeAttr(function_type),
        }
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        body = Region() if declaration else Region([Block(function_type.inputs)])
        super().__init__(properties=props, attributes=attributes, regions=[body], loc=loc)

    # -- convenience --------------------------------------------------------------------------
    @property
    def sym_name_str(self) -> str:
        return self.sym_name.value

    # -- verification -------------------------------------------------------------------------
    def verify_(self) -> None:
        ftype = self.type
        if self.sym_visibility is not None and self.sym_visibility.value not in _VISIBILITIES:
            raise VerifyError(f"unknown visibility '{self.sym_visibility.value}'")
        self.verify_attribute_arrays()
        if self.is_declaration:
            return
        args = self.entry_block.args
        if len(args) != len(ftype.inputs):
            raise VerifyError(
                f"entry block must have {len(ftype.inputs)} arguments to match function signature"
            )
        for i, (a, t) in enumerate(zip(args, ftype.inputs)):
            if a.type is not t:
                raise VerifyError(
                    f"type of entry block argument #{i}('{a.type.text}') must match the type of "
                    f"the corresponding argument in function signature('{t.text}')"
                )

    # -- custom form --------------------------------------------------------------------------
    _ELIDED = ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        if self.sym_visibility is not None:
            p.write(self.sym_visibility.value + " ")
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
        results = ftype.results
        res_attrs = list(self.res_attrs) if self.res_attrs is not None else []
        if results:
            texts = []
            any_attrs = False
            for i, t in enumerate(results):
                attrs = res_attrs[i] if i < len(res_attrs) else None
                text = t.text
                if isinstance(attrs, DictionaryAttr) and len(attrs):
                    text += " {" + dict_body_text(attrs.entries) + "}"
                    any_attrs = True
                texts.append(text)
            if len(results) == 1 and not any_attrs and not isinstance(results[0], FunctionType):
                p.write(f" -> {texts[0]}")
            else:
                p.write(f" -> ({', '.join(texts)})")
        p.print_optional_attr_dict_with_keyword(
            {**self.attributes, **self.properties}, elided=self._ELIDED
        )
        if not self.is_declaration:
            p.write(" ")
            p.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> FuncOp:
        visibility = p.parse_optional_keyword(*_VISIBILITIES)
        name = p.parse_symbol_name()
        args: list[Argument] = []
        input_types: list[Type] = []
        arg_attrs: list[DictionaryAttr] = []
        named: bool | None = None
        p.expect("(", "to start function arguments")
        if not p.accept(")"):
            while True:
                at = p.pos
                is_named = p.peek()[:1] == "%"
                if named is None:
                    named = is_named
                elif named != is_named:
                    raise p.error(
                        "expected SSA identifier"
                        if named
                        else "expected type instead of SSA identifier",
                        at,
                    )
                if is_named:
                    arg = p.parse_argument(with_type=True, with_attrs=True)
                    args.append(arg)
                    assert arg.type is not None
                    input_types.append(arg.type)
                    arg_attrs.append(DictionaryAttr(arg.attrs or {}))
                else:
                    input_types.append(p.parse_type())
                    arg_attrs.append(DictionaryAttr(p.parse_optional_attr_dict()))
                    p.parse_optional_location()
                if not p.accept(","):
                    break
            p.expect(")", "to end function arguments")
        result_types: list[Type] = []
        res_attrs: list[DictionaryAttr] = []
        if p.accept("->"):
            if p.peek() == "(" and not _starts_function_type(p):
                p.pos += 1
                if not p.accept(")"):
                    while True:
                        result_types.append(p.parse_type())
                        res_attrs.append(DictionaryAttr(p.parse_optional_attr_dict()))
                        if not p.accept(","):
                            break
                    p.expect(")", "to end function results")
            else:
                result_types.append(p.parse_type())
                res_attrs.append(DictionaryAttr())
        attrs = p.parse_optional_attr_dict_with_keyword()
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": TypeAttr(FunctionType(input_types, result_types)),
        }
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        if any(len(d) for d in arg_attrs):
            props["arg_attrs"] = ArrayAttr(arg_attrs)
        if any(len(d) for d in res_attrs):
            props["res_attrs"] = ArrayAttr(res_attrs)
        body = Region()
        if p.peek() == "{":
            if input_types and not named:
                raise p.error("expected named arguments (%name: type) for a function with a body")
            body = p.parse_region(args)
            if not body.blocks:
                raise p.error("expected a non-empty function body", p.pos - 1)
        return cls.create(properties=props, attributes=attrs, regions=[body], loc=p.loc)


def _starts_function_type(p: OpAsmParser) -> bool:
    """Whether ``( ... ) ->`` at the cursor is a single function-typed result."""
    depth = 0
    i = p.pos
    toks = p.toks
    while i < len(toks):
        t = toks[i]
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                return toks[i + 1] == "->"
        elif t == "":
            return False
        i += 1
    return False


class ReturnOp(Operation):
    """``return %a, %b : i32, f32`` ends a function body."""

    name = "func.return"
    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"
    traits = (Pure, Terminator, ReturnLike, HasParent("func.func"))
    arguments = var_operand()

    def __init__(self, *values: Value, loc: Location | None = None):
        super().__init__(operands=[list(values)], loc=loc)

    def verify_(self) -> None:
        func = self.parent_op
        if not isinstance(func, FuncOp):
            return
        results = func.type.results
        operands = self.operands
        fname = func.sym_name.value
        if len(operands) != len(results):
            raise VerifyError(
                f"has {len(operands)} operands, but enclosing function (@{fname}) returns {len(results)}"
            )
        for i, (v, t) in enumerate(zip(operands, results)):
            if v.type is not t:
                raise VerifyError(
                    f"type of return operand {i} ('{v.type.text}') doesn't match function result "
                    f"type ('{t.text}') in function @{fname}"
                )


class CallOp(Operation):
    """``%r = func.call @f(%a) : (i32) -> i32``."""

    name = "func.call"
    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"
    callee = prop(_FlatSymbolRef)
    arg_attrs = opt_prop(_DictArray)
    res_attrs = opt_prop(_DictArray)
    no_inline = opt_prop(UnitAttr)
    arguments = var_operand()
    res = var_result()

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        arguments: Sequence[Value],
        result_types: Sequence[Type],
        loc: Location | None = None,
    ):
        ref = callee if isinstance(callee, SymbolRefAttr) else SymbolRefAttr(callee)
        super().__init__(
            operands=[list(arguments)],
            result_types=[list(result_types)],
            properties={"callee": ref},
            loc=loc,
        )

    def verify_(self) -> None:
        name = self.callee.root
        target = lookup_nearest_symbol_from(self, self.callee)
        if target is None:
            if self.get_parent_of_type(Operation) is None:
                return  # detached call: nothing to check against
            raise VerifyError(f"'{name}' does not reference a valid function")
        if not isinstance(target, FuncOp):
            raise VerifyError(f"'{name}' does not reference a valid function")
        ftype = target.type
        operands = self.operands
        if len(operands) != len(ftype.inputs):
            raise VerifyError("incorrect number of operands for callee")
        for i, (v, t) in enumerate(zip(operands, ftype.inputs)):
            if v.type is not t:
                raise VerifyError(
                    f"operand type mismatch: expected operand type '{t.text}', but provided "
                    f"'{v.type.text}' for operand number {i}"
                )
        if len(self.results) != len(ftype.results):
            raise VerifyError("incorrect number of results for callee")
        for i, (r, t) in enumerate(zip(self.results, ftype.results)):
            if r.type is not t:
                raise VerifyError(
                    f"result type mismatch at index {i}: expected '{t.text}', but got '{r.type.text}'"
                )


DIALECT = Dialect("func", ops=[FuncOp, ReturnOp, CallOp])
