"""The arith dialect: integer and float arithmetic, comparisons, select and casts.

Op names, operands, properties and custom forms follow MLIR's arith dialect; folders implement
MLIR's constant semantics (see :mod:`.semantics`), on scalars and, element by element, on
``dense<...>`` vector constants (:mod:`.elementwise`).
"""

from __future__ import annotations

from ...core.attributes import Attribute, FloatAttr, IntegerAttr
from ...core.builder import Builder
from ...core.context import Dialect
from ...core.dense import DenseElementsAttr
from ...core.location import Location
from ...core.operation import Operation
from ...core.types import Type
from .attributes import (
    FASTMATH_NONE,
    OVERFLOW_NONE,
    CmpFPredicate,
    CmpIPredicate,
    FastMathFlagsAttr,
    IntegerOverflowFlagsAttr,
)
from .ops import *  # noqa: F403
from .ops import ALL_OPS, ConstantOp


def materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """An ``arith.constant`` for integer/float/dense-elements attributes of the requested type."""
    if isinstance(value, (IntegerAttr, FloatAttr, DenseElementsAttr)) and value.type is type:
        return builder.create(ConstantOp, value, loc=loc)
    return None


DIALECT = Dialect(
    "arith",
    ops=ALL_OPS,
    attributes=[IntegerOverflowFlagsAttr, FastMathFlagsAttr],
    materialize_constant=materialize_constant,
)

__all__ = [
    "DIALECT",
    "FASTMATH_NONE",
    "OVERFLOW_NONE",
    "CmpFPredicate",
    "CmpIPredicate",
    "FastMathFlagsAttr",
    "IntegerOverflowFlagsAttr",
    "materialize_constant",
    *[op.__name__ for op in ALL_OPS],
]
