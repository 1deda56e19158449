"""Intervals and known divisors of symbolic expressions.

`bounds(x)` is a proven interval for every admissible value of x, propagated from the symbols'
assumptions through + * // % ceil_div min max (interval arithmetic; infinite ends are the floats
-inf/+inf internally and None in the public view). `known_divisor(x)` is an integer that provably
divides x: the gcd over terms of |coeff| times the divisors of the atoms (a symbol's
`divisible_by`, an exact quotient's remaining factor, ...). Both are cached on the node.
"""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING

from .sym_expr import Symbol, _Op, _Sum

if TYPE_CHECKING:
    from .sym_expr import IntLike, Mono

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


def public_bounds(x: IntLike) -> tuple[int | None, int | None]:
    """The tighter of the canonical form's interval and the expanded form's (`x - x % 8` is
    `8*(x // 8)` there, so it is at most the largest multiple of 8 below x's upper bound)."""
    lo, hi = bounds(x)
    if type(x) is not int and type(x) is not Symbol:
        from .sym_expand import expand, poly_bounds

        xlo, xhi = poly_bounds(expand(x))
        lo, hi = max(lo, xlo), min(hi, xhi)
    return (None if lo == -INF else lo, None if hi == INF else hi)


def _compute(x: object) -> tuple:
    if type(x) is Symbol:
        return (-INF if x.lower is None else x.lower, INF if x.upper is None else x.upper)
    if type(x) is _Sum:
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
    assert type(x) is _Op
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


def known_divisor(x: IntLike) -> int:
    """The largest integer that provably divides x (|x| for ints, so 0 for 0); at least 1."""
    if type(x) is int:
        return -x if x < 0 else x
    kd = x._kd  # type: ignore[attr-defined]
    if kd == 0:
        kd = x._kd = _compute_divisor(x)  # type: ignore[attr-defined]
    return kd


def mono_divisor(mono: Mono) -> int:
    d = 1
    for atom, e in mono:
        d *= known_divisor(atom) ** e
    return d


def _compute_divisor(x: object) -> int:
    if type(x) is _Sum:
        g = abs(x.const)
        for mono, coeff in x.terms:
            g = gcd(g, abs(coeff) * mono_divisor(mono))
            if g == 1:
                break
        return g or 1
    assert type(x) is _Op
    if x._exact_k:
        return known_divisor(x.args[0]) // x._exact_k
    if x.kind == "mod":
        return gcd(known_divisor(x.args[0]), known_divisor(x.args[1])) or 1
    if x.kind in ("min", "max"):
        g = 0
        for a in x.args:
            g = gcd(g, known_divisor(a))
        return g or 1
    return 1
