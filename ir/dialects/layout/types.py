"""The ``layout`` dialect's types: ``!layout.int_tuple<"...">``, ``!layout.layout<"...">`` and
``!layout.tile<"...">``.

The parameter is layout text with ``?`` for each dynamic entry (see :mod:`.text`). Types are
interned on the *canonical* text, so ``LayoutType("(4, ?):(1,?)") is LayoutType("(4,?):(1,?)")``
and comparing types is a pointer comparison, as for every other type.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...core.attr_parser import AttrParser
from ...core.attributes import quote_string
from ...core.constraints import Constraint
from ...core.types import DialectType
from .text import Kind, LayoutTextError, ParsedText, Role, parse_text


class LayoutTextType(DialectType):
    """Base of the three layout types: a canonical layout text and its parsed template."""

    __slots__ = ("parsed",)
    parsed: ParsedText
    kind: ClassVar[Kind]

    def __new__(cls, text: str) -> Any:
        inst = cls._instances.get(text)
        if inst is not None:
            return inst
        parsed = parse_text(cls.kind, text)
        return cls._unique(parsed.text, parsed=parsed)

    def __reduce__(self):
        return (type(self), (self.parsed.text,))

    @property
    def layout_text(self) -> str:
        """The canonical text between the quotes, e.g. ``(4,?):(1,?)``."""
        return self.parsed.text

    @property
    def num_dynamic(self) -> int:
        """How many ``?`` entries the text has (= SSA values needed to make such a value)."""
        return len(self.parsed.roles)

    @property
    def is_static(self) -> bool:
        return not self.parsed.roles

    @property
    def roles(self) -> tuple[Role, ...]:
        """The role (shape, stride, offset, value) of each ``?``, left to right."""
        return self.parsed.roles

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Any:
        parser.expect("<", f"after '!{cls.name}'")
        at = parser.pos
        text = parser.parse_string()
        try:
            result = cls(text)
        except LayoutTextError as e:
            raise parser.error(str(e), at) from None
        parser.expect(">", f"to close '!{cls.name}'")
        return result

    def print_parameters(self) -> str:
        return f"<{quote_string(self.parsed.text)}>"


class IntTupleType(LayoutTextType):
    """``!layout.int_tuple<"(4,(?,2))">``: a shape, stride or coordinate."""

    __slots__ = ()
    name = "layout.int_tuple"
    kind = Kind.INT_TUPLE


class LayoutType(LayoutTextType):
    """``!layout.layout<"(4,?):(1,?)">``: a layout (also swizzled, composed, basis, gather)."""

    __slots__ = ()
    name = "layout.layout"
    kind = Kind.LAYOUT


class TileType(LayoutTextType):
    """``!layout.tile<"<3:3,(2,4):(1,8)>">``: a by-mode tiler (a tuple of layouts/shapes/_)."""

    __slots__ = ()
    name = "layout.tile"
    kind = Kind.TILE


AnyIntTuple = Constraint(lambda t: isinstance(t, IntTupleType), "!layout.int_tuple")
AnyLayout = Constraint(lambda t: isinstance(t, LayoutType), "!layout.layout")
AnyTile = Constraint(lambda t: isinstance(t, TileType), "!layout.tile")
AnyLayoutText = Constraint(
    lambda t: isinstance(t, LayoutTextType), "!layout.int_tuple, !layout.layout or !layout.tile"
)

TYPE_OF_KIND: dict[Kind, type[LayoutTextType]] = {
    Kind.INT_TUPLE: IntTupleType,
    Kind.LAYOUT: LayoutType,
    Kind.TILE: TileType,
}


def layout_type(kind: Kind, text: str) -> LayoutTextType:
    """The type of ``kind`` for ``text``."""
    return TYPE_OF_KIND[kind](text)
