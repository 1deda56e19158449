"""The ``demo`` dialect: one op, ``%y = demo.square %x : f32``."""

from __future__ import annotations

from layoutc.ir.core.context import Dialect
from layoutc.ir.core.opdef import operand, result
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import Pure, SameOperandsAndResultType


class SquareOp(Operation):
    """``%y = demo.square %x : f32``: x * x."""

    name = "demo.square"
    traits = (Pure, SameOperandsAndResultType)
    assembly_format = "$operand attr-dict `:` type($result)"
    operand = operand()
    result = result()

    def __init__(self, value, loc=None):
        super().__init__(operands=[value], result_types=[value.type], loc=loc)


DIALECT = Dialect("demo", ops=[SquareOp])
