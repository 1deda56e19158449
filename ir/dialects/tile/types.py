"""Types of the tile dialect: ``!tile.ptr`` and ``!tile.tensor``.

``!tile.ptr<f32, gmem, 16>``: a pointer to elements of a type in a memory space, with the
alignment of its address in bytes (a proven fact that vectorization relies on).

``!tile.tensor<f32, gmem, "(4,?):(1,?)", 16>``: a pointer plus a layout, as in CuTe: the
layout text is the layout dialect's (``?`` marks each dynamic entry; the values live in SSA
operands of the op that made the tensor) and the alignment is that of the tensor's first
element. A coordinate tensor ``!tile.tensor<coord, "(4,8):(1@0,1@1)">`` has no memory and no
element type: its elements are the coordinates its layout produces, counted from its *origin*
(CuTe's arithmetic-tuple iterator, :mod:`.origins`), which views advance as they advance a
pointer: ``!tile.tensor<coord, "(4):(1@0)", origin = "(?)">``. The origin is printed unless it
is the identity tensor's (zeros shaped like the layout's codomain).

Both print canonically (alignment always printed; the layout text as the layout dialect
prints it), so equal types are one interned object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.attributes import quote_string
from ...core.types import DialectType, FloatType, IntegerType, Type
from .layouts import (
    canonical_layout_text,
    canonical_origin_text,
    count_dynamic,
    count_dynamic_origin,
    layout_of_text,
    origin_of_text,
)
from .origins import coprofile
from .spaces import ALL_SPACES, COORD, ELEMENT_BITS, MEMORY_SPACES

if TYPE_CHECKING:
    from ...core.attr_parser import AttrParser

__all__ = [
    "PtrType",
    "TensorType",
    "check_alignment",
    "element_name",
    "element_type_of",
    "is_element_type",
]


def element_name(t: Type) -> str | None:
    """The tile element name of a builtin type (``f32``, ``i8``, ...), or None."""
    if isinstance(t, (FloatType, IntegerType)):
        text = t.text
        return text if text in ELEMENT_BITS else None
    return None


def is_element_type(t: Type) -> bool:
    return element_name(t) is not None


def element_type_of(name: str) -> Type:
    """The builtin type of a tile element name."""
    if name not in ELEMENT_BITS:
        raise ValueError(f"unsupported element type '{name}'")
    if name.startswith("i"):
        return IntegerType(int(name[1:]))
    return FloatType(name)


def _check_element(t: Any) -> Type:
    if not isinstance(t, Type) or not is_element_type(t):
        text = t.text if isinstance(t, Type) else repr(t)
        raise ValueError(f"element type must be one of {', '.join(ELEMENT_BITS)}, got '{text}'")
    return t


def check_alignment(align: Any) -> int:
    """A valid alignment in bytes: a positive power of two."""
    if type(align) is not int or align <= 0 or align & (align - 1):
        raise ValueError(f"alignment must be a positive power of two (bytes), got {align!r}")
    return align


def _check_space(space: Any, allowed: tuple[str, ...]) -> str:
    if space not in allowed:
        raise ValueError(f"memory space must be one of {', '.join(allowed)}, got {space!r}")
    return space


def natural_alignment(element: Type) -> int:
    """The alignment of an element in bytes (its size)."""
    return ELEMENT_BITS[element.text] // 8


def _parse_space(parser: AttrParser, allowed: tuple[str, ...]) -> str:
    at = parser.pos
    word = parser.parse_keyword()
    if word not in allowed:
        raise parser.error(f"memory space must be one of {', '.join(allowed)}, got '{word}'", at)
    return word


def _parse_alignment(parser: AttrParser) -> int:
    at = parser.pos
    value = parser.parse_integer()
    try:
        return check_alignment(value)
    except ValueError as e:
        raise parser.error(str(e), at) from None


class PtrType(DialectType):
    """``!tile.ptr<elem, space, align>``: an element pointer in gmem, smem or rmem."""

    __slots__ = ("alignment", "element", "space")
    name = "tile.ptr"
    element: Type
    space: str
    alignment: int

    def __new__(cls, element: Type, space: str, alignment: int | None = None) -> PtrType:
        key = (element, space, alignment)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        _check_element(element)
        _check_space(space, MEMORY_SPACES)
        if alignment is None:
            alignment = natural_alignment(element)
        check_alignment(alignment)
        return cls._unique(
            (element, space, alignment), element=element, space=space, alignment=alignment
        )

    def __reduce__(self):
        return (PtrType, (self.element, self.space, self.alignment))

    @property
    def element_bits(self) -> int:
        return ELEMENT_BITS[self.element.text]

    def with_alignment(self, alignment: int) -> PtrType:
        return PtrType(self.element, self.space, alignment)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> PtrType:
        parser.expect("<", "after '!tile.ptr'")
        at = parser.pos
        element = parser.parse_type()
        if not is_element_type(element):
            raise parser.error(
                f"element type must be one of {', '.join(ELEMENT_BITS)}, got '{element.text}'", at
            )
        parser.expect(",", "after the element type")
        space = _parse_space(parser, MEMORY_SPACES)
        alignment = None
        if parser.accept(","):
            alignment = _parse_alignment(parser)
        parser.expect(">", "to close '!tile.ptr'")
        return cls(element, space, alignment)

    def print_parameters(self) -> str:
        return f"<{self.element.text}, {self.space}, {self.alignment}>"


class TensorType(DialectType):
    """``!tile.tensor<elem, space, "layout", align>`` or
    ``!tile.tensor<coord, "layout"[, origin = "int-tuple"]>``.

    ``layout_text`` is canonical (the layout dialect's printing); :meth:`layout` returns the
    algebra value with fresh symbols for the ``?`` entries (see :mod:`.layouts`).
    ``origin_text`` is a coordinate tensor's origin (int-tuple text with ``?`` entries), None
    when it is the identity tensor's (``coprofile`` of the layout) and for memory tensors.
    """

    __slots__ = ("alignment", "element", "layout_text", "origin_text", "space")
    name = "tile.tensor"
    element: Type | None
    space: str
    layout_text: str
    alignment: int
    origin_text: str | None

    def __new__(
        cls,
        element: Type | None,
        space: str,
        layout_text: str,
        alignment: int | None = None,
        origin: str | None = None,
    ) -> TensorType:
        key = (element, space, layout_text, alignment, origin)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        _check_space(space, ALL_SPACES)
        if space == COORD:
            if element is not None:
                raise ValueError("a coordinate tensor has no element type")
            if alignment not in (None, 1):
                raise ValueError("a coordinate tensor has no alignment")
            alignment = 1
        else:
            if origin is not None:
                raise ValueError("only a coordinate tensor has an origin (memory has a pointer)")
            _check_element(element)
            if alignment is None:
                alignment = natural_alignment(element)  # type: ignore[arg-type]
            check_alignment(alignment)
        text = canonical_layout_text(layout_text)
        origin_text = canonical_origin_text(text, origin) if origin is not None else None
        inst = cls._unique(
            (element, space, text, alignment, origin_text),
            element=element,
            space=space,
            layout_text=text,
            alignment=alignment,
            origin_text=origin_text,
        )
        cls._instances.setdefault(key, inst)
        return inst

    def __reduce__(self):
        return (
            TensorType,
            (self.element, self.space, self.layout_text, self.alignment, self.origin_text),
        )

    @property
    def is_coord(self) -> bool:
        return self.space == COORD

    @property
    def element_bits(self) -> int:
        if self.element is None:
            raise ValueError("a coordinate tensor has no element width")
        return ELEMENT_BITS[self.element.text]

    @property
    def element_name(self) -> str:
        return "coord" if self.element is None else self.element.text

    def layout(self, symbols: Any = None) -> Any:
        """The algebra layout, fresh symbols (or ``symbols``) standing for the ``?`` entries."""
        return layout_of_text(self.layout_text, symbols)[0]

    def origin(self, symbols: Any = None, layout: Any = None) -> Any:
        """A coordinate tensor's origin as an algebra value (an arithmetic tuple or an int),
        fresh symbols (or ``symbols``) standing for its ``?`` entries; ``layout`` (the value of
        :meth:`layout`) spares recomputing it for the default origin."""
        if self.space != COORD:
            raise ValueError("only a coordinate tensor has an origin")
        if self.origin_text is None:
            return coprofile(layout if layout is not None else self.layout())
        return origin_of_text(self.origin_text, symbols)

    @property
    def is_static(self) -> bool:
        """True when the layout has no ``?`` entry (a coordinate tensor's origin may)."""
        return count_dynamic(self.layout_text) == 0

    @property
    def num_dynamic(self) -> int:
        """The number of ``?`` entries of the layout."""
        return count_dynamic(self.layout_text)

    @property
    def num_dynamic_origin(self) -> int:
        """The number of ``?`` entries of a coordinate tensor's origin (they follow the
        layout's, left to right, in diagnostics)."""
        return count_dynamic_origin(self.origin_text) if self.origin_text is not None else 0

    def with_layout(self, layout_text: str, alignment: int | None = None) -> TensorType:
        if self.space == COORD:
            raise ValueError("a coordinate tensor's layout and origin change together")
        return TensorType(
            self.element,
            self.space,
            layout_text,
            self.alignment if alignment is None else alignment,
        )

    def ptr_type(self) -> PtrType:
        if self.element is None:
            raise ValueError("a coordinate tensor has no pointer")
        return PtrType(self.element, self.space, self.alignment)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> TensorType:
        parser.expect("<", "after '!tile.tensor'")
        if parser.accept("coord"):
            parser.expect(",", "after 'coord'")
            at = parser.pos
            text = parser.parse_string()
            origin = None
            origin_at = at
            if parser.accept(","):
                parser.expect("origin", "(a coordinate tensor's last parameter)")
                parser.expect("=", "after 'origin'")
                origin_at = parser.pos
                origin = parser.parse_string()
            parser.expect(">", "to close '!tile.tensor'")
            return _make(parser, at, None, COORD, text, None, origin, origin_at)
        at = parser.pos
        element = parser.parse_type()
        if not is_element_type(element):
            raise parser.error(
                f"element type must be one of {', '.join(ELEMENT_BITS)} or 'coord', "
                f"got '{element.text}'",
                at,
            )
        parser.expect(",", "after the element type")
        space = _parse_space(parser, MEMORY_SPACES)
        parser.expect(",", "after the memory space")
        at = parser.pos
        text = parser.parse_string()
        alignment = None
        if parser.accept(","):
            alignment = _parse_alignment(parser)
        parser.expect(">", "to close '!tile.tensor'")
        return _make(parser, at, element, space, text, alignment)

    def print_parameters(self) -> str:
        if self.space == COORD:
            if self.origin_text is not None:
                return (
                    f"<coord, {quote_string(self.layout_text)}, "
                    f"origin = {quote_string(self.origin_text)}>"
                )
            return f"<coord, {quote_string(self.layout_text)}>"
        return (
            f"<{self.element.text}, {self.space}, {quote_string(self.layout_text)}, "  # type: ignore[union-attr]
            f"{self.alignment}>"
        )


def _make(
    parser: AttrParser,
    at: int,
    element: Type | None,
    space: str,
    text: str,
    alignment: int | None,
    origin: str | None = None,
    origin_at: int = 0,
) -> TensorType:
    try:
        canonical_layout_text(text)
    except ValueError as e:
        raise parser.error(f"invalid layout in '!tile.tensor': {e}", at) from None
    try:
        return TensorType(element, space, text, alignment, origin)
    except ValueError as e:
        if origin is None:
            raise parser.error(f"invalid layout in '!tile.tensor': {e}", at) from None
        raise parser.error(f"invalid origin in '!tile.tensor': {e}", origin_at) from None
