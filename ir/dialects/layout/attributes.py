"""The ``layout`` dialect's attributes: fully static int-tuples, layouts and tiles.

``#layout.int_tuple<"(4,8)">``, ``#layout.layout<"(4,8):(1,4)">``, ``#layout.tile<"<4:1,8:1>">``
hold a value without any ``?`` entry; ``layout.constant`` and op properties (profiles, orders)
use them. ``attr.value`` is the algebra object (Layout, ComposedLayout, tuple, int).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...core.attr_parser import AttrParser
from ...core.attributes import DialectAttribute, quote_string
from .text import Kind, LayoutTextError, ParsedText, format_value, parse_text
from .types import TYPE_OF_KIND, LayoutTextType


class LayoutTextAttr(DialectAttribute):
    """Base of the three layout attributes: static layout text and its value."""

    __slots__ = ("parsed",)
    parsed: ParsedText
    kind: ClassVar[Kind]

    def __new__(cls, text_or_value: Any) -> Any:
        if isinstance(text_or_value, str):
            inst = cls._instances.get(text_or_value)
            if inst is not None:
                return inst
            text = text_or_value
        else:
            _, text, dynamic = format_value(text_or_value, cls.kind)
            if dynamic:
                raise LayoutTextError(
                    f"#{cls.name} needs a fully static value, got {len(dynamic)} dynamic "
                    f"entries in {text}"
                )
        parsed = parse_text(cls.kind, text)
        if parsed.roles:
            raise LayoutTextError(
                f'#{cls.name} must be fully static, but "{parsed.text}" has '
                f"{len(parsed.roles)} '?' entries (dynamic values need SSA operands)"
            )
        inst = cls._instances.get(parsed.text)
        if inst is not None:
            return inst
        return cls._unique(parsed.text, parsed=parsed)

    def __reduce__(self):
        return (type(self), (self.parsed.text,))

    @property
    def value(self) -> Any:
        """The static algebra value."""
        return self.parsed.template

    @property
    def layout_text(self) -> str:
        return self.parsed.text

    @property
    def type(self) -> LayoutTextType:
        """The (static) type of a constant holding this value."""
        return TYPE_OF_KIND[self.kind](self.parsed.text)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Any:
        parser.expect("<", f"after '#{cls.name}'")
        at = parser.pos
        text = parser.parse_string()
        try:
            result = cls(text)
        except LayoutTextError as e:
            raise parser.error(str(e), at) from None
        parser.expect(">", f"to close '#{cls.name}'")
        return result

    def print_parameters(self) -> str:
        return f"<{quote_string(self.parsed.text)}>"


class IntTupleAttr(LayoutTextAttr):
    """``#layout.int_tuple<"(4,(2,8))">``."""

    __slots__ = ()
    name = "layout.int_tuple"
    kind = Kind.INT_TUPLE


class LayoutAttr(LayoutTextAttr):
    """``#layout.layout<"(4,8):(1,4)">``."""

    __slots__ = ()
    name = "layout.layout"
    kind = Kind.LAYOUT


class TileAttr(LayoutTextAttr):
    """``#layout.tile<"<4:1,8:1>">``."""

    __slots__ = ()
    name = "layout.tile"
    kind = Kind.TILE


ATTR_OF_KIND: dict[Kind, type[LayoutTextAttr]] = {
    Kind.INT_TUPLE: IntTupleAttr,
    Kind.LAYOUT: LayoutAttr,
    Kind.TILE: TileAttr,
}
