"""Helpers for writing custom assembly formats concisely (see also :mod:`.asm_format` for
declarative ``assembly_format`` strings).

``OpAsmParser`` / ``OpAsmPrinter`` are the parser and printer APIs a custom form uses (MLIR's
names). The functions below implement the shapes most ops share, so an op's ``print_custom`` /
``parse_custom`` is often one line:

    def print_custom(self, p):  print_operands_attrs_type(self, p)        # %a, %b {..} : i32
    @classmethod
    def parse_custom(cls, p):   return parse_operands_attrs_type(cls, p, 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from .operation import Operation
from .parser import Argument, Parser, UnresolvedOperand
from .printer import Printer
from .types import Type

OpAsmParser = Parser
OpAsmPrinter = Printer

_Op = TypeVar("_Op", bound=Operation)

__all__ = [
    "Argument",
    "OpAsmParser",
    "OpAsmPrinter",
    "UnresolvedOperand",
    "parse_cast",
    "parse_operands_attrs_type",
    "print_cast",
    "print_operands_attrs_type",
]


def print_operands_attrs_type(op: Operation, p: Printer, elided: Iterable[str] = ()) -> None:
    """`` %a, %b {attrs} : t`` where every operand and result has type ``t``."""
    p.write(" ")
    p.print_operands(op.operands)
    p.print_attr_dict(op, elided)
    t = op.results[0].type if op.results else op.operands[0].type
    p.write(f" : {t.text}")


def parse_operands_attrs_type(
    cls: type[_Op], p: Parser, num_operands: int, num_results: int = 1
) -> _Op:
    """Inverse of :func:`print_operands_attrs_type` (all values share one type)."""
    operands = [p.parse_operand()]
    for _ in range(num_operands - 1):
        p.expect(",")
        operands.append(p.parse_operand())
    attrs = p.parse_optional_attr_dict()
    t = p.parse_colon_type()
    values = p.resolve_operands(operands, [t] * num_operands)
    return cls.create(values, [t] * num_results, attributes=attrs, loc=p.loc)


def print_cast(op: Operation, p: Printer, elided: Iterable[str] = ()) -> None:
    """`` %x {attrs} : t1 to t2`` for one-operand, one-result conversions."""
    p.write(" ")
    p.print_operand(op.operands[0])
    p.print_attr_dict(op, elided)
    p.write(f" : {op.operands[0].type.text} to {op.results[0].type.text}")


def parse_cast(cls: type[_Op], p: Parser) -> _Op:
    """Inverse of :func:`print_cast`."""
    operand = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    src: Type = p.parse_colon_type()
    p.parse_keyword("to")
    dst = p.parse_type()
    value = p.resolve_operand(operand, src)
    return cls.create([value], [dst], attributes=attrs, loc=p.loc)
