"""LLVM dialect types: ``!llvm.ptr<as>``, ``!llvm.struct<(...)>``, ``!llvm.array<N x T>``.

Spelled as MLIR prints them: nested LLVM types inside a struct or array drop the ``!llvm.``
prefix (``!llvm.struct<(ptr<1>, array<4 x f32>)>``); both spellings are read. Vectors are the
builtin ``vector<4xf32>``. The pointer type lives in ``llvm_types.py`` (it predates the ops) and
is re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...core.attr_parser import AttrParser
from ...core.types import (
    DialectType,
    FloatType,
    IndexType,
    IntegerType,
    Type,
    VectorType,
)
from ..llvm_types import LLVMPointerType

__all__ = [
    "LLVMArrayType",
    "LLVMPointerType",
    "LLVMStructType",
    "is_llvm_type",
    "llvm_type_text",
    "parse_llvm_type",
]

#: Float formats LLVM has (tf32 is a PTX register convention, not an LLVM type).
_LLVM_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})


class LLVMStructType(DialectType):
    """A literal struct ``!llvm.struct<(i32, f32)>`` (``packed`` for no padding)."""

    __slots__ = ("body", "packed")
    name = "llvm.struct"
    body: tuple[Type, ...]
    packed: bool

    def __new__(cls, body: Iterable[Type], packed: bool = False) -> LLVMStructType:
        key = (tuple(body), bool(packed))
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        for t in key[0]:
            if not is_llvm_type(t):
                raise ValueError(f"invalid LLVM struct element type '{t.text}'")
        return cls._unique(key, body=key[0], packed=key[1])

    def __reduce__(self):
        return (LLVMStructType, (self.body, self.packed))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> LLVMStructType:
        parser.expect("<", "after '!llvm.struct'")
        packed = parser.accept("packed")
        if parser.peek()[:1] == '"':
            raise parser.error("not supported: identified (named) LLVM struct types")
        body = parser.parse_comma_separated("(", lambda: parse_llvm_type(parser), "in struct")
        parser.expect(">", "to close '!llvm.struct'")
        return cls(body, packed)

    def print_parameters(self) -> str:
        inner = ", ".join(llvm_type_text(t) for t in self.body)
        return f"<{'packed ' if self.packed else ''}({inner})>"


class LLVMArrayType(DialectType):
    """``!llvm.array<4 x f32>``: a fixed number of elements of one type."""

    __slots__ = ("element_type", "size")
    name = "llvm.array"
    size: int
    element_type: Type

    def __new__(cls, size: int, element_type: Type) -> LLVMArrayType:
        key = (size, element_type)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"invalid LLVM array size {size!r}")
        if not is_llvm_type(element_type):
            raise ValueError(f"invalid LLVM array element type '{element_type.text}'")
        return cls._unique(key, size=size, element_type=element_type)

    def __reduce__(self):
        return (LLVMArrayType, (self.size, self.element_type))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> LLVMArrayType:
        parser.expect("<", "after '!llvm.array'")
        at = parser.pos
        tok = parser.peek()
        if not tok.isdigit():
            raise parser.error(f"expected array size, found {parser.describe(tok)}")
        parser.advance()
        size = int(tok)
        nxt = parser.peek()
        if nxt == "x":
            parser.advance()
            element = parse_llvm_type(parser)
        elif nxt.startswith("x") and len(nxt) > 1:
            # `4xf32` lexes as '4', 'xf32': re-read the element type after the 'x'.
            raise parser.error("expected 'x' between array size and element type: '<4 x f32>'")
        else:
            raise parser.error(f"expected 'x' after array size, found {parser.describe(nxt)}", at)
        parser.expect(">", "to close '!llvm.array'")
        return cls(size, element)

    def print_parameters(self) -> str:
        return f"<{self.size} x {llvm_type_text(self.element_type)}>"


_SHORT_NAMES = {"ptr": LLVMPointerType, "struct": LLVMStructType, "array": LLVMArrayType}


def parse_llvm_type(parser: AttrParser) -> Type:
    """A type inside an LLVM type body, where ``ptr``/``struct``/``array`` need no prefix."""
    cls = _SHORT_NAMES.get(parser.peek())
    if cls is not None:
        parser.advance()
        return cls.parse_parameters(parser)
    return parser.parse_type()


def llvm_type_text(t: Type) -> str:
    """``t`` as MLIR prints it nested in an LLVM type (without the ``!llvm.`` prefix)."""
    if isinstance(t, (LLVMPointerType, LLVMStructType, LLVMArrayType)):
        return t.text[len("!llvm.") :]
    return t.text


def is_llvm_type(t: Type) -> bool:
    """Whether ``t`` is a value type the LLVM dialect accepts (no ``index``, no ``tf32``)."""
    if isinstance(t, IntegerType):
        return t.is_signless
    if isinstance(t, FloatType):
        return t.format.name in _LLVM_FLOATS
    if isinstance(t, VectorType):
        return not any(t.scalable) and is_llvm_type(t.element_type)
    if isinstance(t, IndexType):
        return False
    return isinstance(t, (LLVMPointerType, LLVMStructType, LLVMArrayType))


class LLVMFunctionType(DialectType):
    """``!llvm.func<i32 (f32, ptr<1>)>``, ``!llvm.func<void ()>``: the type of an ``llvm.func``
    (one result or none; variadic functions are not supported)."""

    __slots__ = ("inputs", "result")
    name = "llvm.func"
    inputs: tuple[Type, ...]
    result: Type | None

    def __new__(cls, inputs: Iterable[Type], result: Type | None = None) -> LLVMFunctionType:
        key = (tuple(inputs), result)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        for t in (*key[0], *((result,) if result is not None else ())):
            if not is_llvm_type(t):
                raise ValueError(f"invalid LLVM function parameter or result type '{t.text}'")
        return cls._unique(key, inputs=key[0], result=result)

    def __reduce__(self):
        return (LLVMFunctionType, (self.inputs, self.result))

    @property
    def results(self) -> tuple[Type, ...]:
        return () if self.result is None else (self.result,)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> LLVMFunctionType:
        parser.expect("<", "after '!llvm.func'")
        result = None if parser.accept("void") else parse_llvm_type(parser)
        if parser.peek() == "(" and parser.peek(1) == "...":
            raise parser.error("not supported: variadic LLVM functions")
        inputs = parser.parse_comma_separated("(", lambda: parse_llvm_type(parser), "in arguments")
        parser.expect(">", "to close '!llvm.func'")
        return cls(inputs, result)

    def print_parameters(self) -> str:
        result = "void" if self.result is None else llvm_type_text(self.result)
        return f"<{result} ({', '.join(llvm_type_text(t) for t in self.inputs)})>"
