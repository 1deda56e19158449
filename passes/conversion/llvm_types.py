"""Type conversion to the LLVM level: ``index`` -> ``iN``, ``!tile.ptr<e, space, a>`` ->
``!llvm.ptr<as>``, ``tf32`` -> ``i32`` (its register bits), ``f8E4M3FN``/``f8E5M2`` -> ``i8``.

Address spaces: global memory is 1 and shared memory 3 (NVPTX's numbers; the host translation
maps every address space to 0). Register memory is the generic space 0: register fragments are
``llvm.alloca``s used directly, which LLVM's SROA/mem2reg promote to registers (an
``addrspacecast`` to the local space 5 would stop that; NVPTX puts what remains in ``.local``).
"""

from __future__ import annotations

from layoutc.ir.core.types import (
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    Type,
    VectorType,
    f8e4m3fn,
    f8e5m2,
    i8,
    tf32,
)
from layoutc.ir.dialects.llvm.types import LLVMArrayType, LLVMPointerType, LLVMStructType
from layoutc.ir.dialects.tile.spaces import GMEM, RMEM, SMEM
from layoutc.ir.dialects.tile.types import PtrType

ADDRESS_SPACES = {GMEM: 1, SMEM: 3, RMEM: 0}

i32 = IntegerType(32)
FP8_TYPES = frozenset({f8e4m3fn, f8e5m2})


class LLVMTypeConverter:
    """Converts types for one ``convert-to-llvm`` run (memoised)."""

    def __init__(self, index_bitwidth: int = 64):
        if index_bitwidth not in (32, 64):
            raise ValueError(f"index-bitwidth must be 32 or 64, got {index_bitwidth}")
        self.index_type = IntegerType(index_bitwidth)
        self._memo: dict[Type, Type] = {}

    def convert(self, t: Type) -> Type:
        got = self._memo.get(t)
        if got is None:
            got = self._memo[t] = self._convert(t)
        return got

    def _convert(self, t: Type) -> Type:
        if isinstance(t, IndexType):
            return self.index_type
        if t is tf32:
            return i32
        if t in FP8_TYPES:
            return i8
        if isinstance(t, PtrType):
            return LLVMPointerType(ADDRESS_SPACES[t.space])
        if isinstance(t, VectorType):
            return VectorType(t.shape, self.convert(t.element_type), t.scalable)
        if isinstance(t, FunctionType):
            return FunctionType(
                [self.convert(x) for x in t.inputs], [self.convert(x) for x in t.results]
            )
        if isinstance(t, LLVMStructType):
            return LLVMStructType([self.convert(x) for x in t.body], t.packed)
        if isinstance(t, LLVMArrayType):
            return LLVMArrayType(t.size, self.convert(t.element_type))
        return t

    def element(self, t: Type) -> Type:
        """The LLVM type of a tile element type (``tf32`` is its ``i32`` bits, an FP8 type its
        ``i8`` bits: LLVM has no 8-bit float types)."""
        if t in FP8_TYPES:
            return i8
        return i32 if t is tf32 else t

    @staticmethod
    def element_bytes(t: Type) -> int:
        if isinstance(t, (IntegerType, FloatType)):
            return max(1, t.width // 8)
        raise ValueError(f"'{t.text}' has no byte size")
