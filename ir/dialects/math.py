"""The math dialect (MLIR's names, operands, properties and custom forms): ``math.tanh``.

``%r = math.tanh %x fastmath<afn> : f32``, upstream's op: one floating-point operand, a result of
its type, and arith's fast-math flags. The flags are the precision contract, as LLVM's: ``afn``
(or ``fast``) allows an approximate function, which convert-to-llvm lowers to the GPU's
``tanh.approx.f32`` (passes/conversion/math_to_llvm.py); without it, tanh is computed to a few
ulp. A constant operand folds to the correctly rounded tanh, whatever the flags (a value an
approximation may also return: it is within every bound).
"""

from __future__ import annotations

import math

from ..core.attributes import Attribute, FloatAttr
from ..core.builder import Builder
from ..core.context import Dialect
from ..core.location import Location
from ..core.operation import Operation
from ..core.types import Type
from .arith.ops import UnaryFloatOp


def _tanh(a: Attribute) -> FloatAttr | None:
    if not isinstance(a, FloatAttr):
        return None
    return FloatAttr(math.tanh(a.value), a.type)  # rounded to the type (NaN stays NaN)


class TanhOp(UnaryFloatOp):
    """``%r = math.tanh %x : f32``; ``fastmath<afn>`` allows the hardware's approximation."""

    name = "math.tanh"
    fold_constant = staticmethod(_tanh)

    @property
    def approximate(self) -> bool:
        """Whether the flags allow an approximate function (``afn``, part of ``fast``)."""
        return "afn" in self.fastmath.flags


def _materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """Constants are ``arith.constant`` ops, as upstream's math dialect makes them."""
    from .arith import materialize_constant

    return materialize_constant(builder, value, type, loc)


DIALECT = Dialect("math", ops=[TanhOp], materialize_constant=_materialize_constant)
