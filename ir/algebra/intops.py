"""Arithmetic on shape and stride entries that may be symbolic.

The layout algebra calls these helpers (never raw SymPy) for every operation whose operands may
be symbolic. Plain Python ints take the fast path: a type check and the int operation. Symbolic
operands (`SymInt`, defined in `symbolic.py`) are delegated to the symbolic engine, which proves
what can be proven from the symbols' assumptions and otherwise raises `LayoutError` naming the
condition. The engine is imported on first symbolic use, so static code never loads it.

Contract (see docs/architecture.md): `divides`/`prove_*` return False for "not provable", never
for "known false and provable"; callers that need the condition use `require_divides` or
`compare`, which raise.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import TYPE_CHECKING

from .errors import LayoutError

if TYPE_CHECKING:
    from .symbolic import SymInt

    Int = int | SymInt
else:
    Int = object

_engine: ModuleType | None = None


def _sym() -> ModuleType:
    """The symbolic engine module, imported once on first use."""
    global _engine
    if _engine is None:
        from . import symbolic

        _engine = symbolic
    return _engine


def is_static(x: object) -> bool:
    """True for a plain (static) integer."""
    return type(x) is int


def is_integer(x: object) -> bool:
    """True for an int or a symbolic integer expression (not a tuple, basis or stride object)."""
    if type(x) is int:
        return True
    return isinstance(x, _sym().SymInt)


def static_value(x: Int) -> int | None:
    """The int value of `x` if it is a constant (or its assumptions pin it), else None."""
    if type(x) is int:
        return x
    if isinstance(x, _sym().SymInt):
        return x.constant_value()
    return None


def ceil_div(a: Int, b: Int) -> Int:
    """ceil(a / b) for positive b."""
    if type(a) is int and type(b) is int:
        return -(-a // b)
    return _sym().sym_ceil_div(a, b)


def shape_div(a: Int, b: Int) -> Int:
    """CuTe's scalar shape_div: requires a % b == 0 or b % a == 0, returns ceil_div(a, b)."""
    if type(a) is int and type(b) is int:
        if b == 0:
            raise LayoutError(f"shape_div({a}, {b}): division by zero")
        if a == 0:
            return 0
        if a % b != 0 and b % a != 0:
            raise LayoutError(
                f"shape_div({a}, {b}): divisibility condition fails ({a} and {b} do not divide each other)"
            )
        return -(-a // b)
    if divides(b, a) or divides(a, b):
        return ceil_div(a, b)
    raise LayoutError(f"shape_div({a}, {b}): cannot prove that {b} divides {a} or {a} divides {b}")


def gcd(a: Int, b: Int) -> Int:
    """gcd(a, b); for symbols an expression equal to it for all values, or LayoutError."""
    if type(a) is int and type(b) is int:
        return math.gcd(a, b)
    return _sym().sym_gcd(a, b)


def lcm(a: Int, b: Int) -> Int:
    """lcm(a, b); for symbols an expression equal to it for all values, or LayoutError."""
    if type(a) is int and type(b) is int:
        return math.lcm(a, b)
    return _sym().sym_lcm(a, b)


def min_(a: Int, b: Int) -> Int:
    if type(a) is int and type(b) is int:
        return a if a <= b else b
    return _sym().sym_min(a, b)


def max_(a: Int, b: Int) -> Int:
    if type(a) is int and type(b) is int:
        return a if a >= b else b
    return _sym().sym_max(a, b)


def known_divisor(x: Int) -> int:
    """The largest int that provably divides x: |x| for an int (0 for 0, which every int
    divides), and for a SymInt e.g. 16 for `4*N` with 4 | N. Alignment proofs use it."""
    if type(x) is int:
        return -x if x < 0 else x
    return _sym().sym_known_divisor(x)


def divides(d: Int, x: Int) -> bool:
    """True when `d` provably divides `x` (x % d == 0 for every admissible value)."""
    if type(d) is int and type(x) is int:
        return d != 0 and x % d == 0
    return _sym().sym_divides(d, x)


def require_divides(d: Int, x: Int, why: str) -> None:
    """Raise LayoutError unless `d` provably divides `x`; `why` names the operation."""
    if divides(d, x):
        return
    if type(d) is int and type(x) is int:
        raise LayoutError(f"{why}: {d} does not divide {x}")
    raise LayoutError(f"{why}: cannot prove that {d} divides {x}")


def prove_eq(a: Int, b: Int) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    return _sym().sym_prove_eq(a, b)


def prove_lt(a: Int, b: Int) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    return _sym().sym_prove_lt(a, b)


def prove_le(a: Int, b: Int) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    return _sym().sym_prove_le(a, b)


def compare(a: Int, b: Int, why: str = "") -> int:
    """-1, 0 or 1 when the order of a and b is provable; else LayoutError."""
    if type(a) is int and type(b) is int:
        return (a > b) - (a < b)
    if prove_eq(a, b):
        return 0
    if prove_lt(a, b):
        return -1
    if prove_lt(b, a):
        return 1
    where = f"{why}: " if why else ""
    raise LayoutError(f"{where}cannot order {a} and {b} for all values of their symbols")
