"""Arithmetic on canonical symbolic integers: the simplifier.

Every operation takes canonical operands (ints or interned SymInts), returns a canonical result
(an int whenever it is constant) and is memoised in a bounded cache. Every rewrite is exact for
every admissible value of the symbols (values satisfying their assumptions); side conditions are
proven from the assumptions (`prove`, called through `hooks`) or the rewrite is not made. docs/symbolic.md lists the
rules; the main ones:

- sums and products are polynomials with integer coefficients (collect, distribute);
- `a // c` for c > 0: terms that c provably divides leave the division exactly (using the
  symbols' divisibility: `(4*N + 1) // 4 = N` when 4 | N, since then `N // 4` is exact), the
  constant is reduced below c, a remainder whose interval lies in one multiple of c folds, common
  factors cancel, nested divisions merge (`(x // a) // b = x // (a*b)`), `(x % (a*b)) // a =
  (x // a) % b`, and `(x + c - 1) // c` is `ceil_div(x, c)`;
- `a % c` drops the terms c divides, folds when the remainder provably lies in [0, c);
- `c * (m // k)` with k | c cancels (m // k is an exact quotient), `x % b + b * (x // b) = x`
  and `x - b * (x // b) = x % b`;
- `min`/`max` drop the arguments that are provably dominated.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING

from ..errors import LayoutZeroDivisionError
from . import expand as _expand
from . import hooks
from .bounds import INF, bounds
from .cache import PROOF_CUTOFFS, MemoCache
from .expr import (
    Op,
    Sum,
    SymInt,
    atoms_of,
    known_divisor,
    make_op,
    make_sum,
    mono_div,
    mono_divisor,
    mono_expr,
    mono_mul,
    order_key,
    single_term,
    term_expr,
    term_sort_key,
    terms_of,
)

if TYPE_CHECKING:
    from .expand import Poly
    from .expr import IntLike, Mono

_MISS = object()
_DIVISIONS = ("floordiv", "mod", "ceildiv")
_MAX_REWRITES = 64
_PAIRING: set = set()  # atoms a two-term rule is rewriting right now (re-entrancy guard)  # a safety net; real sums need a handful of rewrites
_ADD = MemoCache("add")
_MUL = MemoCache("mul")
_FLOORDIV = MemoCache("floordiv")
_MOD = MemoCache("mod")
_CEILDIV = MemoCache("ceil_div")
_MINMAX = MemoCache("min_max")


# ---------------------------------------------------------------------------------------------------
# Polynomial arithmetic
# ---------------------------------------------------------------------------------------------------


def add(a: IntLike, b: IntLike) -> IntLike:
    if type(a) is int:
        if type(b) is int:
            return a + b
        if a == 0:
            return b
        if type(b) is Sum and b._nf:
            return _moved(b, a)
    elif type(b) is int:
        if b == 0:
            return a
        if type(a) is Sum and a._nf:
            return _moved(a, b)
    key = (a, b)
    r = _ADD.get(key, _MISS)
    if r is _MISS:
        c1, t1 = terms_of(a)
        c2, t2 = terms_of(b)
        acc = dict(t1)
        for m, k in t2:
            acc[m] = acc.get(m, 0) + k
        r = _ADD.put(key, build(c1 + c2, acc))
    return r


def neg(a: IntLike) -> IntLike:
    if type(a) is int:
        return -a
    return mul(-1, a)


def sub(a: IntLike, b: IntLike) -> IntLike:
    if type(a) is int and type(b) is int:
        return a - b
    return add(a, neg(b))


def mul(a: IntLike, b: IntLike) -> IntLike:
    if type(a) is int:
        if type(b) is int:
            return a * b
        if a == 0:
            return 0
        if a == 1:
            return b
    elif type(b) is int:
        if b == 0:
            return 0
        if b == 1:
            return a
    key = (a, b)
    r = _MUL.get(key, _MISS)
    if r is _MISS:
        c1, t1 = terms_of(a)
        c2, t2 = terms_of(b)
        acc: dict = {}
        if c1:
            for m, k in t2:
                acc[m] = acc.get(m, 0) + c1 * k
        if c2:
            for m, k in t1:
                acc[m] = acc.get(m, 0) + c2 * k
        for m1, k1 in t1:
            for m2, k2 in t2:
                m = mono_mul(m1, m2)
                acc[m] = acc.get(m, 0) + k1 * k2
        r = _MUL.put(key, build(c1 * c2, acc))
    return r


def power(a: IntLike, e: int) -> IntLike:
    if type(e) is not int or e < 0:
        raise ValueError(f"({a}) ** {e}: only non-negative integer exponents are supported")
    result: IntLike = 1
    base = a
    while e:
        if e & 1:
            result = mul(result, base)
        e >>= 1
        if e:
            base = mul(base, base)
    return result


def from_pairs(const: int, pairs: list) -> IntLike:
    """A canonical value from (mono, coeff) pairs; the empty monomial is the constant."""
    acc: dict = {}
    for m, k in pairs:
        if m:
            acc[m] = acc.get(m, 0) + k
        else:
            const += k
    return build(const, acc)


def _moved(s: Sum, c: int) -> IntLike:
    """`s + c` for a sum whose terms are a fixed point of :func:`build` (``s._nf``): what
    ``build(s.const + c, s.terms)`` gives, without redoing its rewrites."""
    r = make_sum(s.const + c, s.terms)
    if type(r) is Sum:
        r._nf = True
    return r


def build(const: int, acc: dict) -> IntLike:
    """The canonical value of `const + sum(coeff * mono)` (normalizes, sorts, interns).

    A sum it returns is marked (``_nf``) when its terms are a fixed point of these steps for
    every constant, so that :func:`add` of a constant skips them: no term holds a division or
    remainder atom; or the rewrites of :func:`_normalize` stopped because none applied (not at
    their budget), no pairing rule was held back (``_PAIRING`` empty) and no proof stopped at
    a budget on the way (so every rule's answer is the one any later call gets, or a call with
    less budget, which rewrites less). The constant plays no part in those steps: the rules
    see the terms only (a rewrite may move the constant, never depends on it), and whether
    the expanded form is a polynomial (:func:`_collapse_divisions`) does not depend on its
    constant term."""
    items = [(m, k) for m, k in acc.items() if k]
    if not items:
        return const
    items.sort(key=term_sort_key)
    if any(atom._special for m, _ in items for atom, _ in m):
        pairing_free = not _PAIRING
        cutoffs = PROOF_CUTOFFS.count
        # normalize in canonical order, so the result does not depend on how the sum was built
        const, items, fixed, changed = _normalize(const, items)
        if not items:
            return const
        if changed:
            items.sort(key=term_sort_key)
        if len(items) > 1 and _has_division(items):
            collapsed = _collapse_divisions(const, items)
            if collapsed is not None:
                return collapsed
        r = make_sum(const, tuple(items))
        if fixed and pairing_free and cutoffs == PROOF_CUTOFFS.count and type(r) is Sum:
            r._nf = True
        return r
    r = make_sum(const, tuple(items))
    if type(r) is Sum:
        r._nf = True
    return r


def _has_division(items: list) -> bool:
    """True when a term holds a floordiv, mod or ceil_div atom that is not an exact quotient."""
    for m, _ in items:
        for atom, _ in m:
            if type(atom) is Op and atom.kind in _DIVISIONS and not atom._exact_k:
                return True
    return False


def _collapse_divisions(const: int, items: list) -> IntLike | None:
    """The polynomial a sum of divisions is equal to, when its expanded form has no division
    left: `6*N + 6*(2*N // 3) + N % 6` (idx2crd then crd2idx of 10*N over (3, 2, N), 4 | N)
    expands to `40*(N/4)`, i.e. `10*N`; a sum that expands to a constant is that int."""
    p = _expand.expand_terms(const, items)
    if not _expand.is_polynomial_in_symbols(p):
        return _collapse_part(const, items, p)
    return collapse(p)


def _collapse_part(const: int, items: list, p: Poly) -> IntLike | None:
    """The sum with the terms that together expand to a polynomial collapsed, when the other
    terms hold every division its expansion ``p`` keeps: with 4 | N, `N*N*((M*N + N // 3) //
    (N*N)) + N*(M % N) + N // 3` is `M*N + N // 3`, as the first two terms added alone are
    `M*N` (so the value does not depend on the order the terms were added in). A term holds a
    division when its atoms' expansions do (a product only drops an atom if coefficients
    cancel: then the term is kept as it is, never rewritten wrongly)."""
    if len(items) < 3:  # (one kept, two or more collapsed)
        return None
    left = {a for m, _ in p for a, _ in m if a.kind != "nu"}
    keep: list = []
    rest: list = []
    for term in items:
        kept = False
        for atom, _ in term[0]:
            if type(atom) is Op:  # (a symbol expands to its own nu atom)
                kept = any(a in left for mm, _ in _expand.expand(atom) for a, _ in mm)
                if kept:
                    break
        (keep if kept else rest).append(term)
    if not keep or len(rest) < 2 or not _has_division(rest):
        return None
    q = _expand.expand_terms(const, rest)
    if not _expand.is_polynomial_in_symbols(q):
        return None
    return add(collapse(q), make_sum(0, tuple(keep)))


def collapse(p: Poly) -> IntLike:
    """The canonical value of a polynomial over symbols' nu atoms (`nu(N)` is the exact
    quotient `N // divisible_by`, which the builder folds into the symbol's multiples)."""
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
    mono: tuple = ()
    for v, e in factors:
        mono = mono_mul(mono, ((v, e),))
    return mono


def _unit(mono: Mono) -> IntLike:
    return mono_expr(mono) if mono else 1


def _normalize(const: int, items: list) -> tuple[int, list, bool, bool]:
    """Apply the term rewrites that involve opaque atoms until none applies.

    Rules that merge two terms (digits of an index, `x % b` with `b*(x // b)`) are tried on
    every term before the single-term rules, so the result does not depend on the order of
    terms. Every rewrite removes a floordiv or mod term or lowers a coefficient that shares a
    factor with an exact divisor; the budget is a safety net. The flags: whether the rewrites
    stopped because none applied (False: at the budget), and whether any was made (False:
    the terms are ``items``, in their order).
    """
    acc = dict(items)
    fixed = changed = False
    for _ in range(_MAX_REWRITES):
        if _merge_exact_families(acc):
            changed = True
            continue
        rewrite = None
        for rule in (_pair_rewrite, _single_rewrite):
            for m, k in acc.items():
                rewrite = rule(m, k, acc)
                if rewrite is not None:
                    break
            if rewrite is not None:
                break
        if rewrite is None:
            fixed = True
            break
        changed = True
        removed, replacement = rewrite
        for rm, rk in removed:
            if not rm:
                const -= rk
                continue
            left = acc[rm] - rk
            if left:
                acc[rm] = left
            else:
                del acc[rm]
        rc, rt = terms_of(replacement)
        const += rc
        for rm, rk in rt:
            left = acc.get(rm, 0) + rk
            if left:
                acc[rm] = left
            else:
                acc.pop(rm, None)
    return const, list(acc.items()), fixed, changed


def _merge_exact_families(acc: dict) -> bool:
    """Give every product one representation: the terms whose monomials expand to the same U
    (`3*N*(N // 2)`, `N*N`, `(N*N) // 2`, ...) merge into p*U or p*(U // q) with p/q their total
    rational coefficient in lowest terms. True if acc changed."""
    families: dict = {}
    for m, k in acc.items():
        if any(atom._exact_k for atom, _ in m):
            u, d = underlying(m)
            families.setdefault(u, []).append((m, Fraction(k, d)))
    if not families:
        return False
    changed = False
    for u, members in families.items():
        if u in acc:
            members.append((u, Fraction(acc[u])))
        total = sum((f for _, f in members), Fraction(0))
        target: dict = {}
        if total:
            mono = (
                u
                if total.denominator == 1
                else ((exact_div_unit(mono_expr(u), total.denominator), 1),)
            )
            target[mono] = total.numerator
        if len(members) == len(target) and all(target.get(m) == acc[m] for m, _ in members):
            continue
        for m, _ in members:
            del acc[m]
        acc.update(target)
        changed = True
    return changed


def _kinds_elsewhere(m: Mono, acc: dict) -> set:
    """The kinds of the opaque division atoms in the terms of acc other than m (cheap guard:
    the two-term rules need a partner holding such an atom)."""
    kinds = set()
    for other in acc:
        if other is not m:
            for atom, _ in other:
                if type(atom) is Op and not atom._exact_k:
                    kinds.add(atom.kind)
    return kinds


def _pair_rewrite(m: Mono, k: int, acc: dict) -> tuple[list, IntLike] | None:
    kinds = None
    for i, (atom, e) in enumerate(m):
        if e != 1 or type(atom) is not Op or atom._exact_k:
            continue
        rest = m[:i] + m[i + 1 :]
        if atom.kind == "mod":
            if kinds is None:
                kinds = _kinds_elsewhere(m, acc)
            r = None
            if "floordiv" in kinds or "ceildiv" in kinds:
                r = _merge_mod_pair(m, k, atom, rest, acc)
            if r is None and "mod" in kinds:
                r = _merge_mod_digits(m, k, atom, rest, acc)
        elif atom.kind == "floordiv" and len(acc) > 1:
            r = _floordiv_to_mod(m, k, atom, rest, acc)
        else:
            continue
        if r is not None:
            return r
    return None


def _single_rewrite(m: Mono, k: int, acc: dict) -> tuple[list, IntLike] | None:
    for i, (atom, e) in enumerate(m):
        if not atom._special:
            continue
        rest = (*m[:i], (atom, e - 1), *m[i + 1 :]) if e > 1 else m[:i] + m[i + 1 :]
        if e == 1 and atom.kind == "mod":
            r = _absorb_into_exact_modulus(m, k, atom, rest)
            if r is not None:
                return r
    return None


def _absorb_into_exact_modulus(
    m: Mono, k: int, atom: Op, rest: Mono
) -> tuple[list, IntLike] | None:
    """k*(x % y)*rest -> (k/g)*((g*x) % (g*y))*rest when g = gcd(k, q) > 1 cancels an exact quotient
    `u // q` in y or in x: `4*(1 % (N // 4))` is `4 % N`, `2*((N // 2) % 3)` is `N % 6`."""
    x, y = atom.args
    q = y._exact_k if type(y) is Op else 0
    if not q:
        xterms = terms_of(x)[1]
        if any(
            type(v) is Op and v.kind in _DIVISIONS and not v._exact_k
            for mm, _ in xterms
            for v, _ in mm
        ):
            return None  # g*x would keep a real division: leave it to the digit rules
        q = _exact_denominator(xterms)
    g = gcd(k, q)
    if g <= 1:
        return None
    merged = mod(mul(g, x), mul(g, y))
    if atom in atoms_of(merged):  # the modulus rule factored g out again: keep the term
        return None
    return [(m, k)], mul(mul(k // g, merged), _unit(rest))


def _merge_mod_pair(
    m: Mono, k: int, atom: Op, rest: Mono, acc: dict
) -> tuple[list, IntLike] | None:
    """k*(x % b)*rest + k*b*(x // b)*rest  ->  k*x*rest, when every term of the second part is
    present with its sign (x // b may be any canonical expression, e.g. ceil_div(y, b) + 1)."""
    x, b = atom.args
    if atom in _PAIRING or single_term(b) is None or hooks.sign(b) <= 0:
        return None
    q = floordiv(x, b)
    _PAIRING.add(atom)  # building the partner may normalize sums holding this atom again
    try:
        partner = mul(mul(k, b), mul(q, _unit(rest)))
    finally:
        _PAIRING.discard(atom)
    pc, pt = terms_of(partner)
    if not pt or len(pt) > 8:
        return None
    for pm, pk in pt:
        have = acc.get(pm, 0)
        if have == 0 or (have > 0) != (pk > 0):
            return None
    removed = [(m, k), *pt]
    if pc:
        removed.append(((), pc))
    return removed, mul(mul(k, x), _unit(rest))


def _merge_mod_digits(
    m: Mono, k: int, atom: Op, rest: Mono, acc: dict
) -> tuple[list, IntLike] | None:
    """The two low "digits" of an index recombine (idx2crd then crd2idx), for a, b > 0 and any
    integer j:  k*(x % a)*rest + k*a*((x // a + j) % b)*rest  ->  k*((x + a*j) % (a*b))*rest,
    and the same with the second digit already scaled, k*((a*(x // a) + a*j) % B) with a | B."""
    a = atom.args[1]
    st = single_term(a)
    if atom in _PAIRING or st is None or hooks.sign(a) <= 0:
        return None
    _PAIRING.add(atom)
    try:
        return _find_digit_partner(m, k, atom, rest, acc, st)
    finally:
        _PAIRING.discard(atom)


def _find_digit_partner(
    m: Mono, k: int, atom: Op, rest: Mono, acc: dict, st: tuple
) -> tuple[list, IntLike] | None:
    x, a = atom.args
    ka, ma = st
    y = floordiv(x, a)
    ay = mul(a, y)
    scaled = mono_mul(rest, ma)
    for m2, k2 in acc.items():
        if m2 is m or (k2 != k * ka and k2 != k):
            continue
        for z, e in m2:
            if e != 1 or type(z) is not Op or z.kind != "mod" or hooks.sign(z.args[1]) <= 0:
                continue
            if k2 == k * ka and mono_mul(scaled, ((z, 1),)) == m2:
                shift = mul(a, sub(z.args[0], y))
                modulus = mul(a, z.args[1])
            elif k2 == k and mono_mul(rest, ((z, 1),)) == m2 and hooks.divides(a, z.args[1]):
                shift = sub(z.args[0], ay)
                modulus = z.args[1]
            else:
                continue
            if type(shift) is not int and any(v is y or v is atom for v in atoms_of(shift)):
                continue  # z is not a digit of x (merging would re-introduce x // a or x % a)
            merged = mod(add(x, shift), modulus)
            return [(m, k), (m2, k2)], mul(mul(k, merged), _unit(rest))
    return None


def _floordiv_to_mod(
    m: Mono, k: int, atom: Op, rest: Mono, acc: dict
) -> tuple[list, IntLike] | None:
    """t*x*rest - t*b*(x // b)*rest  ->  t*(x % b)*rest, when the x terms are all present."""
    x, b = atom.args
    st = single_term(b)
    if st is None or atom in _PAIRING:
        return None
    kb, mb = st
    rest2 = mono_div(rest, mb)
    if rest2 is None or k % kb:
        return None
    t = -(k // kb)
    tx = mul(mul(t, x), _unit(rest2))
    cx, terms_x = terms_of(tx)
    if not terms_x or len(terms_x) > 8:
        return None
    for mm, kk in terms_x:
        have = acc.get(mm, 0)
        if have == 0 or (have > 0) != (kk > 0):
            return None
    removed = [(m, k), *terms_x]
    if cx:
        removed.append(((), cx))
    _PAIRING.add(atom)
    try:
        return removed, mul(mul(t, mod(x, b)), _unit(rest2))
    finally:
        _PAIRING.discard(atom)


# ---------------------------------------------------------------------------------------------------
# Division helpers
# ---------------------------------------------------------------------------------------------------


def underlying(m: Mono) -> tuple[Mono, int]:
    """(U, d) with m == U / d: every exact quotient `V // k` in m expanded into V (and k into d)."""
    if not any(atom._exact_k for atom, _ in m):
        return m, 1
    u: Mono = ()
    d = 1
    for atom, e in m:
        if atom._exact_k:
            inner, di = underlying(terms_of(atom.args[0])[1][0][0])
            for _ in range(e):
                u = mono_mul(u, inner)
            d *= (atom._exact_k * di) ** e
        else:
            u = mono_mul(u, ((atom, e),))
    return u, d


def exact_div_unit(u: IntLike, k: int) -> IntLike:
    """u / k for a coefficient-1 monomial u with k | known_divisor(u). Canonical form: one exact
    quotient `U // q` over the whole product U, which holds no exact quotient itself."""
    mono, d = underlying(terms_of(u)[1][0][0])
    q = d * k
    if q == 1:
        return mono_expr(mono)
    op = make_op("floordiv", (mono_expr(mono), q))
    assert op._exact_k == q, (u, k)
    return op


def _exact_quotient(rest: Mono, k: int) -> IntLike:
    """rest / k for a monomial that k provably divides (the empty monomial only when k == 1)."""
    if not rest:
        return 1
    return exact_div_unit(mono_expr(rest), k)


def _split_const(terms: tuple, c: int) -> tuple[IntLike, list]:
    """Split `sum(terms)` into c*Q + R: Q (returned divided, exactly) takes every term c provably
    divides, and the multiples of c inside a positive coefficient (5*N = 4*N + N for c = 4; with
    4 | N already 2*N is a multiple of 8). R keeps the rest, positive coefficients reduced."""
    quot: IntLike = 0
    rest = []
    for m, k in terms:
        step = c // gcd(c, mono_divisor(m))  # k*m is a multiple of c iff step | k
        if k % step == 0:
            q, r = k, 0
        elif k > step:
            r = k % step
            q = k - r
        else:
            rest.append((m, k))
            continue
        g = gcd(q, c)
        quot = add(quot, mul(q // g, exact_div_unit(mono_expr(m), c // g)))
        if r:
            rest.append((m, r))
    return quot, rest


def _split_sym(terms: tuple, b: IntLike) -> tuple[IntLike, list]:
    """As `_split_const` for a symbolic one-term divisor b = kb*mb: a term splits when mb divides
    its monomial (then its coefficient is reduced modulo kb as above); other divisors: no split."""
    st = single_term(b)
    if st is None:
        return 0, list(terms)
    kb, mb = st
    sign = 1 if kb > 0 else -1
    kb = abs(kb)
    quot: IntLike = 0
    rest = []
    for m, k in terms:
        rm = mono_div(m, mb)
        if rm is None:
            rest.append((m, k))
            continue
        step = kb // gcd(kb, mono_divisor(rm))
        if k % step == 0:
            q, r = k, 0
        elif k > step:
            r = k % step
            q = k - r
        else:
            rest.append((m, k))
            continue
        g = gcd(q, kb)
        quot = add(quot, mul(sign * (q // g), _exact_quotient(rm, kb // g)))
        if r:
            rest.append((m, r))
    return quot, rest


def exact_poly_div(a: IntLike, b: IntLike) -> IntLike | None:
    """q with q*b == a structurally, for a one-term quotient q (None if there is none)."""
    if a is b:
        return 1
    _ca, ta = terms_of(a)
    _cb, tb = terms_of(b)
    if not ta or not tb:
        return None
    (ma, ka), (mb, kb) = ta[0], tb[0]
    rm = mono_div(ma, mb)
    if rm is None or ka % kb:
        return None
    q = term_expr(rm, ka // kb)
    return q if mul(q, b) == a else None


def content(x: IntLike) -> int:
    """The integer content of x: the gcd of its constant and coefficients."""
    const, terms = terms_of(x)
    g = abs(const)
    for _, k in terms:
        g = gcd(g, k)
    return g


def _cancel_common_factors(a: IntLike, b: IntLike) -> tuple[IntLike, IntLike, IntLike] | None:
    """(a/f, b/f, f) for the common integer content times provably positive monomial f of a and
    b: f > 0, so a // b and ceil_div(a, b) are unchanged and a % b == f*((a/f) % (b/f));
    None when f == 1."""
    g = gcd(content(a), content(b))
    if g > 1:
        a, b = divide_coefficients(a, g), divide_coefficients(b, g)
    common = _common_monomial(a, b)
    if common:
        a, b = divide_monomial(a, common), divide_monomial(b, common)
        return a, b, mul(g, mono_expr(common))
    if g == 1:
        return None
    return a, b, g


def _common_monomial(a: IntLike, b: IntLike) -> Mono:
    """The provably positive atoms (with multiplicity) that divide every term of a and of b."""
    ca, ta = terms_of(a)
    cb, tb = terms_of(b)
    if ca or cb or not ta or not tb:
        return ()
    exps = dict(ta[0][0])
    for m, _ in ta[1:] + tb:
        other = dict(m)
        exps = {atom: min(e, other[atom]) for atom, e in exps.items() if atom in other}
        if not exps:
            return ()
    return tuple(
        (atom, e)
        for atom, e in sorted(exps.items(), key=lambda t: t[0]._okey)
        if hooks.sign(atom) > 0
    )


def divide_monomial(x: IntLike, mono: Mono) -> IntLike:
    """x / mono for a monomial dividing every term of x."""
    const, terms = terms_of(x)
    return from_pairs(const, [(mono_div(m, mono), k) for m, k in terms])


def divide_coefficients(x: IntLike, g: int) -> IntLike:
    """x / g for a g that divides every coefficient of x."""
    const, terms = terms_of(x)
    return build(const // g, {m: k // g for m, k in terms})


# ---------------------------------------------------------------------------------------------------
# floordiv, mod, ceil_div
# ---------------------------------------------------------------------------------------------------


def floordiv(a: IntLike, b: IntLike) -> IntLike:
    """a // b with Python's floor semantics."""
    if type(a) is int and type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"division by zero: {a} // 0")
        return a // b
    key = (a, b)
    r = _FLOORDIV.get(key, _MISS)
    if r is _MISS:
        r = _FLOORDIV.put(key, _floordiv(a, b))
    return r


def _floordiv(a: IntLike, b: IntLike) -> IntLike:
    if type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"division by zero: ({a}) // 0")
        if b < 0:
            return floordiv(neg(a), -b)
        if b == 1:
            return a
        return _floordiv_const(a, b)
    s = hooks.sign(b)
    if s < 0:
        return floordiv(neg(a), neg(b))
    if s == 0:
        return make_op("floordiv", (a, b))
    return _floordiv_sym(a, b)


def _nested_division(a: IntLike, b: IntLike) -> IntLike | None:
    """(x // p) // b = x // (p*b); (x % m) // b = (x // b) % (m / b) when b | m (p, m, b > 0)."""
    if type(a) is not Op:
        return None
    if a.kind == "floordiv" and hooks.sign(a.args[1]) > 0:
        return floordiv(a.args[0], mul(a.args[1], b))
    if a.kind == "mod":
        m = a.args[1]
        if hooks.sign(m) > 0 and hooks.divides(b, m):
            return mod(floordiv(a.args[0], b), floordiv(m, b))
    return None


def _floordiv_const(a: SymInt, c: int) -> IntLike:
    nested = _nested_division(a, c)
    if nested is not None:
        return nested
    rem, low = _low_part(a, c)
    if low:  # (4*N + 1) // 6 == (4*N) // 6: first drop what never reaches a multiple of c
        return floordiv(rem, c)
    g = gcd(c, content(a))
    if g > 1:  # (g*x) // (g*c) = x // c: cancel before splitting, so 4*N // 6 is 2*N // 3
        return floordiv(divide_coefficients(a, g), c // g)
    const, terms = terms_of(a)
    quot, rest = _split_const(terms, c)
    q0, r = divmod(const, c)
    quot = add(quot, q0)
    if not rest:
        return quot
    lone = _lone_atom(rest, r, a)
    if lone is not None:
        return add(quot, floordiv(lone, c))
    d = c
    for m, k in rest:
        d = gcd(d, k * mono_divisor(m))
    r -= (
        r % d
    )  # x is a multiple of d, so the part of r below d never reaches the next multiple of c
    x = make_sum(0, tuple(rest))
    lo, hi = bounds(x)
    if lo != -INF and hi != INF and (lo + r) // c == (hi + r) // c:
        return add(quot, (lo + r) // c)
    if _in_range(add(x, r), c):
        return quot
    if rest[0][1] < 0:  # floor(y / c) = -floor((-y + c - 1) / c): keep numerators leading-positive
        return sub(quot, floordiv(add(neg(x), c - 1 - r), c))
    lcm = _exact_denominator(rest)
    if lcm > 1:  # floor((m // k + y) / c) = floor((m + k*y) / (k*c)) for exact quotients m // k
        return add(quot, floordiv(add(mul(lcm, x), lcm * r), lcm * c))
    g = gcd(c, r)
    for _, k in rest:
        g = gcd(g, k)
    if g > 1:
        x = divide_coefficients(x, g)
        c, r, d = c // g, r // g, d // g
    if r and r == c - d:
        return add(quot, _ceildiv_atom(x, c))
    return add(quot, _floordiv_atom(x, r, c))


def _lone_atom(rest: list, r: int, whole: IntLike) -> IntLike | None:
    """The atom when what is left of `whole` after splitting is one atom (coefficient 1, no
    constant), so the nested-division rules can see it; None otherwise."""
    if r or len(rest) != 1:
        return None
    m, k = rest[0]
    if k != 1 or len(m) != 1 or m[0][1] != 1 or m[0][0] is whole:
        return None
    return m[0][0]


def _in_range(x: IntLike, b: IntLike) -> bool:
    """0 <= x < b, provably."""
    return hooks.prove_nonneg(x) and hooks.prove_lt(x, b)


def _exact_denominator(terms: list | tuple) -> int:
    """The lcm of the divisors of the exact quotients among the terms' factors (1 if none)."""
    lcm = 1
    for m, _ in terms:
        for atom, e in m:
            k = atom._exact_k
            if k:
                k = k**e
                lcm = lcm * k // gcd(lcm, k)
    return lcm


def _low_part(rem: IntLike, b: IntLike) -> tuple[IntLike, int]:
    """(rem - s, s) where s = const % d and d divides b and every non-constant term of rem:
    then (rem - s) is a multiple of d, so (rem // b, rem % b) = ((rem - s) // b, (rem - s) % b + s)."""
    const, terms = terms_of(rem)
    d = known_divisor(b)
    for m, k in terms:
        if d == 1:
            return rem, 0
        d = gcd(d, k * mono_divisor(m))
    s = const % d
    return (sub(rem, s), s) if s else (rem, 0)


def _floordiv_atom(x: IntLike, r: int, c: IntLike) -> IntLike:
    """(x + r) // c as an atom; ((y // p) + r) // c = (y + r*p) // (p*c) merges first."""
    if type(x) is Op and x.kind == "floordiv" and hooks.sign(x.args[1]) > 0:
        p = x.args[1]
        return floordiv(add(x.args[0], mul(r, p)), mul(p, c))
    return make_op("floordiv", (add(x, r), c))


def _ceildiv_atom(x: IntLike, c: IntLike) -> IntLike:
    """ceil_div(x, c) as an atom; ceil_div(ceil_div(y, p), c) = ceil_div(y, p*c) merges first."""
    if type(x) is Op and x.kind == "ceildiv" and hooks.sign(x.args[1]) > 0:
        return ceil_div(x.args[0], mul(x.args[1], c))
    return make_op("ceildiv", (x, c))


def _floordiv_sym(a: IntLike, b: SymInt) -> IntLike:
    nested = _nested_division(a, b)
    if nested is not None:
        return nested
    c = content(b)
    if c > 1:  # x // (c*y) = (x // c) // y: when x // c is a constant, that is the simpler form
        t = floordiv(a, c)
        if type(t) is int:
            return floordiv(t, divide_coefficients(b, c))
    rem, low = _low_part(a, b)
    if low:
        return floordiv(rem, b)
    reduced = _cancel_common_factors(a, b)
    if reduced is not None:
        return floordiv(reduced[0], reduced[1])
    const, terms = terms_of(a)
    quot, rest = _split_sym(terms, b)
    if not rest and const == 0:
        return quot
    rem, _ = _low_part(make_sum(const, tuple(rest)), b)
    if rem is not a and type(rem) is Op:
        return add(quot, floordiv(rem, b))
    if _in_range(rem, b):
        return quot
    if hooks.prove_lt(rem, 0) and hooks.prove_le(neg(b), rem):
        return sub(quot, 1)
    lcm = _exact_denominator(terms_of(rem)[1])
    if lcm > 1:
        return add(quot, floordiv(mul(lcm, rem), mul(lcm, b)))
    if single_term(b) is None:
        q = exact_poly_div(rem, b)
        if q is not None:
            return add(quot, q)
    g = gcd(content(rem), content(b))
    if g > 1:
        return add(quot, floordiv(divide_coefficients(rem, g), divide_coefficients(b, g)))
    common = _common_monomial(rem, b)
    if common:  # (m*x) // (m*y) = x // y for m > 0
        return add(quot, floordiv(divide_monomial(rem, common), divide_monomial(b, common)))
    rc, rt = terms_of(rem)
    if len(rt) == 1 and rt[0][1] == 1 and len(rt[0][0]) == 1 and rt[0][0][0][1] == 1:
        inner = rt[0][0][0][0]
        if type(inner) is Op and inner.kind == "floordiv" and hooks.sign(inner.args[1]) > 0:
            p = inner.args[1]  # (x // p + r) // b = (x + r*p) // (p*b)
            return add(quot, floordiv(add(inner.args[0], mul(rc, p)), mul(p, b)))
    return add(quot, make_op("floordiv", (rem, b)))


def mod(a: IntLike, b: IntLike) -> IntLike:
    """a % b with Python's semantics (the sign of b)."""
    if type(a) is int and type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"modulo by zero: {a} % 0")
        return a % b
    key = (a, b)
    r = _MOD.get(key, _MISS)
    if r is _MISS:
        r = _MOD.put(key, _mod(a, b))
    return r


def _mod(a: IntLike, b: IntLike) -> IntLike:
    if type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"modulo by zero: ({a}) % 0")
        if b < 0:  # a % -c == -((-a) % c)
            return neg(mod(neg(a), -b))
        if b == 1:
            return 0
        return _mod_const(a, b)
    s = hooks.sign(b)
    if s < 0:
        return neg(mod(neg(a), neg(b)))
    if s == 0:
        return make_op("mod", (a, b))
    return _mod_sym(a, b)


def _nested_mod(a: IntLike, b: IntLike) -> IntLike | None:
    """(x % m) % b = x % b when b | m (m, b > 0)."""
    if type(a) is Op and a.kind == "mod":
        m = a.args[1]
        if hooks.sign(m) > 0 and hooks.divides(b, m):
            return mod(a.args[0], b)
    return None


def _mod_const(a: SymInt, c: int) -> IntLike:
    nested = _nested_mod(a, c)
    if nested is not None:
        return nested
    rem, low = _low_part(a, c)
    if low:
        return add(mod(rem, c), low)
    g = gcd(c, content(a))
    if g > 1:  # (g*x) % (g*c) = g*(x % c)
        return mul(g, mod(divide_coefficients(a, g), c // g))
    const, terms = terms_of(a)
    _, rest = _split_const(terms, c)
    r = const % c
    if not rest:
        return r
    lone = _lone_atom(rest, r, a)
    if lone is not None:
        return mod(lone, c)
    d = c
    for m, k in rest:
        d = gcd(d, k * mono_divisor(m))
    x = make_sum(0, tuple(rest))
    low = r % d
    if low:  # (x + r) % c == (x + r - low) % c + low, since x + r - low is a multiple of d
        return add(mod(add(x, r - low), c), low)
    lo, hi = bounds(x)
    if lo != -INF and hi != INF and (lo + r) // c == (hi + r) // c:
        return add(x, r - c * ((lo + r) // c))
    if _in_range(add(x, r), c):
        return add(x, r)
    g = gcd(c, r)
    for _, k in rest:
        g = gcd(g, k)
    if g > 1:
        return mul(g, mod(add(divide_coefficients(x, g), r // g), c // g))
    x = add(x, r)
    if _expand.divides_expanded(c, x):  # 8 | 8*t + 15*(t % 8) - 7*(t % 16) over the floor basis
        return 0
    return make_op("mod", (x, c))


def _mod_sym(a: IntLike, b: SymInt) -> IntLike:
    nested = _nested_mod(a, b)
    if nested is not None:
        return nested
    c = content(b)
    if c > 1:  # x % (c*y) = x % c + c*((x // c) % y), the digits of x, when x // c is a constant
        t = floordiv(a, c)
        if type(t) is int:
            return add(sub(a, c * t), mul(c, mod(t, divide_coefficients(b, c))))
    rem, low = _low_part(a, b)
    if low:
        return add(mod(rem, b), low)
    reduced = _cancel_common_factors(a, b)
    if reduced is not None:
        return mul(reduced[2], mod(reduced[0], reduced[1]))
    const, terms = terms_of(a)
    _, rest = _split_sym(terms, b)
    if not rest and const == 0:
        return 0
    rem, low = _low_part(make_sum(const, tuple(rest)), b)
    if low or (rem is not a and type(rem) is Op):
        return add(mod(rem, b), low)
    if _in_range(rem, b):
        return rem
    if hooks.prove_lt(rem, 0) and hooks.prove_le(neg(b), rem):
        return add(rem, b)
    if single_term(b) is None and exact_poly_div(rem, b) is not None:
        return 0
    if _expand.divides_expanded(b, rem):
        return 0
    g = gcd(content(rem), content(b))
    if g > 1:
        return mul(g, mod(divide_coefficients(rem, g), divide_coefficients(b, g)))
    common = _common_monomial(rem, b)
    if common:  # (m*x) % (m*y) = m * (x % y) for m > 0
        return mul(mono_expr(common), mod(divide_monomial(rem, common), divide_monomial(b, common)))
    return make_op("mod", (rem, b))


def ceil_div(a: IntLike, b: IntLike) -> IntLike:
    """ceil(a / b), i.e. -((-a) // b)."""
    if type(a) is int and type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"division by zero: ceil_div({a}, 0)")
        return -(-a // b)
    key = (a, b)
    r = _CEILDIV.get(key, _MISS)
    if r is _MISS:
        r = _CEILDIV.put(key, _ceil_div(a, b))
    return r


def _ceil_div(a: IntLike, b: IntLike) -> IntLike:
    if type(b) is int:
        if b == 0:
            raise LayoutZeroDivisionError(f"division by zero: ceil_div({a}, 0)")
        if b < 0:
            return neg(floordiv(a, -b))
        if b == 1:
            return a
        return neg(floordiv(neg(a), b))
    s = hooks.sign(b)
    if s < 0:
        return neg(floordiv(a, neg(b)))
    if s == 0:
        return make_op("ceildiv", (a, b))
    if type(a) is Op and a.kind == "ceildiv" and hooks.sign(a.args[1]) > 0:
        return ceil_div(a.args[0], mul(a.args[1], b))
    c = content(b)
    if c > 1:  # ceil_div(x, c*y) = ceil_div(ceil_div(x, c), y)
        t = ceil_div(a, c)
        if type(t) is int:
            return ceil_div(t, divide_coefficients(b, c))
    reduced = _cancel_common_factors(a, b)
    if reduced is not None:
        return ceil_div(reduced[0], reduced[1])
    const, terms = terms_of(a)
    quot, rest = _split_sym(terms, b)
    if not rest and const == 0:
        return quot
    rem = make_sum(const, tuple(rest))
    if hooks.prove_le(1, rem) and hooks.prove_le(rem, b):
        return add(quot, 1)
    if hooks.prove_le(rem, 0) and hooks.prove_lt(neg(b), rem):
        return quot
    if single_term(b) is None:
        q = exact_poly_div(rem, b)
        if q is not None:
            return add(quot, q)
    g = gcd(content(rem), content(b))
    if g > 1:
        return add(quot, ceil_div(divide_coefficients(rem, g), divide_coefficients(b, g)))
    common = _common_monomial(rem, b)
    if common:
        return add(quot, ceil_div(divide_monomial(rem, common), divide_monomial(b, common)))
    return add(quot, _ceildiv_atom(rem, b))


# ---------------------------------------------------------------------------------------------------
# min, max
# ---------------------------------------------------------------------------------------------------


def sym_min(*args: IntLike) -> IntLike:
    return _minmax("min", args)


def sym_max(*args: IntLike) -> IntLike:
    return _minmax("max", args)


def _minmax(kind: str, args: tuple) -> IntLike:
    if not args:
        raise ValueError(f"{kind}() needs at least one argument")
    flat: list = []
    for a in args:
        if type(a) is Op and a.kind == kind:
            flat.extend(a.args)
        else:
            flat.append(a)
    ints = [a for a in flat if type(a) is int]
    cands: dict = {a: None for a in flat if type(a) is not int}
    if not cands:
        return min(ints) if kind == "min" else max(ints)
    if ints:
        cands[min(ints) if kind == "min" else max(ints)] = None
    if len(cands) == 1:
        return next(iter(cands))
    key = (kind, tuple(cands))
    r = _MINMAX.get(key, _MISS)
    if r is _MISS:
        r = _MINMAX.put(key, _minmax_fold(kind, list(cands)))
    return r


def _minmax_fold(kind: str, cands: list) -> IntLike:
    # better(x, y): x is provably at least as good as y, so y is redundant.
    if kind == "min":

        def better(x: IntLike, y: IntLike) -> bool:
            return hooks.prove_le(x, y)
    else:

        def better(x: IntLike, y: IntLike) -> bool:
            return hooks.prove_le(y, x)

    cands.sort(key=lambda v: (type(v) is int, order_key(v)))
    keep: list = []
    for x in cands:
        if any(better(y, x) for y in keep):
            continue
        keep = [y for y in keep if not better(x, y)]
        keep.append(x)
    if len(keep) == 1:
        return keep[0]
    return make_op(kind, tuple(keep))


# ---------------------------------------------------------------------------------------------------
# Unpickling (SymInt.__reduce__): rebuilt through the simplifier, so the result is re-interned
# ---------------------------------------------------------------------------------------------------


def rebuild_op(kind: str, args: tuple) -> IntLike:
    """The value of an opaque atom from its kind and operands."""
    if kind == "min" or kind == "max":
        return _minmax(kind, args)
    return _REBUILD[kind](*args)


def rebuild_sum(const: int, terms: tuple) -> IntLike:
    """The value of a sum from its constant and terms."""
    return build(const, dict(terms))


_REBUILD = {"floordiv": floordiv, "mod": mod, "ceildiv": ceil_div}
