"""Divisibility proofs for alignment: the canonical form first, SymPy as the last resort.

The symbolic engine's canonical form proves ``d | x`` from coefficients and the symbols'
``divisible_by`` facts (``known_divisor``), in microseconds. It cannot see through the
remainder atoms that rounding produces: ``(i // 4) * 4`` canonicalizes to ``i - i % 4``, whose
known divisor is 1, although every value is a multiple of 4. SymPy decides such cases
(``Mod(i - Mod(i, 4), 4)`` is 0) but costs milliseconds (FACTS.md), so :func:`prove_divisible`
calls it only when the canonical form fails *and* the expression has floordiv/mod atoms (the
only shapes where SymPy knows more) *and* it is small. Every SymPy call is counted
(:data:`SYMPY_CALLS`), so passes can report it as a statistic; results are memoised.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.symbolic import Symbol, SymInt, node, to_sympy, walk

IntLike = int | SymInt

__all__ = ["SYMPY_CALLS", "known_divisor", "prove_divisible", "sympy_calls"]

MAX_SYMPY_NODES = 40
"""Larger expressions are not sent to SymPy (its cost grows quickly)."""


class _Counter:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


SYMPY_CALLS = _Counter()
"""How many divisibility questions went to SymPy in this process."""

_MEMO: dict[tuple[int, Any], bool] = {}


def sympy_calls() -> int:
    return SYMPY_CALLS.value


def known_divisor(x: IntLike) -> int:
    """The largest int the canonical form proves divides ``x`` (0 for the int 0)."""
    if type(x) is int:
        return abs(x)
    from layoutc.ir.algebra.symbolic import sym_known_divisor

    return sym_known_divisor(x)


def prove_divisible(d: int, x: IntLike) -> bool:
    """True when ``d`` provably divides ``x`` for every admissible value of its symbols."""
    if d <= 1:
        return True
    k = known_divisor(x)
    if k % d == 0:
        return True
    if type(x) is int:
        return False
    key = (d, x)
    found = _MEMO.get(key)
    if found is not None:
        return found
    result = _worth_sympy(x) and not _counterexample(d, x) and _sympy_divides(d, x)
    if len(_MEMO) > 4096:
        _MEMO.clear()
    _MEMO[key] = result
    return result


def _worth_sympy(x: SymInt) -> bool:
    has_atom = False
    for count, sub in enumerate(walk(x), 1):
        if count > MAX_SYMPY_NODES:
            return False
        kind = node(sub)[0]
        if kind in ("floordiv", "mod"):
            has_atom = True
        elif kind in ("ceildiv", "min", "max"):
            return False
    return has_atom


def _samples(sym: Symbol) -> list[int]:
    """A few admissible values of a symbol: the smallest ones and some further up."""
    k = sym.divisible_by
    lo, hi = sym.bounds
    start = lo if lo is not None else (-3 * k if hi is None or hi > 0 else hi - 6 * k)
    start = -(-start // k) * k
    out = []
    for step in (0, 1, 2, 3, 5, 8, 13, 21, 34, 55):
        v = start + step * k
        if hi is not None and v > hi:
            break
        out.append(v)
    return out or [start]


def _counterexample(d: int, x: SymInt) -> bool:
    """True when some admissible assignment makes ``x`` not a multiple of ``d`` (a cheap
    disproof that spares the SymPy call). Assignments combine each symbol's samples."""
    syms = list(x.free_symbols)
    values = [_samples(s) for s in syms]
    if not syms:
        return False
    count = max(len(v) for v in values)
    for i in range(count * len(syms)):
        env = {
            s: v[(i + j * (i // count + 1)) % len(v)] for j, (s, v) in enumerate(zip(syms, values))
        }
        try:
            if x.evaluate(env) % d:
                return True
        except (ZeroDivisionError, ArithmeticError):
            continue
    return False


def _sympy_divides(d: int, x: SymInt) -> bool:
    """Ask SymPy whether ``x mod d`` is identically 0 (symbols with ``divisible_by = k`` are
    written ``k * s`` so SymPy sees the fact)."""
    import sympy

    SYMPY_CALLS.value += 1
    try:
        return bool(sympy.Mod(to_sympy(x, divisibility=True), d) == 0)
    except (TypeError, ValueError, RecursionError):
        return False
