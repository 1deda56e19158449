"""Exact bounds of a symbolic integer over few values of its symbols.

``SymInt.bounds`` adds the bounds of each term, which is loose for the floor-division chains a
thread layout produces: ``16*(t // 8) - 60*(t // 32) + 94*(t // 128)`` over ``t`` in
``[0, 255]`` is never negative, but its terms bound it at ``-60*7``. When the symbols take few
values (the thread index, a loop counter, a pipeline stage), :func:`exact_bounds` evaluates the
expression on all of them at once (numpy, one axis per symbol) and returns the true minimum and
maximum; lower-layouts uses it to prove that a write leaves an index-buffer entry alone.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.symbolic import SymInt, emit

IntLike = int | SymInt

__all__ = ["EXACT_LIMIT", "exact_bounds"]

EXACT_LIMIT = 1 << 16
"""The most points (the product of the symbols' value counts) :func:`exact_bounds` evaluates."""

_MEMO: dict[Any, tuple[int | None, int | None]] = {}
_MEMO_LIMIT = 4096


class _TooLarge(Exception):
    pass


class _Numpy:
    """``emit`` callbacks on numpy arrays (Python's floor semantics, as the symbolic engine)."""

    def __init__(self, np: Any, env: dict[Any, Any]):
        self.np = np
        self.env = env

    def const(self, value: int) -> Any:
        if abs(value) >= 1 << 62:
            raise _TooLarge
        return self.np.int64(value)

    def symbol(self, sym: Any) -> Any:
        return self.env[sym]

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def mul(self, a: Any, b: Any) -> Any:
        return a * b

    def _divisor(self, b: Any) -> Any:
        if self.np.any(b == 0):
            raise _TooLarge  # a division by zero somewhere: no exact answer
        return b

    def floordiv(self, a: Any, b: Any) -> Any:
        return self.np.floor_divide(a, self._divisor(b))

    def mod(self, a: Any, b: Any) -> Any:
        return self.np.mod(a, self._divisor(b))

    def ceildiv(self, a: Any, b: Any) -> Any:
        return -self.np.floor_divide(-a, self._divisor(b))

    def min(self, a: Any, b: Any) -> Any:
        return self.np.minimum(a, b)

    def max(self, a: Any, b: Any) -> Any:
        return self.np.maximum(a, b)


def exact_bounds(x: IntLike, limit: int = EXACT_LIMIT) -> tuple[int | None, int | None]:
    """(min, max) of ``x`` over every admissible value of its symbols (their bounds and
    divisibility) when those are at most ``limit`` points; ``x.bounds`` otherwise (a symbol
    without both bounds, too many points, a division by a value that may be zero)."""
    if type(x) is int:
        return x, x
    found = _MEMO.get((x, limit))
    if found is not None:
        return found
    result = _exact(x, limit)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()  # (a long-lived process compiles many kernels)
    _MEMO[(x, limit)] = result
    return result


def _exact(x: SymInt, limit: int) -> tuple[int | None, int | None]:
    symbols = x.free_symbols
    ranges = []
    points = 1
    for sym in symbols:
        lo, hi = sym.lower, sym.upper
        if lo is None or hi is None:
            return x.bounds
        step = max(sym.divisible_by or 1, 1)
        first = -(-lo // step) * step
        count = max(0, (hi - first) // step + 1)
        points *= count
        if points == 0 or points > limit:
            return x.bounds
        ranges.append((first, hi + 1, step))
    import numpy as np

    axes = np.meshgrid(
        *[np.arange(a, b, s, dtype=np.int64) for a, b, s in ranges], indexing="ij", sparse=True
    )
    try:
        with np.errstate(all="raise"):
            values = np.asarray(emit(x, _Numpy(np, dict(zip(symbols, axes)))))
    except (_TooLarge, FloatingPointError, OverflowError):
        return x.bounds
    return int(values.min()), int(values.max())
