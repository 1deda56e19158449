"""Proofs about symbolic integers: sign, order, equality, divisibility.

Everything here answers "provable for every admissible value of the symbols?"; False means "not
proven", never "false". The core is `prove_nonneg(e)` (e >= 0), decided without SymPy:

1. interval bounds of e (`bounds`);
2. opaque atoms are eliminated soundly: `min`/`max` by case split (the atom equals one of its
   arguments), `x // b`, `ceil_div(x, b)` and `x % b` (b > 0) appearing linearly by their
   tightest linear bounds (`x - b + 1 <= b*(x // b) <= x`, ...) after multiplying by b > 0;
   exact quotients `m // k` are cleared by multiplying through by k;
3. the shift test: each remaining atom v with a finite lower bound l and known divisor d is
   written v = l + d*t with t >= 0 (or v = u - d*t from an upper bound u); if the expanded
   polynomial in the t's has only non-negative coefficients, e >= 0.

Recursion is depth-limited; results are memoised (a False reached only because of the depth
limit is not cached, so results do not depend on the order of calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import arith as _arith
from . import expand as _expand
from .bounds import bounds, shift_plans
from .cache import PROOF_CUTOFFS, MemoCache
from .evaluate import evaluate_unchecked
from .expr import (
    Op,
    Symbol,
    atoms_of,
    known_divisor,
    mono_div,
    mono_divisor,
    single_term,
    terms_of,
)

if TYPE_CHECKING:
    from .expr import IntLike, SymInt

MAX_DEPTH = 6
MAX_ELIMINATIONS = 1000  # atom eliminations per top-level proof (they branch exponentially)
_NONNEG = MemoCache("prove_nonneg")
_depth = 0
_eliminations = 0


def prove_nonneg(e: IntLike) -> bool:
    """True when e >= 0 is provable for every admissible value."""
    global _depth
    if type(e) is int:
        return e >= 0
    r = _NONNEG.get(e)
    if r is not None:
        return r
    lo, hi = bounds(e)
    if lo >= 0:
        return True
    if hi < 0:
        return False
    if _refuted(e):
        _NONNEG.put(e, False)
        return False
    if _depth >= MAX_DEPTH:
        PROOF_CUTOFFS.count += 1
        return False
    if _depth == 0:
        global _eliminations
        _eliminations = 0
    before = PROOF_CUTOFFS.count
    _depth += 1
    try:
        r = _prove_nonneg(e)
    finally:
        _depth -= 1
    if r or PROOF_CUTOFFS.count == before:
        _NONNEG.put(e, r)
    return r


def _refuted(e: IntLike) -> bool:
    """True when e < 0 at one of a few admissible sample points: then e >= 0 is false, and the
    (much dearer) proof attempt is skipped. Most failed proofs of the simplifier end here.
    The points: every symbol near its lower bound (three spreads), then each symbol in turn
    far from it (its upper bound, or 2^20 steps of its divisor) with the others at the first
    point: ``M <= 128*b + t // 8 + 48`` (a residue tile's bound check, true for small M only)
    fails at ``M = 2^20 + 1``, not near the bounds."""
    symbols = e.free_symbols  # type: ignore[union-attr]
    for point in range(len(_SAMPLE_STEPS)):
        env = {s: _sample_value(s, point, i) for i, s in enumerate(symbols)}
        if _negative_at(e, env):
            return True
    near = {s: _sample_value(s, 0, i) for i, s in enumerate(symbols)}
    for s in symbols:
        far = _far_value(s)
        if far != near[s] and _negative_at(e, {**near, s: far}):
            return True
    return False


def _negative_at(e: IntLike, env: dict) -> bool:
    try:
        return evaluate_unchecked(e, env) < 0
    except ZeroDivisionError:
        return False


_FAR_STEPS = 1 << 20


def _far_value(s: Symbol) -> int:
    """An admissible value of s far from its lower bound (its upper bound when it has one)."""
    d = s.divisible_by
    if s.upper is not None:
        return s.upper
    if s.lower is not None:
        return s.lower + d * _FAR_STEPS
    return d * _FAR_STEPS


_SAMPLE_STEPS = ((0, 0), (1, 3), (6, 5))


def _sample_value(s: Symbol, point: int, i: int) -> int:
    """An admissible value of s: its lower bound plus a point- and symbol-dependent multiple of
    its divisor (kept within the upper bound)."""
    base, spread = _SAMPLE_STEPS[point]
    step = base + (i * spread) % 13
    d = s.divisible_by
    if s.lower is not None:
        v = s.lower + d * step
        return v if s.upper is None or v <= s.upper else s.upper
    if s.upper is not None:
        return s.upper - d * step
    return d * (step if point % 2 == 0 else -step)


def prove_le(a: IntLike, b: IntLike) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    return prove_nonneg(_arith.sub(b, a))


def prove_lt(a: IntLike, b: IntLike) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    return prove_nonneg(_arith.sub(_arith.sub(b, a), 1))


def prove_eq(a: IntLike, b: IntLike) -> bool:
    if a is b:
        return True
    xa, xb = _expand.expand(a), _expand.expand(b)
    if xa == xb:  # equal over the floor basis
        return True
    d = _arith.sub(a, b)
    if type(d) is int:
        return d == 0
    decided = _expand.decide_zero(_expand.padd(xa, xb, -1))  # exact for quasi-linear values
    if decided is not None:
        return decided
    return prove_nonneg(d) and prove_nonneg(_arith.neg(d))


def sign(x: IntLike) -> int:
    """1 if provably positive, -1 if provably negative, 0 if unknown (or zero)."""
    if type(x) is int:
        return (x > 0) - (x < 0)
    lo, hi = bounds(x)
    if lo >= 1:
        return 1
    if hi <= -1:
        return -1
    if prove_nonneg(_arith.sub(x, 1)):
        return 1
    if prove_nonneg(_arith.sub(-1, x)):
        return -1
    return 0


def divides(d: IntLike, x: IntLike) -> bool:
    """True when d != 0 and x % d == 0 are provable for every admissible value."""
    if type(d) is int and type(x) is int:
        return d != 0 and x % d == 0
    if type(x) is int and x == 0:
        return sign(d) != 0
    if type(d) is int:
        if d == 0:
            return False
        if _expand.strong_divisor(x) % d == 0:
            return True
        return _expand.decide_zero(_expand.expanded_remainder(x, abs(d))) is True
    if sign(d) == 0:
        return False
    if d is x or _arith.neg(d) is x:
        return True
    if _divides_canonical(d, x):
        return True
    return _expand.divides_expanded(d, x)


def _divides_canonical(d: SymInt, x: IntLike) -> bool:
    """d | x by monomial division of the canonical terms (or exact polynomial division)."""
    st = single_term(d)
    if st is not None:
        kd, md = st
        kd = abs(kd)
        const, terms = terms_of(x)
        if const:
            return False
        for m, k in terms:
            rm = mono_div(m, md)
            if rm is None or (k * mono_divisor(rm)) % kd:
                return False
        return True
    return _arith.exact_poly_div(x, d) is not None


# ---------------------------------------------------------------------------------------------------
# The non-negativity prover
# ---------------------------------------------------------------------------------------------------


def _prove_nonneg(e: IntLike) -> bool:
    if type(e) is Symbol:
        return False
    xe = _expand.expand(e)
    if _expand.poly_nonneg(xe):
        return True
    if type(e) is Op:
        return _op_nonneg(e)
    cleared = _clear_exact_quotients(e)
    if cleared is not e:
        return prove_nonneg(cleared)
    if _shift_test(e):
        return True
    if _depth == 1 and _expand.poly_nonneg(xe, eliminate=True):
        return True  # (only at the top: nested in the eliminations below it would multiply)
    return any(_eliminate(e, q) for q in atoms_of(e) if type(q) is Op)


def _op_nonneg(op: Op) -> bool:
    kind, args = op.kind, op.args
    if kind == "min":
        return all(prove_nonneg(a) for a in args)
    if kind == "max":
        return any(prove_nonneg(a) for a in args)
    x, b = args
    if sign(b) <= 0:
        return False
    if kind == "floordiv":
        return prove_nonneg(x)
    if kind == "ceildiv":  # ceil(x / b) >= 0  iff  x > -b
        return prove_nonneg(_arith.add(x, _arith.sub(b, 1)))
    return True  # x % b with b > 0


def _clear_exact_quotients(e: IntLike) -> IntLike:
    """L*e with every exact quotient m // k replaced by m (L the lcm of the divisors; L > 0)."""
    const, terms = terms_of(e)
    dens = []
    for m, _ in terms:
        den = 1
        for atom, ex in m:
            if atom._exact_k:
                den *= atom._exact_k**ex
        dens.append(den)
    lcm = 1
    for den in dens:
        lcm = lcm * den // _gcd(lcm, den)
    if lcm == 1:
        return e
    total: IntLike = const * lcm
    for (m, k), den in zip(terms, dens):
        piece: IntLike = k * (lcm // den)
        for atom, ex in m:
            factor = atom.args[0] if atom._exact_k else atom
            piece = _arith.mul(piece, _arith.power(factor, ex))
        total = _arith.add(total, piece)
    return total


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _linear_split(e: IntLike, q: Op) -> tuple[IntLike, IntLike] | None:
    """(C, R) with e == C*q + R when q occurs only to the first power in e's monomials."""
    const, terms = terms_of(e)
    coeff_pairs = []
    rest_pairs = []
    for m, k in terms:
        for i, (atom, ex) in enumerate(m):
            if atom is q:
                if ex != 1:
                    return None
                coeff_pairs.append((m[:i] + m[i + 1 :], k))
                break
        else:
            rest_pairs.append((m, k))
    return _arith.from_pairs(0, coeff_pairs), _arith.from_pairs(const, rest_pairs)


def _replace_atom(e: IntLike, q: Op, value: IntLike) -> IntLike:
    const, terms = terms_of(e)
    total: IntLike = const
    for m, k in terms:
        piece: IntLike = k
        for atom, ex in m:
            piece = _arith.mul(piece, _arith.power(value if atom is q else atom, ex))
        total = _arith.add(total, piece)
    return total


def _eliminate(e: IntLike, q: Op) -> bool:
    """Prove e >= 0 by replacing the opaque atom q with what is known about it."""
    global _eliminations
    _eliminations += 1
    if _eliminations > MAX_ELIMINATIONS:  # a budget, like the depth limit: not cached
        PROOF_CUTOFFS.count += 1
        return False
    add, sub, mul, neg = _arith.add, _arith.sub, _arith.mul, _arith.neg
    split = _linear_split(e, q)
    if q.kind in ("min", "max"):
        # q equals one of its arguments: proving every case is exact. When q enters e with a
        # known sign and only through its bound (min <= each argument, max >= each argument),
        # one argument suffices.
        cases = [_replace_atom(e, q, arg) for arg in q.args]
        if split is not None:
            c = split[0]
            sign_c = 1 if prove_nonneg(c) else (-1 if prove_nonneg(_arith.neg(c)) else 0)
            if (q.kind == "min" and sign_c < 0) or (q.kind == "max" and sign_c > 0):
                return any(prove_nonneg(case) for case in cases)
        return all(prove_nonneg(case) for case in cases)
    if split is None:
        return False
    c, r = split
    x, b = q.args
    if sign(b) <= 0:
        return False
    c_nonneg = prove_nonneg(c)
    c_nonpos = not c_nonneg and prove_nonneg(neg(c))
    # b*e is bounded below by a relaxation L; e is an integer, so L >= -(b - 1) already gives
    # e > -1, i.e. e >= 0: prove L + b - 1 >= 0.
    slack = sub(b, 1)
    if q.kind == "floordiv":  # x - b + 1 <= b*q <= x
        if c_nonneg:
            return prove_nonneg(add(add(mul(c, add(sub(x, b), 1)), mul(b, r)), slack))
        if c_nonpos:
            return prove_nonneg(add(add(mul(c, x), mul(b, r)), slack))
        return False
    if q.kind == "ceildiv":  # x <= b*q <= x + b - 1
        if c_nonneg:
            return prove_nonneg(add(add(mul(c, x), mul(b, r)), slack))
        if c_nonpos:
            return prove_nonneg(add(add(mul(c, sub(add(x, b), 1)), mul(b, r)), slack))
        return False
    # mod: 0 <= q <= b - 1, and q <= x when x >= 0
    if c_nonneg:
        return prove_nonneg(r)
    if c_nonpos:
        if prove_nonneg(add(mul(c, sub(b, 1)), r)):
            return True
        return prove_nonneg(x) and prove_nonneg(add(mul(c, x), r))
    return False


def _shift_test(e: IntLike) -> bool:
    const, terms = terms_of(e)
    atoms = atoms_of(e)
    infos = [(*bounds(v), known_divisor(v)) for v in atoms]
    return shift_plans(const, terms, atoms, infos)
