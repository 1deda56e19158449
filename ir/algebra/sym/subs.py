"""Evaluation and substitution of symbolic integers.

Values given for symbols must satisfy the symbols' assumptions: the canonical form was
simplified under them (`(N // 4) * 4` is `N` when 4 | N), so evaluating or substituting an
inadmissible value would silently compute something else. Both raise `LayoutError` instead.

`evaluate` uses Python's exact integer semantics: `//` floors and `%` takes the divisor's sign
(CuTe's C++ truncates; the two agree whenever the dividend is non-negative and the divisor
positive, which is every index computation of a layout).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import LayoutError, LayoutZeroDivisionError
from . import arith as _arith
from . import prove as _prove
from .expr import Op, Sum, Symbol, SymInt

if TYPE_CHECKING:
    from .expr import IntLike

_MISS = object()


def _as_int(value: Any, where: Any) -> int:
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
    memo: dict = {}

    def symbol_value(sym: Symbol) -> int:
        v = env.get(sym, _MISS)
        if v is _MISS:
            v = env.get(sym.name, _MISS)
        if v is _MISS:
            raise LayoutError(f"evaluate({e}): no value given for the symbol {sym.name}")
        if type(v) is not int:
            v = _as_int(v, lambda: f"evaluate({e}): value of {sym.name}")
        if not sym.admits(v):
            raise LayoutError(
                f"evaluate({e}): {sym.name} = {v} violates its assumptions ({sym.assumptions()})"
            )
        return v

    def ev(x: IntLike) -> int:
        if type(x) is int:
            return x
        r = memo.get(x, _MISS)
        if r is not _MISS:
            return r
        if type(x) is Symbol:
            r = symbol_value(x)
        elif type(x) is Sum:
            r = x.const
            for m, k in x.terms:
                p = k
                for atom, ex in m:
                    p *= ev(atom) ** ex
                r += p
        else:
            r = _apply(x, [ev(a) for a in x.args], e)  # type: ignore[attr-defined]
        memo[x] = r
        return r

    return ev(e)


def evaluate_unchecked(e: IntLike, env: dict) -> int:
    """The value of e for symbol values known to be admissible (keys: Symbol objects only):
    the prover's fast refutation. Raises ZeroDivisionError like evaluate."""
    memo: dict = {}

    def ev(x: IntLike) -> int:
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
                        k *= ev(atom) ** ex
                    r += k
            else:
                r = _apply(x, [ev(a) for a in x.args], e)  # type: ignore[attr-defined]
            memo[x] = r
        return r

    return ev(e)


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


def subs(e: IntLike, mapping: Mapping[Any, Any]) -> IntLike:
    """e with symbols replaced (keys: Symbol or name; values: int or SymInt), re-canonicalized.

    A replacement must provably satisfy the replaced symbol's assumptions, else LayoutError.
    """
    if type(e) is int:
        return e
    if not isinstance(e, SymInt):
        raise TypeError(f"subs: expected an int or SymInt, got {e!r}")
    by_symbol: dict = {}
    by_name: dict = {}
    for key, value in mapping.items():
        if not isinstance(value, SymInt):
            value = _as_int(value, f"subs: value for {key}")
        if type(key) is Symbol:
            by_symbol[key] = value
        elif isinstance(key, str):
            by_name[key] = value
        else:
            raise TypeError(f"subs: keys must be Symbols or names, got {key!r}")
    if not any(s in by_symbol or s.name in by_name for s in e.free_symbols):
        return e
    checked: set = set()
    memo: dict = {}

    def replacement(sym: Symbol) -> Any:
        v = by_symbol.get(sym, _MISS)
        if v is _MISS:
            v = by_name.get(sym.name, _MISS)
        if v is not _MISS and sym not in checked:
            _check_admissible(sym, v)
            checked.add(sym)
        return v

    def rb(x: IntLike) -> IntLike:
        if type(x) is int:
            return x
        r = memo.get(x, _MISS)
        if r is not _MISS:
            return r
        if type(x) is Symbol:
            v = replacement(x)
            r = x if v is _MISS else v
        elif type(x) is Sum:
            r = x.const
            for m, k in x.terms:
                p: IntLike = k
                for atom, ex in m:
                    p = _arith.mul(p, _arith.power(rb(atom), ex))
                r = _arith.add(r, p)
        else:
            args = tuple(rb(a) for a in x.args)  # type: ignore[attr-defined]
            r = x if all(a is b for a, b in zip(args, x.args)) else rebuild_op(x.kind, args)  # type: ignore[attr-defined]
        memo[x] = r
        return r

    return rb(e)


def rebuild_op(kind: str, args: tuple) -> IntLike:
    """Apply the canonicalizing operation of an opaque atom's kind to new operands."""
    if kind == "floordiv":
        return _arith.floordiv(*args)
    if kind == "mod":
        return _arith.mod(*args)
    if kind == "ceildiv":
        return _arith.ceil_div(*args)
    if kind == "min":
        return _arith.sym_min(*args)
    return _arith.sym_max(*args)


def _check_admissible(sym: Symbol, value: IntLike) -> None:
    if type(value) is int:
        if not sym.admits(value):
            raise LayoutError(
                f"subs: {sym.name} = {value} violates its assumptions ({sym.assumptions()})"
            )
        return
    ok = (sym.divisible_by == 1 or _prove.divides(sym.divisible_by, value)) and (
        (sym.lower is None or _prove.prove_le(sym.lower, value))
        and (sym.upper is None or _prove.prove_le(value, sym.upper))
    )
    if not ok:
        raise LayoutError(
            f"subs: cannot prove that {value} satisfies the assumptions of {sym.name} ({sym.assumptions()})"
        )
