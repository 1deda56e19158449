"""Do the operands of an algorithm agree in size? The questions the verifiers of ``tile.copy``,
``tile.copy_if``, ``tile.gemm`` and ``tile.axpby`` ask, on operand *values*.

Static sizes compare as ints. Where a size is dynamic, the operands' layouts are evaluated
through their producers (:class:`.value_layouts.ValueSymbols`), so the sizes are equal exactly
when the IR shows it: both built from the same SSA values. The front end asks the same
questions with its own symbols before it builds the op, to report them in the user's names.
Each function returns why the operands do not agree, or None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...algebra import rank, size
from ...core.values import Value
from ...core.verifier import walk_memo
from .atoms import MMAOperation
from .checks import gemm_form, provably_equal, size_problem
from .inference import operand_arg
from .types import TensorType
from .value_layouts import ValueSymbols

__all__ = [
    "axpby_problem",
    "copy_if_problem",
    "copy_problem",
    "gemm_problem",
    "operand_layouts",
]


def operand_layouts(values: Sequence[Value], symbols: ValueSymbols | None = None) -> list[Any]:
    """The layouts of tensor operands: the types' when all are static, else evaluated through
    the producers (one symbol per SSA value; within a verifier walk, the walk's symbols)."""
    types = [v.type for v in values]
    if symbols is None and all(isinstance(t, TensorType) and t.is_static for t in types):
        return [operand_arg(t, k) for k, t in enumerate(types)]
    vs = symbols if symbols is not None else walk_memo(ValueSymbols, ValueSymbols)
    return [vs.tensor(v) for v in values]


def copy_problem(src: Value, dst: Value, symbols: ValueSymbols | None = None) -> str | None:
    s, d = operand_layouts([src, dst], symbols)
    return size_problem("source", size(s), "destination", size(d))


def copy_if_problem(
    pred: Value, src: Value, dst: Value, with_atom: bool, symbols: ValueSymbols | None = None
) -> str | None:
    """Source and destination sizes, and the predicate shaped like the source (with an atom it
    may omit the value mode, as in CuTe)."""
    p, s, d = operand_layouts([pred, src, dst], symbols)
    why = size_problem("source", size(s), "destination", size(d))
    if why is not None:
        return why
    n_pred, n_src = size(p), size(s)
    if provably_equal(n_pred, n_src):
        return None
    if with_atom and rank(p) == rank(s) - 1 and provably_equal(n_pred * size(s, 0), n_src):
        return None
    if type(n_pred) is int and type(n_src) is int:
        return (
            f"the predicate has {n_pred} elements but the source has {n_src} (it must be shaped "
            "like the source)"
        )
    return size_problem("predicate", n_pred, "source", n_src)


def gemm_problem(
    a: Value,
    b: Value,
    c: Value,
    atom: MMAOperation | None,
    symbols: ValueSymbols | None = None,
) -> str | None:
    la, lb, lc = operand_layouts([a, b, c], symbols)
    return gemm_form(la, lb, lc, atom)


def axpby_problem(x: Value, y: Value, symbols: ValueSymbols | None = None) -> str | None:
    lx, ly = operand_layouts([x, y], symbols)
    return size_problem("x", size(lx), "y", size(ly))
