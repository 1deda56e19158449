"""A small expression language over the layout algebra, in CuTe notation (`layoutc algebra`).

    logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)
    complement(4:2, 24)          size((2,(3,4)):(1,(2,6)))        coalesce(L, (1,1))
    make_layout((4,8), LayoutRight)(_, 2)                          (N,8):(8,1)

Values are CuTe literals (layouts, tuples, tilers `<...>`, swizzles, `_`), function calls,
postfix application of a layout to a coordinate (`L(i)`, `L(_, 2)`) and integer arithmetic
(`+ - * // %`). Names that are not functions are symbols; their assumptions come from the
caller (`--assume`). No `eval`: this is a recursive-descent parser that calls the algebra.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from . import inttuple as it
from .errors import LayoutError, LayoutParseError
from .limits import MAX_NESTING, check_literal
from .parse import NotationParser

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_INT_RE = re.compile(r"_?-?\d+")


class CalcError(LayoutError):
    """An error in a calculator expression; `pos` is the 0-based offset it refers to."""

    def __init__(self, message: str, text: str, pos: int, syntax: bool):
        self.text = text
        self.pos = pos
        self.syntax = syntax
        super().__init__(message)


def _functions() -> dict[str, Callable[..., Any]]:
    from . import append as append_
    from . import (
        blocked_product,
        ceil_div,
        coalesce,
        compatible,
        complement,
        composition,
        congruent,
        cosize,
        crd2idx,
        depth,
        dice,
        filter,
        filter_zeros,
        flat_divide,
        flat_product,
        flatten,
        get,
        group,
        idx2crd,
        left_inverse,
        logical_divide,
        logical_product,
        make_identity_layout,
        make_layout,
        make_ordered_layout,
        max_common_layout,
        max_common_vector,
        nullspace,
        prefix_product,
        product,
        raked_product,
        rank,
        right_inverse,
        select,
        shape,
        shape_div,
        size,
        slice_,
        slice_and_offset,
        stride,
        take,
        tile_to_shape,
        tiled_divide,
        tiled_product,
        weakly_congruent,
        zipped_divide,
        zipped_product,
    )
    from . import prepend as prepend_
    from . import replace as replace_
    from .swizzle import Swizzle, make_swizzle

    return {
        "append": append_,
        "blocked_product": blocked_product,
        "ceil_div": ceil_div,
        "coalesce": coalesce,
        "compatible": compatible,
        "complement": complement,
        "composition": composition,
        "congruent": congruent,
        "cosize": cosize,
        "crd2idx": crd2idx,
        "depth": depth,
        "dice": dice,
        "filter": filter,
        "filter_zeros": filter_zeros,
        "flat_divide": flat_divide,
        "flat_product": flat_product,
        "flatten": flatten,
        "get": get,
        "group": group,
        "idx2crd": idx2crd,
        "layout": get,
        "left_inverse": left_inverse,
        "logical_divide": logical_divide,
        "logical_product": logical_product,
        "make_identity_layout": make_identity_layout,
        "make_layout": make_layout,
        "make_ordered_layout": make_ordered_layout,
        "make_swizzle": make_swizzle,
        "max_common_layout": max_common_layout,
        "max_common_vector": max_common_vector,
        "mode": get,
        "nullspace": nullspace,
        "prefix_product": prefix_product,
        "prepend": prepend_,
        "product": product,
        "raked_product": raked_product,
        "rank": rank,
        "replace": replace_,
        "right_inverse": right_inverse,
        "select": select,
        "shape": shape,
        "shape_div": shape_div,
        "size": size,
        "slice": slice_,
        "slice_and_offset": slice_and_offset,
        "stride": stride,
        "Swizzle": Swizzle,
        "take": take,
        "tile_to_shape": tile_to_shape,
        "tiled_divide": tiled_divide,
        "tiled_product": tiled_product,
        "weakly_congruent": weakly_congruent,
        "zipped_divide": zipped_divide,
        "zipped_product": zipped_product,
    }


_FUNCTIONS: dict[str, Callable[..., Any]] | None = None


def functions() -> dict[str, Callable[..., Any]]:
    """The functions the calculator knows, by name."""
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _functions()
    return _FUNCTIONS


class Calculator:
    """Evaluates expressions; `make_symbol(name)` creates the symbols the expressions mention."""

    def __init__(
        self, make_symbol: Callable[[str], Any] | None = None, symbols: dict[str, Any] | None = None
    ):
        self.symbols: dict[str, Any] = {} if symbols is None else symbols
        self.make_symbol = make_symbol

    def evaluate(self, text: str) -> Any:
        p = _ExprParser(text, self)
        value = p.expr()
        if not p.at_end():
            raise p.syntax_error(f"unexpected {p.text[p.pos]!r}")
        return value

    def symbol(self, name: str, pos: int, text: str) -> Any:
        if name not in self.symbols:
            if self.make_symbol is None:
                raise CalcError(f"unknown name {name!r}", text, pos, syntax=False)
            self.symbols[name] = self.make_symbol(name)
        return self.symbols[name]


class _ExprParser:
    def __init__(self, text: str, calc: Calculator):
        self.text = text
        self.pos = 0
        self.calc = calc
        self.depth = 0  # open argument lists, bounded by MAX_NESTING

    # -- helpers ----------------------------------------------------------------------------

    def syntax_error(self, message: str, pos: int | None = None) -> CalcError:
        return CalcError(message, self.text, self.pos if pos is None else pos, syntax=True)

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_end(self) -> bool:
        return self.peek() == ""

    def _notation(self, start: int) -> Any:
        """Read a CuTe literal from `start` with the notation parser."""
        np = NotationParser(self.text, self.calc.symbols, self._make_symbol_or_none())
        np.pos = start
        try:
            value = np.parse_value()
        except LayoutParseError as e:
            raise CalcError(
                e.args[0].splitlines()[0].rsplit(" at position", 1)[0],
                self.text,
                e.pos,
                syntax=True,
            ) from None
        self.pos = np.pos
        return value

    def _make_symbol_or_none(self) -> Callable[[str], Any] | None:
        return self.calc.make_symbol

    # -- grammar ----------------------------------------------------------------------------

    def expr(self) -> Any:
        value = self.term()
        while True:
            ch = self.peek()
            if ch in ("+", "-") and ch:
                pos = self.pos
                self.pos += 1
                rhs = self.term()
                value = self._arith(ch, value, rhs, pos)
            else:
                return value

    def term(self) -> Any:
        value = self.unary()
        while True:
            ch = self.peek()
            if self.text.startswith("//", self.pos):
                op, width = "//", 2
            elif ch in ("*", "%") and ch:
                op, width = ch, 1
            else:
                return value
            pos = self.pos
            self.pos += width
            rhs = self.unary()
            value = self._arith(op, value, rhs, pos)

    def unary(self) -> Any:
        signs = []  # a loop, not recursion: `------x` nests nothing
        while self.peek() == "-" and not (
            self.pos + 1 < len(self.text) and self.text[self.pos + 1].isdigit()
        ):
            signs.append(self.pos)
            self.pos += 1
        value = self.postfix()
        for pos in reversed(signs):
            value = self._arith("neg", 0, value, pos)
        return value

    def postfix(self) -> Any:
        value = self.atom()
        while self.peek() == "(" and _is_callable_layout(value):
            pos = self.pos
            args = self.arguments()
            try:
                value = value(*args)
            except LayoutError as e:
                raise CalcError(str(e), self.text, pos, syntax=False) from None
        return value

    def atom(self) -> Any:
        ch = self.peek()
        start = self.pos
        if not ch:
            raise self.syntax_error("expected a value, found end of input")
        if ch in "(<" or self.text.startswith("Sw<", start):
            return self._notation(start)
        m = _NAME_RE.match(self.text, start)
        if m and not (m.group() == "_" or re.fullmatch(r"_\d+", m.group())):
            name = m.group()
            self.pos = m.end()
            if self.peek() == "(" and name in functions():
                return self.call(name, start)
            if name in ("LayoutLeft", "LayoutRight", "GenColMajor", "GenRowMajor"):
                from . import layout as lay

                return getattr(lay, name)
            if name in ("true", "True"):
                return True
            if name in ("false", "False"):
                return False
            if self.peek() in (":", "@") or self.peek() == "(":
                if self.peek() == "(":
                    raise self.syntax_error(f"unknown function {name!r}", start)
                return self._notation(start)
            return self.calc.symbol(name, start, self.text)
        m = _INT_RE.match(self.text, start)
        if m:
            self.pos = m.end()
            if self.peek() in (":", "@"):
                return self._notation(start)
            try:
                return check_literal(m.group().lstrip("_"))
            except LayoutError as e:
                raise self.syntax_error(str(e), start) from None
        if ch == "_":
            self.pos += 1
            return it._
        raise self.syntax_error(f"expected a value, found {ch!r}")

    def arguments(self) -> list[Any]:
        if self.peek() != "(":
            raise self.syntax_error("expected '('")
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.syntax_error(f"calls nest deeper than {MAX_NESTING} levels")
        self.pos += 1
        args: list[Any] = []
        try:
            return self._argument_list(args)
        finally:
            self.depth -= 1

    def _argument_list(self, args: list[Any]) -> list[Any]:
        if self.peek() == ")":
            self.pos += 1
            return args
        while True:
            args.append(self.expr())
            ch = self.peek()
            if ch == ",":
                self.pos += 1
                continue
            if ch == ")":
                self.pos += 1
                return args
            if not ch:
                raise self.syntax_error("unbalanced '(': expected ',' or ')', found end of input")
            raise self.syntax_error(f"expected ',' or ')', found {ch!r}")

    def call(self, name: str, start: int) -> Any:
        fn = functions()[name]
        args = self.arguments()
        try:
            inspect.signature(fn).bind(*args)
        except TypeError:
            sig = _signature_text(fn)
            raise CalcError(
                f"{name}{sig}: wrong number of arguments ({len(args)} given)",
                self.text,
                start,
                syntax=False,
            ) from None
        except ValueError:
            pass
        try:
            return fn(*args)
        except LayoutError as e:
            raise CalcError(str(e), self.text, start, syntax=False) from None
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise CalcError(
                f"{name}: invalid arguments: {e}", self.text, start, syntax=False
            ) from None

    def _arith(self, op: str, a: Any, b: Any, pos: int) -> Any:
        for v in (a, b):
            if not (type(v) is int or it.is_symbolic(v)):
                raise CalcError(
                    f"'{op}' needs integers, got {format_value(v)}", self.text, pos, syntax=False
                )
        try:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "neg":
                return -b
            if op == "*":
                return a * b
            if type(b) is int and b == 0:
                raise CalcError("division by zero", self.text, pos, syntax=False)
            return a // b if op == "//" else a % b
        except (LayoutError, TypeError, ZeroDivisionError) as e:
            raise CalcError(str(e), self.text, pos, syntax=False) from None


def _is_callable_layout(value: Any) -> bool:
    from .composed import ComposedLayout
    from .layout import Layout

    return isinstance(value, (Layout, ComposedLayout))


def _signature_text(fn: Callable[..., Any]) -> str:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return "(...)"
    names = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            names.append(f"{p.name}...")
        elif p.kind is p.KEYWORD_ONLY:
            continue
        elif p.default is not p.empty:
            names.append(f"[{p.name}]")
        else:
            names.append(p.name)
    return "(" + ", ".join(names) + ")"


def format_value(value: Any) -> str:
    """CuTe-style text for a calculator result."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, tuple) and not hasattr(type(value), "cute_format"):
        return "(" + ",".join(format_value(v) for v in value) + ")"
    return it.format_tuple(value)


def free_symbol_names(value: Any, known: Mapping[str, Any]) -> list[str]:
    """Names of the symbols in `known` whose symbol occurs in the printed `value`."""
    text = format_value(value)
    return [name for name in known if re.search(rf"\b{re.escape(name)}\b", text)]
