"""The expanded form: a second normal form of symbolic integers, used by the provers.

Why: the canonical form (`expr`) keeps `x`, `x // b` and `x % b` as separate readable atoms,
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

Since no normal form of floor and mod is canonical, `decide_zero` backs it up: a quasi-linear
difference (symbols, +, divisions by integer constants) is periodic per symbol, so one period
decides it exactly; floors of a symbolic divisor with quasi-linear numerators are identified
when the numerators are equal or mirrored.

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

from ..divisors import divisors_desc
from . import hooks
from .bounds import INF, bounds, floordiv_bounds, interval_mul, interval_pow, shift_plans
from .cache import PROOF_CUTOFFS, MemoCache
from .expr import Op, Sum, Symbol
from .expr import known_divisor as structural_divisor

if TYPE_CHECKING:
    from .expr import IntLike

Poly = tuple  # tuple[tuple[Mono, int], ...], sorted by mono_key; () is zero
Mono = tuple  # tuple[tuple[XAtom, int], ...], sorted by atom key; () is the constant monomial

_ATOMS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_FLOOR = MemoCache("expand_floor")
_NONNEG = MemoCache("expand_nonneg")
_MONO = MemoCache("expand_mono")
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


def _opaque_atom(op: Op, g: int) -> XAtom:
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
        cutoffs = PROOF_CUTOFFS.count
        p = _expand(x)
        if PROOF_CUTOFFS.count == cutoffs:  # not memoised when a divisor's sign hit a budget
            x._xf = p  # type: ignore[union-attr]
    return p


def expand_terms(const: int, terms: tuple | list) -> Poly:
    """The expanded form of `const + sum(coeff * mono)` given canonical terms."""
    acc: dict = {(): const} if const else {}
    for mono, k in terms:
        if len(mono) == 1 and mono[0][1] == 1:
            piece = pscale(expand(mono[0][0]), k)
        else:
            piece = pscale(_mono_poly(mono), k)
        for m, c in piece:
            acc[m] = acc.get(m, 0) + c
    return from_dict(acc)


def _mono_poly(mono: Mono) -> Poly:
    """The expanded form of a product of atoms (memoised as `expand` is: not when a proof
    stopped at a budget). Scaling it by a term's coefficient is the product with the
    coefficient first (the same coefficients times k, none of them 0, in the same order)."""
    p = _MONO.get(mono)
    if p is None:
        cutoffs = PROOF_CUTOFFS.count
        p = const_poly(1)
        for atom, e in mono:
            xa = expand(atom)
            p = pmul(p, xa if e == 1 else ppow(xa, e))
        if PROOF_CUTOFFS.count == cutoffs:
            _MONO.put(mono, p)
    return p


def _expand(x: IntLike) -> Poly:
    t = type(x)
    if t is Symbol:
        return atom_poly(nu_atom(x), x.divisible_by)  # type: ignore[arg-type]
    if t is Sum:
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
    if hooks.sign(b) <= 0:  # a divisor that may be zero: opaque, scaled by what is known
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
        r = _FLOOR.put(key, _floor_any(p, d, 0))
    return r


def _floor_any(p: Poly, d: Poly, depth: int) -> Poly:
    c = poly_const(d)
    return _floor_int(p, c, depth) if c is not None else _floor_sym(p, d, depth)


def _floor_int(p: Poly, c: int, depth: int) -> Poly:
    """floor(p / c) for an int c > 0. Steps, each restarting the normalization when it applies:
    cancel the content common to c and the non-constant coefficients; split off the multiples
    of c (coefficients reduced into [0, c), except that a lone nested division keeps the
    coefficient -1); merge a nested division; fold a numerator whose interval stays within one
    multiple (also after setting aside the terms a divisor of c divides, and with remainders
    recognised); write rounding to the nearest as a difference of two floors; take the
    preferred of the two mirror forms."""
    if c == 1:
        return p
    g = c
    for m, k in p:
        if m:
            g = gcd(g, k)
            if g == 1:
                break
    if g > 1:  # floor((g*A + r) / (g*c')) = floor((A + r // g) / c') for any int r
        reduced = {m: k // g for m, k in p}
        return _floor_int(from_dict(reduced), c // g, depth)
    quot: dict = {}
    rest: dict = {}
    for m, k in p:
        q, r = divmod(k, c)
        if k == -1 and _lone_floor(m) is not None:
            q, r = 0, -1  # -F (a mirrored division) merges like F, see _merge
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
    if g > 1:
        reduced = {m: k // g for m, k in rest.items()}
        if r0 // g:
            reduced[()] = r0 // g
        return padd(from_dict(quot), _floor_int(from_dict(reduced), c // g, depth))
    if r0:
        rest[()] = r0
    if depth < _MAX_MERGES:
        merged = _merge(rest, const_poly(c), depth, symbolic_only=False)
        if merged is not None:
            return padd(from_dict(quot), merged)
    if depth < _MAX_MERGES:
        split = _split_scaled_floor(rest, c, depth)
        if split is not None:
            return padd(from_dict(quot), split)
    num = from_dict(rest)
    folded = _fold_by_bounds(num, c, depth)
    if folded is not None:
        return padd(from_dict(quot), folded)
    if c % 2 == 0 and r0 == c // 2 and depth < _MAX_MERGES:
        # Rounding to the nearest: floor((S + h) / (2h)) = floor(S / h) - floor(S / (2h))
        s = padd(num, const_poly(-r0))
        halves = padd(_floor_int(s, c // 2, depth + 1), _floor_int(s, c, depth + 1), -1)
        return padd(from_dict(quot), halves)
    if all(0 < k < c for m, k in num if m):
        # The mirror form: floor((S + r0) / c) = sum(m) - floor((c*sum(m) - S + c - 1 - r0) / c)
        mirror = {m: c - k for m, k in num if m}
        if c - 1 - r0:
            mirror[()] = c - 1 - r0
        mnum = from_dict(mirror)
        if _mirror_key(mnum) < _mirror_key(num) and depth < _MAX_MERGES:
            for m in mirror:
                if m:
                    quot[m] = quot.get(m, 0) + 1
            return padd(from_dict(quot), _floor_int(mnum, c, depth + 1), -1)
    return padd(from_dict(quot), atom_poly(_floor_atom(num, const_poly(c))))


def _split_scaled_floor(rest: dict, c: int, depth: int) -> Poly | None:
    """floor((y + k*F) / c) = floor((floor(y / k) + F) / (c / k)) for a lone nested division F
    whose coefficient k > 1 divides c, taken when floor(y / k) needs no division atom that the
    numerator does not already hold: F then merges (`(t + 4*((t + 2*(t // 4)) // 4)) // 8` is
    `(t + 6*(t // 4)) // 8`), and no new atom can start a cycle."""
    known: set | None = None
    for m, k in rest.items():
        f = _lone_floor(m)
        if f is None or k < 2 or c % k:
            continue
        y = from_dict({mm: v for mm, v in rest.items() if mm != m})
        z = xfloor(y, const_poly(k))
        if known is None:
            known = _reachable_atoms(from_dict(rest))
        if all(a in known for mm, _ in z for a, _ in mm):
            return _floor_int(padd(z, atom_poly(f)), c // k, depth + 1)
    return None


def _reachable_atoms(p: Poly) -> set:
    """The atoms of p and, recursively, of the arguments of its atoms."""
    seen: set = set()
    todo = [p]
    while todo:
        for m, _ in todo.pop():
            for a, _ in m:
                if a not in seen:
                    seen.add(a)
                    if a.kind != "nu" and a.kind != "opaque":
                        todo.extend(a.args)
    return seen


def _fold_by_bounds(num: Poly, c: int, depth: int) -> Poly | None:
    """floor(num / c) when num = d*A + L for a divisor d of c (d = c included) with L's
    interval inside one block [k*d, k*d + d - 1]: then it is floor((A + k) / (c / d)). L's
    interval is taken from the plain interval arithmetic, or with remainders recognised:
    `x - a*floor(x / a)` lies in [0, a - 1], and a remainder's coefficient is split like any
    other (`t + 4*floor(t / 4)` is `8*floor(t / 4)` plus a remainder below 4; `5*t + 16*(t //
    4)` over 32 is `4*(t + 5*(t // 4))` plus a remainder below 4)."""
    lo, hi = poly_bounds(num)
    if lo != -INF and hi != INF and lo // c == hi // c:
        return const_poly(int(lo // c))
    found = _fold_blocks(num, (), c, depth, whole=False)
    if found is not None:
        return found
    for whole_numerator in (True, False):
        rest, rems = _take_remainders(num, c, whole_numerator=whole_numerator)
        if rems:
            found = _fold_blocks(rest, rems, c, depth, whole=True)
            if found is not None:
                return found
    return None


def _fold_blocks(num: Poly, rems: tuple, c: int, depth: int, *, whole: bool) -> Poly | None:
    """The block test of _fold_by_bounds for num plus remainders `k*(x - a*f)` (`rems` holds
    `(k, x, a, f)`), each coefficient split into a multiple of d and a low part."""
    if c < 2:
        return None
    for d in divisors_desc(c):  # the divisors only, largest first: cost independent of c
        if d < 2 or (not whole and d > c // 2):
            continue
        multiple: dict = {}
        low: dict = {}
        for m, k in num:
            q, r = divmod(k, d) if m else (0, k)
            if q:
                multiple[m] = q
            if r:
                low[m] = r
        span = 0  # the remainders' low parts r*(x - a*f) lie in [0, span] (r = k mod d >= 0)
        for k, x, a, f in rems:
            q, r = divmod(k, d)
            if q:
                for m, v in padd(x, atom_poly(f, a), -1):
                    multiple[m] = multiple.get(m, 0) + q * v
            span += r * (a - 1)
        if not any(multiple.values()):
            continue
        lo, hi = poly_bounds(from_dict(low))
        hi += span
        if lo != -INF and hi != INF and lo // d == hi // d:
            k = int(lo // d)
            if k:
                multiple[()] = multiple.get((), 0) + k
            return _floor_int(from_dict(multiple), c // d, depth)
    return None


def _take_remainders(num: Poly, c: int, *, whole_numerator: bool) -> tuple[Poly, tuple]:
    """(rest, rems) with num = rest + sum(k*(x - a*f)) over rems `(k, x, a, f)`, for lone floor
    atoms f = floor(x / a) of integer divisor a: k*x leaves num and k*a*f enters it. k takes all
    of x's terms (`whole_numerator`: num holds k*x), or is the smallest that makes f's
    coefficient a multiple of c (`21*t + 62*(t // 2)` over 64 is `20*t + 64*(t // 2)` plus the
    remainder `t % 2`)."""
    acc = dict(num)
    rems = []
    atoms = sorted(
        (m[0][0] for m, _ in num if _lone_floor(m) is not None), key=lambda a: a.key, reverse=True
    )
    for f in atoms:
        x, a = f.args
        ca = poly_const(a)
        terms = [(m, v) for m, v in x if m]
        if ca is None or ca < 2 or not terms:
            continue
        k = _remainder_multiplier(acc, f, terms, ca, c, whole_numerator)
        if not k:
            continue
        for m, v in x:
            left = acc.get(m, 0) - k * v
            if left:
                acc[m] = left
            else:
                acc.pop(m, None)
        left = acc.get(((f, 1),), 0) + k * ca
        if left:
            acc[((f, 1),)] = left
        else:
            acc.pop(((f, 1),), None)
        rems.append((k, x, ca, f))
    if not rems:
        return num, ()
    return from_dict(acc), tuple(rems)


def _remainder_multiplier(
    acc: dict, f: XAtom, terms: list, a: int, c: int, whole_numerator: bool
) -> int:
    """The k of _take_remainders for the atom f = floor(x / a) (0: none)."""
    if whole_numerator:
        m0, v0 = terms[0]
        k, r = divmod(acc.get(m0, 0), v0)
        if r or any(acc.get(m, 0) != k * v for m, v in terms):
            return 0
        return k
    cf = acc.get(((f, 1),), 0)
    g = gcd(a, c)
    if cf % g:
        return 0
    step = c // g
    k = 0 if step == 1 else (-cf // g) * pow(a // g, -1, step) % step
    return k - step if 2 * k > step else k


def _mirror_key(num: Poly) -> tuple:
    """Which of two mirror numerators is preferred: smaller coefficients (in monomial order),
    then the smaller constant."""
    return (tuple(k for m, k in num if m), num[0][1] if num and not num[0][0] else 0)


def _floor_sym(p: Poly, d: Poly, depth: int) -> Poly:
    """floor(p / d) for a non-constant, provably positive d. Steps: split off the multiples of a
    one-term divisor, merge a nested division with a symbolic divisor, cancel a common positive
    monomial (merging a nested integer division first when that makes one appear), then take
    the divisor's integer content innermost (`x // (4*M) = (x // 4) // M`), fold by bounds or
    exact division."""
    quot: dict = {}
    rest: dict = {}
    if len(d) == 1:  # k*md: (k*q + r)*md*m' = q*m'*(k*md) + r*md*m'
        md, kd = d[0]
        for m, k in p:
            qm = _mono_div(m, md) if m else None
            if qm is None:
                rest[m] = rest.get(m, 0) + k
                continue
            q, r = divmod(k, kd)
            if q:
                quot[qm] = quot.get(qm, 0) + q
            if r:
                rest[m] = rest.get(m, 0) + r
    else:
        rest = dict(p)
    if not rest:
        return from_dict(quot)
    if depth < _MAX_MERGES:
        merged = _merge(rest, d, depth, symbolic_only=True)
        if merged is not None:
            return padd(from_dict(quot), merged)
    num = from_dict(rest)
    common = _common_positive_monomial(num, d)
    if common:  # floor(m*x / (m*y)) = floor(x / y) for m > 0
        num = from_dict({_mono_div(m, common): k for m, k in num})
        d = from_dict({_mono_div(m, common): k for m, k in d})
        return padd(from_dict(quot), _floor_any(num, d, depth))
    if depth < _MAX_MERGES:
        merged = _merge(rest, d, depth, symbolic_only=False, only_if_common=True)
        if merged is not None:
            return padd(from_dict(quot), merged)
    lead = next((k for m, k in num if m), num[0][1])
    if lead < 0 and depth < _MAX_MERGES:  # floor(-x / d) = -floor((x + d - 1) / d)
        flipped = padd(padd(d, const_poly(-1)), num, -1)
        return padd(from_dict(quot), _floor_sym(flipped, d, depth + 1), -1)
    g = content(d)
    if g > 1:  # x // (g*D) = (x // g) // D: integer divisions innermost
        return padd(from_dict(quot), _floor_any(_floor_int(num, g, depth), pdiv_int(d, g), depth))
    below = padd(padd(d, const_poly(-1)), num, -1)  # d - 1 - num
    if poly_nonneg(num, eliminate=True) and poly_nonneg(below, eliminate=True):
        return from_dict(quot)  # 0 <= num < d
    if poly_nonneg(padd(num, d), eliminate=True) and poly_nonneg(
        padd(const_poly(-1), num, -1), eliminate=True
    ):
        quot[()] = quot.get((), 0) - 1  # -d <= num < 0
        return from_dict(quot)
    exact = pexact_div(num, d)
    if exact is not None:
        return padd(from_dict(quot), exact)
    if len(d) == 1 and len(d[0][0]) > 1:  # floor(x / (u*v)) = floor(floor(x / u) / v), u, v >= 1
        for atom, _ in d[0][0]:
            rest_d = _mono_quotient(d, atom)
            if atom_bounds(atom)[0] < 1 or poly_bounds(rest_d)[0] < 1:
                continue
            inner = xfloor(num, atom_poly(atom))
            if poly_const(inner) is not None:  # e.g. x // u is 1: then it is 1 // v
                return padd(from_dict(quot), xfloor(inner, rest_d))
    return padd(from_dict(quot), atom_poly(_floor_atom(num, d)))


def _mono_quotient(d: Poly, atom: XAtom) -> Poly:
    """d / atom for a one-term d holding atom."""
    ((m, k),) = d
    return ((_mono_div(m, ((atom, 1),)), k),)


def _lone_floor(m: Mono) -> XAtom | None:
    """The floor atom when the monomial is that atom alone (to the first power)."""
    if len(m) == 1 and m[0][1] == 1 and m[0][0].kind == "floor":
        return m[0][0]
    return None


def _merge(
    rest: dict, d: Poly, depth: int, *, symbolic_only: bool, only_if_common: bool = False
) -> Poly | None:
    """Merge a nested division standing alone with coefficient +-1 in the numerator `rest`:
    floor((F + y) / d) = floor((x + a*y) / (a*d)) for F = floor(x / a), and -F = floor((a - 1 -
    x) / a) likewise, for a one-term a (a sum would make the numerator grow). +F is preferred
    to -F (which comes from a mirrored inner division), then the larger numerator (the division
    built last), then key order. Under a symbolic divisor,
    atoms with symbolic divisors merge (a*d keeps content 1, Gauss's lemma), and atoms with an
    integer divisor only when the merged numerator then shares a positive monomial with d
    (`only_if_common`): otherwise the integer would come straight back out as content."""
    best = None
    for m, k in rest.items():
        if k != 1 and k != -1:
            continue
        f = _lone_floor(m)
        if f is None or len(f.args[1]) > 1:  # (a sum as divisor would make the numerator grow)
            continue
        integer = poly_const(f.args[1]) is not None
        if (symbolic_only and integer) or (only_if_common and not integer):
            continue
        rank = (k == 1, len(f.args[0]))  # prefer +F, then the larger numerator, then key order
        if best is None or rank > best[2] or (rank == best[2] and f.key < best[0].key):
            best = (f, k, rank)
    if best is None:
        return None
    f, k, _ = best
    x, a = f.args
    y = from_dict({m: v for m, v in rest.items() if m != ((f, 1),)})
    if k == 1:
        top = padd(x, pmul(a, y))
    else:
        top = padd(padd(pmul(a, y), a), padd(x, const_poly(1)), -1)
    if only_if_common and not _common_positive_monomial(top, d):
        return None
    return _floor_any(top, pmul(a, d), depth + 1)


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
# Non-negativity over the floor basis
# ---------------------------------------------------------------------------------------------------

_ELIMINATIONS = 3  # nested eliminations of floor atoms


def poly_nonneg(p: Poly, *, eliminate: bool = False, depth: int = _ELIMINATIONS) -> bool:
    """True when p >= 0 is provable: p is a non-negative constant, its interval is, or the
    shift test holds on its atoms (mods became floors, so `x - x % 8` is `8*(x // 8)` >= 0).
    With `eliminate`, floor atoms appearing alone are also replaced by their linear bounds."""
    c = poly_const(p)
    if c is not None:
        return c >= 0
    key = (p, depth if eliminate else 0)
    r = _NONNEG.get(key)
    if r is None:
        r = _NONNEG.put(key, _poly_nonneg(p, eliminate and depth > 0, depth))
    return r


def _poly_nonneg(p: Poly, eliminate: bool, depth: int) -> bool:
    const = p[0][1] if not p[0][0] else 0
    terms = p[1:] if not p[0][0] else p
    g = content(terms)
    if g > 1:  # g*Q + const >= 0 iff Q + floor(const / g) >= 0, Q being an integer
        const //= g
        terms = pdiv_int(terms, g)
        p = padd(terms, const_poly(const))
    if poly_bounds(p)[0] >= 0:
        return True
    atoms: dict = {}
    for m, _ in terms:
        for a, _ in m:
            atoms[a] = None
    order = tuple(sorted(atoms, key=lambda a: a.key))
    infos = [(*atom_bounds(a), 1) for a in order]
    if shift_plans(const, terms, order, infos):
        return True
    return eliminate and _eliminate_floor(p, depth)


def _eliminate_floor(p: Poly, depth: int) -> bool:
    """p >= 0 by eliminating a floor atom F = floor(x / b) that appears alone with an int
    coefficient k, through b*F in [x - b + 1, x] (multiplied through by b > 0, with the integer
    slack b - 1). When p also holds G = floor(x / a) with b = a*q, the chain relation q*F in
    [G - q + 1, G] is used instead: it keeps what F and G share, so `t % 16 - t % 8 =
    8*(t // 8) - 16*(t // 16)` is proven to lie in [0, 8]."""
    lone = {}
    for m, k in p:
        f = _lone_floor(m)
        if f is not None:
            lone[f] = k
    in_products = {a for m, _ in p if len(m) > 1 or (m and m[0][1] > 1) for a, _ in m}
    for f, k in lone.items():
        if f in in_products:
            continue  # not linear in F
        x, b = f.args
        rest = padd(p, atom_poly(f, k), -1)
        low, high, scale = padd(x, padd(b, const_poly(-1)), -1), x, b
        for g in lone:
            q = _chain_factor(g, f)
            if q is not None:
                ga = atom_poly(g)
                low, high, scale = padd(ga, const_poly(1 - q)), ga, const_poly(q)
                break
        relaxed = padd(pscale(low if k > 0 else high, k), pmul(scale, rest))
        relaxed = padd(relaxed, padd(scale, const_poly(-1)))
        if poly_nonneg(relaxed, eliminate=True, depth=depth - 1):
            return True
    return False


def _chain_factor(g: XAtom, f: XAtom) -> int | None:
    """q when f = floor(x / (a*q)) and g = floor(x / a) share the numerator x (int q >= 2)."""
    if g is f or g.args[0] != f.args[0]:
        return None
    a, b = g.args[1], f.args[1]
    ca, cb = poly_const(a), poly_const(b)
    if ca is not None and cb is not None:
        return cb // ca if cb > ca and cb % ca == 0 else None
    quotient = pexact_div(b, a)
    q = None if quotient is None else poly_const(quotient)
    return q if q is not None and q >= 2 else None


# ---------------------------------------------------------------------------------------------------
# Queries used by the provers
# ---------------------------------------------------------------------------------------------------


_QUASI = MemoCache("expand_quasi_linear")
_ZERO = MemoCache("expand_decide_zero")
_MAX_POINTS = 16384  # evaluations a periodicity proof may spend (a few ms each thousand)


def decide_zero(p: Poly) -> bool | None:
    """Whether p == 0 for every admissible value, decided exactly when p is quasi-linear; None
    when it is not (or its period is too long to check).

    Quasi-linear: p is built from symbols (their `nu`), integers, + and floor divisions by
    integer constants, every numerator again quasi-linear (no products, no symbolic divisor).
    Then for each symbol v there are a rational slope s and a period P with p(v + P) = p(v) +
    s*P for every value of every symbol (by induction: floor((E + s*P) / c) = floor(E / c) +
    s*P / c when c | s*P). p == 0 everywhere needs s == 0 for each symbol whose range is longer
    than its period, and then p's values over the whole range are its values over one period:
    p is zero iff it is zero at the points of that window (exact; no relaxation). This decides
    identities that the normal form and the linear relaxations miss, e.g. Hermite's
    `floor((u + 2) / 4) + floor(u / 4) = floor(u / 2)` under further divisions."""
    if not p:
        return True
    r = _ZERO.get(p)
    if r is None:
        r = _ZERO.put(p, _decide_zero(p))
    return r if type(r) is bool else None


def _decide_zero(p: Poly) -> bool | int:
    """decide_zero without the memo (0 stands for None)."""
    p = _pair_symbolic_floors(p)
    if not p:
        return True
    info = _quasi_linear(p)
    if info is None:
        return 0
    slopes, periods = info
    window = []
    points = 1
    for atom in sorted(periods, key=lambda a: a.key):
        lo, hi = atom_bounds(atom)
        period = periods[atom]
        if lo != -INF and hi != INF and hi - lo + 1 <= period:
            values = range(int(lo), int(hi) + 1)
        elif slopes.get(atom, 0):
            return False  # p(v + P) - p(v) = s*P != 0 for some admissible v
        elif lo != -INF:
            values = range(int(lo), int(lo) + period)
        elif hi != INF:
            values = range(int(hi) - period + 1, int(hi) + 1)
        else:
            values = range(period)
        points *= len(values)
        if points > _MAX_POINTS:
            return 0
        window.append((atom, values))
    return all(_eval_poly(p, env, {}) == 0 for env in _grid(window))


def _pair_symbolic_floors(p: Poly) -> Poly:
    """p with floor atoms of a symbolic divisor d identified when their numerators U, V are
    quasi-linear and equal (floor(U / d) = floor(V / d)) or mirrored, U + V = -1 (floor(U / d)
    = -1 - floor(V / d) for any d > 0): the normal form of U and V need not agree although
    their values do. (Only lone atoms, to the first power; anything else is left.)"""
    groups: dict = {}
    for m, _ in p:
        f = _lone_floor(m)
        if f is not None and poly_const(f.args[1]) is None and _quasi_linear(f.args[0]):
            groups.setdefault(f.args[1], []).append(f)
    for atoms in groups.values():
        for i, f in enumerate(atoms):
            for g in atoms[:i]:
                u, v = f.args[0], g.args[0]
                if decide_zero(padd(u, v, -1)) is True:
                    replacement = atom_poly(g)
                elif decide_zero(padd(padd(u, v), const_poly(1))) is True:
                    replacement = padd(const_poly(-1), atom_poly(g), -1)
                else:
                    continue
                k = dict(p).get(((f, 1),), 0)
                return _pair_symbolic_floors(padd(padd(p, atom_poly(f, k), -1), replacement, k))
    return p


def _grid(window: list) -> object:
    """Every assignment of the window's values (dicts atom -> value)."""
    envs: list = [{}]
    for atom, values in window:
        envs = [{**env, atom: v} for env in envs for v in values]
    return envs


def _eval_poly(p: Poly, env: dict, memo: dict) -> int:
    total = 0
    for m, k in p:
        for a, e in m:
            v = memo.get(a)
            if v is None:
                v = (
                    env[a]
                    if a.kind == "nu"
                    else _eval_poly(a.args[0], env, memo) // poly_const(a.args[1])
                )
                memo[a] = v
            k *= v**e
        total += k
    return total


def _quasi_linear(p: Poly) -> tuple[dict, dict] | None:
    """(slopes, periods) per nu atom of a quasi-linear p (see decide_zero), else None."""
    from fractions import Fraction

    slopes: dict = {}
    periods: dict = {}
    for m, k in p:
        if not m:
            continue
        if len(m) > 1 or m[0][1] != 1:
            return None
        info = _atom_quasi_linear(m[0][0])
        if info is None:
            return None
        for a, s in info[0].items():
            slopes[a] = slopes.get(a, Fraction(0)) + k * s
        for a, q in info[1].items():
            periods[a] = q * periods.get(a, 1) // gcd(q, periods.get(a, 1))
    return slopes, periods


def _atom_quasi_linear(a: XAtom) -> tuple[dict, dict] | None:
    from fractions import Fraction

    if a.kind == "nu":
        return {a: Fraction(1)}, {a: 1}
    if a.kind != "floor":
        return None
    r = _QUASI.get(a)
    if r is None:
        c = poly_const(a.args[1])
        inner = None if c is None else _quasi_linear(a.args[0])
        if inner is None:
            r = False
        else:
            slopes, periods = {}, {}
            for v, q in inner[1].items():
                s = inner[0].get(v, Fraction(0)) / c
                # floor(E / c) shifts by s*P when P is a multiple of q and of s's denominator
                need = s.denominator
                periods[v] = q * need // gcd(q, need)
                slopes[v] = s
            r = (slopes, periods)
        _QUASI.put(a, r)
    return r or None


def expanded_remainder(x: IntLike, d: int) -> Poly:
    """The expanded form of x % d for an int d > 0: x - d*floor(x / d)."""
    xx = expand(x)
    return padd(xx, xfloor(xx, const_poly(d)), -d)


def expanded_divisor(x: IntLike) -> int:
    """A divisor of x proven by the expanded form: the content of its polynomial (0 for 0)."""
    return content(expand(x))


def strong_divisor(x: IntLike) -> int:
    """The largest int provably dividing x: the lcm of what the canonical terms show
    (`known_divisor`) and the content of the expanded form (8 for `8*t + 15*(t % 8) -
    7*(t % 16)`, which expands to `16*t - 120*(t // 8) + 112*(t // 16)`)."""
    if type(x) is int:
        return -x if x < 0 else x
    kd = structural_divisor(x)
    g = expanded_divisor(x)
    if g == 0 or g % kd == 0:
        return g or kd
    return kd * g // gcd(kd, g)


def public_bounds(x: IntLike) -> tuple[int | None, int | None]:
    """`SymInt.bounds`: the tighter of the canonical form's interval and the expanded form's
    (`x - x % 8` is `8*(x // 8)` there, so it is at most the largest multiple of 8 below x's
    upper bound); None for an unbounded end."""
    lo, hi = bounds(x)
    if type(x) is not int and type(x) is not Symbol:
        xlo, xhi = poly_bounds(expand(x))
        lo, hi = max(lo, xlo), min(hi, xhi)
    return (None if lo == -INF else lo, None if hi == INF else hi)


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
