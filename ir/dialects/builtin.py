"""The builtin dialect: ``builtin.module`` and ``builtin.unrealized_conversion_cast``.

Builtin types and attributes live in :mod:`layoutc.ir.core` (they need no dialect prefix).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.asm import OpAsmParser, OpAsmPrinter
from ..core.attributes import Attribute, StringAttr
from ..core.block import Block, Region
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.location import Location
from ..core.opdef import opt_prop, region, var_operand, var_result
from ..core.operation import Operation
from ..core.traits import (
    GraphRegions,
    IsolatedFromAbove,
    NoRegionArguments,
    NoTerminator,
    Pure,
    SingleBlock,
    Symbol,
    SymbolTable,
)
from ..core.types import Type
from ..core.values import Value


class ModuleOp(Operation):
    """``module @name attributes {...} { ... }``: the top-level container of symbols."""

    name = "builtin.module"
    traits = (
        IsolatedFromAbove,
        NoTerminator,
        SymbolTable,
        Symbol(optional=True),
        SingleBlock,
        GraphRegions,
        NoRegionArguments,
    )
    default_dialect = "builtin"
    sym_name = opt_prop(StringAttr)
    sym_visibility = opt_prop(StringAttr)
    body = region()

    def __init__(
        self,
        ops: Iterable[Operation] = (),
        sym_name: str | None = None,
        attributes: dict[str, Attribute] | None = None,
        loc: Location | None = None,
    ):
        block = Block()
        for op in ops:
            block.append(op)
        props = {"sym_name": StringAttr(sym_name)} if sym_name is not None else None
        super().__init__(
            properties=props, attributes=attributes, regions=[Region([block])], loc=loc
        )

    @property
    def block(self) -> Block:
        """The body block (created if missing)."""
        return self.body.block

    @property
    def ops(self) -> list[Operation]:
        return list(self.block.ops)

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.sym_name is not None:
            p.write(" ")
            p.print_symbol_name(self.sym_name.value)
        p.print_optional_attr_dict_with_keyword(
            {**self.attributes, **self.properties}, elided=("sym_name",)
        )
        p.write(" ")
        p.print_region(self.body, print_entry_block_args=False, print_block_terminators=False)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> ModuleOp:
        name = p.parse_symbol_name() if p.peek()[:1] == "@" else None
        attrs = p.parse_optional_attr_dict_with_keyword()
        body = p.parse_region()
        if not body.blocks:
            body.add_block(Block())
        props = {"sym_name": StringAttr(name)} if name is not None else {}
        return cls.create(properties=props, attributes=attrs, regions=[body], loc=p.loc)


class UnrealizedConversionCastOp(Operation):
    """A cast between type systems that a later conversion must remove."""

    name = "builtin.unrealized_conversion_cast"
    assembly_format = "($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict"
    traits = (Pure,)
    inputs = var_operand()
    outputs = var_result()

    def __init__(
        self, inputs: Sequence[Value], result_types: Sequence[Type], loc: Location | None = None
    ):
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)], loc=loc)

    def verify_(self) -> None:
        if not self.results:
            raise VerifyError("expected at least one result for cast operation")

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        ins = self.operands
        outs = self.results
        if len(ins) == len(outs) and all(a.type is b.type for a, b in zip(ins, outs)):
            return list(ins)
        # cast(cast(x : A -> B) : B -> A) folds to x.
        first = ins[0].defining_op if ins else None
        if (
            isinstance(first, UnrealizedConversionCastOp)
            and list(first.results) == list(ins)
            and len(first.operands) == len(outs)
            and all(a.type is b.type for a, b in zip(first.operands, outs))
        ):
            return list(first.operands)
        return None


DIALECT = Dialect("builtin", ops=[ModuleOp, UnrealizedConversionCastOp])
