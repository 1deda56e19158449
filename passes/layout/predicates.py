"""CuTe's ``elem_less`` as ``arith``: the coordinate predicate of partial tiles."""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.basis import ScaledBasis, as_arithmetic_tuple
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.core.folding import constant_value
from layoutc.ir.core.values import Value

from ..analysis.emitter import IndexEmitter

__all__ = ["coordinate_value", "elem_less"]


def coordinate_value(x: Any) -> Any:
    """A coordinate as nested tuples of ints/SymInts (basis values become tuples)."""
    if isinstance(x, ScaledBasis):
        x = as_arithmetic_tuple(x)
    if isinstance(x, tuple):
        return tuple(coordinate_value(e) for e in x)
    return x


def elem_less(a: Any, b: Any, emitter: IndexEmitter) -> Value:
    """An ``i1``: every entry of ``a`` is less than the matching entry of ``b`` (entries of ``b``
    beyond ``a``'s rank are ignored; a longer ``a`` is not less), as CuTe's elem_less."""
    conds: list[Value] = []
    if not _collect(coordinate_value(a), coordinate_value(b), conds, emitter):
        return emitter.constant_bool(False)
    return emitter.all_of(conds)


def _collect(a: Any, b: Any, out: list[Value], emitter: IndexEmitter) -> bool:
    """Append the conditions; False when the predicate is false for every value."""
    if not isinstance(a, tuple):
        if isinstance(b, tuple):
            if len(b) != 1:
                raise LayoutError(f"elem_less: cannot compare the integer {a} with {b}")
            b = b[0]
        cond = emitter.less_than(a, b)
        c = constant_value(cond)
        if c is not None:
            return bool(c.value)  # type: ignore[attr-defined]
        out.append(cond)
        return True
    if not isinstance(b, tuple):
        b = (b,)
    for i, x in enumerate(a):
        if i >= len(b):
            return False
        if not _collect(x, b[i], out, emitter):
            return False
    return True
