"""Element arithmetic of the lowered algorithms: conversions (CuTe's ``static_cast``
semantics, as docs/dialect-tile.md states them), multiply-add, zero.

Float multiply-adds carry ``fastmath<contract>`` so the back end may fuse them into one FMA
instruction, which is what CuTe's UniversalFMA does on the GPU.
"""

from __future__ import annotations

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.location import Location
from layoutc.ir.core.types import FloatType, IntegerType, Type, f32
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.arith.attributes import FastMathFlagsAttr

from .loops import LoweringError

__all__ = ["add", "convert", "is_float", "mul", "mul_add", "zero"]

_CONTRACT = FastMathFlagsAttr(("contract",))


def is_float(t: Type) -> bool:
    return isinstance(t, FloatType)


def _storage_width(t: Type) -> int:
    if isinstance(t, FloatType):
        return 32 if t.text == "tf32" else t.width
    return t.width  # type: ignore[attr-defined]


def convert(b: Builder, v: Value, to: Type, loc: Location) -> Value:
    """``v`` as a value of type ``to``: float<->float rounds to nearest even, int->float rounds,
    float->int truncates toward zero, integers narrow by keeping the low bits and widen with
    sign extension."""
    t = v.type
    if t is to:
        return v
    if isinstance(t, FloatType) and isinstance(to, FloatType):
        if t.width == to.width:  # f16 <-> bf16: through f32, which holds both exactly
            v = b.create(arith.ExtFOp, v, f32, loc=loc).results[0]
            return convert(b, v, to, loc)
        cls = arith.ExtFOp if t.width < to.width else arith.TruncFOp
        return b.create(cls, v, to, loc=loc).results[0]
    if isinstance(t, IntegerType) and isinstance(to, FloatType):
        return b.create(arith.SIToFPOp, v, to, loc=loc).results[0]
    if isinstance(t, FloatType) and isinstance(to, IntegerType):
        return b.create(arith.FPToSIOp, v, to, loc=loc).results[0]
    if isinstance(t, IntegerType) and isinstance(to, IntegerType):
        cls = arith.TruncIOp if t.width > to.width else arith.ExtSIOp
        return b.create(cls, v, to, loc=loc).results[0]
    raise LoweringError(f"not supported: converting {t.text} to {to.text}")


def zero(b: Builder, t: Type, loc: Location) -> Value:
    """The constant 0 of an element type."""
    if isinstance(t, FloatType):
        return b.create(arith.ConstantOp, FloatAttr(0.0, t), loc=loc).results[0]
    return b.create(arith.ConstantOp, IntegerAttr(0, t), loc=loc).results[0]


def mul(b: Builder, x: Value, y: Value, loc: Location) -> Value:
    if is_float(x.type):
        return b.create(arith.MulFOp, x, y, _CONTRACT, loc=loc).results[0]
    return b.create(arith.MulIOp, x, y, loc=loc).results[0]


def add(b: Builder, x: Value, y: Value, loc: Location) -> Value:
    if is_float(x.type):
        return b.create(arith.AddFOp, x, y, _CONTRACT, loc=loc).results[0]
    return b.create(arith.AddIOp, x, y, loc=loc).results[0]


def mul_add(b: Builder, x: Value, y: Value, acc: Value, loc: Location) -> Value:
    """``x * y + acc`` in ``acc``'s type (operands converted first)."""
    t = acc.type
    x = convert(b, x, t, loc)
    y = convert(b, y, t, loc)
    return add(b, mul(b, x, y, loc), acc, loc)


def storage_width(t: Type) -> int:
    """Bits an element occupies in memory (tf32: 32)."""
    return _storage_width(t)
