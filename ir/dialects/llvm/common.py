"""Constraints and small helpers shared by the LLVM dialect's op modules."""

from __future__ import annotations

from enum import IntEnum

from ...core.asm import OpAsmParser
from ...core.attributes import IntegerAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.types import IntegerType, i64
from .types import LLVMPointerType, is_llvm_type

Pointer = Constraint(lambda t: isinstance(t, LLVMPointerType), "LLVM pointer")
LLVMType = Constraint(is_llvm_type, "LLVM dialect-compatible type")
SignlessInteger = Constraint(
    lambda t: isinstance(t, IntegerType) and t.is_signless, "signless integer"
)
I64Attr = Constraint(lambda a: isinstance(a, IntegerAttr) and a.type is i64, "64-bit integer")
I32Attr = Constraint(
    lambda a: isinstance(a, IntegerAttr) and a.type is IntegerType(32), "32-bit integer"
)


def enum_attr(value: IntEnum) -> IntegerAttr:
    """An enum case as MLIR stores it: an ``i64`` integer property."""
    return IntegerAttr(int(value), i64)


def enum_value(enum: type[IntEnum], attr: IntegerAttr | None, what: str) -> IntEnum:
    """The enum case an ``i64`` property holds (VerifyError for an unknown number)."""
    if attr is None:
        raise VerifyError(f"requires attribute '{what}'")
    try:
        return enum(attr.value)
    except ValueError:
        raise VerifyError(f"invalid {what} {attr.value}") from None


def check_alignment(attr: IntegerAttr | None) -> None:
    """``alignment`` must be a positive power of two when present."""
    if attr is None:
        return
    v = attr.value
    if v <= 0 or v & (v - 1):
        raise VerifyError(f"expected alignment to be a power of two, got {v}")


def parse_enum_keyword(p: OpAsmParser, enum: type[IntEnum], what: str) -> IntEnum:
    """Read one enum case spelled by name (``seq_cst``)."""
    at = p.pos
    word = p.parse_keyword()
    try:
        return enum[word]
    except KeyError:
        names = ", ".join(e.name for e in enum)
        raise p.error(f"unknown {what} '{word}'; expected one of {names}", at) from None


def parse_syncscope(p: OpAsmParser) -> str | None:
    """``syncscope("agent")`` if present."""
    if not p.accept("syncscope"):
        return None
    p.expect("(", "after 'syncscope'")
    scope = p.parse_string()
    p.expect(")", "to close 'syncscope'")
    return scope
