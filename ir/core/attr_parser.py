"""Token cursor plus parsing of types, attributes and locations.

:class:`AttrParser` is what dialect type/attribute hooks receive (``parse_parameters``); the
op-level :class:`~.parser.Parser` extends it. Every failure raises :class:`ParseError` at a
token, which the top-level parse turns into a ``file:line:col: error:`` diagnostic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .attributes import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from .dense import DenseElementsAttr, from_raw_bytes
from .lexer import EOF_TOKEN, SourceBuffer, unescape_string
from .limits import MAX_ATTRIBUTE_NESTING
from .location import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    Location,
    NameLoc,
    UnknownLoc,
)
from .types import (
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    Signedness,
    TupleType,
    Type,
    VectorType,
    bf16,
    f8e4m3fn,
    f8e5m2,
    f16,
    f32,
    f64,
    i1,
    i64,
    index,
    none,
    tf32,
)

if TYPE_CHECKING:
    from .context import Context

_T = TypeVar("_T")

_INT_TYPE_RE = re.compile(r"(s|u)?i([0-9]+)\Z")
_VECTOR_DIMS_RE = re.compile(r"x((?:[0-9]+x)*)(.*)\Z")
_SIMPLE_TYPES: dict[str, Type] = {
    "index": index,
    "f8E4M3FN": f8e4m3fn,
    "f8E5M2": f8e5m2,
    "f16": f16,
    "bf16": bf16,
    "tf32": tf32,
    "f32": f32,
    "f64": f64,
    "none": none,
    "i1": i1,
    "i64": i64,
}
for _w in (8, 16, 32):
    _SIMPLE_TYPES[f"i{_w}"] = IntegerType(_w)

_UNSUPPORTED_TYPES = {
    "memref",
    "tensor",
    "complex",
    "f80",
    "f128",
    "opaque",
}
_UNSUPPORTED_ATTRS = {
    "dense_resource",
    "sparse",
    "affine_map",
    "affine_set",
    "strided",
    "distinct",
    "opaque",
}
_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">"}


class ParseError(Exception):
    """A syntax error at token ``index``; ``notes`` are (message, token index) pairs."""

    def __init__(self, message: str, index: int, notes: list[tuple[str, int]] | None = None):
        super().__init__(message)
        self.message = message
        self.index = index
        self.notes = notes or []


def _is_int_token(tok: str) -> bool:
    return tok[:1].isdigit() and "." not in tok


#: Python's default guard against quadratic int(str) conversion (sys.int_info).
_MAX_DECIMAL_DIGITS = 4300


class AttrParser:
    """A cursor over a :class:`SourceBuffer` that parses types, attributes and locations."""

    def __init__(self, ctx: Context, src: SourceBuffer):
        self.ctx = ctx
        self.src = src
        self.toks = src.tokens
        self.pos = 0
        self.type_aliases: dict[str, Type] = {}
        self.attr_aliases: dict[str, Attribute] = {}
        self.nesting = 0  # attributes and types being parsed, bounded by MAX_ATTRIBUTE_NESTING

    # -- cursor -------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        toks = self.toks
        return toks[i] if i < len(toks) else EOF_TOKEN

    def advance(self) -> str:
        tok = self.toks[self.pos]
        if tok != EOF_TOKEN:
            self.pos += 1
        return tok

    def error(self, message: str, at: int | None = None) -> ParseError:
        """A ParseError at token ``at`` (the current token by default); raise it."""
        return ParseError(message, self.pos if at is None else at)

    def location_of(self, index: int) -> FileLineColLoc:
        line, col = self.src.token_line_col(index)
        return FileLineColLoc(self.src.name, line, col)

    def describe(self, tok: str) -> str:
        return "end of file" if tok == EOF_TOKEN else f"'{tok}'"

    def expect(self, tok: str, context: str = "") -> None:
        if self.toks[self.pos] != tok:
            where = f" {context}" if context else ""
            raise self.error(f"expected '{tok}'{where}, found {self.describe(self.toks[self.pos])}")
        self.pos += 1

    def accept(self, tok: str) -> bool:
        if self.toks[self.pos] == tok:
            self.pos += 1
            return True
        return False

    # MLIR-style names for the two above, used by dialect hooks.
    def parse_punctuation(self, tok: str) -> None:
        self.expect(tok)

    def parse_optional_punctuation(self, tok: str) -> bool:
        return self.accept(tok)

    def parse_keyword(self, expected: str | None = None) -> str:
        tok = self.toks[self.pos]
        if expected is not None:
            if tok != expected:
                raise self.error(f"expected '{expected}', found {self.describe(tok)}")
        elif not (tok[:1].isalpha() or tok[:1] == "_"):
            raise self.error(f"expected keyword, found {self.describe(tok)}")
        self.pos += 1
        return tok

    def parse_optional_keyword(self, *candidates: str) -> str | None:
        tok = self.toks[self.pos]
        if candidates:
            if tok in candidates:
                self.pos += 1
                return tok
            return None
        if tok[:1].isalpha() or tok[:1] == "_":
            self.pos += 1
            return tok
        return None

    def parse_string(self) -> str:
        tok = self.toks[self.pos]
        if tok[:1] != '"':
            raise self.error(f"expected string literal, found {self.describe(tok)}")
        return self._string_value(tok)

    def parse_optional_string(self) -> str | None:
        return self._string_value(self.toks[self.pos]) if self.toks[self.pos][:1] == '"' else None

    def _string_value(self, tok: str) -> str:
        if len(tok) < 2 or not tok.endswith('"') or (tok.endswith('\\"') and _odd_backslashes(tok)):
            raise self.error("unterminated string literal (strings may not span lines)")
        value = unescape_string(tok)
        if value is None:
            raise self.error("invalid escape sequence in string literal")
        self.pos += 1
        return value

    def parse_integer(self) -> int:
        value = self.parse_optional_integer()
        if value is None:
            raise self.error(f"expected integer value, found {self.describe(self.toks[self.pos])}")
        return value

    def parse_optional_integer(self) -> int | None:
        start = self.pos
        neg = self.accept("-")
        tok = self.toks[self.pos]
        if not _is_int_token(tok):
            self.pos = start
            return None
        value = self.int_literal(tok)
        self.pos += 1
        return -value if neg else value

    def int_literal(self, tok: str, at: int | None = None) -> int:
        """The value of an integer token; a diagnostic at the token (not an internal error, nor
        quadratic work) for a decimal literal past Python's 4,300-digit conversion guard."""
        if tok.startswith("0x"):
            return int(tok, 16)
        if len(tok) > _MAX_DECIMAL_DIGITS:
            raise self.error(
                f"integer literal of {len(tok)} digits is too large (at most "
                f"{_MAX_DECIMAL_DIGITS} decimal digits; write wide constants in hexadecimal)",
                at,
            )
        return int(tok)

    def parse_symbol_name(self) -> str:
        tok = self.toks[self.pos]
        if tok[:1] != "@":
            raise self.error(f"expected symbol name (@name), found {self.describe(tok)}")
        self.pos += 1
        if tok[1:2] == '"':
            value = unescape_string(tok[1:])
            if value is None:
                raise self.error("invalid escape sequence in symbol name", self.pos - 1)
            return value
        return tok[1:]

    def parse_comma_separated(
        self, open_tok: str | None, element: Callable[[], _T], context: str = ""
    ) -> list[_T]:
        """``elem, elem, ...`` optionally wrapped in ``open_tok`` and its closer (may be empty)."""
        items: list[_T] = []
        if open_tok is None:
            items.append(element())
            while self.accept(","):
                items.append(element())
            return items
        close = _CLOSERS[open_tok]
        self.expect(open_tok, context)
        if self.accept(close):
            return items
        items.append(element())
        while self.accept(","):
            items.append(element())
        self.expect(close, context)
        return items

    def raw_text_between(self, first: int, last: int) -> str:
        """Source text from the start of token ``first`` to the end of token ``last``."""
        return self.src.text[self.src.offset(first) : self.src.end_offset(last)]

    def skip_balanced(self) -> int:
        """Skip a ``<...>`` group at the cursor; return the index of the closing token."""
        depth = 0
        while True:
            tok = self.toks[self.pos]
            if tok == EOF_TOKEN:
                raise self.error("unbalanced '<' in dialect body")
            if tok in ("<", "(", "[", "{"):
                depth += 1
            elif tok in (">", ")", "]", "}"):
                depth -= 1
            self.pos += 1
            if depth == 0:
                return self.pos - 1

    # -- types --------------------------------------------------------------------------------
    def parse_type(self) -> Type:
        tok = self.toks[self.pos]
        t = _SIMPLE_TYPES.get(tok)
        if t is not None:
            self.pos += 1
            return t
        t = self.parse_optional_type()
        if t is None:
            raise self.error(f"expected type, found {self.describe(tok)}")
        return t

    def parse_optional_type(self) -> Type | None:
        self.nesting += 1
        try:
            if self.nesting > MAX_ATTRIBUTE_NESTING:
                raise self.error(f"types nest deeper than {MAX_ATTRIBUTE_NESTING} levels")
            return self._parse_optional_type()
        finally:
            self.nesting -= 1

    def _parse_optional_type(self) -> Type | None:
        tok = self.toks[self.pos]
        t = _SIMPLE_TYPES.get(tok)
        if t is not None:
            self.pos += 1
            return t
        c = tok[:1]
        if c == "(":
            return self.parse_function_type()
        if c == "!":
            return self._parse_dialect_type()
        if not (c.isalpha() or c == "_"):
            return None
        m = _INT_TYPE_RE.match(tok)
        if m is not None:
            width = int(m.group(2)) if len(m.group(2)) < 10 else 1 << 25
            if width > 1 << 24:
                raise self.error(f"integer bitwidth is limited to {1 << 24} bits")
            self.pos += 1
            sign = {"s": Signedness.SIGNED, "u": Signedness.UNSIGNED}.get(
                m.group(1) or "", Signedness.SIGNLESS
            )
            return IntegerType(width, sign)
        if tok == "vector":
            return self._parse_vector_type()
        if tok == "tuple":
            self.pos += 1
            return TupleType(self.parse_comma_separated("<", self.parse_type, "in tuple type"))
        if tok in _UNSUPPORTED_TYPES:
            raise self.error(f"not supported: builtin type '{tok}'")
        return None

    def parse_function_type(self) -> FunctionType:
        toks = self.toks
        pos = self.pos
        if toks[pos] != "(":
            raise self.error(f"expected '(' in function type, found {self.describe(toks[pos])}")
        pos += 1
        simple = _SIMPLE_TYPES
        inputs: list[Type] = []
        if toks[pos] != ")":
            while True:
                t = simple.get(toks[pos])
                if t is not None:
                    pos += 1
                else:
                    self.pos = pos
                    t = self.parse_type()
                    pos = self.pos
                inputs.append(t)
                tok = toks[pos]
                if tok == ",":
                    pos += 1
                elif tok == ")":
                    break
                else:
                    self.pos = pos
                    raise self.error(
                        f"expected ',' or ')' in function type, found {self.describe(tok)}"
                    )
        pos += 1
        if toks[pos] != "->":
            self.pos = pos
            raise self.error(f"expected '->' in function type, found {self.describe(toks[pos])}")
        pos += 1
        t = simple.get(toks[pos])
        if t is not None:
            self.pos = pos + 1
            return FunctionType(inputs, (t,))
        if toks[pos] == "(" and toks[pos + 1] == ")" and toks[pos + 2] != "->":
            self.pos = pos + 2
            return FunctionType(inputs, ())
        self.pos = pos
        return FunctionType(inputs, self.parse_function_result_types())

    def parse_function_result_types(self) -> list[Type]:
        """Results after ``->``: ``(t, ...)`` or one type (a parenthesised function type too)."""
        if self.toks[self.pos] == "(":
            start = self.pos
            # `(a, b) -> c` here is a single function-typed result, not a result list.
            try:
                types = self.parse_comma_separated("(", self.parse_type, "in result type list")
            except ParseError:
                self.pos = start
                return [self.parse_type()]
            if self.toks[self.pos] == "->":
                self.pos = start
                return [self.parse_type()]
            return types
        return [self.parse_type()]

    def _parse_vector_type(self) -> VectorType:
        start = self.pos
        self.pos += 1
        self.expect("<", "in vector type")
        shape: list[int] = []
        scalable: list[bool] = []
        elt_name: str | None = None
        while elt_name is None:
            tok = self.toks[self.pos]
            if tok == "[":
                self.pos += 1
                dim, is_scalable = self._int_dim(), True
                self.expect("]", "after scalable dimension")
            elif _is_int_token(tok):
                dim, is_scalable = self._int_dim(), False
            else:
                break
            shape.append(dim)
            scalable.append(is_scalable)
            tok = self.toks[self.pos]
            m = _VECTOR_DIMS_RE.match(tok) if tok[:1] == "x" else None
            if m is None:
                raise self.error(
                    f"expected 'x' in vector dimension list, found {self.describe(tok)}"
                )
            self.pos += 1
            for d in m.group(1).split("x")[:-1]:
                shape.append(int(d))
                scalable.append(False)
            if m.group(2):
                elt_name = m.group(2)
        if elt_name is not None:
            elt = _SIMPLE_TYPES.get(elt_name)
            if elt is None:
                im = _INT_TYPE_RE.match(elt_name)
                if im is None:
                    raise self.error(f"invalid vector element type '{elt_name}'", self.pos - 1)
                elt = self._int_type_from_match(im)
        else:
            elt = self.parse_type()
        self.expect(">", "in vector type")
        try:
            return VectorType(shape, elt, scalable)
        except ValueError as e:
            raise self.error(str(e), start) from None

    def _int_type_from_match(self, m: re.Match[str]) -> IntegerType:
        sign = {"s": Signedness.SIGNED, "u": Signedness.UNSIGNED}.get(
            m.group(1) or "", Signedness.SIGNLESS
        )
        if len(m.group(2)) >= 10 or int(m.group(2)) > 1 << 24:
            raise self.error(f"integer bitwidth is limited to {1 << 24} bits")
        return IntegerType(int(m.group(2)), sign)

    def _int_dim(self) -> int:
        tok = self.toks[self.pos]
        if tok.startswith("0x"):
            raise self.error("vector types must have positive constant sizes but got 0")
        if not tok.isdigit():
            raise self.error(f"expected dimension size, found {self.describe(tok)}")
        value = self.int_literal(tok)
        self.pos += 1
        return value

    def _parse_dialect_type(self) -> Type:
        at = self.pos
        tok = self.toks[self.pos]
        self.pos += 1
        name = tok[1:]
        alias = self.type_aliases.get(name)
        if alias is not None:
            return alias
        dot = name.find(".")
        if dot < 0:
            if self.toks[self.pos] == "<":
                return self._opaque_type(name, "", at)
            raise self.error(f"undefined symbol alias id '{name}'", at)
        dialect_name, mnemonic = name[:dot], name[dot + 1 :]
        dialect = self.ctx.get_dialect(dialect_name)
        if dialect is not None:
            cls = dialect.types.get(mnemonic)
            if cls is None:
                raise self.error(f"unknown type '!{name}' in dialect '{dialect_name}'", at)
            try:
                return cls.parse_parameters(self)
            except ParseError:
                raise
            except (ValueError, TypeError) as e:
                raise self.error(f"invalid '!{name}' type: {e}", at) from None
        if not self.ctx.allow_unregistered:
            raise self.error(
                f"dialect '{dialect_name}' is not registered (type '!{name}'); "
                "allow unregistered dialects to keep it opaque",
                at,
            )
        return self._opaque_type(dialect_name, name[dot:], at)

    def _opaque_type(self, dialect: str, head: str, at: int) -> Type:
        body = head
        if self.toks[self.pos] == "<":
            first = self.pos
            last = self.skip_balanced()
            body += self.raw_text_between(first, last)
        return OpaqueType(dialect, body)

    # -- attributes ---------------------------------------------------------------------------
    def parse_attribute(self, type: Type | None = None) -> Attribute:
        """Any attribute; ``type`` is the expected type of an untyped number literal."""
        attr = self.parse_optional_attribute(type)
        if attr is None:
            raise self.error(
                f"expected attribute value, found {self.describe(self.toks[self.pos])}"
            )
        return attr

    def parse_optional_attribute(self, type: Type | None = None) -> Attribute | None:
        self.nesting += 1
        try:
            if self.nesting > MAX_ATTRIBUTE_NESTING:
                raise self.error(f"attributes nest deeper than {MAX_ATTRIBUTE_NESTING} levels")
            return self._parse_optional_attribute(type)
        finally:
            self.nesting -= 1

    def _parse_optional_attribute(self, type: Type | None = None) -> Attribute | None:
        tok = self.toks[self.pos]
        c = tok[:1]
        if c == '"':
            return StringAttr(self.parse_string())
        if c.isdigit() or c == "-":
            return self._parse_number_attr(type)
        if c == "[":
            return ArrayAttr(
                self.parse_comma_separated("[", self.parse_attribute, "in array attribute")
            )
        if c == "{":
            return DictionaryAttr(self.parse_attr_dict())
        if c == "@":
            return self._parse_symbol_ref()
        if c == "#":
            return self._parse_dialect_attr()
        if tok == "true" or tok == "false":
            self.pos += 1
            return IntegerAttr(1 if tok == "true" else 0, i1)
        if tok == "unit":
            self.pos += 1
            return UnitAttr()
        if tok == "array" and self.peek(1) == "<":
            return self._parse_dense_array()
        if tok == "dense" and self.peek(1) == "<":
            return self._parse_dense_elements(type)
        if tok == "loc" and self.peek(1) == "(":
            return self.parse_location()
        if tok in _UNSUPPORTED_ATTRS and self.peek(1) == "<":
            raise self.error(f"not supported: builtin attribute '{tok}<...>'")
        t = self.parse_optional_type()
        if t is not None:
            return TypeAttr(t)
        return None

    def _parse_number_attr(self, type: Type | None) -> Attribute:
        at = self.pos
        neg = self.accept("-")
        tok = self.toks[self.pos]
        if not tok[:1].isdigit():
            raise self.error(f"expected number after '-', found {self.describe(tok)}")
        self.pos += 1
        if self.toks[self.pos] == ":":
            self.pos += 1
            type = self.parse_type()
        is_float_literal = "." in tok
        if type is None:
            type = f64 if is_float_literal else i64
        if isinstance(type, FloatType):
            if tok.startswith("0x"):
                if neg:
                    raise self.error(
                        "hexadecimal float literal should not have a leading minus", at
                    )
                bits = int(tok, 16)
                if bits >> type.format.width:
                    raise self.error(
                        f"hexadecimal float constant out of range for type '{type.text}'", at
                    )
                return FloatAttr.from_bits(bits, type)
            if not is_float_literal:
                raise ParseError(
                    "unexpected decimal integer literal for a floating point value",
                    at,
                    [("add a trailing dot to make the literal a float", at)],
                )
            value = float(tok)
            return FloatAttr(-value if neg else value, type)
        if isinstance(type, (IntegerType, IndexType)):
            if is_float_literal:
                raise self.error(f"floating point value not valid for type '{type.text}'", at)
            value = self.int_literal(tok, at)
            if neg:
                value = -value
            if isinstance(type, IntegerType) and type.is_unsigned and value < 0:
                raise self.error(
                    f"negative integer literal not valid for unsigned type '{type.text}'", at
                )
            try:
                return IntegerAttr(value, type)
            except ValueError:
                raise self.error(
                    f"integer constant out of range for attribute of type '{type.text}'", at
                ) from None
        raise self.error(
            f"number literals need an integer, index or float type, not '{type.text}'", at
        )

    def _parse_symbol_ref(self) -> SymbolRefAttr:
        root = self.parse_symbol_name()
        nested = []
        while self.toks[self.pos] == "::" and self.peek(1)[:1] == "@":
            self.pos += 1
            nested.append(self.parse_symbol_name())
        return SymbolRefAttr(root, nested)

    def _parse_dense_array(self) -> DenseArrayAttr:
        at = self.pos
        self.pos += 2  # array <
        elt = self.parse_type()
        if not isinstance(elt, (IntegerType, FloatType)):
            raise self.error(
                f"dense array element type must be integer or float, got '{elt.text}'", at
            )
        values: list[Any] = []
        if self.accept(":"):
            values.append(self._dense_element(elt))
            while self.accept(","):
                values.append(self._dense_element(elt))
        self.expect(">", "to close dense array")
        try:
            return DenseArrayAttr(elt, values)
        except (ValueError, TypeError) as e:
            raise self.error(f"invalid dense array: {e}", at) from None

    def _parse_dense_elements(self, type: Type | None) -> DenseElementsAttr:
        """``dense<literal> : vector<...>`` (MLIR's DenseIntOrFPElementsAttr): the literal is
        read first and interpreted once the type after it is known, as MLIR does."""
        at = self.pos
        self.pos += 2  # dense <
        hex_at = self.pos if self.toks[self.pos][:1] == '"' else None
        if hex_at is not None:
            text = self.parse_string()
            shape: list[int] | None = None
            starts: list[int] = []
        else:
            if self.toks[self.pos] == ">":
                raise self.error("dense elements of a vector type need at least one value")
            shape, starts = self._dense_literal_structure()
        self.expect(">", "to close dense elements")
        if self.accept(":"):
            type = self.parse_type()
        elif type is None:
            raise self.error(
                f"expected ':' and a type after dense elements, found {self.describe(self.toks[self.pos])}"
            )
        end = self.pos
        if not isinstance(type, VectorType):
            raise self.error(
                f"not supported: dense elements of type '{type.text}' (vector types only)", at
            )
        if hex_at is not None:
            try:
                if not text.startswith("0x"):
                    raise ValueError("expected a hex string starting with '0x'")
                attr = from_raw_bytes(bytes.fromhex(text[2:]), type)
            except ValueError as e:
                raise self.error(f"invalid hex dense elements: {e}", hex_at) from None
            return attr
        if shape and shape != list(type.shape):
            raise self.error(
                f"inferred shape of elements literal ([{', '.join(map(str, shape))}]) does not "
                f"match type ([{', '.join(map(str, type.shape))}])",
                at,
            )
        values = []
        for start in starts:
            self.pos = start
            values.append(self._dense_scalar(type.element_type))
        self.pos = end
        try:
            return DenseElementsAttr(type, values)
        except (ValueError, TypeError) as e:
            raise self.error(f"invalid dense elements: {e}", at) from None

    def _dense_literal_structure(self) -> tuple[list[int], list[int]]:
        """The shape of a (nested) ``[...]`` literal ([] for one splat element) and the token
        index of every element, row-major; the elements are checked once the type is known."""
        starts: list[int] = []

        def element_or_list() -> list[int]:
            if self.accept("["):
                dims: list[int] | None = None
                count = 0
                while True:
                    at = self.pos
                    sub = element_or_list()
                    if dims is not None and sub != dims:
                        raise self.error(
                            "tensor literal is invalid; ranks are not consistent between elements",
                            at,
                        )
                    dims = sub
                    count += 1
                    if not self.accept(","):
                        break
                self.expect("]", "to close the dense elements list")
                return [count, *dims]
            tok = self.toks[self.pos]
            starts.append(self.pos)
            if tok in ("true", "false"):
                self.pos += 1
                return []
            if tok == "-":
                self.pos += 1
                tok = self.toks[self.pos]
            if not tok[:1].isdigit():
                raise self.error(f"expected an element literal, found {self.describe(tok)}")
            self.pos += 1
            return []

        return element_or_list(), starts

    def _dense_element(self, elt: Type) -> int | float:
        tok = self.toks[self.pos]
        if tok in ("true", "false") and elt is i1:
            self.pos += 1
            return 1 if tok == "true" else 0
        attr = self._parse_number_attr(elt)
        return attr.value  # type: ignore[attr-defined]

    def _dense_scalar(self, elt: Type) -> Attribute:
        """One element of ``dense<...>`` as an attribute of the element type (hex float
        literals keep their bits, NaN payloads included)."""
        tok = self.toks[self.pos]
        if tok in ("true", "false"):
            if elt is not i1:
                raise self.error("expected i1 type for 'true' or 'false' values")
            self.pos += 1
            return IntegerAttr(1 if tok == "true" else 0, i1)
        return self._parse_number_attr(elt)

    def _parse_dialect_attr(self) -> Attribute:
        at = self.pos
        tok = self.toks[self.pos]
        self.pos += 1
        name = tok[1:]
        alias = self.attr_aliases.get(name)
        if alias is not None:
            return alias
        dot = name.find(".")
        if dot < 0:
            if self.toks[self.pos] == "<":
                dialect = self.ctx.get_dialect(name)
                if dialect is not None:
                    return self._parse_namespace_attr(dialect, name, at)
                if self.ctx.allow_unregistered:
                    first = self.pos
                    last = self.skip_balanced()
                    return OpaqueAttr(name, self.raw_text_between(first, last))
            raise self.error(f"undefined symbol alias id '{name}'", at)
        dialect_name, mnemonic = name[:dot], name[dot + 1 :]
        dialect = self.ctx.get_dialect(dialect_name)
        if dialect is not None:
            cls = dialect.attributes.get(mnemonic)
            if cls is None:
                raise self.error(f"unknown attribute '#{name}' in dialect '{dialect_name}'", at)
            try:
                return cls.parse_parameters(self)
            except ParseError:
                raise
            except (ValueError, TypeError) as e:
                raise self.error(f"invalid '#{name}' attribute: {e}", at) from None
        if not self.ctx.allow_unregistered:
            raise self.error(
                f"dialect '{dialect_name}' is not registered (attribute '#{name}'); "
                "allow unregistered dialects to keep it opaque",
                at,
            )
        body = name[dot:]
        if self.toks[self.pos] == "<":
            first = self.pos
            last = self.skip_balanced()
            body += self.raw_text_between(first, last)
        return OpaqueAttr(dialect_name, body)

    def _parse_namespace_attr(self, dialect: Any, name: str, at: int) -> Attribute:
        """MLIR's ``#dialect<mnemonic params>`` form (``#gpu<dim x>``): the attribute class
        registered under ``mnemonic`` parses ``params`` up to the closing ``>``."""
        mnemonic = self.peek(1)
        cls = dialect.attributes.get(mnemonic)
        if cls is None:
            raise self.error(f"unknown attribute '#{name}<{mnemonic} ...>' in dialect '{name}'", at)
        self.pos += 2
        try:
            attr = cls.parse_parameters(self)
        except ParseError:
            raise
        except (ValueError, TypeError) as e:
            raise self.error(f"invalid '#{name}<{mnemonic}>' attribute: {e}", at) from None
        self.expect(">", f"to close '#{name}<{mnemonic} ...>'")
        return attr

    def parse_attr_dict(self) -> dict[str, Attribute]:
        """``{name = attr, unit_name, "quoted" = attr}`` (duplicates are an error)."""
        result: dict[str, Attribute] = {}
        self.expect("{", "to start attribute dictionary")
        if self.accept("}"):
            return result
        while True:
            at = self.pos
            tok = self.toks[self.pos]
            if tok[:1] == '"':
                key = self.parse_string()
            elif tok[:1].isalpha() or tok[:1] == "_":
                key = tok
                self.pos += 1
            else:
                raise self.error(f"expected attribute name, found {self.describe(tok)}")
            if key in result:
                raise self.error(f"duplicate key '{key}' in dictionary attribute", at)
            if self.accept("="):
                result[key] = self.parse_attribute()
            else:
                result[key] = UnitAttr()
            if not self.accept(","):
                break
        self.expect("}", "to close attribute dictionary")
        return result

    # -- locations ----------------------------------------------------------------------------
    def parse_location(self) -> Location:
        """``loc(...)``."""
        self.expect("loc")
        self.expect("(", "after 'loc'")
        loc = self.parse_location_body()
        self.expect(")", "to close location")
        return loc

    def parse_location_body(self) -> Location:
        at = self.pos
        tok = self.toks[self.pos]
        if tok == "unknown":
            self.pos += 1
            return UnknownLoc()
        if tok == "callsite":
            self.pos += 1
            self.expect("(", "in callsite location")
            callee = self.parse_location_body()
            self.expect("at", "in callsite location")
            caller = self.parse_location_body()
            self.expect(")", "in callsite location")
            return CallSiteLoc(callee, caller)
        if tok == "fused":
            self.pos += 1
            meta = None
            if self.accept("<"):
                meta = self.parse_attribute()
                self.expect(">", "after fused location metadata")
            parts = self.parse_comma_separated("[", self.parse_location_body, "in fused location")
            return FusedLoc(parts, meta)
        if tok[:1] == "#":
            return self._location_alias(at)
        if tok[:1] == '"':
            name = self.parse_string()
            if self.accept(":"):
                line = self._location_number("line")
                self.expect(":", "in file location")
                col = self._location_number("column")
                return FileLineColLoc(name, line, col)
            if self.accept("("):
                child = self.parse_location_body()
                self.expect(")", "in name location")
                return NameLoc(name, child)
            return NameLoc(name)
        raise self.error(f"expected location instance, found {self.describe(tok)}")

    def _location_number(self, what: str) -> int:
        tok = self.toks[self.pos]
        if not tok.isdigit():
            raise self.error(f"expected integer {what} number in file location")
        value = self.int_literal(tok)
        self.pos += 1
        return value

    def _location_alias(self, at: int) -> Location:
        name = self.toks[self.pos][1:]
        self.pos += 1
        attr = self.attr_aliases.get(name)
        if attr is None:
            return self.deferred_location(name, at)
        if not isinstance(attr, Location):
            raise self.error(f"expected location, but '#{name}' is not a location", at)
        return attr

    def deferred_location(self, name: str, at: int) -> Location:
        """A location alias used before its definition; the op parser resolves it later."""
        raise self.error(f"undefined location alias '#{name}'", at)


def _odd_backslashes(tok: str) -> bool:
    n = 0
    i = len(tok) - 2
    while i >= 0 and tok[i] == "\\":
        n += 1
        i -= 1
    return n % 2 == 1


__all__ = ["AttrParser", "NoneType", "ParseError"]
