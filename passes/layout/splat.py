"""A scalar repeated across a vector: the value a vectorized fill or clear stores.

layoutc has no ``vector`` dialect ops, so the vector is built with the LLVM dialect ops that
MLIR's own ``vector.broadcast`` lowers to and that convert-to-llvm passes through unchanged:
``llvm.mlir.zero`` for a clear (and any fill with +0), otherwise ``llvm.mlir.undef`` and one
``llvm.insertelement`` per lane (LLVM folds that into its splat). It is built once, before the
loops, and every vector store reuses it.
"""

from __future__ import annotations

import math

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.folding import constant_value
from layoutc.ir.core.location import Location
from layoutc.ir.core.types import FloatType, VectorType, i32
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import llvm as LLVM

__all__ = ["splat", "splattable"]


def _is_positive_zero(value: Value) -> bool:
    """All bits zero: integer 0 or float +0.0 (-0.0 has its sign bit set)."""
    c = constant_value(value)
    if isinstance(c, IntegerAttr):
        return c.value == 0
    if isinstance(c, FloatAttr):
        return c.value == 0.0 and math.copysign(1.0, c.value) > 0
    return False


def splattable(value: Value) -> bool:
    """Whether :func:`splat` can build a vector of ``value``: the LLVM dialect's vectors hold
    no FP8 lanes (LLVM has no 8-bit floats), so an FP8 value other than +0 is stored lane by
    lane (convert-to-llvm stores its i8 bits)."""
    t = value.type
    return not (isinstance(t, FloatType) and t.width == 8) or _is_positive_zero(value)


def splat(b: Builder, value: Value, width: int, loc: Location) -> Value:
    """``vector<width x T>`` with every lane equal to ``value`` (of type T)."""
    vt = VectorType([width], value.type)
    if _is_positive_zero(value):
        return b.create(LLVM.ZeroOp, vt, loc=loc).results[0]
    vec = b.create(LLVM.UndefOp, vt, loc=loc).results[0]
    for lane in range(width):
        pos = b.create(arith.ConstantOp, IntegerAttr(lane, i32), loc=loc).results[0]
        vec = b.create(LLVM.InsertElementOp, vec, value, pos, loc=loc).results[0]
    return vec
