"""Which bits of a symbolic integer can be set, and how a swizzle's argument splits.

Swizzled shared-memory offsets are ``Sw(arg)`` with ``arg`` = a thread's part + a k-block's
constant + a pipeline stage's multiple of a large power of two. Emitted as written, every
access recomputes the whole swizzle (a mask, a shift and an xor after the sum). Two facts of
CuTe's swizzle ``Sw<B,M,S>(x) = x ^ ((x & yyy) >> S)`` let most of it be computed once:

- it only rewrites bits below ``top`` (the highest bit of its masks, plus one) and reads only
  bits below ``top``, so ``Sw(x + h) = Sw(x) + h`` for every multiple ``h`` of ``2^top``;
- it is linear over xor, ``Sw(x ^ c) = Sw(x) ^ Sw(c)``, and ``x + c = x ^ c`` when no bit can be
  set in both (``possible_bits``), so a constant that shares no bit with the thread's part
  becomes one xor with the constant ``Sw(c)``.

:func:`split_swizzle_argument` finds that decomposition; the emitter builds
``(Sw(low) ^ Sw(c)) + high`` from it, where ``Sw(low)`` is loop-invariant and shared.
"""

from __future__ import annotations

from typing import NamedTuple

from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.sym.expr import Sum, Symbol, term_expr, terms_of
from layoutc.ir.algebra.symbolic import SymInt, sym_known_divisor

IntLike = int | SymInt

__all__ = ["SwizzleSplit", "possible_bits", "split_swizzle_argument"]

MAX_ENUMERATED = 1 << 12
"""The most assignments :func:`possible_bits` evaluates (thread indices of a block fit)."""

_bits_memo: dict[SymInt, int | None] = {}


def possible_bits(x: IntLike) -> int | None:
    """A mask containing every bit that ``x`` can have set for an admissible assignment of its
    symbols, or None when that is not known (a value may be negative, or the symbols range over
    more than :data:`MAX_ENUMERATED` assignments).

    Exact by enumeration: the expressions this serves depend on thread indices (at most 1024
    values) and small loop counters, so evaluating every admissible assignment is cheap and
    needs no reasoning about carries."""
    if type(x) is int:
        return x if x >= 0 else None
    if x in _bits_memo:
        return _bits_memo[x]
    result = _enumerate_bits(x)
    if len(_bits_memo) > 4096:
        _bits_memo.clear()
    _bits_memo[x] = result
    return result


def _enumerate_bits(x: SymInt) -> int | None:
    ranges = []
    count = 1
    for sym in x.free_symbols:
        lo, hi = sym.bounds
        if lo is None or hi is None:
            return None
        step = sym.divisible_by
        lo = -(-lo // step) * step
        values = range(lo, hi + 1, step)
        count *= max(1, len(values))
        if count > MAX_ENUMERATED:
            return None
        ranges.append((sym, [v for v in values if sym.admits(v)]))
    # every assignment at once: one list per node, an entry per assignment (the product of
    # the symbols' values), and the assignments where a divisor is 0 left out, as
    # ``x.evaluate`` raises there
    n = 1
    for _, values in ranges:
        n *= len(values)
    columns: dict = {}
    outer = 1
    for sym, values in ranges:
        inner = n // (outer * len(values)) if values else 0
        columns[sym] = [v for _ in range(outer) for v in values for _ in range(inner)]
        outer *= len(values)
    invalid = [False] * n
    found = _values(x, columns, {}, n, invalid)
    mask = 0
    for v, bad in zip(found, invalid):
        if bad:
            continue
        if v < 0:
            return None
        mask |= v
    return mask


def _values(x: IntLike, columns: dict, memo: dict, n: int, invalid: list) -> list:
    """``x`` at every assignment (:func:`_enumerate_bits`), Python's integer semantics as
    ``SymInt.evaluate``'s; marks in ``invalid`` the assignments that divide by 0."""
    if type(x) is int:
        return [x] * n
    found = memo.get(x)
    if found is not None:
        return found
    if type(x) is Symbol:
        found = columns[x]
    elif type(x) is Sum:
        found = [x.const] * n
        for mono, coeff in x.terms:
            term = [coeff] * n
            for atom, e in mono:
                v = _values(atom, columns, memo, n, invalid)
                if e != 1:
                    v = [a**e for a in v]
                term = [a * b for a, b in zip(term, v)]
            found = [a + b for a, b in zip(found, term)]
    else:
        args = [_values(a, columns, memo, n, invalid) for a in x.args]  # type: ignore[attr-defined]
        kind = x.kind  # type: ignore[attr-defined]
        if kind == "min":
            found = [min(t) for t in zip(*args)]
        elif kind == "max":
            found = [max(t) for t in zip(*args)]
        else:
            a, b = args
            if 0 in b:
                for i, d in enumerate(b):
                    if d == 0:
                        invalid[i] = True
                b = [d or 1 for d in b]
            if kind == "floordiv":
                found = [p // q for p, q in zip(a, b)]
            elif kind == "mod":
                found = [p % q for p, q in zip(a, b)]
            else:
                found = [-(-p // q) for p, q in zip(a, b)]
    memo[x] = found
    return found


class SwizzleSplit(NamedTuple):
    """``Sw(arg) == (Sw(low) ^ Sw(xor_constant)) + high``, exactly, for every admissible value.

    ``low`` carries the terms the swizzle mixes (a thread's part, usually loop-invariant);
    ``xor_constant`` is a constant below ``2^top`` that shares no bit with ``low``; ``high`` is a
    multiple of ``2^top`` (stages, repetitions, constants), which the swizzle passes through."""

    low: IntLike
    xor_constant: int
    high: IntLike


_split_memo: dict[tuple, SwizzleSplit] = {}


def split_swizzle_argument(swizzle: Swizzle, arg: IntLike) -> SwizzleSplit:
    """The decomposition of ``Sw(arg)`` described in the module docstring (``low = arg`` and
    nothing split off when no term qualifies). Memoised as :func:`possible_bits` is (a SymInt
    is its canonical form, its symbols carry their facts): the compiles of one kernel split
    the same arguments."""
    key = (swizzle, arg)
    found = _split_memo.get(key)
    if found is None:
        found = _split(swizzle, arg)
        if len(_split_memo) > 4096:
            _split_memo.clear()
        _split_memo[key] = found
    return found


_parts_memo: dict[tuple, tuple[IntLike, IntLike]] = {}


def _split(swizzle: Swizzle, arg: IntLike) -> SwizzleSplit:
    unit = 1 << swizzle.swizzle_code.bit_length()
    const, terms = terms_of(arg)
    base = const - const % unit
    low, high = _parts(unit, terms)
    if base:
        # ``high`` is ``base`` plus those terms, in order: with none or one of them, adding
        # ``base`` last is the same sum. The builder's terms never depend on the constant
        # (``arith.build``), so it is too when the argument and ``high`` are fixed points of
        # the builder (``Sum._nf``; the terms of such a sum are each one too, so starting
        # from 0 or from ``base`` rewrites alike)
        if (
            (type(high) is int and high == 0)
            or len(terms_of(high)[1]) == 1
            or (_fixed(arg) and _fixed(high))
        ):
            high = high + base
        else:
            high = base
            for mono, coeff in terms:
                term = term_expr(mono, coeff)
                if sym_known_divisor(term) % unit == 0:
                    high = high + term
    c = const % unit
    if c:
        bits = possible_bits(low)
        if bits is not None and bits & c == 0:
            return SwizzleSplit(low, c, high)
    return SwizzleSplit(low + c, 0, high)


def _fixed(x: IntLike) -> bool:
    return type(x) is Sum and x._nf


def _parts(unit: int, terms: tuple) -> tuple[IntLike, IntLike]:
    """(the terms ``2^top`` does not divide, the others), each summed in order: memoised on
    the terms alone, which the arguments of one tensor's accesses share (a thread's part
    plus each access's constant)."""
    key = (unit, terms)
    found = _parts_memo.get(key)
    if found is None:
        high: IntLike = 0
        low: IntLike = 0
        for mono, coeff in terms:
            term = term_expr(mono, coeff)
            if sym_known_divisor(term) % unit == 0:
                high = high + term
            else:
                low = low + term
        if len(_parts_memo) > 4096:
            _parts_memo.clear()
        found = _parts_memo[key] = (low, high)
    return found
