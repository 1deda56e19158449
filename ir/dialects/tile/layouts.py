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
from ..layout.text import Kind, Role, format_value, parse_text
from ..layout.types import LayoutType

__all__ = [
    "Kind",
    "Role",
    "canonical_layout_text",
    "count_dynamic",
    "layout_of_text",
    "layout_type_of_text",
    "roles_of_text",
    "symbol_for",
    "text_of_layout",
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
