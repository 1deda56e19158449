"""Folding arith ops on vector constants, element by element, as MLIR's constFold helpers do.

A folder states what happens to scalars (``fn`` on IntegerAttr/FloatAttr elements); these
helpers apply it to a scalar constant, or to every element of ``dense<...>`` vector constants
(a splat stays a splat, so scalable vectors fold too). Anything else does not fold.
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.attributes import Attribute, FloatAttr, IntegerAttr
from ...core.dense import DenseElementsAttr, Scalar
from ...core.types import Type, VectorType

_SCALARS = (IntegerAttr, FloatAttr)


def scalar_of(attr: Attribute | None) -> Scalar | None:
    """The value of a scalar constant or of a splat vector constant (identity folds use it)."""
    if isinstance(attr, _SCALARS):
        return attr
    if isinstance(attr, DenseElementsAttr):
        return attr.splat_value
    return None


def splat_like(value: Scalar, t: Type) -> Attribute:
    """``value`` for a scalar type, or a splat of it for a vector type."""
    return DenseElementsAttr.splat(value, t) if isinstance(t, VectorType) else value


def lift1(
    a: Attribute | None, result_type: Type, fn: Callable[[Scalar], Scalar | None]
) -> Attribute | None:
    """``fn`` on a scalar constant, or on every element of a vector constant."""
    if isinstance(result_type, VectorType):
        return a.map(fn, result_type) if isinstance(a, DenseElementsAttr) else None
    return fn(a) if isinstance(a, _SCALARS) else None


def lift2(
    a: Attribute | None,
    b: Attribute | None,
    result_type: Type,
    fn: Callable[[Scalar, Scalar], Scalar | None],
) -> Attribute | None:
    """``fn`` on two scalar constants, or pairwise on the elements of two vector constants."""
    if not isinstance(result_type, VectorType):
        if isinstance(a, _SCALARS) and isinstance(b, _SCALARS):
            return fn(a, b)
        return None
    if not (isinstance(a, DenseElementsAttr) and isinstance(b, DenseElementsAttr)):
        return None
    if a.is_splat and b.is_splat:
        pairs = [(a.elements[0], b.elements[0])]
    elif any(result_type.scalable):
        return None
    else:
        pairs = list(zip(a.values(), b.values()))
    out = []
    for x, y in pairs:
        r = fn(x, y)
        if r is None:
            return None
        out.append(r)
    return DenseElementsAttr(result_type, out)


def select_elements(
    cond: DenseElementsAttr, a: Attribute | None, b: Attribute | None, result_type: VectorType
) -> Attribute | None:
    """``select`` with constant vectors everywhere: element i from a or b as cond[i] says."""
    if not (isinstance(a, DenseElementsAttr) and isinstance(b, DenseElementsAttr)):
        return None
    if any(result_type.scalable):
        return None
    picked = [x if c.value else y for c, x, y in zip(cond.values(), a.values(), b.values())]
    return DenseElementsAttr(result_type, picked)
