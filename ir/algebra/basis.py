"""Scaled basis strides and arithmetic tuples (CuTe's `numeric/arithmetic_tuple.hpp`).

A `ScaledBasis` is a stride that points into one mode of a multi-dimensional codomain:
`1@0` is (1,0,...), `3@1` is (0,3,0,...), `1@0@1` is (0,(1,0,...),...). Layouts with basis
strides map coordinates to *coordinates* (`ArithmeticTuple` values) instead of integers: the
identity layout `(4,8):(1@0,1@1)` maps i to its own (m,n) coordinate, and gather layouts use
them to carry (index-buffer position, dense offset) pairs (CUTLASS example 59).
"""

from __future__ import annotations

from typing import Any

from .errors import LayoutError
from .inttuple import IntTuple, format_leaf, format_tuple, get
from .limits import MAX_BASIS_MODE


class ArithmeticTuple(tuple):
    """A tuple with element-wise `+`/`-` (shorter operands are padded with 0), as in CuTe."""

    __slots__ = ()

    def __new__(cls, *values: Any) -> ArithmeticTuple:
        return super().__new__(cls, values)

    def __repr__(self) -> str:
        return "ArithmeticTuple" + self.cute_format(False)

    def __str__(self) -> str:
        return self.cute_format(False)

    def cute_format(self, static_markers: bool = False) -> str:
        from .inttuple import format_tuple

        return "(" + ",".join(format_tuple(x, static_markers) for x in self) + ")"

    def _combine(self, other: Any, sign: int) -> Any:
        if type(other) is int and other == 0:
            return self
        if isinstance(other, ScaledBasis):
            other = other.as_arithmetic_tuple()
        if not isinstance(other, tuple):
            return NotImplemented
        n = max(len(self), len(other))
        a = tuple(self) + (0,) * (n - len(self))
        b = tuple(other) + (0,) * (n - len(other))
        for x, y in zip(a, b):
            if isinstance(x, tuple) != isinstance(y, tuple) and not (x == 0 or y == 0):
                # 1@0 + 1@1@0: an integer and a nested coordinate in one mode (CuTe's
                # ArithmeticTuple has no sum for them either)
                raise LayoutError(
                    f"cannot add the basis coordinates {format_tuple(self)} and "
                    f"{format_tuple(tuple(other))}: a mode is an integer in one and a tuple "
                    "in the other"
                )
        if sign > 0:
            return ArithmeticTuple(*(_lift(x) + _lift(y) for x, y in zip(a, b)))
        return ArithmeticTuple(*(_lift(x) - _lift(y) for x, y in zip(a, b)))

    def __add__(self, other: Any) -> Any:  # type: ignore[override]
        return self._combine(other, 1)

    def __radd__(self, other: Any) -> Any:
        if type(other) is int and other == 0:
            return self
        if isinstance(other, tuple):
            return ArithmeticTuple(*other)._combine(self, 1)
        return NotImplemented

    def __sub__(self, other: Any) -> Any:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Any:
        if type(other) is int and other == 0:
            return -self
        if isinstance(other, tuple):
            return ArithmeticTuple(*other)._combine(self, -1)
        return NotImplemented

    def __neg__(self) -> ArithmeticTuple:
        return ArithmeticTuple(*(-x for x in self))

    def __mul__(self, other: Any) -> Any:  # type: ignore[override]
        raise TypeError(
            f"an ArithmeticTuple {self} cannot be multiplied (CuTe defines only + and -)"
        )

    __rmul__ = __mul__


class ScaledBasis:
    """`value@modes`: the value placed at the hierarchical position `modes` (CuTe's E<Ns...>)."""

    __slots__ = ("_hash", "modes", "value")

    def __init__(self, value: Any, *modes: int):
        if isinstance(value, ScaledBasis):  # flatten nested bases as CuTe does
            modes = modes + value.modes
            value = value.value
        for m in modes:
            if type(m) is not int or m < 0:
                raise LayoutError(f"ScaledBasis: modes must be non-negative ints, got {modes}")
            if m > MAX_BASIS_MODE:  # its coordinates would have m+1 entries
                raise LayoutError(f"ScaledBasis: mode {m} is larger than {MAX_BASIS_MODE}")
        self.value = value
        self.modes = tuple(modes)
        self._hash = None

    def __repr__(self) -> str:
        return f"ScaledBasis({self.value!r}, {', '.join(map(str, self.modes))})"

    def __str__(self) -> str:
        return self.cute_format(False)

    def cute_format(self, static_markers: bool = False) -> str:
        # CuTe prints the modes innermost first: E<1,0> scaled by 1 prints as 1@0@1.
        return format_leaf(self.value, static_markers) + "".join(
            f"@{m}" for m in reversed(self.modes)
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ScaledBasis)
            and self.modes == other.modes
            and self.value == other.value
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("ScaledBasis", self.value, self.modes))
        return self._hash

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, (ScaledBasis, tuple)):
            return NotImplemented
        return ScaledBasis(self.value * other, *self.modes)

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, (ScaledBasis, tuple)):
            return NotImplemented
        return ScaledBasis(other * self.value, *self.modes)

    def __neg__(self) -> ScaledBasis:
        return ScaledBasis(-self.value, *self.modes)

    def as_arithmetic_tuple(self) -> Any:
        result: Any = self.value
        for m in reversed(self.modes):
            result = ArithmeticTuple(*((0,) * m), result)
        return result

    def __add__(self, other: Any) -> Any:
        if type(other) is int and other == 0:
            return self
        if isinstance(other, (ScaledBasis, tuple)):
            return self.as_arithmetic_tuple() + other
        if not self.modes:
            return self.value + other
        raise LayoutError(f"cannot add the integer {other} to the basis stride {self}")

    def __radd__(self, other: Any) -> Any:
        if type(other) is int and other == 0:
            return self
        if isinstance(other, tuple):
            return ArithmeticTuple(*other) + self.as_arithmetic_tuple()
        if not self.modes:
            return other + self.value
        raise LayoutError(f"cannot add the integer {other} to the basis stride {self}")

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def __rsub__(self, other: Any) -> Any:
        return (-self) + other


def E(*modes: int) -> ScaledBasis:
    """The unit basis element E<modes...> (1@m)."""
    return ScaledBasis(1, *modes)


def make_basis_like(shape: IntTuple, prefix: tuple[int, ...] = ()) -> IntTuple:
    """Unit basis strides congruent to `shape`: (4,(2,3)) -> (1@0,(1@0@1,1@1@1))."""
    if isinstance(shape, tuple):
        return tuple(make_basis_like(s, (*prefix, i)) for i, s in enumerate(shape))
    return ScaledBasis(1, *prefix) if prefix else 1


def basis_get(stride: Any, t: IntTuple) -> IntTuple:
    """Apply the modes of a basis stride to another tuple (get<Ns...>(t))."""
    if isinstance(stride, ScaledBasis):
        return get(t, *stride.modes)
    return t


def basis_value(stride: Any) -> Any:
    return stride.value if isinstance(stride, ScaledBasis) else stride


def as_arithmetic_tuple(x: Any) -> Any:
    if isinstance(x, ScaledBasis):
        return x.as_arithmetic_tuple()
    if isinstance(x, tuple):
        return ArithmeticTuple(*(as_arithmetic_tuple(e) for e in x))
    return x


def make_arithmetic_tuple(*values: Any) -> ArithmeticTuple:
    return ArithmeticTuple(*values)


def has_basis(stride: IntTuple) -> bool:
    if type(stride) is int:
        return False
    if isinstance(stride, tuple):
        for d in stride:  # noqa: SIM110 - faster than any() on small tuples
            if type(d) is not int and has_basis(d):
                return True
        return False
    return isinstance(stride, ScaledBasis)


def _lift(x: Any) -> Any:
    """A nested coordinate as an ArithmeticTuple (so that it adds elementwise), else ``x``."""
    return ArithmeticTuple(*x) if isinstance(x, tuple) and not isinstance(x, ArithmeticTuple) else x
