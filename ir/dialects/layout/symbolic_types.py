"""The bridge between layout types (text with ``?`` entries) and symbolic algebra values.

Everything that reasons about layout values goes through these functions: the ``layout``
dialect's type inference and folders, the ``tile`` dialect's tensor types, the symbolic value
analysis and the front end. They know nothing of ops.

- :func:`to_symbolic` turns a type (or layout text) into an algebra value whose ``?`` entries
  are symbols (fresh ones by default, or values the caller supplies, e.g. symbols carrying
  divisibility facts), and returns those entries in printed left-to-right order.
- :func:`from_symbolic` turns an algebra result whose entries are ints or ``SymInt``s into a type
  (every non-constant entry prints as ``?``) and the list of expressions the ``?``s stand for.
- :func:`static_attribute` is the same for a fully static value, giving an attribute.

Round trip: ``value, syms = to_symbolic(t)`` then ``from_symbolic(value) == (t, syms)``.

Assumptions made for fresh symbols follow the role of each entry (:class:`~.text.Role`): a
shape entry is at least 1; strides, offsets and int-tuple entries are at least 0. These are
the dialect's type-level contract (docs/dialect-layout.md): a dynamic stride is never negative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...algebra.errors import LayoutError
from .attributes import ATTR_OF_KIND, LayoutTextAttr
from .text import Kind, ParsedText, Role, format_value, is_instance, parse_text
from .types import TYPE_OF_KIND, LayoutTextType

TypeLike = LayoutTextType | LayoutTextAttr | str
"""A layout type, a layout attribute, or layout text (read as ``kind``, a layout by default)."""

ValueSource = Sequence[Any] | Callable[[int, Role], Any] | None
"""Values for the ``?`` entries: a sequence (one per ``?``), a function ``(index, role) ->
value``, or None for fresh symbols."""


def parsed_of(t: TypeLike, kind: Kind = Kind.LAYOUT) -> ParsedText:
    """The parsed text behind a type, an attribute or a string of ``kind``."""
    if isinstance(t, (LayoutTextType, LayoutTextAttr)):
        return t.parsed
    if isinstance(t, str):
        return parse_text(kind, t)
    raise LayoutError(f"expected a layout type, attribute or text, got {t!r}")


def symbol_for(name: str, role: Role, **assumptions: Any) -> Any:
    """A fresh symbol for a ``?`` of ``role``: at least 1 for shapes, at least 0 otherwise.

    ``assumptions`` (``divisible_by``, ``lower``, ``upper``) refine the defaults.
    """
    from ...algebra.symbolic import Symbol

    if role is Role.SHAPE:
        return Symbol.fresh(name, **assumptions)
    assumptions.setdefault("lower", 0)
    return Symbol.fresh(name, positive=False, **assumptions)


def fresh_symbols(t: TypeLike, prefix: str = "d", kind: Kind = Kind.LAYOUT) -> list[Any]:
    """One fresh symbol per ``?`` of ``t`` (named ``prefix0``, ``prefix1``, ...)."""
    return [symbol_for(f"{prefix}{i}", role) for i, role in enumerate(parsed_of(t, kind).roles)]


def to_symbolic(
    t: TypeLike, values: ValueSource = None, *, prefix: str = "d", kind: Kind = Kind.LAYOUT
) -> tuple[Any, list[Any]]:
    """``(algebra value, [value of each ?])`` for a layout type, attribute or text.

    Without ``values`` every ``?`` becomes a fresh symbol with its role's assumptions. With a
    sequence, entry ``i`` (an int or a SymInt) replaces the ``i``-th ``?``; with a function,
    ``values(i, role)`` does. Ints given for shape entries must be positive.
    """
    parsed = parsed_of(t, kind)
    roles = parsed.roles
    if values is None:
        entries = [symbol_for(f"{prefix}{i}", role) for i, role in enumerate(roles)]
    elif callable(values):
        entries = [values(i, role) for i, role in enumerate(roles)]
    else:
        entries = list(values)
    return parsed.substitute(entries), entries


def from_symbolic(value: Any, kind: Kind | None = None) -> tuple[LayoutTextType, list[Any]]:
    """``(type, [expression of each ?])`` for an algebra value whose entries are ints/SymInts.

    The kind is the value's (layout for Layout/ComposedLayout, tile for tuples holding layouts
    or ``_``, int_tuple otherwise) unless ``kind`` forces one (a tuple of shapes as a tile).
    """
    kind, text, dynamic = format_value(value, kind)
    return TYPE_OF_KIND[kind](text), dynamic


def static_attribute(value: Any, kind: Kind | None = None) -> LayoutTextAttr:
    """The attribute of a fully static value (LayoutError when an entry is symbolic)."""
    kind, text, dynamic = format_value(value, kind)
    if dynamic:
        raise LayoutError(f"{text} is not fully static: {len(dynamic)} entries are symbolic")
    return ATTR_OF_KIND[kind](text)


def is_static_value(value: Any, kind: Kind | None = None) -> bool:
    """True when no entry of the value is symbolic."""
    return not format_value(value, kind)[2]


def is_instance_of(value: LayoutTextAttr | LayoutTextType, t: LayoutTextType) -> bool:
    """True when ``value`` (an attribute or a more static type) fits the type ``t``: same text
    except that each ``?`` of ``t`` may be any integer in ``value``."""
    if value.kind is not t.kind:
        return False
    return is_instance(value.parsed.text, t.parsed.text)


__all__ = [
    "Kind",
    "Role",
    "TypeLike",
    "ValueSource",
    "fresh_symbols",
    "from_symbolic",
    "is_instance_of",
    "is_static_value",
    "parsed_of",
    "static_attribute",
    "symbol_for",
    "to_symbolic",
]
