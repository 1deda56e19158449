"""Substitution of symbolic integers (evaluation at ints is `evaluate`).

A replacement must satisfy the replaced symbol's assumptions: the canonical form was simplified
under them (`(N // 4) * 4` is `N` when 4 | N), so substituting an inadmissible value would
silently compute something else. For a symbolic replacement this takes proofs, which is why
substitution sits above the prover.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import LayoutError
from . import arith as _arith
from . import prove as _prove
from .evaluate import as_int
from .expr import Sum, Symbol, SymInt

if TYPE_CHECKING:
    from .expr import IntLike

_MISS = object()


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
            value = as_int(value, f"subs: value for {key}")
        if type(key) is Symbol:
            by_symbol[key] = value
        elif isinstance(key, str):
            by_name[key] = value
        else:
            raise TypeError(f"subs: keys must be Symbols or names, got {key!r}")
    if not any(s in by_symbol or s.name in by_name for s in e.free_symbols):
        return e
    return _rebuild(e, by_symbol, by_name, set(), {})


# A module function, not a self-recursive closure (a reference cycle per call: evaluate.py).
def _rebuild(x: IntLike, by_symbol: dict, by_name: dict, checked: set, memo: dict) -> IntLike:
    if type(x) is int:
        return x
    r = memo.get(x, _MISS)
    if r is not _MISS:
        return r
    if type(x) is Symbol:
        v = by_symbol.get(x, _MISS)
        if v is _MISS:
            v = by_name.get(x.name, _MISS)
        if v is not _MISS and x not in checked:
            _check_admissible(x, v)
            checked.add(x)
        r = x if v is _MISS else v
    elif type(x) is Sum:
        r = x.const
        for m, k in x.terms:
            p: IntLike = k
            for atom, ex in m:
                p = _arith.mul(
                    p, _arith.power(_rebuild(atom, by_symbol, by_name, checked, memo), ex)
                )
            r = _arith.add(r, p)
    else:
        args = tuple(_rebuild(a, by_symbol, by_name, checked, memo) for a in x.args)  # type: ignore[attr-defined]
        r = x if all(a is b for a, b in zip(args, x.args)) else _arith.rebuild_op(x.kind, args)  # type: ignore[attr-defined]
    memo[x] = r
    return r


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
