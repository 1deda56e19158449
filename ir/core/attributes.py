"""Builtin attributes (MLIR spelling) and the base class for dialect attributes.

Attributes are immutable and interned: equal attributes are the same object. The textual form of
each attribute is computed once and cached. Dialect attributes subclass
:class:`DialectAttribute` (``#dialect.mnemonic<params>``); attributes of unknown dialects
round-trip as :class:`OpaqueAttr`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from .types import FloatType, IndexType, IntegerType, Signedness, Type, i1, i64
from .uniquing import Uniqued

if TYPE_CHECKING:
    from .attr_parser import AttrParser

_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
_PRINTABLE = {c for c in map(chr, range(0x20, 0x7F))} - {'"', "\\"}


def quote_string(s: str) -> str:
    """MLIR's escaped string literal (llvm::printEscapedString): printable ASCII as is,
    backslash doubled, quotes and other bytes as ``\\XX``."""
    if all(c in _PRINTABLE for c in s):
        return f'"{s}"'
    out = ['"']
    for c in s:
        if c in _PRINTABLE:
            out.append(c)
        elif c == "\\":
            out.append("\\\\")
        else:
            out.extend(f"\\{b:02X}" for b in c.encode("utf-8"))
    out.append('"')
    return "".join(out)


def is_bare_identifier(s: str) -> bool:
    return _BARE_ID.match(s) is not None


def key_text(name: str) -> str:
    """A dictionary key or keyword: bare when it is an identifier, quoted otherwise."""
    return name if _BARE_ID.match(name) else quote_string(name)


def symbol_text(name: str) -> str:
    """``@name`` or ``@"name"`` when the name is not a bare identifier."""
    return f"@{name}" if _BARE_ID.match(name) else f"@{quote_string(name)}"


class Attribute(Uniqued):
    """Base of all attributes."""

    __slots__ = ()


class IntegerAttr(Attribute):
    """An integer of an integer or index type: ``4 : i32``, ``true``.

    ``value`` is the signed interpretation for signless/signed types (0 or 1 for ``i1``) and the
    unsigned one for ``uiN``. Construction accepts any value that fits the type as signed or as
    unsigned and rejects others.
    """

    __slots__ = ("type", "value")
    value: int
    type: IntegerType | IndexType

    def __new__(cls, value: int, type: Type = i64) -> IntegerAttr:
        key = (value, type)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise TypeError(f"IntegerAttr value must be an int, got {value!r}")
        value = normalize_int(value, type)
        return cls._unique((value, type), value=value, type=type)

    def __reduce__(self):
        return (IntegerAttr, (self.value, self.type))

    @property
    def unsigned_value(self) -> int:
        width = 64 if isinstance(self.type, IndexType) else self.type.width
        return self.value & ((1 << width) - 1)

    @property
    def signed_value(self) -> int:
        width = 64 if isinstance(self.type, IndexType) else self.type.width
        return to_signed(self.value, width)

    def _print(self) -> str:
        t = self.type
        if t is i1:
            return "true" if self.value else "false"
        return f"{self.value} : {t.text}"


def to_signed(value: int, width: int) -> int:
    """Two's-complement reinterpretation of the low ``width`` bits as a signed number."""
    if width == 0:
        return 0
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def normalize_int(value: int, type: Type) -> int:
    """Canonical stored value of ``value`` in ``type``; raise ValueError when it does not fit."""
    if isinstance(type, IndexType):
        width, unsigned = 64, False
    elif isinstance(type, IntegerType):
        width, unsigned = type.width, type.signedness is Signedness.UNSIGNED
        if type.signedness is Signedness.SIGNED and not -(1 << (width - 1)) <= value < (
            1 << (width - 1)
        ):
            raise ValueError(f"integer {value} does not fit in {type.text}")
    else:
        raise TypeError(f"IntegerAttr type must be an integer or index type, got {type}")
    if width == 0:
        if value != 0:
            raise ValueError(f"integer {value} does not fit in {type.text}")
        return 0
    lo, hi = -(1 << (width - 1)), (1 << width) - 1
    if unsigned:
        lo = 0
    if not lo <= value <= hi:
        raise ValueError(f"integer {value} does not fit in {type.text}")
    if unsigned:
        return value
    if width == 1:
        return value & 1
    return to_signed(value, width)


def BoolAttr(value: bool) -> IntegerAttr:
    """``true`` / ``false``: an ``i1`` IntegerAttr."""
    return IntegerAttr(1 if value else 0, i1)


class FloatAttr(Attribute):
    """A float of a float type: ``1.500000e+00 : f32``; the value is rounded to the type."""

    __slots__ = ("bits", "type", "value")
    value: float
    type: FloatType
    bits: int

    def __new__(cls, value: float, type: FloatType) -> FloatAttr:
        if not isinstance(type, FloatType):
            raise TypeError(f"FloatAttr type must be a float type, got {type}")
        fmt = type.format
        value = fmt.round(float(value))
        bits = fmt.to_bits(value)
        key = (bits, type)
        return cls._instances.get(key) or cls._unique(key, value=value, type=type, bits=bits)

    @classmethod
    def from_bits(cls, bits: int, type: FloatType) -> FloatAttr:
        """The float with this exact bit pattern (keeps NaN payloads)."""
        fmt = type.format
        bits &= (1 << fmt.width) - 1
        key = (bits, type)
        inst = cls._instances.get(key)
        if inst is None:
            inst = cls._unique(key, value=fmt.from_bits(bits), type=type, bits=bits)
        return inst

    def __reduce__(self):
        return (FloatAttr.from_bits, (self.bits, self.type))

    def _print(self) -> str:
        return f"{self.literal()} : {self.type.text}"

    def literal(self) -> str:
        """The value without its type; non-finite values print as hex bit patterns."""
        text = self.type.format.format(self.value)
        if text is not None:
            return text
        digits = (self.type.format.width + 3) // 4
        return f"0x{self.bits:0{digits}X}"

    @property
    def is_nan(self) -> bool:
        return math.isnan(self.value)


class StringAttr(Attribute):
    """``"text"``."""

    __slots__ = ("value",)
    value: str

    def __new__(cls, value: str) -> StringAttr:
        inst = cls._instances.get(value)
        if inst is not None:
            return inst
        if not isinstance(value, str):
            raise TypeError(f"StringAttr value must be a str, got {value!r}")
        return cls._unique(value, value=value)

    def __reduce__(self):
        return (StringAttr, (self.value,))

    def _print(self) -> str:
        return quote_string(self.value)


class UnitAttr(Attribute):
    """``unit``: presence-only; prints as a bare name inside attribute dictionaries."""

    __slots__ = ()

    def __new__(cls) -> UnitAttr:
        return cls._instances.get(()) or cls._unique(())

    def __reduce__(self):
        return (UnitAttr, ())

    def _print(self) -> str:
        return "unit"


class TypeAttr(Attribute):
    """A type used as an attribute value (``function_type = (i32) -> i32``)."""

    __slots__ = ("type",)
    type: Type

    def __new__(cls, type: Type) -> TypeAttr:
        inst = cls._instances.get(type)
        if inst is not None:
            return inst
        if not isinstance(type, Type):
            raise TypeError(f"TypeAttr needs a type, got {type!r}")
        return cls._unique(type, type=type)

    def __reduce__(self):
        return (TypeAttr, (self.type,))

    def _print(self) -> str:
        return self.type.text


class ArrayAttr(Attribute):
    """``[a, b, c]``; iterable and indexable."""

    __slots__ = ("elements",)
    elements: tuple[Attribute, ...]

    def __new__(cls, elements: Iterable[Attribute] = ()) -> ArrayAttr:
        key = tuple(elements)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        for e in key:
            if not isinstance(e, Attribute):
                raise TypeError(f"ArrayAttr elements must be attributes, got {e!r}")
        return cls._unique(key, elements=key)

    def __reduce__(self):
        return (ArrayAttr, (self.elements,))

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self.elements)

    def __len__(self) -> int:
        return len(self.elements)

    def __getitem__(self, i: int) -> Attribute:
        return self.elements[i]

    def _print(self) -> str:
        return f"[{', '.join(e.text for e in self.elements)}]"


class DictionaryAttr(Attribute):
    """``{a = 1 : i64, b}``; entries are kept sorted by name, as MLIR does."""

    __slots__ = ("entries",)
    entries: tuple[tuple[str, Attribute], ...]

    def __new__(
        cls, entries: Mapping[str, Attribute] | Iterable[tuple[str, Attribute]] = ()
    ) -> DictionaryAttr:
        items = entries.items() if isinstance(entries, Mapping) else entries
        key = tuple(sorted(items, key=lambda kv: kv[0]))
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        names = [k for k, _ in key]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate keys in dictionary attribute: {names}")
        for k, v in key:
            if not isinstance(k, str) or not isinstance(v, Attribute):
                raise TypeError(f"dictionary entries must be (str, Attribute), got {(k, v)!r}")
        return cls._unique(key, entries=key)

    def __reduce__(self):
        return (DictionaryAttr, (self.entries,))

    def get(self, name: str, default: Attribute | None = None) -> Attribute | None:
        for k, v in self.entries:
            if k == name:
                return v
        return default

    def __getitem__(self, name: str) -> Attribute:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return any(k == name for k, _ in self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def as_dict(self) -> dict[str, Attribute]:
        return dict(self.entries)

    def _print(self) -> str:
        return "{" + dict_body_text(self.entries) + "}"


def dict_body_text(entries: Iterable[tuple[str, Attribute]]) -> str:
    """``a = 1 : i64, b`` (unit attributes print as their bare name)."""
    unit = UnitAttr()
    return ", ".join(key_text(k) if v is unit else f"{key_text(k)} = {v.text}" for k, v in entries)


class SymbolRefAttr(Attribute):
    """``@root`` or ``@root::@nested::@leaf``: a reference to a symbol."""

    __slots__ = ("nested", "root")
    root: str
    nested: tuple[str, ...]

    def __new__(cls, root: str, nested: Sequence[str] = ()) -> SymbolRefAttr:
        key = (root, tuple(nested))
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if not isinstance(root, str) or not all(isinstance(n, str) for n in key[1]):
            raise TypeError("symbol references are made of strings")
        return cls._unique(key, root=root, nested=key[1])

    def __reduce__(self):
        return (SymbolRefAttr, (self.root, self.nested))

    @property
    def leaf(self) -> str:
        return self.nested[-1] if self.nested else self.root

    @property
    def is_flat(self) -> bool:
        return not self.nested

    def _print(self) -> str:
        return "::".join(symbol_text(n) for n in (self.root, *self.nested))


def FlatSymbolRefAttr(name: str) -> SymbolRefAttr:
    """``@name``: a symbol reference without nested parts."""
    return SymbolRefAttr(name)


_DENSE_ELEMENT_WIDTHS = {1, 8, 16, 32, 64}


class DenseArrayAttr(Attribute):
    """``array<i32: 1, 2>``: a flat array of integers or floats of one element type."""

    __slots__ = ("element_type", "values")
    element_type: IntegerType | FloatType
    values: tuple[int, ...] | tuple[float, ...]

    def __new__(
        cls, element_type: IntegerType | FloatType, values: Iterable[int | float] = ()
    ) -> DenseArrayAttr:
        vals = tuple(values)
        key = (element_type, vals)
        inst = cls._instances.get(key)
        if inst is not None and (
            isinstance(element_type, IntegerType)  # a hit; for floats, not 0.0 standing for -0.0
            or not any(isinstance(v, float) and v == 0.0 for v in vals)
        ):
            return inst
        if isinstance(element_type, IntegerType):
            if not element_type.is_signless or element_type.width not in _DENSE_ELEMENT_WIDTHS:
                raise ValueError(f"dense array element type must be i1..i64, got {element_type}")
            vals = tuple(normalize_int(int(v), element_type) for v in vals)
            key = (element_type, vals)
        elif isinstance(element_type, FloatType):
            fmt = element_type.format
            floats = tuple(fmt.round(float(v)) for v in vals)
            vals = floats
            key = (element_type, tuple(fmt.to_bits(v) for v in floats))
        else:
            raise TypeError(
                f"dense array element type must be integer or float, got {element_type}"
            )
        return cls._instances.get(key) or cls._unique(key, element_type=element_type, values=vals)

    def __reduce__(self):
        return (DenseArrayAttr, (self.element_type, self.values))

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __getitem__(self, i: int):
        return self.values[i]

    def _print(self) -> str:
        t = self.element_type
        if not self.values:
            return f"array<{t.text}>"
        if t is i1:
            body = ", ".join("true" if v else "false" for v in self.values)
        elif isinstance(t, FloatType):
            body = ", ".join(FloatAttr(v, t).literal() for v in self.values)
        else:
            body = ", ".join(str(v) for v in self.values)
        return f"array<{t.text}: {body}>"


class OpaqueAttr(Attribute):
    """An attribute of a dialect that is not loaded, kept as text: ``#dialect.body``."""

    __slots__ = ("body", "dialect")
    dialect: str
    body: str

    def __new__(cls, dialect: str, body: str) -> OpaqueAttr:
        key = (dialect, body)
        return cls._instances.get(key) or cls._unique(key, dialect=dialect, body=body)

    def __reduce__(self):
        return (OpaqueAttr, (self.dialect, self.body))

    def _print(self) -> str:
        return f"#{self.dialect}{self.body}"


class DialectAttribute(Attribute):
    """Base of attributes defined by dialects, printed ``#dialect.mnemonic<params>``.

    Subclasses set ``name`` (``"arith.overflow"``), define ``__slots__`` and ``__new__``
    (interning through ``_unique``), and implement :meth:`parse_parameters` and
    :meth:`print_parameters`.
    """

    __slots__ = ()
    name: ClassVar[str] = ""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> DialectAttribute:
        """Parse what follows ``#dialect.mnemonic``."""
        raise NotImplementedError

    def print_parameters(self) -> str:
        """Text that follows ``#dialect.mnemonic``."""
        raise NotImplementedError

    def _print(self) -> str:
        return f"#{self.name}{self.print_parameters()}"


class EnumAttr(DialectAttribute):
    """One keyword of a fixed set, ``VALUES``: MLIR's enum attribute with an assembly format,
    printed ``#dialect.mnemonic<value>``. A subclass sets ``name``, ``VALUES`` and
    ``__slots__ = ()``; instances are interned on the value."""

    __slots__ = ("value",)
    value: str
    VALUES: ClassVar[tuple[str, ...]] = ()

    def __new__(cls, value: str):
        inst = cls._instances.get(value)
        if inst is not None:
            return inst
        if value not in cls.VALUES:
            raise ValueError(
                f"'{value}' is not a valid {cls.name}; expected one of {', '.join(cls.VALUES)}"
            )
        return cls._unique(value, value=value)

    def __reduce__(self):
        return (type(self), (self.value,))

    @classmethod
    def _parse_value(cls, parser: AttrParser) -> EnumAttr:
        at = parser.pos
        word = parser.parse_keyword()
        if word not in cls.VALUES:
            raise parser.error(
                f"expected one of {', '.join(cls.VALUES)} for {cls.name}, got '{word}'", at
            )
        return cls(word)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> EnumAttr:
        parser.expect("<", f"after '#{cls.name}'")
        attr = cls._parse_value(parser)
        parser.expect(">", f"to close '#{cls.name}'")
        return attr

    def print_parameters(self) -> str:
        return f"<{self.value}>"


class NamespaceEnumAttr(EnumAttr):
    """An enum attribute declared without an assembly format: printed in the dialect-namespace
    form ``#dialect<mnemonic value>`` (``#gpu<dim x>``); the bracketed form is read too."""

    __slots__ = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> EnumAttr:
        if parser.peek() == "<":
            return super().parse_parameters(parser)
        return cls._parse_value(parser)

    def print_parameters(self) -> str:
        return f" {self.value}"

    def _print(self) -> str:
        dialect, mnemonic = self.name.split(".", 1)
        return f"#{dialect}<{mnemonic} {self.value}>"
