"""Layout text of tensor types, through the layout dialect's bridge.

A ``!tile.tensor`` embeds the same layout text as ``!layout.layout`` (``?`` for each dynamic
entry), so this module only adapts the layout dialect's public bridge
(:mod:`layoutc.ir.dialects.layout.symbolic_types`) to tensor types: canonical text, the
symbolic layout behind a text, and the text of an algebra result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..layout.symbolic_types import from_symbolic, symbol_for, to_symbolic
from ..layout.text import Kind, Role, format_value, parse_text, placeholder
from ..layout.types import LayoutType

__all__ = [
    "Kind",
    "Role",
    "canonical_layout_text",
    "canonical_origin_text",
    "count_dynamic",
    "count_dynamic_origin",
    "layout_of_text",
    "layout_type_of_text",
    "origin_of_text",
    "origin_roles",
    "roles_of_text",
    "symbol_for",
    "text_of_layout",
    "text_of_origin",
]


def canonical_layout_text(text: str) -> str:
    """The layout dialect's canonical spelling (LayoutTextError, a ValueError, if invalid)."""
    return parse_text(Kind.LAYOUT, text).text


def count_dynamic(text: str) -> int:
    return parse_text(Kind.LAYOUT, text).num_dynamic


def roles_of_text(text: str) -> tuple[Role, ...]:
    return parse_text(Kind.LAYOUT, text).roles


def layout_of_text(text: str, values: Sequence[Any] | None = None) -> tuple[Any, list[Any]]:
    """``(layout, [value of each ?])``: fresh symbols unless ``values`` are given."""
    return to_symbolic(text, values)


def text_of_layout(value: Any) -> tuple[str, list[Any]]:
    """Canonical text of an algebra layout and the expressions its ``?`` entries stand for."""
    _, text, dynamic = format_value(value, Kind.LAYOUT)
    return text, dynamic


def layout_type_of_text(text: str) -> LayoutType:
    """``!layout.layout<text>``: what ``tile.get_layout`` returns."""
    return LayoutType(text)


def layout_type_of_value(value: Any) -> Any:
    """``!layout.layout`` (or int_tuple) type of an algebra value, and its dynamic entries."""
    return from_symbolic(value)


def origin_of_text(text: str, values: Sequence[Any] | None = None) -> Any:
    """A coordinate tensor's origin (an arithmetic tuple or an int) from its int-tuple text,
    fresh symbols (or ``values``) standing for its ``?`` entries."""
    from ...algebra.basis import as_arithmetic_tuple

    parsed = parse_text(Kind.INT_TUPLE, text)
    if values is None:
        values = [symbol_for(f"o{i}", role) for i, role in enumerate(parsed.roles)]
    return as_arithmetic_tuple(parsed.substitute(list(values)))


def text_of_origin(origin: Any) -> str:
    """The int-tuple text of an origin (``?`` for each symbolic entry)."""
    from ...algebra.basis import as_arithmetic_tuple

    return format_value(as_arithmetic_tuple(origin), Kind.INT_TUPLE)[1]


def count_dynamic_origin(text: str) -> int:
    return parse_text(Kind.INT_TUPLE, text).num_dynamic


def origin_roles(text: str) -> tuple[Role, ...]:
    return parse_text(Kind.INT_TUPLE, text).roles


def canonical_origin_text(layout_text: str, origin_text: str) -> str | None:
    """The canonical origin text of a coordinate tensor, None when it is the identity
    tensor's (``coprofile`` of the layout, which the type does not print).

    An origin holds plain coordinate entries: basis entries (``3@1``) are spelled out as the
    tuple they stand for, so each origin has one spelling. It must add to the layout's
    coordinates (an integer origin only where the layout yields integers).
    """
    from ...algebra.errors import LayoutError
    from .origins import coprofile

    parsed = parse_text(Kind.INT_TUPLE, origin_text)
    value = origin_of_text(origin_text, [placeholder(i) for i in range(parsed.num_dynamic)])
    layout = layout_of_text(layout_text)[0]
    zeros = coprofile(layout)
    if isinstance(value, tuple) and not isinstance(zeros, tuple) and not _all_zero(layout):
        raise LayoutError(
            f"the origin '{origin_text}' is a tuple but the layout '{layout_text}' yields integers"
        )
    if isinstance(zeros, tuple) and not isinstance(value, tuple) and value != 0:
        raise LayoutError(
            f"the origin '{origin_text}' is an integer but the layout '{layout_text}' yields "
            "coordinates"
        )
    text = text_of_origin(value)
    return None if text == text_of_origin(zeros) else text


def _all_zero(layout: Any) -> bool:
    """Every stride is the int 0 (a broadcast: it yields 0, which adds to any origin)."""
    from ...algebra.inttuple import flatten_to_tuple
    from ...algebra.layout import Layout

    if not isinstance(layout, Layout):
        return False
    return all(type(d) is int and d == 0 for d in flatten_to_tuple(layout.stride))
