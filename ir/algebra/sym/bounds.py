"""Intervals of symbolic expressions.

`bounds(x)` is a proven interval for every admissible value of x, propagated from the symbols'
assumptions through + * // % ceil_div min max (interval arithmetic; infinite ends are the floats
-inf/+inf; `expand.public_bounds` tightens it with the expanded form and shows None for them).
It is cached on the node. The structural divisors (`known_divisor`) live with the nodes in
`expr`, which needs them to mark exact quotients.

`shift_plans` is the shift test (a polynomial over atoms is non-negative when substituting each
atom from one end of its interval leaves only non-negative coefficients); it needs nothing but
intervals, so both the prover (canonical form) and the expansion (expanded form) import it.
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING

from .expr import Op, Sum, Symbol

if TYPE_CHECKING:
    from .expr import IntLike, Mono

INF = float("inf")
Bound = "int | float"


def bounds(x: IntLike) -> tuple:
    """(lo, hi) with -inf/+inf (floats) for unbounded ends; ints otherwise."""
    if type(x) is int:
        return (x, x)
    b = x._bounds  # type: ignore[attr-defined]
    if b is None:
        b = x._bounds = _compute(x)  # type: ignore[attr-defined]
    return b


def _compute(x: object) -> tuple:
    if type(x) is Symbol:
        return (-INF if x.lower is None else x.lower, INF if x.upper is None else x.upper)
    if type(x) is Sum:
        lo = hi = x.const
        for mono, coeff in x.terms:
            mlo, mhi = mono_bounds(mono)
            if coeff > 0:
                lo += _mul(coeff, mlo)
                hi += _mul(coeff, mhi)
            else:
                lo += _mul(coeff, mhi)
                hi += _mul(coeff, mlo)
        return (lo, hi)
    assert type(x) is Op
    kind, args = x.kind, x.args
    if kind == "min":
        bs = [bounds(a) for a in args]
        return (min(b[0] for b in bs), min(b[1] for b in bs))
    if kind == "max":
        bs = [bounds(a) for a in args]
        return (max(b[0] for b in bs), max(b[1] for b in bs))
    alo, ahi = bounds(args[0])
    blo, bhi = bounds(args[1])
    if kind == "floordiv":
        return floordiv_bounds(alo, ahi, blo, bhi)
    if kind == "ceildiv":
        lo, hi = floordiv_bounds(-ahi, -alo, blo, bhi)
        return (-hi, -lo)
    return mod_bounds(alo, ahi, blo, bhi)


def _mul(a: float, b: float) -> float:
    """Product where 0 * inf is 0 (an exact zero factor wins)."""
    if a == 0 or b == 0:
        return 0
    return a * b


def interval_mul(lo1: float, hi1: float, lo2: float, hi2: float) -> tuple:
    ps = (_mul(lo1, lo2), _mul(lo1, hi2), _mul(hi1, lo2), _mul(hi1, hi2))
    return (min(ps), max(ps))


def interval_pow(lo: float, hi: float, e: int) -> tuple:
    if e == 1:
        return (lo, hi)
    if e % 2:
        return (lo**e, hi**e)
    if lo >= 0:
        return (lo**e, hi**e)
    if hi <= 0:
        return (hi**e, lo**e)
    return (0, max(lo**e, hi**e))


def mono_bounds(mono: Mono) -> tuple:
    lo, hi = 1, 1
    for atom, e in mono:
        alo, ahi = bounds(atom)
        plo, phi = interval_pow(alo, ahi, e)
        lo, hi = interval_mul(lo, hi, plo, phi)
    return (lo, hi)


def floordiv_bounds(alo: float, ahi: float, blo: float, bhi: float) -> tuple:
    """Interval of floor(a / b); exact corners for b > 0 or b < 0, unbounded if b may be 0."""
    if blo < 1 and bhi > -1:
        return (-INF, INF)
    if bhi <= -1:  # floor(a / b) == floor(-a / -b)
        alo, ahi, blo, bhi = -ahi, -alo, -bhi, -blo
    if alo == -INF:
        lo = -INF
    elif alo >= 0:
        lo = 0 if bhi == INF else alo // bhi
    else:
        lo = alo // blo
    if ahi == INF:
        hi = INF
    elif ahi >= 0:
        hi = ahi // blo
    else:
        hi = -1 if bhi == INF else ahi // bhi
    return (lo, hi)


def mod_bounds(alo: float, ahi: float, blo: float, bhi: float) -> tuple:
    """Interval of Python's a % b: in [0, b-1] for b > 0, in [b+1, 0] for b < 0."""
    if blo >= 1:
        hi = bhi - 1
        if alo >= 0:
            hi = min(hi, ahi)
        return (0, hi)
    if bhi <= -1:
        lo = blo + 1
        if ahi <= 0:
            lo = max(lo, alo)
        return (lo, 0)
    return (-INF, INF)


def shift_plans(const: int, terms: tuple, atoms: tuple, infos: list) -> bool:
    """The shift test for a polynomial over `atoms` with `(lo, hi, divisor)` per atom."""
    # Per atom, the bound to shift from: the lower one, the upper one, or (third plan) the one
    # its terms pull towards: an atom that only appears in negative terms is worst at its upper
    # bound (N + T < 8*K*N needs T <= 15 but K >= 2 and N >= 4).
    only_negative = [all(k < 0 for m, k in terms if any(a is v for a, _ in m)) for v in atoms]
    tried = set()
    for strategy in ("low", "high", "sign"):
        plan = []
        for (lo, hi, d), negative in zip(infos, only_negative):
            use_low = {"low": True, "high": False, "sign": not negative}[strategy]
            if lo != -INF and (use_low or hi == INF):
                plan.append((-(-lo // d) * d, d))
            elif hi != INF:
                plan.append(((hi // d) * d, -d))
            else:
                return False
        key = tuple(plan)
        if key in tried:
            continue
        tried.add(key)
        if _nonneg_after_shift(const, terms, atoms, plan):
            return True
    return False


def _nonneg_after_shift(const: int, terms: tuple, atoms: tuple, plan: list) -> bool:
    """Substitute v_i = base_i + step_i * t_i (t_i >= 0) and check every coefficient is >= 0."""
    index = {a: i for i, a in enumerate(atoms)}
    acc: dict = {(): const}
    for m, k in terms:
        partial = [((), k)]
        for atom, ex in m:
            i = index[atom]
            base, step = plan[i]
            expansion = [(j, comb(ex, j) * base ** (ex - j) * step**j) for j in range(ex + 1)]
            partial = [
                ((*key, (i, j)) if j else key, c * cj)
                for key, c in partial
                for j, cj in expansion
                if cj
            ]
        for key, c in partial:
            acc[key] = acc.get(key, 0) + c
    return all(c >= 0 for c in acc.values())
