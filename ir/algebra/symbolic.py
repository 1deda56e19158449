"""Symbolic integers for the layout algebra: the public face of the symbolic engine.

A shape or stride entry may be a run-time value: a `Symbol` with assumptions (positive by
default, `divisible_by`, `lower`, `upper`). Expressions over symbols are `SymInt`s in a canonical,
hash-consed form (docs/symbolic.md): equal canonical expressions are the same object, operations
are memoised, and constant results are plain ints. The algebra proves CuTe's preconditions with
the `sym_*` functions below (called through `intops`), which answer "provable for every
admissible value?" and never guess.

The engine itself is the package `sym` (its `__init__` lists the modules in their layer order);
this module is the API the algebra, the passes and users import.
"""

from __future__ import annotations

import operator
from typing import Any

from .errors import LayoutError
from .sym import arith as _arith
from .sym import numtheory as _nt
from .sym import prove as _prove
from .sym.cache import cache_info, clear_caches, set_cache_limit
from .sym.emit import Emitter, emit, node, to_sympy, walk
from .sym.evaluate import evaluate
from .sym.expand import strong_divisor
from .sym.expr import IntLike, Symbol, SymInt
from .sym.parse import parse_int_expr
from .sym.subs import subs

__all__ = [
    "Emitter",
    "IntLike",
    "SymInt",
    "Symbol",
    "cache_info",
    "ceil_div",
    "clear_caches",
    "emit",
    "evaluate",
    "floordiv",
    "is_symbolic",
    "mod",
    "node",
    "parse_int_expr",
    "set_cache_limit",
    "subs",
    "sym_ceil_div",
    "sym_divides",
    "sym_gcd",
    "sym_known_divisor",
    "sym_lcm",
    "sym_max",
    "sym_min",
    "sym_prove_eq",
    "sym_prove_le",
    "sym_prove_lt",
    "sym_prove_nonneg",
    "sym_sign",
    "to_sympy",
    "walk",
]


def is_symbolic(x: object) -> bool:
    """True for a SymInt (a plain int is static)."""
    return isinstance(x, SymInt)


def _operand(x: Any, what: str) -> IntLike:
    """An int or SymInt, or a LayoutError naming the operation and the bad operand."""
    if type(x) is int or isinstance(x, SymInt):
        return x
    if isinstance(x, bool) or not hasattr(type(x), "__index__"):
        raise LayoutError(f"{what}: expected an integer or a symbolic integer, got {x!r}")
    return operator.index(x)


def floordiv(a: IntLike, b: IntLike) -> IntLike:
    """a // b (Python floor semantics)."""
    return _arith.floordiv(_operand(a, "floordiv"), _operand(b, "floordiv"))


def mod(a: IntLike, b: IntLike) -> IntLike:
    """a % b (Python semantics: the result has the sign of b)."""
    return _arith.mod(_operand(a, "mod"), _operand(b, "mod"))


def ceil_div(a: IntLike, b: IntLike) -> IntLike:
    """ceil(a / b)."""
    return _arith.ceil_div(_operand(a, "ceil_div"), _operand(b, "ceil_div"))


sym_ceil_div = ceil_div


def sym_min(a: IntLike, b: IntLike, *more: IntLike) -> IntLike:
    """min of the arguments; arguments provably not smaller than another one are dropped."""
    return _arith.sym_min(*(_operand(x, "min") for x in (a, b, *more)))


def sym_max(a: IntLike, b: IntLike, *more: IntLike) -> IntLike:
    """max of the arguments; arguments provably not larger than another one are dropped."""
    return _arith.sym_max(*(_operand(x, "max") for x in (a, b, *more)))


def sym_gcd(a: IntLike, b: IntLike) -> IntLike:
    """An expression equal to gcd(a, b) for all admissible values; LayoutError if none exists
    in closed form (e.g. gcd(N, 12) with 4 | N is 4 or 12) or an operand may be negative."""
    return _nt.gcd(_operand(a, "gcd"), _operand(b, "gcd"))


def sym_lcm(a: IntLike, b: IntLike) -> IntLike:
    """An expression equal to lcm(a, b) for all admissible values; LayoutError otherwise."""
    return _nt.lcm(_operand(a, "lcm"), _operand(b, "lcm"))


def sym_divides(d: IntLike, x: IntLike) -> bool:
    """True when d != 0 and d | x are provable for every admissible value."""
    return _prove.divides(_operand(d, "divides"), _operand(x, "divides"))


def sym_known_divisor(x: IntLike) -> int:
    """The largest int provably dividing x (|x| for an int, at least 1 for a SymInt): what
    alignment proofs need, e.g. 16 for `4*N` with 4 | N."""
    return strong_divisor(_operand(x, "known_divisor"))


def sym_prove_nonneg(x: IntLike) -> bool:
    return _prove.prove_nonneg(_operand(x, "prove_nonneg"))


def sym_prove_eq(a: IntLike, b: IntLike) -> bool:
    return _prove.prove_eq(_operand(a, "prove_eq"), _operand(b, "prove_eq"))


def sym_prove_lt(a: IntLike, b: IntLike) -> bool:
    return _prove.prove_lt(_operand(a, "prove_lt"), _operand(b, "prove_lt"))


def sym_prove_le(a: IntLike, b: IntLike) -> bool:
    return _prove.prove_le(_operand(a, "prove_le"), _operand(b, "prove_le"))


def sym_sign(x: IntLike) -> int:
    """1 / -1 when x is provably positive / negative, 0 when unknown (or zero)."""
    return _prove.sign(_operand(x, "sign"))
