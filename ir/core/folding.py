"""Folding helpers shared by the canonicalizer and by passes.

An op's ``fold(operands)`` receives the constant value of each operand (None when unknown) and
returns one Attribute or existing Value per result; it never creates ops. :func:`try_fold` runs
it and materialises attribute results as constant ops through the dialect's
``materialize_constant`` hook.
"""

from __future__ import annotations

from collections.abc import Sequence

from .attributes import Attribute
from .builder import Builder, InsertionPoint
from .errors import IRError
from .operation import Operation
from .traits import ConstantLike
from .values import Value


def constant_value(value: Value) -> Attribute | None:
    """The constant a value is known to hold (defined by a ConstantLike op), else None."""
    op = value.defining_op
    if op is None or not op.has_trait(ConstantLike):
        return None
    folded = op.fold(())
    if not folded:
        return None
    attr = folded[value.index]  # type: ignore[attr-defined]
    return attr if isinstance(attr, Attribute) else None


def fold_op(op: Operation) -> list[Attribute | Value] | None:
    """``op.fold`` with its constant operands; None when nothing folds."""
    operands = [constant_value(u.value) for u in op.operand_uses]
    result = op.fold(operands)
    if result is None:
        return None
    result = list(result)
    if len(result) != len(op.results):
        raise IRError(
            f"'{op.name}' fold returned {len(result)} values for {len(op.results)} results"
        )
    return result


def is_in_place_fold(op: Operation, folded: Sequence[Attribute | Value]) -> bool:
    """True when ``fold`` updated ``op`` in place (it returned the op's own results)."""
    return bool(folded) and all(f is r for f, r in zip(folded, op.results))


def try_fold(op: Operation, builder: Builder | None = None) -> list[Value] | None:
    """Fold ``op`` into replacement values, materialising constants before ``op``.

    Returns None when nothing folds (or a constant cannot be materialised), the op's own
    results when it was folded in place, else the values that replace its results. Constant
    ops never fold into new constants of themselves.
    """
    folded = fold_op(op)
    if folded is None:
        return None
    if is_in_place_fold(op, folded):
        return list(op.results)
    if op.has_trait(ConstantLike):
        return None
    if builder is None:
        if op.parent is None:
            raise IRError("try_fold needs a builder for an op that is not in a block")
        builder = Builder(InsertionPoint.before_op(op))
    created: list[Operation] = []
    values: list[Value] = []
    dialect = op.dialect
    for result, item in zip(op.results, folded):
        if isinstance(item, Value):
            values.append(item)
            continue
        const = None
        if dialect is not None:
            with builder.at(InsertionPoint.before_op(op), loc=op.location):
                const = dialect.materialize_constant(builder, item, result.type, op.location)
        if const is None:
            for c in reversed(created):
                c.erase()
            return None
        created.append(const)
        values.append(const.results[0])
    return values
