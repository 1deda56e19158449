"""Coordinate patterns: how tile ops write a (possibly partial) coordinate.

A coordinate such as CuTe's ``make_coord(_, (1, j))`` is stored as a string property in CuTe
notation, ``"(_,(1,?))"``, where ``_`` keeps a mode (slicing), an integer is a static entry and
``?`` stands for the next ``index`` operand of the op. Custom assembly writes the operands in
place: ``tile.slice %t[(_, (1, %j))]``; the generic form keeps the pattern:
``"tile.slice"(%t, %j) <{coord = "(_,(1,?))"}>``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

from ...algebra import LayoutError
from ...algebra.inttuple import _

__all__ = [
    "DYNAMIC",
    "Pattern",
    "count_dynamic",
    "format_pattern",
    "has_wildcard",
    "is_static",
    "parse_pattern",
    "pattern_of_value",
    "print_coordinate",
    "parse_coordinate",
    "substitute",
]


class _Dynamic:
    """The ``?`` entry of a pattern: the value of the next index operand."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "?"


DYNAMIC = _Dynamic()
Pattern = Any  # int | DYNAMIC | _ | tuple[Pattern, ...]


class PatternError(LayoutError):
    """A coordinate pattern that does not parse or does not fit its operands."""


@functools.lru_cache(maxsize=8192)
def parse_pattern(text: str) -> Pattern:
    """``"(_,(1,?))"`` -> ``(_, (1, DYNAMIC))`` (spaces allowed). Memoised: every verifier walk
    reads the pattern of every element access."""
    pos = 0
    n = len(text)

    def skip() -> None:
        nonlocal pos
        while pos < n and text[pos].isspace():
            pos += 1

    def error(message: str) -> PatternError:
        return PatternError(f'invalid coordinate pattern "{text}": {message} at position {pos}')

    def entry() -> Pattern:
        nonlocal pos
        skip()
        if pos >= n:
            raise error("unexpected end")
        c = text[pos]
        if c == "(":
            pos += 1
            items = [entry()]
            skip()
            while pos < n and text[pos] == ",":
                pos += 1
                items.append(entry())
                skip()
            if pos >= n or text[pos] != ")":
                raise error("expected ',' or ')'")
            pos += 1
            return tuple(items)
        if c == "?":
            pos += 1
            return DYNAMIC
        if c == "_" and (pos + 1 >= n or not (text[pos + 1].isalnum() or text[pos + 1] == "_")):
            pos += 1
            return _
        start = pos
        if c == "-":
            pos += 1
        while pos < n and text[pos].isdigit():
            pos += 1
        if pos == start or text[start:pos] == "-":
            raise error(f"expected an integer, '?', '_' or '(', found {text[start]!r}")
        value = int(text[start:pos])
        if value < 0:
            raise error(f"coordinate entries are non-negative, got {value}")
        return value

    result = entry()
    skip()
    if pos != n:
        raise error(f"unexpected {text[pos]!r}")
    return result


def format_pattern(p: Pattern) -> str:
    """Canonical text (no spaces)."""
    if isinstance(p, tuple):
        return "(" + ",".join(format_pattern(e) for e in p) + ")"
    if p is DYNAMIC:
        return "?"
    if p is _:
        return "_"
    return str(p)


def count_dynamic(p: Pattern) -> int:
    if isinstance(p, tuple):
        return sum(count_dynamic(e) for e in p)
    return 1 if p is DYNAMIC else 0


def has_wildcard(p: Pattern) -> bool:
    if isinstance(p, tuple):
        return any(has_wildcard(e) for e in p)
    return p is _


def substitute(p: Pattern, values: Sequence[Any]) -> Any:
    """The coordinate with ``values[i]`` in place of the ``i``-th ``?``."""
    return _substitute(p, iter(values))


# The recursive helpers are module functions, not closures: a nested function that calls
# itself is a reference cycle, and thousands per compile were cyclic garbage.
def _substitute(x: Pattern, it: Iterator[Any]) -> Any:
    if isinstance(x, tuple):
        return tuple([_substitute(e, it) for e in x])
    if x is DYNAMIC:
        return next(it)
    return x


def is_static(coord: Any) -> bool:
    """Whether ``coord`` is a non-negative int or non-empty tuples of those, nested: its own
    pattern, with nothing to substitute (``bool`` is no int here)."""
    if type(coord) is int:
        return coord >= 0
    if type(coord) is not tuple or not coord:
        return False
    for c in coord:
        if type(c) is int:
            if c < 0:
                return False
        elif not is_static(c):
            return False
    return True


def pattern_of_value(coord: Any) -> tuple[Pattern, list[Any]]:
    """Pattern of a coordinate whose entries are ints, ``_`` or anything else (an SSA value,
    a symbol): the latter become ``?`` and are returned in order."""
    dynamic: list[Any] = []
    return _pattern_of(coord, dynamic), dynamic


def _pattern_of(x: Any, dynamic: list[Any]) -> Pattern:
    if isinstance(x, tuple):
        if not x:
            raise PatternError("a coordinate tuple cannot be empty")
        return tuple([_pattern_of(e, dynamic) for e in x])
    if x is _:
        return _
    if type(x) is int:
        if x < 0:
            raise PatternError(f"coordinate entries are non-negative, got {x}")
        return x
    dynamic.append(x)
    return DYNAMIC


# ---------------------------------------------------------------------------------------------
# custom assembly: [(%i, _, 2)]
# ---------------------------------------------------------------------------------------------


def print_coordinate(p: Any, pattern: Pattern, operands: Sequence[Any]) -> None:
    """Write ``[coord]`` with the operands in place of the ``?`` entries."""
    p.write("[")
    _print_pattern(p, pattern, iter(operands))
    p.write("]")


def _print_pattern(p: Any, x: Pattern, it: Iterator[Any]) -> None:
    if isinstance(x, tuple):
        p.write("(")
        for i, e in enumerate(x):
            if i:
                p.write(", ")
            _print_pattern(p, e, it)
        p.write(")")
    elif x is DYNAMIC:
        p.print_operand(next(it))
    elif x is _:
        p.write("_")
    else:
        p.write(str(x))


def parse_coordinate(p: Any, allow_wildcard: bool = True) -> tuple[Pattern, list[Any]]:
    """Read ``[coord]``: the pattern and the unresolved operands of its ``?`` entries."""
    operands: list[Any] = []

    def go() -> Pattern:
        at = p.pos
        if p.accept("("):
            items = [go()]
            while p.accept(","):
                items.append(go())
            p.expect(")", "in coordinate")
            return tuple(items)
        u = p.parse_optional_operand()
        if u is not None:
            operands.append(u)
            return DYNAMIC
        if p.peek() == "_":
            if not allow_wildcard:
                raise p.error("'_' is not allowed in this coordinate (it names one element)", at)
            p.advance()
            return _
        value = p.parse_optional_integer()
        if value is None:
            raise p.error(
                f"expected a coordinate entry (integer, %value, '_' or '('), found "
                f"{p.describe(p.peek())}",
                at,
            )
        if value < 0:
            raise p.error(f"coordinate entries are non-negative, got {value}", at)
        return value

    p.expect("[", "to start the coordinate")
    pattern = go()
    p.expect("]", "to end the coordinate")
    return pattern, operands
