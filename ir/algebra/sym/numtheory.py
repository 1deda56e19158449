"""gcd and lcm of symbolic integers, as closed forms valid for every admissible value.

`gcd(a, b)` returns an expression equal to gcd(a, b) for all admissible values, or raises
`LayoutError` when no such expression exists in our canonical form. Rules, in order: one operand
divides the other (`gcd(N, 4*N) = N`; `gcd(4, N) = 4` when 4 | N); Euclid's step on the terms the
other operand divides (`gcd(4, N + 2) = 2` when 4 | N); common integer content
(`gcd(2*N, 2*N + 2) = 2`); common positive monomial factors (`gcd(4*N, 6*N) = 2*N`).
`gcd(N, 12)` with 4 | N has no closed form (it is 4 or 12), so it raises; `known_divisor`
says what is provable (4).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import LayoutError
from . import arith as _arith
from . import prove as _prove
from .expr import known_divisor, mono_div, mono_divisor, mono_expr, single_term, term_expr, terms_of

if TYPE_CHECKING:
    from .expr import IntLike, Mono

_MAX_STEPS = 8


def gcd(a: IntLike, b: IntLike) -> IntLike:
    if type(a) is int and type(b) is int:
        return math.gcd(a, b)
    _require_nonneg("gcd", a, b)
    g = _gcd(a, b, 0)
    if g is None:
        common = math.gcd(known_divisor(a), known_divisor(b))
        raise LayoutError(
            f"gcd({a}, {b}): no closed form valid for all values of the symbols "
            f"(both are provably multiples of {common})"
        )
    return g


def lcm(a: IntLike, b: IntLike) -> IntLike:
    if type(a) is int and type(b) is int:
        return math.lcm(a, b)
    _require_nonneg("lcm", a, b)
    if (type(a) is int and a == 0) or (type(b) is int and b == 0):
        return 0
    if _prove.divides(a, b):
        return b
    if _prove.divides(b, a):
        return a
    g = _gcd(a, b, 0)
    if g is None or not _prove.divides(g, b):
        raise LayoutError(f"lcm({a}, {b}): no closed form valid for all values of the symbols")
    return _arith.mul(a, _arith.floordiv(b, g))


def _require_nonneg(what: str, a: IntLike, b: IntLike) -> None:
    for x in (a, b):
        if not _prove.prove_nonneg(x):
            raise LayoutError(f"{what}({a}, {b}): cannot prove that {x} is non-negative")


def _gcd(a: IntLike, b: IntLike, steps: int) -> IntLike | None:
    """gcd of two provably non-negative values, or None without a closed form."""
    if type(a) is int and type(b) is int:
        return math.gcd(a, b)
    if type(a) is int and a == 0:
        return b
    if type(b) is int and b == 0:
        return a
    if a is b:
        return a
    if _prove.divides(a, b):
        return a
    if _prove.divides(b, a):
        return b
    if steps >= _MAX_STEPS:
        return None
    for x, y in ((a, b), (b, a)):
        reduced = _reduce_by(y, x)
        if reduced is None:
            continue
        if _prove.prove_nonneg(reduced):
            return _gcd(x, reduced, steps + 1)
        flipped = _arith.neg(reduced)
        if _prove.prove_nonneg(flipped):
            return _gcd(x, flipped, steps + 1)
    g = math.gcd(_arith.content(a), _arith.content(b))
    if g > 1:
        inner = _gcd(_arith.divide_coefficients(a, g), _arith.divide_coefficients(b, g), steps + 1)
        return None if inner is None else _arith.mul(g, inner)
    sa, sb = single_term(a), single_term(b)
    if sa is not None and sb is not None:
        common = _common_positive_factor(sa[1], sb[1])
        if common:
            ra, rb = mono_div(sa[1], common), mono_div(sb[1], common)
            inner = _gcd(term_expr(ra, sa[0]), term_expr(rb, sb[0]), steps + 1)  # type: ignore[arg-type]
            return None if inner is None else _arith.mul(mono_expr(common), inner)
    return None


def _reduce_by(y: IntLike, x: IntLike) -> IntLike | None:
    """y minus the terms that x provably divides (and, for int x, y's constant reduced mod x):
    y - x*q for an integer-valued q, so gcd(x, y) == gcd(x, result). None if nothing changes."""
    const, terms = terms_of(y)
    if type(x) is int:
        if x <= 0:
            return None
        rest = [(m, k) for m, k in terms if (k * mono_divisor(m)) % x]
        new_const = const % x
    else:
        st = single_term(x)
        if st is None:
            return None
        kx, mx = abs(st[0]), st[1]
        rest = []
        for m, k in terms:
            rm = mono_div(m, mx)
            if rm is None or (k * mono_divisor(rm)) % kx:
                rest.append((m, k))
        new_const = const
    if len(rest) == len(terms) and new_const == const:
        return None
    return _arith.from_pairs(new_const, rest)


def _common_positive_factor(m1: Mono, m2: Mono) -> Mono:
    """The common factors of two monomials, restricted to provably positive atoms."""
    e2 = dict(m2)
    common = []
    for atom, e in m1:
        shared = min(e, e2.get(atom, 0))
        if shared and _prove.sign(atom) > 0:
            common.append((atom, shared))
    return tuple(common)
