"""Evaluation of symbolic integers at int values of their symbols.

Values given for symbols must satisfy the symbols' assumptions: the canonical form was
simplified under them (`(N // 4) * 4` is `N` when 4 | N), so evaluating at an inadmissible
value would silently compute something else; `evaluate` raises `LayoutError` instead.
`evaluate_unchecked` is the prover's fast path (its sample points are admissible by
construction), which is why evaluation sits low in the package: it needs only the nodes.

`evaluate` uses Python's exact integer semantics: `//` floors and `%` takes the divisor's sign
(CuTe's C++ truncates; the two agree whenever the dividend is non-negative and the divisor
positive, which is every index computation of a layout).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import LayoutError, LayoutZeroDivisionError
from .expr import Op, Sum, Symbol, SymInt

if TYPE_CHECKING:
    from .expr import IntLike

_MISS = object()


def as_int(value: Any, where: Any) -> int:
    """value as an int; `where` (a string, or a callable making one) names the place on error."""
    if type(value) is int:
        return value
    if (
        isinstance(value, bool)
        or not hasattr(type(value), "__index__")
        or isinstance(value, SymInt)
    ):
        raise LayoutError(
            f"{where() if callable(where) else where}: expected an int, got {value!r}"
        )
    return operator.index(value)


def evaluate(e: IntLike, env: Mapping[Any, Any]) -> int:
    """The int value of e; `env` maps Symbol objects or symbol names to ints."""
    if type(e) is int:
        return e
    if not isinstance(e, SymInt):
        raise TypeError(f"evaluate: expected an int or SymInt, got {e!r}")
    return _ev(e, env, {}, e)


# The recursions are module functions, not closures: a nested function that calls itself is a
# reference cycle, garbage only the cyclic collector frees (thousands per GEMM compile).
def _symbol_value(sym: Symbol, env: Mapping[Any, Any], whole: IntLike) -> int:
    v = env.get(sym, _MISS)
    if v is _MISS:
        v = env.get(sym.name, _MISS)
    if v is _MISS:
        raise LayoutError(f"evaluate({whole}): no value given for the symbol {sym.name}")
    if type(v) is not int:
        v = as_int(v, lambda: f"evaluate({whole}): value of {sym.name}")
    if not sym.admits(v):
        raise LayoutError(
            f"evaluate({whole}): {sym.name} = {v} violates its assumptions ({sym.assumptions()})"
        )
    return v


def _ev(x: IntLike, env: Mapping[Any, Any], memo: dict, whole: IntLike) -> int:
    if type(x) is int:
        return x
    r = memo.get(x, _MISS)
    if r is not _MISS:
        return r
    if type(x) is Symbol:
        r = _symbol_value(x, env, whole)
    elif type(x) is Sum:
        r = x.const
        for m, k in x.terms:
            p = k
            for atom, ex in m:
                p *= _ev(atom, env, memo, whole) ** ex
            r += p
    else:
        r = _apply(x, [_ev(a, env, memo, whole) for a in x.args], whole)  # type: ignore[attr-defined]
    memo[x] = r
    return r


def evaluate_unchecked(e: IntLike, env: dict) -> int:
    """The value of e for symbol values known to be admissible (keys: Symbol objects only):
    the prover's fast refutation. Raises ZeroDivisionError like evaluate."""
    return _ev_unchecked(e, env, {}, e)


def _ev_unchecked(x: IntLike, env: dict, memo: dict, whole: IntLike) -> int:
    if type(x) is int:
        return x
    r = memo.get(x)
    if r is None:
        t = type(x)
        if t is Symbol:
            r = env[x]
        elif t is Sum:
            r = x.const
            for m, k in x.terms:
                for atom, ex in m:
                    k *= _ev_unchecked(atom, env, memo, whole) ** ex
                r += k
        else:
            r = _apply(x, [_ev_unchecked(a, env, memo, whole) for a in x.args], whole)  # type: ignore[attr-defined]
        memo[x] = r
    return r


def _apply(op: Op, args: list, whole: IntLike) -> int:
    kind = op.kind
    if kind == "min":
        return min(args)
    if kind == "max":
        return max(args)
    a, b = args
    if b == 0:
        raise LayoutZeroDivisionError(f"evaluate({whole}): division by zero in {op}")
    if kind == "floordiv":
        return a // b
    if kind == "mod":
        return a % b
    return -(-a // b)
