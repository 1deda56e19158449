"""Parse integer expressions: the inverse of `str(SymInt)`.

Grammar (Python's precedence and associativity, so `-N // 4` is `(-N) // 4`):

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '//' | '%') unary)*
    unary   := ('-' | '+') unary | primary
    primary := INT | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'

Calls: `ceil_div(a, b)`, `min(a, b, ...)`, `max(a, b, ...)`.

Names: when `symbols` has the name, its value (a SymInt or int) is used. Otherwise, with
`create_unknown=True` (default), a default symbol `Symbol(name)` (a positive integer) is made;
if `symbols` is a mutable mapping the new symbol is also stored there, so a caller can collect
the symbols a text introduced. With `create_unknown=False` an unknown name is an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from ..errors import LayoutError, LayoutParseError
from ..limits import MAX_NESTING, check_literal
from . import arith as _arith
from .expr import RESERVED_NAMES, Symbol, SymInt

if TYPE_CHECKING:
    from .expr import IntLike

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(//|[-+*%(),]))")
_END = "<end>"


class _Parser:
    def __init__(self, text: str, symbols: Mapping[str, Any] | None, create_unknown: bool):
        self.text = text
        self.symbols = symbols
        self.create_unknown = create_unknown
        self.tokens: list[tuple[str, str, int]] = []  # (kind, text, position)
        pos = 0
        while True:
            m = _TOKEN.match(text, pos)
            if m is None:
                remaining = text[pos:].lstrip()
                if not remaining:
                    break
                at = len(text) - len(remaining)
                raise LayoutParseError(f"unexpected character {text[at]!r}", text, at)
            start = m.start(m.lastindex)  # type: ignore[arg-type]
            kind = ("int", "name", "op")[m.lastindex - 1]  # type: ignore[operator]
            self.tokens.append((kind, m.group(m.lastindex), start))  # type: ignore[arg-type]
            pos = m.end()
        self.tokens.append(("end", _END, len(text)))
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        kind, tok, pos = self.take()
        if tok != text:
            found = "end of input" if kind == "end" else repr(tok)
            raise LayoutParseError(f"expected {text!r}, found {found}", self.text, pos)

    def parse(self) -> IntLike:
        value = self.expr()
        kind, tok, pos = self.peek()
        if kind != "end":
            raise LayoutParseError(f"unexpected {tok!r}", self.text, pos)
        return value

    def expr(self) -> IntLike:
        value = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            rhs = self.term()
            value = _arith.add(value, rhs) if op == "+" else _arith.sub(value, rhs)
        return value

    def term(self) -> IntLike:
        value = self.unary()
        while self.peek()[1] in ("*", "//", "%"):
            op, pos = self.take()[1:]
            rhs = self.unary()
            if op == "*":
                value = _arith.mul(value, rhs)
                continue
            try:
                value = _arith.floordiv(value, rhs) if op == "//" else _arith.mod(value, rhs)
            except ZeroDivisionError:
                raise LayoutParseError("division by zero", self.text, pos) from None
        return value

    def unary(self) -> IntLike:
        tok = self.peek()[1]
        count = 0
        while tok in ("-", "+"):  # a loop, not recursion: `-----1` nests nothing
            self.take()
            count += tok == "-"
            tok = self.peek()[1]
        value = self.primary()
        return _arith.neg(value) if count % 2 else value

    def primary(self) -> IntLike:
        kind, tok, pos = self.take()
        if kind == "int":
            try:
                return check_literal(tok)
            except LayoutError as e:
                raise LayoutParseError(str(e), self.text, pos) from None
        if tok == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise LayoutParseError(
                    f"expression nests deeper than {MAX_NESTING} levels", self.text, pos
                )
            value = self.expr()
            self.expect(")")
            self.depth -= 1
            return value
        if kind == "name":
            if self.peek()[1] == "(":
                return self.call(tok, pos)
            return self.name(tok, pos)
        found = "end of input" if kind == "end" else repr(tok)
        raise LayoutParseError(f"expected a number, a name or '(', found {found}", self.text, pos)

    def call(self, fn: str, pos: int) -> IntLike:
        if fn not in RESERVED_NAMES:
            raise LayoutParseError(
                f"unknown function {fn!r} (known: ceil_div, min, max)", self.text, pos
            )
        self.expect("(")
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise LayoutParseError(
                f"expression nests deeper than {MAX_NESTING} levels", self.text, pos
            )
        args = [self.expr()]
        while self.peek()[1] == ",":
            self.take()
            args.append(self.expr())
        self.expect(")")
        self.depth -= 1
        if fn == "ceil_div":
            if len(args) != 2:
                raise LayoutParseError(
                    f"ceil_div takes 2 arguments, got {len(args)}", self.text, pos
                )
            try:
                return _arith.ceil_div(args[0], args[1])
            except ZeroDivisionError:
                raise LayoutParseError("division by zero", self.text, pos) from None
        return _arith.sym_min(*args) if fn == "min" else _arith.sym_max(*args)

    def name(self, name: str, pos: int) -> IntLike:
        if name in RESERVED_NAMES:
            raise LayoutParseError(
                f"{name!r} is a function; call it as {name}(...)", self.text, pos
            )
        symbols = self.symbols
        if symbols is not None and name in symbols:
            value = symbols[name]
            if type(value) is int or isinstance(value, SymInt):
                return value
            raise LayoutParseError(
                f"symbols[{name!r}] is not an integer: {value!r}", self.text, pos
            )
        if not self.create_unknown:
            raise LayoutParseError(f"unknown symbol {name!r}", self.text, pos)
        sym = Symbol(name)
        if isinstance(symbols, MutableMapping):
            symbols[name] = sym
        return sym


def parse_int_expr(
    text: str, symbols: Mapping[str, Any] | None = None, *, create_unknown: bool = True
) -> IntLike:
    """Parse `text` (see the module docstring) into a canonical int or SymInt."""
    if not isinstance(text, str):
        raise TypeError(f"parse_int_expr: expected a string, got {text!r}")
    return _Parser(text, symbols, create_unknown).parse()
