"""The math dialect (MLIR's names, operands, properties and custom forms): ``math.tanh`` and
``math.fma``.

``%r = math.tanh %x fastmath<afn> : f32``, upstream's op: one floating-point operand, a result of
its type, and arith's fast-math flags. The flags are the precision contract, as LLVM's: ``afn``
(or ``fast``) allows an approximate function, which convert-to-llvm lowers to the GPU's
``tanh.approx.f32`` (passes/conversion/math_to_llvm.py); without it, tanh is computed to a few
ulp. A constant operand folds to the correctly rounded tanh, whatever the flags (a value an
approximation may also return: it is within every bound).

``%r = math.fma %a, %b, %c : f32``, upstream's op: ``a * b + c`` rounded once (IEEE 754's
fusedMultiplyAdd), three operands and a result of one float type, arith's fast-math flags.
convert-to-llvm lowers it to ``llvm.fma`` on the GPU and the CPU alike (PTX ``fma.rn``).
Constants are not folded.
"""

from __future__ import annotations

import math

from ..core.attributes import Attribute, FloatAttr
from ..core.builder import Builder
from ..core.constraints import FloatLike
from ..core.context import Dialect
from ..core.location import Location
from ..core.opdef import operand, prop, result
from ..core.operation import Operation
from ..core.traits import Pure, SameOperandsAndResultType
from ..core.types import Type
from ..core.values import Value
from .arith.attributes import FASTMATH_NONE, FastMathFlagsAttr
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


class FmaOp(Operation):
    """``%r = math.fma %a, %b, %c : f32``: ``a * b + c`` with one rounding."""

    name = "math.fma"
    assembly_format = "$a `,` $b `,` $c (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"
    traits = (Pure, SameOperandsAndResultType)
    a = operand(FloatLike)
    b = operand(FloatLike)
    c = operand(FloatLike)
    result = result(FloatLike)
    fastmath = prop(FastMathFlagsAttr, default=FASTMATH_NONE)

    def __init__(
        self,
        a: Value,
        b: Value,
        c: Value,
        fastmath: FastMathFlagsAttr | None = None,
        loc: Location | None = None,
    ):
        props = None if fastmath is None else {"fastmath": fastmath}
        super().__init__(operands=[a, b, c], result_types=[a.type], properties=props, loc=loc)


def _materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """Constants are ``arith.constant`` ops, as upstream's math dialect makes them."""
    from .arith import materialize_constant

    return materialize_constant(builder, value, type, loc)


DIALECT = Dialect("math", ops=[TanhOp, FmaOp], materialize_constant=_materialize_constant)
