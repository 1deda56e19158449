"""Timings of the symbolic integer engine against SymPy doing the same work, in one process.

Each operation is timed warm (the same expression again: memoised) and cold (fresh symbols every
time, so nothing is cached: the cost the first time a kernel is traced). SymPy gets the same
treatment: the same expressions with integer symbols carrying the same assumptions (a symbol
"divisible by 4" is written 4*n, which is how SymPy can see it). The ratio is SymPy's time over
ours. The first four cases time one operator on SymInts (warm, that is the dispatch from
`SymInt.__add__` into the simplifier and the memo lookup; cold, the simplifier and the provers it
asks); the last three need the expanded form (floor basis) of the provers. Run:
`python benchmarks/symbolic.py` (about a minute); `--ours` skips SymPy (a few seconds).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import time
from collections.abc import Callable

import sympy
from layoutc.ir.algebra import intops
from layoutc.ir.algebra.symbolic import Symbol, clear_caches

_ids = itertools.count()


def per_call_us(fn: Callable[[], object], min_time: float = 0.2, max_calls: int = 200_000) -> float:
    """Median of 5 rounds of the mean CPU time per call, in microseconds, after a warm-up call
    (process time, so other processes on a shared machine disturb it less)."""
    fn()
    calls = 1
    while True:
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        elapsed = time.process_time() - t0
        if elapsed >= min_time / 5 or calls >= max_calls:
            break
        calls *= 4
    rounds = []
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        rounds.append((time.process_time() - t0) / calls * 1e6)
    return sorted(rounds)[2]


# -- our engine ----------------------------------------------------------------------------------


def _make_ours() -> tuple:
    return (
        Symbol.fresh("N", divisible_by=4),
        Symbol.fresh("M"),
        Symbol.fresh("K"),
        Symbol.fresh("i", positive=False, lower=0),
    )


_OURS = _make_ours()


def ours_symbols(fresh: bool) -> tuple:
    """Fresh symbols (nothing memoised) or the same ones every time (memoised results)."""
    return _make_ours() if fresh else _OURS


def ours_add(fresh: bool) -> object:
    n, m, k, _ = ours_symbols(fresh)
    return n + m, m + k, n + 1


def ours_mul(fresh: bool) -> object:
    n, m, k, _ = ours_symbols(fresh)
    return n * m, 4 * k, m * 3


def ours_floordiv(fresh: bool) -> object:
    n, m, _, i = ours_symbols(fresh)
    return n // 4, i // m, m // 2


def ours_mod(fresh: bool) -> object:
    n, m, _, i = ours_symbols(fresh)
    return n % 8, i % m, m % 2


def ours_build(fresh: bool) -> object:
    n, m, _, _ = ours_symbols(fresh)
    return 4 * n * m + 2 * n


def ours_idx2crd(fresh: bool) -> object:
    n, m, _k, i = ours_symbols(fresh)
    return (i % m, (i // m) % n, i // (m * n))


def ours_roundtrip(fresh: bool) -> object:
    n, m, _k, i = ours_symbols(fresh)
    c0, c1, c2 = i % m, (i // m) % n, i // (m * n)
    result = c0 + m * c1 + m * n * c2
    assert result is i
    return result


def ours_divides(fresh: bool) -> bool:
    n, m, _, _ = ours_symbols(fresh)
    ok = intops.divides(16, 4 * n) and intops.divides(n, n * m)
    assert ok
    return ok


def ours_prove(fresh: bool) -> bool:
    n, m, _, _ = ours_symbols(fresh)
    ok = intops.prove_lt(n, n * m + 1) and intops.prove_le(m // 4, m)
    assert ok
    return ok


def ours_evaluate(fresh: bool) -> int:
    n, m, _k, i = ours_symbols(fresh)
    e = (i % m) * 4 + ((i // m) % n) * (4 * m) + 7
    return e.evaluate({n: 8, m: 5, i: 123})


# -- SymPy doing the same -----------------------------------------------------------------------


def _make_sympy(suffix: str) -> tuple:
    n4 = sympy.Symbol("n" + suffix, integer=True, positive=True)
    m = sympy.Symbol("M" + suffix, integer=True, positive=True)
    k = sympy.Symbol("K" + suffix, integer=True, positive=True)
    i = sympy.Symbol("i" + suffix, integer=True, nonnegative=True)
    return 4 * n4, m, k, i, n4


_SYMPY = _make_sympy("")


def sympy_symbols(fresh: bool) -> tuple:
    return _make_sympy(f"_{next(_ids)}") if fresh else _SYMPY


def sympy_add(fresh: bool) -> object:
    n, m, k, _, _ = sympy_symbols(fresh)
    return n + m, m + k, n + 1


def sympy_mul(fresh: bool) -> object:
    n, m, k, _, _ = sympy_symbols(fresh)
    return n * m, 4 * k, m * 3


def sympy_floordiv(fresh: bool) -> object:
    n, m, _, i, _ = sympy_symbols(fresh)
    return sympy.floor(n / 4), sympy.floor(i / m), sympy.floor(m / 2)


def sympy_mod(fresh: bool) -> object:
    n, m, _, i, _ = sympy_symbols(fresh)
    return sympy.Mod(n, 8), sympy.Mod(i, m), sympy.Mod(m, 2)


def sympy_build(fresh: bool) -> object:
    n, m, _, _, _ = sympy_symbols(fresh)
    return sympy.expand(4 * n * m + 2 * n)


def sympy_idx2crd(fresh: bool) -> object:
    n, m, _k, i, _ = sympy_symbols(fresh)
    return (sympy.Mod(i, m), sympy.Mod(sympy.floor(i / m), n), sympy.floor(i / (m * n)))


def sympy_roundtrip(fresh: bool) -> object:
    n, m, _k, i, _ = sympy_symbols(fresh)
    c0, c1, c2 = sympy.Mod(i, m), sympy.Mod(sympy.floor(i / m), n), sympy.floor(i / (m * n))
    return sympy.simplify(c0 + m * c1 + m * n * c2 - i)


def sympy_divides(fresh: bool) -> bool:
    n, m, _, _, _ = sympy_symbols(fresh)
    return sympy.Mod(4 * n, 16) == 0 and sympy.Mod(n * m, n) == 0


def sympy_prove(fresh: bool) -> bool:
    n, m, _, _, _ = sympy_symbols(fresh)
    return bool((n * m + 1 - n).is_positive) and bool((m - sympy.floor(m / 4)).is_nonnegative)


def sympy_evaluate(fresh: bool) -> int:
    n, m, _k, i, n4 = sympy_symbols(fresh)
    e = sympy.Mod(i, m) * 4 + sympy.Mod(sympy.floor(i / m), n) * (4 * m) + 7
    return int(e.subs({n4: 2, m: 5, i: 123}))


# -- proofs over the expanded form (floor basis) ----------------------------------------------------


def ours_floor_eq(fresh: bool) -> bool:
    """9*(M // 3) == 3*M - 3*(M % 3): two canonical forms of one value."""
    _, m, _, _ = ours_symbols(fresh)
    ok = intops.prove_eq(9 * (m // 3), 3 * m - 3 * (m % 3))
    assert ok
    return ok


def sympy_floor_eq(fresh: bool) -> bool:
    _, m, _, _, _ = sympy_symbols(fresh)
    return sympy.simplify(9 * sympy.floor(m / 3) - (3 * m - 3 * sympy.Mod(m, 3))) == 0


def ours_hidden_multiple(fresh: bool) -> bool:
    """8 | 8*i + 15*(i % 8) - 7*(i % 16) (an ldmatrix offset)."""
    _, _, _, i = ours_symbols(fresh)
    ok = intops.known_divisor(8 * i + 15 * (i % 8) - 7 * (i % 16)) % 8 == 0
    assert ok
    return ok


def sympy_hidden_multiple(fresh: bool) -> bool:
    _, _, _, i, _ = sympy_symbols(fresh)
    return sympy.Mod(8 * i + 15 * sympy.Mod(i, 8) - 7 * sympy.Mod(i, 16), 8) == 0


def ours_odd_roundtrip(fresh: bool) -> object:
    """crd2idx(idx2crd(10*N)) over (3, 2, N) with 4 | N simplifies back to 10*N."""
    n, _, _, _ = ours_symbols(fresh)
    i = 10 * n
    result = i % 3 + 3 * ((i // 3) % 2) + 6 * (i // 6)
    assert result is i
    return result


def sympy_odd_roundtrip(fresh: bool) -> object:
    n, _, _, _, _ = sympy_symbols(fresh)
    i = 10 * n
    c0, c1, c2 = sympy.Mod(i, 3), sympy.Mod(sympy.floor(i / 3), 2), sympy.floor(i / 6)
    return sympy.simplify(c0 + 3 * c1 + 6 * c2 - i)


CASES = [
    ("3 sums (N+M, M+K, N+1)", ours_add, sympy_add),
    ("3 products (N*M, 4*K, M*3)", ours_mul, sympy_mul),
    ("3 floordivs (N//4, i//M, M//2)", ours_floordiv, sympy_floordiv),
    ("3 mods (N%8, i%M, M%2)", ours_mod, sympy_mod),
    ("build 4*N*M + 2*N", ours_build, sympy_build),
    ("idx2crd on (M, N, K)", ours_idx2crd, sympy_idx2crd),
    ("crd2idx(idx2crd(i)) == i", ours_roundtrip, sympy_roundtrip),
    ("divisibility proofs (2)", ours_divides, sympy_divides),
    ("order proofs (2)", ours_prove, sympy_prove),
    ("evaluate an index", ours_evaluate, sympy_evaluate),
    ("9*(M//3) == 3*M - 3*(M%3)", ours_floor_eq, sympy_floor_eq),
    ("8 | 8i + 15(i%8) - 7(i%16)", ours_hidden_multiple, sympy_hidden_multiple),
    ("round trip of 10*N on (3,2,N)", ours_odd_roundtrip, sympy_odd_roundtrip),
]
_SLOW_SYMPY = ("crd2idx", "9*(M", "round trip")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", action="store_true", help="time layoutc only (skip SymPy)")
    args = parser.parse_args()
    if args.ours:
        print(f"{'operation':32} {'mode':5} {'layoutc us':>11}")
        for name, ours, _ in CASES:
            for mode, fresh in (("warm", False), ("cold", True)):
                clear_caches()
                gc.collect()
                ours_us = per_call_us(
                    lambda ours=ours, fresh=fresh: ours(fresh),
                    max_calls=4096 if fresh else 200_000,
                )
                print(f"{name:32} {mode:5} {ours_us:11.2f}")
        return
    print(f"SymPy simplify of crd2idx(idx2crd(i)) - i gives: {sympy_roundtrip(False)}")
    print(f"SymPy on 9*(M//3) == 3*M - 3*(M%3) gives: {sympy_floor_eq(False)}")
    print(f"SymPy on 8 | 8i + 15(i%8) - 7(i%16) gives: {sympy_hidden_multiple(False)}")
    print(f"SymPy simplify of the (3, 2, N) round trip - 10*N gives: {sympy_odd_roundtrip(False)}")
    print(f"{'operation':32} {'mode':5} {'layoutc us':>11} {'sympy us':>11} {'ratio':>9}")
    for name, ours, theirs in CASES:
        for mode, fresh in (("warm", False), ("cold", True)):
            slow = name.startswith(_SLOW_SYMPY) and fresh
            # cold: a few thousand distinct expressions (a large program), from empty tables
            clear_caches()
            gc.collect()
            ours_us = per_call_us(
                lambda ours=ours, fresh=fresh: ours(fresh), max_calls=4096 if fresh else 200_000
            )
            theirs_us = per_call_us(
                lambda theirs=theirs, fresh=fresh: theirs(fresh),
                min_time=1.0 if slow else 0.2,
                max_calls=20 if slow else 200_000,
            )
            print(
                f"{name:32} {mode:5} {ours_us:11.1f} {theirs_us:11.1f} {theirs_us / ours_us:8.0f}x"
            )


if __name__ == "__main__":
    main()
