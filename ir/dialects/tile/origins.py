"""Origins of coordinate tensors: CuTe's ``ArithmeticTupleIterator``.

A memory tensor is a pointer plus a layout; a coordinate tensor is an *origin* plus a layout
(``include/cute/tensor_impl.hpp``: ``make_coord_tensor(layout)`` is
``make_tensor(make_inttuple_iter(coprofile(layout)), layout)``). Its element at coordinate ``c``
is ``origin + layout(c)`` as an arithmetic tuple, and a view moves the origin exactly as it
moves a pointer: ``local_tile(identity, (128,), (bid,))`` starts at ``(128 * bid)``.

So the origin is part of what a coordinate tensor *is*: the ``!tile.tensor<coord, ...>`` type
prints it (``?`` for dynamic entries) unless it is the identity tensor's, ``coprofile(layout)``
(zeros shaped like the layout's codomain), and every element type, view and lowering computes
``origin + layout(c)``. These helpers are shared by type inference and the symbolic value
analysis, so both agree on the profile of every coordinate.
"""

from __future__ import annotations

from typing import Any

from ...algebra.basis import ArithmeticTuple, ScaledBasis, as_arithmetic_tuple
from ...algebra.errors import LayoutError
from ...algebra.layout import Layout

__all__ = ["advance", "coprofile", "element_at", "zeros_like"]


def zeros_like(x: Any) -> Any:
    """``x`` with every leaf replaced by 0 (CuTe's ``repeat_like(x, _0{})``)."""
    if isinstance(x, ArithmeticTuple):
        return ArithmeticTuple(*(zeros_like(e) for e in x))
    if isinstance(x, tuple):
        return tuple(zeros_like(e) for e in x)
    return 0


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, tuple):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def coprofile(layout: Any) -> Any:
    """Zeros congruent with the codomain of ``layout`` (CuTe's ``coprofile``): the origin of
    ``make_coord_tensor(layout)``. ``(4,8):(1@0,1@1)`` gives ``(0,0)``, ``8:1`` gives ``0``."""
    if isinstance(layout, Layout):
        total: Any = 0
        for d in _leaves(layout.stride):
            if isinstance(d, ScaledBasis):
                total = total + as_arithmetic_tuple(ScaledBasis(0, *d.modes))
        return zeros_like(total)
    return zeros_like(as_arithmetic_tuple(layout(0)))


def _plus(a: Any, b: Any, what: str) -> Any:
    if type(a) is int and a == 0:
        return as_arithmetic_tuple(b)
    if type(b) is int and b == 0:
        return as_arithmetic_tuple(a)
    try:
        return as_arithmetic_tuple(a + b)
    except TypeError:
        raise LayoutError(f"{what}: cannot add the coordinate {b} to the origin {a}") from None


def advance(origin: Any, offset: Any) -> Any:
    """The origin of a view that starts ``offset`` (a coordinate) past ``origin``."""
    return _plus(origin, offset, "coordinate tensor view")


def element_at(origin: Any, value: Any) -> Any:
    """The element of a coordinate tensor whose layout gives ``value``: ``origin + value``."""
    return _plus(origin, value, "coordinate tensor element")
