"""Layout text with ``?`` entries: the parameter of every ``layout`` type and attribute.

A type such as ``!layout.layout<"(4,?):(1,?)">`` holds CuTe notation in which each dynamic
shape, stride or offset entry is written ``?``. This module reads such text into an algebra
value whose ``?`` entries are *placeholders* (one symbol per ``?``, in left-to-right order),
prints values back in one canonical spelling, and substitutes values for the placeholders.

Why a structural walk instead of the algebra's own printer: the ``?`` entries must be found in
exactly the order the text lists them, each must know its *role* (a shape entry is at least 1,
a stride or an offset may be 0), and every dynamic entry of an algebra result (a ``SymInt``,
possibly a whole expression) must print as one ``?``. One walker does all three, so printing,
parsing and substitution always agree on the order.

Three kinds of text exist: ``int_tuple`` (``(4,(?,2))``, basis entries such as ``1@0``
allowed), ``layout`` (``shape:stride``, swizzled/composed ``Sw<3,4,3> o 0 o (8,64):(64,1)``,
gather ``(1,1):(Custom{idx,64},1) o (0,0) o (8,4):(1@0,1@1)``) and ``tile`` (a by-mode tiler
``<3:3,(2,4):(1,8)>``; modes are layouts, shapes or ``_``). Names (symbolic entries) are not
allowed: a type only says *which* entries are dynamic; their values are SSA operands.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ...algebra.basis import ArithmeticTuple, ScaledBasis
from ...algebra.composed import ComposedLayout
from ...algebra.errors import LayoutError, LayoutParseError
from ...algebra.gather import CustomStride, IndexedGather
from ...algebra.inttuple import _, is_symbolic
from ...algebra.layout import Layout
from ...algebra.parse import NotationParser
from ...algebra.swizzle import Swizzle


class Kind(Enum):
    """What a layout text denotes; also the mnemonic of its type and attribute."""

    INT_TUPLE = "int_tuple"
    LAYOUT = "layout"
    TILE = "tile"


class Role(Enum):
    """Where a dynamic entry sits; it decides what may be assumed about its value."""

    SHAPE = "shape"  # a shape entry or a tile size: at least 1
    STRIDE = "stride"  # a stride (also the scale of a basis or custom stride): at least 0
    OFFSET = "offset"  # the offset of a composed layout: at least 0
    VALUE = "value"  # an int_tuple entry (shape, stride or coordinate): at least 0


class LayoutTextError(LayoutError):
    """Layout text that does not parse or does not denote a value of the expected kind."""


class GatherBuffer:
    """The index buffer of a gather layout named in a type (``Custom{idx,64}``).

    A type cannot hold the buffer itself (it is a run-time value); it names it. Buffers are
    interned by name so that equal texts give equal gather functions.
    """

    __slots__ = ("name",)
    _by_name: dict[str, GatherBuffer] = {}

    def __new__(cls, name: str) -> GatherBuffer:
        inst = cls._by_name.get(name)
        if inst is None:
            inst = object.__new__(cls)
            inst.name = name
            cls._by_name[name] = inst
        return inst

    def __getitem__(self, i: Any) -> Any:
        raise LayoutError(
            f"not supported: reading entry {i} of the index buffer '{self.name}' at compile "
            "time (its values are known only when the kernel runs)"
        )

    def __reduce__(self) -> tuple:
        return (GatherBuffer, (self.name,))

    def __repr__(self) -> str:
        return f"GatherBuffer({self.name!r})"


# ---------------------------------------------------------------------------------------------
# Placeholders: the symbols that stand for the `?` entries of a parsed text.
# ---------------------------------------------------------------------------------------------

_PLACEHOLDERS: list[Any] = []


def placeholder(i: int) -> Any:
    """The symbol standing for the ``i``-th ``?`` of a parsed text (same object every time)."""
    from ...algebra.symbolic import Symbol

    while len(_PLACEHOLDERS) <= i:
        _PLACEHOLDERS.append(Symbol.fresh(f"q{len(_PLACEHOLDERS)}", positive=False))
    return _PLACEHOLDERS[i]


# ---------------------------------------------------------------------------------------------
# The structural walk (printing and rebuilding in one pass, so they agree on the order)
# ---------------------------------------------------------------------------------------------

Visit = Callable[[Any, Role, list], Any]
"""``visit(entry, role, out)``: append the entry's text to ``out``, return its new value."""

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _has_layout(x: Any) -> bool:
    if isinstance(x, (Layout, ComposedLayout)) or x is _:
        return True
    return isinstance(x, tuple) and any(_has_layout(e) for e in x)


def walk(x: Any, role: Role, visit: Visit, out: list, tiler: bool = False) -> Any:
    """Print ``x`` into ``out`` and return it rebuilt with each integer entry replaced by
    ``visit(entry, role, out)``. ``tiler`` marks the modes of a by-mode tiler."""
    t = type(x)
    if t is int:
        return visit(x, role, out)
    if t is tuple:  # the common case after ints: a plain tuple (not an ArithmeticTuple)
        return _walk_tuple(x, role, visit, out, tiler)
    if is_symbolic(x):
        return visit(x, role, out)
    if isinstance(x, bool):
        raise LayoutTextError(f"expected an integer entry, got the bool {x}")
    if isinstance(x, Layout):
        shape = walk(x.shape, Role.SHAPE, visit, out)
        out.append(":")
        stride = walk(x.stride, Role.STRIDE, visit, out)
        return Layout._new(shape, stride)
    if isinstance(x, ComposedLayout):
        outer = walk(x.outer, Role.STRIDE, visit, out)
        out.append(" o ")
        offset = walk(x.offset, Role.OFFSET, visit, out)
        if isinstance(offset, tuple) and not isinstance(offset, ArithmeticTuple):
            offset = ArithmeticTuple(*offset)
        out.append(" o ")
        inner = walk(x.inner, Role.SHAPE, visit, out)
        return ComposedLayout(outer, offset, inner)
    if isinstance(x, Swizzle):
        out.append(f"Sw<{x.bits},{x.base},{x.shift}>")
        return x
    if isinstance(x, ScaledBasis):
        value = walk(x.value, role, visit, out)
        out.append("".join(f"@{m}" for m in reversed(x.modes)))
        return ScaledBasis(value, *x.modes)
    if isinstance(x, CustomStride):
        func = x.func
        name = getattr(func, "name", None)
        if not isinstance(func, IndexedGather) or not isinstance(name, str):
            raise LayoutTextError(
                f"not supported: the custom stride {x} in layout text (only index-buffer "
                "gathers, written Custom{name,stride}, have a textual form)"
            )
        if not _NAME_RE.match(name):
            raise LayoutTextError(
                f"not supported: the index buffer name {name!r} in layout text (use an identifier)"
            )
        out.append("Custom{" + name + ",")
        stride = walk(x.stride, Role.STRIDE, visit, out)
        out.append("}")
        return CustomStride(func, stride)
    if x is _:
        if not tiler:
            raise LayoutTextError("a wildcard '_' may only be a mode of a tile")
        out.append("_")
        return x
    if isinstance(x, tuple):
        return _walk_tuple(x, role, visit, out, tiler)
    raise LayoutTextError(f"not supported in layout text: {x!r}")


def _walk_tuple(x: tuple, role: Role, visit: Visit, out: list, tiler: bool) -> Any:
    nested_tiler = tiler and _has_layout(x)
    out.append("<" if nested_tiler else "(")
    items = []
    for i, e in enumerate(x):
        if i:
            out.append(",")
        items.append(walk(e, Role.SHAPE if tiler else role, visit, out, nested_tiler))
    out.append(">" if nested_tiler else ")")
    if isinstance(x, ArithmeticTuple):
        return ArithmeticTuple(*items)
    return tuple(items)


def walk_top(x: Any, kind: Kind, visit: Visit, out: list) -> Any:
    """:func:`walk` for a whole value of ``kind`` (a tile prints its top level as ``<...>``)."""
    if kind is Kind.TILE:
        if not isinstance(x, tuple) or not x:
            raise LayoutTextError(f"a tile is a non-empty tuple of modes <...>, got {x!r}")
        out.append("<")
        items = []
        for i, e in enumerate(x):
            if i:
                out.append(",")
            items.append(walk(e, Role.SHAPE, visit, out, tiler=True))
        out.append(">")
        return tuple(items)
    role = Role.VALUE if kind is Kind.INT_TUPLE else Role.SHAPE
    return walk(x, role, visit, out)


def kind_of_value(x: Any) -> Kind:
    """The kind of an algebra value: layouts, tilers (tuples holding layouts or ``_``), or
    int-tuples (ints, SymInts, basis entries and tuples of them)."""
    if isinstance(x, (Layout, ComposedLayout)):
        return Kind.LAYOUT
    if isinstance(x, tuple) and _has_layout(x):
        return Kind.TILE
    if type(x) is int or is_symbolic(x) or isinstance(x, (tuple, ScaledBasis)):
        return Kind.INT_TUPLE
    raise LayoutTextError(f"not a layout, tile or int-tuple value: {x!r}")


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------


class _TextParser(NotationParser):
    """CuTe notation plus ``?`` entries and ``Custom{name,stride}`` gather strides."""

    def __init__(self, text: str):
        super().__init__(text, {}, None)
        self.count = 0

    def parse_scalar(self, allow_basis: bool) -> Any:
        self.skip_ws()
        if self.text.startswith("?", self.pos):
            self.pos += 1
            value = placeholder(self.count)
            self.count += 1
            return self._basis_suffix(value, allow_basis)
        if self.text.startswith("Custom{", self.pos):
            return self._custom_stride()
        return super().parse_scalar(allow_basis)

    def _basis_suffix(self, value: Any, allow_basis: bool) -> Any:
        if self.peek() != "@":
            return value
        if not allow_basis:
            raise self.error("a basis stride (value@mode) is only allowed in strides")
        modes = []
        while self.peek() == "@":
            self.pos += 1
            self.skip_ws()
            m = re.compile(r"\d+").match(self.text, self.pos)
            if not m:
                raise self.error("expected a mode number after '@'")
            modes.append(int(m.group()))
            self.pos = m.end()
        return ScaledBasis(value, *reversed(modes))

    def _custom_stride(self) -> CustomStride:
        self.pos += len("Custom{")
        self.skip_ws()
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(self.text, self.pos)
        if not m:
            raise self.error("expected the index buffer name in Custom{name,stride}")
        name = m.group()
        self.pos = m.end()
        self.expect(",")
        self.skip_ws()
        m = re.compile(r"-?\d+").match(self.text, self.pos)
        if m:
            stride: Any = int(m.group())
            self.pos = m.end()
        elif self.text.startswith("?", self.pos):
            stride = self.parse_scalar(False)
        else:
            raise self.error("expected an integer or '?' as the stride in Custom{name,stride}")
        self.expect("}")
        return CustomStride(IndexedGather(GatherBuffer(name), name), stride)


class ParsedText:
    """A canonical layout text and its template value (placeholders for the ``?`` entries)."""

    __slots__ = ("kind", "roles", "template", "text")

    def __init__(self, kind: Kind, text: str, template: Any, roles: tuple[Role, ...]):
        self.kind = kind
        self.text = text
        self.template = template
        self.roles = roles

    @property
    def num_dynamic(self) -> int:
        return len(self.roles)

    def substitute(self, values: Sequence[Any]) -> Any:
        """The template with ``values[i]`` (an int or SymInt) in place of the ``i``-th ``?``."""
        if len(values) != len(self.roles):
            raise LayoutError(
                f'"{self.text}" has {len(self.roles)} dynamic entries, got {len(values)} values'
            )
        if not values:
            return self.template
        index = {id(placeholder(i)): i for i in range(len(values))}

        def visit(x: Any, role: Role, out: list) -> Any:
            i = index.get(id(x))
            if i is None:
                return x
            v = values[i]
            if type(v) is int:
                if role is Role.SHAPE and v < 1:
                    raise LayoutError(
                        f'"{self.text}": dynamic entry #{i} is a shape entry and must be '
                        f"positive, got {v}"
                    )
                return v
            if is_symbolic(v):
                return v
            raise LayoutError(
                f'"{self.text}": dynamic entry #{i} must be an int or a symbolic integer, got {v!r}'
            )

        return walk_top(self.template, self.kind, visit, [])

    def __repr__(self) -> str:
        return f"ParsedText({self.kind.value}, {self.text!r})"


def _first_line(e: Exception) -> str:
    text = str(e.args[0]) if e.args else str(e)
    return text.splitlines()[0] if text else type(e).__name__


_PLACEHOLDER_NAME_RE = re.compile(r"\bq\d+\b")
_REPEATED_POSITION_RE = re.compile(r"( at position \d+)\1+$")


def _clean_message(message: str) -> str:
    """Show placeholders as ``?`` and drop a position the parser repeated."""
    message = _PLACEHOLDER_NAME_RE.sub("?", message)
    return _REPEATED_POSITION_RE.sub(r"\1", message)


def _parse_raw(kind: Kind, text: str) -> Any:
    p = _TextParser(text)
    if kind is Kind.INT_TUPLE:
        value = p.parse_int_tuple(allow_basis=True)
    elif kind is Kind.TILE:
        if p.peek() != "<":
            raise p.error("a tile is written <mode,mode,...>")
        value = p.parse_value()
    else:
        value = p.parse_value()
    if not p.at_end():
        raise p.error(f"unexpected {p.text[p.pos]!r}")
    if kind is Kind.LAYOUT and not isinstance(value, (Layout, ComposedLayout)):
        raise p.error("expected a layout written shape:stride", 0)
    if kind is Kind.INT_TUPLE and _has_layout(value):
        raise p.error("expected an integer tuple", 0)
    return value


@functools.lru_cache(maxsize=8192)
def parse_text(kind: Kind, text: str) -> ParsedText:
    """Parse layout text of ``kind``; raise :class:`LayoutTextError` naming the problem."""
    if not isinstance(text, str):
        raise LayoutTextError(f"layout text must be a string, got {text!r}")
    try:
        raw = _parse_raw(kind, text)
        roles: list[Role] = []

        def visit(x: Any, role: Role, out: list) -> Any:
            if type(x) is int:
                out.append(str(x))
            else:
                out.append("?")
                roles.append(role)
            return x

        out: list[str] = []
        template = walk_top(raw, kind, visit, out)
    except (LayoutParseError, LayoutError) as e:
        message = _clean_message(_first_line(e))
        if "unknown symbol" in message:
            message += " (a type names no values: write '?' for each dynamic entry)"
        raise LayoutTextError(f'invalid {kind.value} text "{text}": {message}') from None
    canonical = "".join(out)
    if canonical != text:
        # Parse the canonical spelling too, so that both spellings share one template.
        return parse_text(kind, canonical)
    return ParsedText(kind, canonical, template, tuple(roles))


def format_value(value: Any, kind: Kind | None = None) -> tuple[Kind, str, list[Any]]:
    """Canonical text of an algebra value: every ``SymInt`` entry prints as ``?``.

    Returns ``(kind, text, dynamic)`` where ``dynamic`` lists the SymInt of each ``?`` in order.
    """
    if kind is None:
        kind = kind_of_value(value)
    dynamic: list[Any] = []

    def visit(x: Any, role: Role, out: list) -> Any:
        if type(x) is int:
            out.append(str(x))
        else:
            out.append("?")
            dynamic.append(x)
        return x

    out: list[str] = []
    walk_top(value, kind, visit, out)
    return kind, "".join(out), dynamic


_TOKEN_RE = re.compile(r"-?\d+|\?| o |.")
_INT_RE = re.compile(r"-?\d+\Z")


@functools.lru_cache(maxsize=8192)
def is_instance(static_text: str, dynamic_text: str) -> bool:
    """True when the static text is the dynamic text with some integer in place of each ``?``
    (both in canonical form): a constant of that value may have that type."""
    if static_text == dynamic_text:
        return True
    a = _TOKEN_RE.findall(static_text)
    b = _TOKEN_RE.findall(dynamic_text)
    if len(a) != len(b):
        return False
    return all(x == y or (y == "?" and _INT_RE.match(x) is not None) for x, y in zip(a, b))
