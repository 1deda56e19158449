"""The expanded form: a second normal form of symbolic integers, used by the provers.

Why: the canonical form (`sym_expr`) keeps `x`, `x // b` and `x % b` as separate readable atoms,
so equal values built in different ways can keep different canonical forms (`9*(N // 3)` and
`3*N - 3*(N % 3)`), and a sum like `8*t + 15*(t % 8) - 7*(t % 16)` shows no common factor
although every value is a multiple of 8. The expanded form removes that freedom:

- every `x % b` becomes `x - b*(x // b)` and `ceil_div(x, b)` becomes `(x + b - 1) // b`;
- every symbol `N` with `divisible_by=d` becomes `d*nu(N)`, `nu(N) = N / d` an integer, so the
  symbols' divisibility lives in the integer coefficients (exact quotients `N // 4` are `nu(N)`);
- divisions are normalised over a floor basis: `floor(P / D)` with D provably positive,
  integer multiples of D moved out of P, common content cancelled (`floor(g*A / (g*c))`),
  nested divisions merged (`floor((floor(x / a) + y) / c) = floor((x + a*y) / (a*c))`),
  integer content of a symbolic divisor taken innermost (`x // (4*M) = (x // 4) // M`),
  numerators whose interval stays inside one multiple folded, and of the two mirror forms of
  `floor((S + r) / c)` (`sum(m) - floor((c*sum(m) - S + c - 1 - r) / c)`) the smaller taken.

Then a value is a polynomial with integer coefficients over basis atoms (`nu`, `floor`, `min`,
`max`, and `opaque` divisions whose divisor may be 0), and linear combinations are compared
coefficient-wise: `9*(N // 3)` and `3*N - 3*(N % 3)` both expand to `9*floor(N / 3)`, the sum
above to `16*t - 120*floor(t / 8) + 112*floor(t / 16)` (content 8).

Every step is an identity for every admissible value, so the expanded form is always equal in
value to the expression; it is not printed and not interned as a SymInt (the readable canonical
form stays the one users see), and it is memoised on each node (`SymInt._xf`).

Representation: a polynomial is a tuple of `(monomial, coeff)` sorted by the monomial's key, the
constant being the empty monomial; a monomial is a tuple of `(atom, exponent)` sorted by the
atoms' keys. Atoms (`XAtom`) are interned, so polynomials compare with `==` on tuples.
"""

from __future__ import annotations

import weakref
from math import gcd
from typing import TYPE_CHECKING

from . import sym_prove as _prove
from .sym_bounds import INF, bounds, floordiv_bounds, interval_mul, interval_pow
from .sym_bounds import known_divisor as structural_divisor
from .sym_cache import MemoCache
from .sym_expr import Symbol, _Op, _Sum

if TYPE_CHECKING:
    from .sym_expr import IntLike

Poly = tuple  # tuple[tuple[Mono, int], ...], sorted by mono_key; () is zero
Mono = tuple  # tuple[tuple[XAtom, int], ...], sorted by atom key; () is the constant monomial

_ATOMS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_FLOOR = MemoCache("expand_floor")
_MAX_MERGES = 32  # nested divisions merged per normalization (a safety net; real chains need few)


class XAtom:
    """A basis atom of the expanded form (interned: equal atoms are the same object).

    kind "nu": `args = (symbol,)`, value symbol / divisible_by; "floor": `args = (P, D)`, value
    floor(P / D) with D provably positive; "min"/"max": `args` polynomials; "opaque": `args =
    (op, g)`, value op / g for a canonical division atom whose divisor may be zero or negative.
    """

    __slots__ = ("__weakref__", "_bounds", "args", "key", "kind")

    kind: str
    args: tuple
    key: tuple

    def __repr__(self) -> str:
        return f"XAtom({format_atom(self)})"


def _atom(kind: str, args: tuple, key: tuple) -> XAtom:
    ident = (kind, args)
    a = _ATOMS.get(ident)
    if a is None:
        a = object.__new__(XAtom)
        a.kind = kind
        a.args = args
        a.key = key
        a._bounds = None
        _ATOMS[ident] = a
    return a


def nu_atom(sym: Symbol) -> XAtom:
    return _atom("nu", (sym,), (0, sym._okey))


def _floor_atom(p: Poly, d: Poly) -> XAtom:
    return _atom("floor", (p, d), (1, poly_key(p), poly_key(d)))


def _minmax_atom(kind: str, args: tuple) -> XAtom:
    return _atom(kind, args, (2, kind, tuple(poly_key(a) for a in args)))


def _opaque_atom(op: _Op, g: int) -> XAtom:
    return _atom("opaque", (op, g), (3, op._okey, g))


# ---------------------------------------------------------------------------------------------------
# Polynomials
# ---------------------------------------------------------------------------------------------------


def mono_key(m: Mono) -> tuple:
    return tuple((a.key, e) for a, e in m)


def poly_key(p: Poly) -> tuple:
    return tuple((mono_key(m), k) for m, k in p)


def _sort_key(term: tuple) -> tuple:
    return mono_key(term[0])


def from_dict(acc: dict) -> Poly:
    items = [(m, k) for m, k in acc.items() if k]
    if len(items) > 1:
        items.sort(key=_sort_key)
    return tuple(items)


def const_poly(c: int) -> Poly:
    return (((), c),) if c else ()


def poly_const(p: Poly) -> int | None:
    """The int value of a constant polynomial, else None."""
    if not p:
        return 0
    if len(p) == 1 and not p[0][0]:
        return p[0][1]
    return None


def atom_poly(a: XAtom, coeff: int = 1) -> Poly:
    return ((((a, 1),), coeff),)


def padd(p: Poly, q: Poly, scale: int = 1) -> Poly:
    """p + scale*q."""
    if not q or scale == 0:
        return p
    if not p and scale == 1:
        return q
    acc = dict(p)
    for m, k in q:
        acc[m] = acc.get(m, 0) + scale * k
    return from_dict(acc)


def pscale(p: Poly, k: int) -> Poly:
    if k == 1:
        return p
    if k == 0:
        return ()
    return tuple((m, c * k) for m, c in p)


def _mono_mul(m1: Mono, m2: Mono) -> Mono:
    if not m1:
        return m2
    if not m2:
        return m1
    exps = dict(m1)
    for a, e in m2:
        exps[a] = exps.get(a, 0) + e
    items = list(exps.items())
    if len(items) > 1:
        items.sort(key=lambda t: t[0].key)
    return tuple(items)


def _mono_div(m: Mono, d: Mono) -> Mono | None:
    """m / d when every factor of d divides m (exponent-wise), else None."""
    exps = dict(m)
    for a, e in d:
        have = exps.get(a, 0)
        if have < e:
            return None
        if have == e:
            del exps[a]
        else:
            exps[a] = have - e
    items = list(exps.items())
    if len(items) > 1:
        items.sort(key=lambda t: t[0].key)
    return tuple(items)


def pmul(p: Poly, q: Poly) -> Poly:
    if not p or not q:
        return ()
    if len(q) == 1 and not q[0][0]:
        return pscale(p, q[0][1])
    if len(p) == 1 and not p[0][0]:
        return pscale(q, p[0][1])
    acc: dict = {}
    for m1, k1 in p:
        for m2, k2 in q:
            m = _mono_mul(m1, m2)
            acc[m] = acc.get(m, 0) + k1 * k2
    return from_dict(acc)


def ppow(p: Poly, e: int) -> Poly:
    result: Poly = const_poly(1)
    for _ in range(e):
        result = pmul(result, p)
    return result


def content(p: Poly) -> int:
    """gcd of the coefficients (the constant included); 0 for the zero polynomial."""
    g = 0
    for _, k in p:
        g = gcd(g, k)
        if g == 1:
            break
    return g


def pdiv_int(p: Poly, g: int) -> Poly:
    """p / g for a g that divides every coefficient."""
    return p if g == 1 else tuple((m, k // g) for m, k in p)


def pexact_div(p: Poly, d: Poly) -> Poly | None:
    """q with q*d == p and integer coefficients (so d divides p for every value), or None.
    Multivariate division by leading terms; a remainder means "not shown"."""
    if not d:
        return None
    if not p:
        return ()
    lead_m, lead_k = d[-1]
    acc = dict(p)
    quot: dict = {}
    for _ in range(4 * len(p) + 4):
        if not acc:
            return from_dict(quot)
        m, k = max(acc.items(), key=lambda t: mono_key(t[0]))
        qm = _mono_div(m, lead_m)
        if qm is None or k % lead_k:
            return None
        qk = k // lead_k
        quot[qm] = quot.get(qm, 0) + qk
        for dm, dk in d:
            mm = _mono_mul(qm, dm)
            left = acc.get(mm, 0) - qk * dk
            if left:
                acc[mm] = left
            else:
                acc.pop(mm, None)
    return None


# ---------------------------------------------------------------------------------------------------
# Bounds
# ---------------------------------------------------------------------------------------------------


def atom_bounds(a: XAtom) -> tuple:
    b = a._bounds
    if b is None:
        b = a._bounds = _compute_atom_bounds(a)
    return b


def _div_interval(lo: float, hi: float, g: int) -> tuple:
    """The interval of v / g for multiples v of g > 0 in [lo, hi]."""
    return (lo if lo == -INF else -(-lo // g), hi if hi == INF else hi // g)


def _compute_atom_bounds(a: XAtom) -> tuple:
    kind = a.kind
    if kind == "nu":
        s = a.args[0]
        d = s.divisible_by
        lo = -INF if s.lower is None else -(-s.lower // d)
        hi = INF if s.upper is None else s.upper // d
        return (lo, hi)
    if kind == "floor":
        plo, phi = poly_bounds(a.args[0])
        dlo, dhi = poly_bounds(a.args[1])
        return floordiv_bounds(plo, phi, max(dlo, 1), dhi)
    if kind == "opaque":
        lo, hi = bounds(a.args[0])
        return _div_interval(lo, hi, a.args[1])
    bs = [poly_bounds(p) for p in a.args]
    pick = min if kind == "min" else max
    return (pick(b[0] for b in bs), pick(b[1] for b in bs))


def poly_bounds(p: Poly) -> tuple:
    """(lo, hi) by interval arithmetic over the atoms' intervals (-inf/inf when unbounded)."""
    lo = hi = 0
    for m, k in p:
        mlo, mhi = 1, 1
        for a, e in m:
            alo, ahi = atom_bounds(a)
            plo, phi = interval_pow(alo, ahi, e)
            mlo, mhi = interval_mul(mlo, mhi, plo, phi)
        tlo, thi = interval_mul(mlo, mhi, k, k)
        lo += tlo
        hi += thi
    return (lo, hi)


# ---------------------------------------------------------------------------------------------------
# Expansion of canonical expressions
# ---------------------------------------------------------------------------------------------------


def expand(x: IntLike) -> Poly:
    """The expanded form of x (memoised on the node)."""
    if type(x) is int:
        return const_poly(x)
    p = x._xf  # type: ignore[union-attr]
    if p is None:
        cutoffs = _prove.cutoffs()
        p = _expand(x)
        if _prove.cutoffs() == cutoffs:  # not memoised when a divisor's sign hit the depth limit
            x._xf = p  # type: ignore[union-attr]
    return p


def expand_terms(const: int, terms: tuple | list) -> Poly:
    """The expanded form of `const + sum(coeff * mono)` given canonical terms."""
    acc: dict = {(): const} if const else {}
    for mono, k in terms:
        piece: Poly = const_poly(k)
        for atom, e in mono:
            xa = expand(atom)
            piece = pmul(piece, xa if e == 1 else ppow(xa, e))
        for m, c in piece:
            acc[m] = acc.get(m, 0) + c
    return from_dict(acc)


def _expand(x: IntLike) -> Poly:
    t = type(x)
    if t is Symbol:
        return atom_poly(nu_atom(x), x.divisible_by)  # type: ignore[arg-type]
    if t is _Sum:
        return expand_terms(x.const, x.terms)  # type: ignore[union-attr]
    kind, args = x.kind, x.args  # type: ignore[union-attr]
    if kind in ("min", "max"):
        xs = [expand(a) for a in args]
        g = 0
        for p in xs:
            g = gcd(g, content(p))
        g = g or 1
        parts = sorted({pdiv_int(p, g) for p in xs}, key=poly_key)
        if len(parts) == 1:
            return pscale(parts[0], g)
        return atom_poly(_minmax_atom(kind, tuple(parts)), g)
    a, b = args
    if _prove.sign(b) <= 0:  # a divisor that may be zero: opaque, scaled by what is known
        g = structural_divisor(x)
        return atom_poly(_opaque_atom(x, g), g)  # type: ignore[arg-type]
    xa, xb = expand(a), expand(b)
    if kind == "floordiv":
        return xfloor(xa, xb)
    if kind == "ceildiv":
        return xfloor(padd(padd(xa, xb), const_poly(-1)), xb)
    return padd(xa, pmul(xb, xfloor(xa, xb)), -1)


# ---------------------------------------------------------------------------------------------------
# Normalised floor division
# ---------------------------------------------------------------------------------------------------


def xfloor(p: Poly, d: Poly) -> Poly:
    """The expanded form of floor(p / d) for a provably positive d."""
    key = (p, d)
    r = _FLOOR.get(key)
    if r is None:
        c = poly_const(d)
        r = _FLOOR.put(key, _floor_int(p, c, 0) if c is not None else _floor_sym(p, d, 0))
    return r


def _floor_int(p: Poly, c: int, depth: int) -> Poly:
    if c == 1:
        return p
    quot: dict = {}
    rest: dict = {}
    for m, k in p:
        q, r = divmod(k, c)
        if q:
            quot[m] = q
        if r:
            rest[m] = r
    r0 = rest.pop((), 0)
    if not rest:  # 0 <= r0 < c
        return from_dict(quot)
    g = c
    for k in rest.values():
        g = gcd(g, k)
    if g > 1:  # floor((g*A + r0) / (g*c')) = floor((A + r0 // g) / c')
        rest = {m: k // g for m, k in rest.items()}
        c //= g
        r0 //= g
    if r0:
        rest[()] = r0
    num = from_dict(rest)
    lo, hi = poly_bounds(num)
    if lo != -INF and hi != INF and lo // c == hi // c:
        if lo // c:
            quot[()] = quot.get((), 0) + lo // c
        return from_dict(quot)
    if depth < _MAX_MERGES:
        inner = _mergeable(num, symbolic_divisors=True)
        if inner is not None:  # floor((floor(x / a) + y) / c) = floor((x + a*y) / (a*c))
            x, a = inner.args
            merged = padd(x, pmul(a, padd(num, atom_poly(inner), -1)))
            divisor = pscale(a, c)
            sub = (
                _floor_int(merged, poly_const(divisor), depth + 1)  # type: ignore[arg-type]
                if poly_const(a) is not None
                else _floor_sym(merged, divisor, depth + 1)
            )
            return padd(from_dict(quot), sub)
    # The mirror form: floor((S + r0) / c) = sum(m) - floor((c*sum(m) - S + c - 1 - r0) / c).
    mirror = {m: c - k for m, k in rest.items() if m}
    mr0 = c - 1 - r0
    if mr0:
        mirror[()] = mr0
    mnum = from_dict(mirror)
    if _mirror_key(mnum) < _mirror_key(num) and _mergeable(mnum, symbolic_divisors=True) is None:
        for m in rest:
            if m:
                quot[m] = quot.get(m, 0) + 1
        out = from_dict(quot)
        return padd(out, atom_poly(_floor_atom(mnum, const_poly(c))), -1)
    return padd(from_dict(quot), atom_poly(_floor_atom(num, const_poly(c))))


def _mirror_key(num: Poly) -> tuple:
    """Which of two mirror numerators is preferred: smaller coefficients (in monomial order),
    then the smaller constant."""
    return (tuple(k for m, k in num if m), num[0][1] if num and not num[0][0] else 0)


def _floor_sym(p: Poly, d: Poly, depth: int) -> Poly:
    """floor(p / d) for a non-constant, provably positive d."""
    g = content(d)
    if g > 1:  # x // (g*D) = (x // g) // D: integer divisions innermost
        inner = _floor_int(p, g, depth)
        d = pdiv_int(d, g)
        c = poly_const(d)
        return _floor_int(inner, c, depth) if c is not None else _floor_sym(inner, d, depth)
    quot: dict = {}
    rest: dict = dict(p)
    if len(d) == 1 and d[0][1] == 1:  # a monomial divisor: its multiples leave the division
        md = d[0][0]
        rest = {}
        for m, k in p:
            qm = _mono_div(m, md) if m else None
            if qm is None:
                rest[m] = k
            else:
                quot[qm] = quot.get(qm, 0) + k
    num = from_dict(rest)
    if not num:
        return from_dict(quot)
    common = _common_positive_monomial(num, d)
    if common:  # floor(m*x / (m*y)) = floor(x / y) for m > 0
        num = from_dict({_mono_div(m, common): k for m, k in num})
        d = from_dict({_mono_div(m, common): k for m, k in d})
        c = poly_const(d)
        sub = _floor_int(num, c, depth) if c is not None else _floor_sym(num, d, depth)
        return padd(from_dict(quot), sub)
    lo, hi = poly_bounds(num)
    dlo = max(poly_bounds(d)[0], 1)
    if lo >= 0 and hi <= dlo - 1:
        return from_dict(quot)
    if lo >= -dlo and hi <= -1:
        quot[()] = quot.get((), 0) - 1
        return from_dict(quot)
    exact = pexact_div(num, d)
    if exact is not None:
        return padd(from_dict(quot), exact)
    if depth < _MAX_MERGES:
        inner = _mergeable(num, symbolic_divisors=False)
        if inner is not None:  # as in _floor_int; a*d keeps content 1 (Gauss's lemma)
            x, a = inner.args
            merged = padd(x, pmul(a, padd(num, atom_poly(inner), -1)))
            return padd(from_dict(quot), _floor_sym(merged, pmul(a, d), depth + 1))
    return padd(from_dict(quot), atom_poly(_floor_atom(num, d)))


def _mergeable(num: Poly, *, symbolic_divisors: bool) -> XAtom | None:
    """The first floor atom standing alone with coefficient 1 in num (a nested division that
    can merge into the enclosing one). With a symbolic enclosing divisor only atoms with
    symbolic divisors merge (an integer one would come back out as content)."""
    for m, k in num:
        if k == 1 and len(m) == 1 and m[0][1] == 1:
            a = m[0][0]
            if a.kind == "floor" and (symbolic_divisors or poly_const(a.args[1]) is None):
                return a
    return None


def _common_positive_monomial(p: Poly, d: Poly) -> Mono:
    """The atoms (with multiplicity) that divide every term of p and d and are >= 1."""
    exps: dict | None = None
    for m, _ in (*p, *d):
        if not m:
            return ()
        if exps is None:
            exps = dict(m)
        else:
            other = dict(m)
            exps = {a: min(e, other[a]) for a, e in exps.items() if a in other}
        if not exps:
            return ()
    assert exps is not None
    keep = [(a, e) for a, e in exps.items() if atom_bounds(a)[0] >= 1]
    keep.sort(key=lambda t: t[0].key)
    return tuple(keep)


# ---------------------------------------------------------------------------------------------------
# Queries used by the provers
# ---------------------------------------------------------------------------------------------------


def expanded_divisor(x: IntLike) -> int:
    """A divisor of x proven by the expanded form: the content of its polynomial (0 for 0)."""
    return content(expand(x))


def divides_expanded(d: IntLike, x: IntLike) -> bool:
    """d | x shown by the expanded form: x's polynomial is d's times one with integer
    coefficients (d != 0 is the caller's business)."""
    xd, xx = expand(d), expand(x)
    c = poly_const(xd)
    if c is not None:
        return c != 0 and content(xx) % c == 0
    return pexact_div(xx, xd) is not None


def is_polynomial_in_symbols(p: Poly) -> bool:
    """True when every atom of p is a symbol's nu (no division, min or max left)."""
    return all(a.kind == "nu" for m, _ in p for a, _ in m)


def collapse(p: Poly) -> IntLike:
    """The canonical value of a polynomial over symbols' nu atoms (`nu(N)` is the exact
    quotient `N // divisible_by`, which the builder folds into the symbol's multiples)."""
    from .sym_arith import floordiv, from_pairs

    pairs = []
    for m, k in p:
        factors = []
        for a, e in m:
            s = a.args[0]
            v = s if s.divisible_by == 1 else floordiv(s, s.divisible_by)
            factors.append((v, e))
        pairs.append((_canonical_mono(factors), k))
    return from_pairs(0, pairs)


def _canonical_mono(factors: list) -> tuple:
    from .sym_expr import mono_mul

    mono: tuple = ()
    for v, e in factors:
        mono = mono_mul(mono, ((v, e),))
    return mono


def format_atom(a: XAtom) -> str:
    if a.kind == "nu":
        s = a.args[0]
        return s.name if s.divisible_by == 1 else f"({s.name}/{s.divisible_by})"
    if a.kind == "floor":
        return f"floor(({format_poly(a.args[0])}) / ({format_poly(a.args[1])}))"
    if a.kind == "opaque":
        op, g = a.args
        return f"({op})" if g == 1 else f"(({op})/{g})"
    return f"{a.kind}({', '.join(format_poly(p) for p in a.args)})"


def format_poly(p: Poly) -> str:
    """A readable rendering for debugging and error messages (not parseable)."""
    if not p:
        return "0"
    parts = []
    for m, k in p:
        body = "*".join(format_atom(a) if e == 1 else f"{format_atom(a)}**{e}" for a, e in m)
        if not body:
            parts.append(str(k))
        elif k == 1:
            parts.append(body)
        elif k == -1:
            parts.append("-" + body)
        else:
            parts.append(f"{k}*{body}")
    return " + ".join(parts).replace("+ -", "- ")
