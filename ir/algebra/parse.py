"""Reading CuTe notation: `((2,2),3):((24,2),8)`, `(_4,_8):(_1,_4)`, `(4,8):(1@0,1@1)`,
tilers `<3:3,(2,4):(1,8)>`, swizzles `Sw<3,4,3>`, composed layouts
`Sw<3,4,3> o _0 o (8,64):(64,1)`, and symbolic entries such as `(N,8):(8,1)` or `4*N`.

`_4` is a static marker (the int 4), a bare `_` is the wildcard. Whitespace is allowed
anywhere between tokens. Symbolic entries are read by the symbolic engine's `parse_int_expr`;
every name in one text refers to the same symbol. Errors are `LayoutParseError`s that carry
the 0-based position.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping
from typing import Any

from . import inttuple as it
from .basis import ScaledBasis
from .errors import LayoutError, LayoutParseError
from .inttuple import _
from .layout import Layout
from .limits import MAX_BASIS_MODE, MAX_LEAVES, MAX_NESTING, check_literal
from .swizzle import Swizzle

_INT_RE = re.compile(r"-?\d+")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_EXPR_OPS = "+-*/%"


class NotationParser:
    """A cursor over CuTe notation. `symbols` maps names to symbolic integers and is shared by
    every entry of the text; `make_symbol(name)` creates the symbols that are not in it."""

    def __init__(
        self,
        text: str,
        symbols: MutableMapping[str, Any] | None = None,
        make_symbol: Callable[[str], Any] | None = None,
    ):
        self.text = text
        self.pos = 0
        self.symbols: MutableMapping[str, Any] = {} if symbols is None else symbols
        self.make_symbol = make_symbol
        self.depth = 0  # open parentheses, tilers and composed layouts, bounded by MAX_NESTING
        self.leaves = 0  # integers read, bounded by MAX_LEAVES per tuple

    # -- low level --------------------------------------------------------------------------

    def error(self, message: str, pos: int | None = None) -> LayoutParseError:
        return LayoutParseError(message, self.text, self.pos if pos is None else pos)

    def skip_ws(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_end(self) -> bool:
        return self.peek() == ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of input"
            raise self.error(f"expected {ch!r}, found {found}")
        self.pos += 1

    def at_compose_sep(self) -> bool:
        """True at ` o ` (the composed-layout separator)."""
        self.skip_ws()
        t, p = self.text, self.pos
        return (
            p < len(t)
            and t[p] == "o"
            and p > 0
            and t[p - 1].isspace()
            and (p + 1 == len(t) or t[p + 1].isspace() or t[p + 1] in "(_-<S" or t[p + 1].isdigit())
        )

    # -- values -----------------------------------------------------------------------------

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"nesting deeper than {MAX_NESTING} levels")

    def _literal(self, digits: str, pos: int) -> int:
        try:
            return check_literal(digits)
        except LayoutError as e:
            raise self.error(str(e), pos) from None

    def parse_value(self) -> Any:
        """A layout, composed layout, tiler, swizzle, IntTuple or `_`."""
        self._enter()
        try:
            return self._parse_value()
        finally:
            self.depth -= 1

    def _parse_value(self) -> Any:
        start = self.pos
        parts = [self.parse_component()]
        while self.at_compose_sep():
            self.pos += 1
            parts.append(self.parse_component())
        if len(parts) == 1:
            return parts[0]
        if len(parts) % 2 == 0:
            raise self.error("a composed layout is written `outer o offset o inner`", start)
        from .composition import composition

        result = parts[-1]
        try:
            for i in range(len(parts) - 3, -1, -2):
                result = composition(parts[i], parts[i + 1], result)
        except LayoutError as e:
            raise self.error(f"invalid composed layout: {e}", start) from None
        return result

    def parse_component(self) -> Any:
        ch = self.peek()
        if self.text.startswith("Sw<", self.pos):
            return self.parse_swizzle()
        if ch == "<":
            return self.parse_tiler()
        if ch == "":
            raise self.error("expected a layout, tuple or integer, found end of input")
        shape_pos = self.pos
        self.leaves = 0
        shape = self.parse_int_tuple(allow_basis=False)
        if self.peek() == ":":
            try:
                it.check_positive_shape(it.to_int_tuple(shape, "Layout shape"), "Layout")
            except LayoutError as e:
                raise self.error(str(e), shape_pos) from None
            self.pos += 1
            stride_pos = self.pos
            self.leaves = 0
            stride = self.parse_int_tuple(allow_basis=True)
            try:
                return Layout(shape, stride)
            except LayoutError as e:
                raise self.error(str(e), stride_pos) from None
        return shape

    def parse_swizzle(self) -> Swizzle:
        start = self.pos
        self.pos += 3
        values = []
        for i in range(3):
            self.skip_ws()
            m = _INT_RE.match(self.text, self.pos)
            if not m:
                raise self.error("expected an integer in Sw<B,M,S>")
            values.append(self._literal(m.group(), self.pos))
            self.pos = m.end()
            if i < 2:
                self.expect(",")
        self.expect(">")
        try:
            return Swizzle(*values)
        except LayoutError as e:
            raise self.error(str(e), start) from None

    def parse_tiler(self) -> tuple:
        self.expect("<")
        items = []
        if self.peek() == ">":
            raise self.error("a tiler needs at least one mode")
        while True:
            items.append(self.parse_value())
            ch = self.peek()
            if ch == ",":
                self.pos += 1
                continue
            if ch == ">":
                self.pos += 1
                return tuple(items)
            raise self.error("expected ',' or '>' in a tiler")

    def parse_int_tuple(self, allow_basis: bool) -> Any:
        ch = self.peek()
        if ch == "(":
            start = self.pos
            self._enter()
            self.pos += 1
            items = []
            if self.peek() == ")":
                self.pos += 1
                self.depth -= 1
                return self._maybe_expression(start, ())
            while True:
                items.append(self.parse_int_tuple(allow_basis))
                ch = self.peek()
                if ch == ",":
                    self.pos += 1
                    continue
                if ch == ")":
                    self.pos += 1
                    self.depth -= 1
                    break
                if ch == "":
                    raise self.error("unbalanced '(': expected ',' or ')', found end of input")
                raise self.error(f"expected ',' or ')', found {ch!r}")
            return self._maybe_expression(start, tuple(items))
        return self.parse_scalar(allow_basis)

    def _maybe_expression(self, start: int, value: tuple) -> Any:
        """`(N+1)*2` starts like a 1-tuple: reread it as an expression when an operator follows."""
        ch = self.peek()
        if len(value) == 1 and not isinstance(value[0], tuple) and ch and ch in _EXPR_OPS:
            self.pos = start
            return self.parse_scalar(allow_basis=False)
        return value

    def parse_scalar(self, allow_basis: bool) -> Any:
        self.skip_ws()
        start = self.pos
        self.leaves += 1
        if self.leaves > MAX_LEAVES:
            raise self.error(f"more than {MAX_LEAVES} integers in one tuple")
        text = self.text
        if text.startswith("_", start) and not (
            start + 1 < len(text) and (text[start + 1].isalnum() or text[start + 1] in "_-")
        ):
            self.pos += 1
            return _
        static = (
            text.startswith("_", start)
            and start + 1 < len(text)
            and (text[start + 1].isdigit() or text[start + 1] == "-")
        )
        p = start + 1 if static else start
        m = _INT_RE.match(text, p)
        end_expr = self._scan_expression(start)
        if m and m.end() == end_expr:
            value: Any = self._literal(m.group(), p)
            self.pos = m.end()
        elif static:
            raise self.error("expected an integer after the static marker '_'", start)
        else:
            value = self._parse_expression(start, end_expr)
            self.pos = end_expr
        if self.peek() == "@":
            if not allow_basis:
                raise self.error("a basis stride (value@mode) is only allowed in strides")
            modes = []
            while self.peek() == "@":
                self.pos += 1
                self.skip_ws()
                mm = re.compile(r"\d+").match(text, self.pos)
                if not mm:
                    raise self.error("expected a mode number after '@'")
                if len(mm.group()) > 3 or int(mm.group()) > MAX_BASIS_MODE:
                    raise self.error(
                        f"basis mode {mm.group()[:24]} is larger than {MAX_BASIS_MODE}"
                    )
                modes.append(int(mm.group()))
                self.pos = mm.end()
            return ScaledBasis(value, *reversed(modes))
        return value

    def _scan_expression(self, start: int) -> int:
        """End of the scalar expression starting at `start` (balanced parentheses; stops at a
        top-level `,` `)` `:` `>` `@` or the composed separator ` o `)."""
        text = self.text
        depth = 0
        p = start
        n = len(text)
        while p < n:
            c = text[p]
            if c == "(":
                depth += 1
                if depth > MAX_NESTING:
                    raise self.error(f"nesting deeper than {MAX_NESTING} levels", p)
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and c in ",:>@<":
                break
            elif depth == 0 and c.isspace():
                q = p
                while q < n and text[q].isspace():
                    q += 1
                if (
                    q < n
                    and text[q] == "o"
                    and (q + 1 == n or not (text[q + 1].isalnum() or text[q + 1] == "_"))
                ):
                    break
            p += 1
        end = p
        while end > start and text[end - 1].isspace():
            end -= 1
        return end

    def _parse_expression(self, start: int, end: int) -> Any:
        src = self.text[start:end]
        if not src.strip():
            found = repr(self.text[start]) if start < len(self.text) else "end of input"
            raise self.error(f"expected an integer, a symbol or a tuple, found {found}", start)
        try:
            from .symbolic import parse_int_expr
        except ImportError:
            raise self.error(
                f"symbolic entry {src!r} needs the symbolic engine (symbolic.py)", start
            ) from None
        for m in _NAME_RE.finditer(src):
            name = m.group()
            after = src[m.end() :].lstrip()
            if after.startswith("(") or name in self.symbols:
                continue
            if self.make_symbol is None:
                raise self.error(f"unknown symbol {name!r}", start + m.start())
            self.symbols[name] = self.make_symbol(name)
        shown = repr(src) if len(src) <= 80 else repr(src[:60]) + "..."
        try:
            value = parse_int_expr(src, self.symbols)
        except LayoutParseError as e:
            message = e.args[0].splitlines()[0].rsplit(" at position", 1)[0]
            raise self.error(f"in the expression {shown}: {message}", start + e.pos) from None
        except (LayoutError, ValueError, TypeError, KeyError) as e:
            raise self.error(f"invalid expression {shown}: {e}", start) from None
        return value


def default_symbol(name: str) -> Any:
    """A positive integer symbol with no other assumption."""
    from .symbolic import Symbol

    return Symbol(name)


def _parse_all(text: str, symbols: MutableMapping[str, Any] | None, what: str) -> Any:
    if not isinstance(text, str):
        raise LayoutError(f"{what}: expected a string, got {type(text).__name__}")
    p = NotationParser(text, symbols, default_symbol)
    value = p.parse_value()
    if not p.at_end():
        raise p.error(f"unexpected {p.text[p.pos]!r} after the {what.split('_', 1)[1]}")
    return value


def parse_layout(text: str, symbols: MutableMapping[str, Any] | None = None) -> Any:
    """A Layout (or ComposedLayout) from CuTe notation; a bare shape means a column-major layout.

    Names in symbolic entries are looked up in `symbols` (created as positive symbols and added
    to it when missing, so that one mapping can be shared across several texts)."""
    from .composed import ComposedLayout

    value = _parse_all(text, symbols, "parse_layout")
    if isinstance(value, (Layout, ComposedLayout)):
        return value
    if _is_tiler(value) or isinstance(value, (Swizzle, ScaledBasis)):
        raise LayoutParseError(f"expected a layout, got {text.strip()!r}", text, 0)
    try:
        return Layout(value)
    except LayoutError as e:
        raise LayoutParseError(str(e), text, 0) from None


def parse_tiler(text: str, symbols: MutableMapping[str, Any] | None = None) -> Any:
    """A tiler: `<3:3,(2,4):(1,8)>` (tuple of layouts), a layout, or a shape."""
    return _parse_all(text, symbols, "parse_tiler")


def parse_int_tuple(text: str, symbols: MutableMapping[str, Any] | None = None) -> Any:
    """An IntTuple such as `(2,(3,_4))` or `N`."""
    value = _parse_all(text, symbols, "parse_int_tuple")
    if isinstance(value, Layout) or _is_tiler(value) or value is _:
        raise LayoutParseError(f"expected an integer tuple, got {text.strip()!r}", text, 0)
    return value


def _is_tiler(value: Any) -> bool:
    if isinstance(value, tuple):
        return any(_is_tiler(v) for v in value)
    return isinstance(value, Layout) or value is _ or hasattr(value, "inner")
