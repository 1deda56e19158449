"""Types for the IR translation: layoutc IR types -> ``llvmlite.ir`` types, sizes, errors.

bf16 values are carried as ``i16`` bits in both flavours (see ``_FLOATS``).

Pointers: the LLVM dialect's pointers are opaque (``!llvm.ptr<as>``), ``llvmlite.ir`` prints
typed pointers (what libNVVM reads), so every pointer value is an ``i8 addrspace(as)*`` and is
bitcast to the accessed type where it is loaded, stored or indexed (LLVM folds the casts). The
host flavour maps every address space to 0.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.diagnostics import Diagnostic, DiagnosticError, Severity
from layoutc.ir.core.location import UnknownLoc
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import (
    FloatType,
    IndexType,
    IntegerType,
    NoneType,
    Type,
    VectorType,
)
from layoutc.ir.dialects.llvm.types import LLVMArrayType, LLVMPointerType, LLVMStructType
from llvmlite import ir


class TranslationError(DiagnosticError):
    """The IR cannot be translated; carries ``file:line:col: error:`` diagnostics."""


def fail(op: Operation, message: str) -> TranslationError:
    """An error at ``op``'s location (``raise fail(op, "...")``)."""
    return TranslationError([op.diagnostic(message)])


def fail_at(loc: Any, message: str) -> TranslationError:
    """An error at a location that is not an op (a block argument, a whole module)."""
    return TranslationError([Diagnostic(Severity.ERROR, message, loc)])


I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
VOID = ir.VoidType()

_FLOATS: dict[str, ir.Type] = {
    "f16": ir.HalfType(),
    # bf16 values are their 16 bits: libNVVM's IR has no `bfloat` type and the host back ends
    # would need library calls for it; arithmetic goes through f32 (translate_arith.py).
    "bf16": ir.IntType(16),
    "f32": ir.FloatType(),
    "f64": ir.DoubleType(),
}


class TypeConverter:
    """Maps IR types to llvmlite types for one translation (index width, flavour)."""

    def __init__(self, index_bitwidth: int, host: bool):
        if index_bitwidth not in (32, 64):
            raise ValueError(f"index bit width must be 32 or 64, got {index_bitwidth}")
        self.index_bitwidth = index_bitwidth
        self.host = host
        self._cache: dict[Type, ir.Type] = {}
        self._pointers: dict[tuple[int, int], ir.PointerType] = {}

    def address_space(self, space: int) -> int:
        """The LLVM address space of IR address space ``space`` (0 on the host)."""
        return 0 if self.host else space

    def pointer(self, space: int = 0) -> ir.PointerType:
        """The canonical pointer: ``i8 addrspace(space)*``."""
        return self.pointer_to(I8, self.address_space(space))

    def pointer_to(self, elem: ir.Type, addrspace: int) -> ir.PointerType:
        """``elem addrspace(addrspace)*`` (LLVM's address space), one object per pair: a
        translation asks for the same few thousands of times, and llvmlite caches a type's text
        on the object. Keyed by ``id(elem)``: the cached pointer keeps ``elem`` alive."""
        key = (id(elem), addrspace)
        got = self._pointers.get(key)
        if got is None:
            got = self._pointers[key] = ir.PointerType(elem, addrspace)
        return got

    def convert(self, t: Type, where: Any = None) -> ir.Type:
        """The llvmlite type of ``t``; ``where`` (op or location) locates errors."""
        got = self._cache.get(t)
        if got is not None:
            return got
        got = self._convert(t, where)
        self._cache[t] = got
        return got

    def _convert(self, t: Type, where: Any) -> ir.Type:
        if isinstance(t, IntegerType):
            if not t.is_signless:
                raise self._error(where, f"not supported: signed/unsigned integer type '{t.text}'")
            return ir.IntType(t.width)
        if isinstance(t, IndexType):
            return ir.IntType(self.index_bitwidth)
        if isinstance(t, FloatType):
            llvm = _FLOATS.get(t.format.name)
            if llvm is None:
                raise self._error(
                    where, f"not supported: '{t.text}' has no LLVM type (tf32 lives in i32 bits)"
                )
            return llvm
        if isinstance(t, VectorType):
            if len(t.shape) != 1 or any(t.scalable):
                raise self._error(where, f"not supported: vector type '{t.text}' (1-D only)")
            return ir.VectorType(self.convert(t.element_type, where), t.shape[0])
        if isinstance(t, LLVMPointerType):
            return self.pointer(t.address_space)
        if isinstance(t, LLVMStructType):
            body = [self.convert(e, where) for e in t.body]
            return ir.LiteralStructType(body, packed=t.packed)
        if isinstance(t, LLVMArrayType):
            return ir.ArrayType(self.convert(t.element_type, where), t.size)
        if isinstance(t, NoneType):
            return VOID
        raise self._error(where, f"not supported: type '{t.text}' in LLVM IR translation")

    @staticmethod
    def _error(where: Any, message: str) -> TranslationError:
        if isinstance(where, Operation):
            return fail(where, message)
        return fail_at(where if where is not None else UnknownLoc(), message)


def size_and_alignment(t: Type) -> tuple[int, int]:
    """ABI size and alignment in bytes of an LLVM-level type (NVPTX and x86-64/AArch64 agree
    for everything code generation produces: naturally aligned scalars, vectors aligned to
    their size, C struct layout)."""
    if isinstance(t, (IntegerType, FloatType)):
        n = max(1, (t.width + 7) // 8)
        n = 1 << (n - 1).bit_length()
        return n, n
    if isinstance(t, IndexType):
        return 8, 8
    if isinstance(t, LLVMPointerType):
        return 8, 8
    if isinstance(t, VectorType):
        es, _ = size_and_alignment(t.element_type)
        total = es * t.num_elements
        align = 1 << (total - 1).bit_length() if total else 1
        return align, align
    if isinstance(t, LLVMArrayType):
        es, ea = size_and_alignment(t.element_type)
        return es * t.size, ea
    if isinstance(t, LLVMStructType):
        offset, align = 0, 1
        for e in t.body:
            es, ea = size_and_alignment(e)
            if not t.packed:
                offset = (offset + ea - 1) // ea * ea
                align = max(align, ea)
            offset += es
        if not t.packed:
            offset = (offset + align - 1) // align * align
        return offset, align
    raise ValueError(f"type '{t.text}' has no size")
