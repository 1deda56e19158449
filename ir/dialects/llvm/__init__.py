"""The LLVM dialect: MLIR's ``llvm`` ops, types and attributes that code generation uses.

What convert-to-llvm produces and compiler/codegen/translate.py turns into LLVM IR, with MLIR's
op names, operands, properties and custom forms (docs/codegen.md): memory, values, atomics,
globals, calls, and (produced by ``convert-arith-to-llvm``, ``convert-cf-to-llvm`` and
``convert-func-to-llvm``) arithmetic, functions and branches.
"""

from __future__ import annotations

from ...core.attributes import Attribute, FloatAttr, IntegerAttr
from ...core.builder import Builder
from ...core.context import Dialect
from ...core.dense import DenseElementsAttr
from ...core.location import Location
from ...core.operation import Operation
from ...core.types import Type
from .arith_ops import ARITH_OPS
from .atomic_ops import ATOMIC_OPS, AtomicRMWOp, CmpXchgOp, FenceOp
from .attributes import (
    FASTMATH_NONE,
    GEP_INBOUNDS,
    GEP_NUSW,
    GEP_NUW,
    AsmDialect,
    AtomicBinOp,
    AtomicOrdering,
    CConvAttr,
    LinkageAttr,
    LLVMFastmathFlagsAttr,
    TailCallKindAttr,
)
from .call_ops import CALL_OPS, CallIntrinsicOp, InlineAsmOp
from .cast_ops import CAST_OPS, AddrSpaceCastOp, BitcastOp, IntToPtrOp, PtrToIntOp
from .control_ops import (
    CONTROL_OPS,
    LLVMBrOp,
    LLVMCallOp,
    LLVMCondBrOp,
    LLVMFuncOp,
    LLVMReturnOp,
    UnreachableOp,
)
from .global_ops import GLOBAL_OPS, AddressOfOp, GlobalOp
from .memory_ops import DYNAMIC_INDEX, MEMORY_OPS, AllocaOp, GEPOp, LoadOp, StoreOp
from .types import (
    LLVMArrayType,
    LLVMFunctionType,
    LLVMPointerType,
    LLVMStructType,
    is_llvm_type,
)
from .value_ops import (
    VALUE_OPS,
    ConstantOp,
    ExtractElementOp,
    ExtractValueOp,
    InsertElementOp,
    InsertValueOp,
    PoisonOp,
    UndefOp,
    ZeroOp,
)


def materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """An ``llvm.mlir.constant`` for an integer, float or dense attribute of an LLVM type."""
    constant = (IntegerAttr, FloatAttr, DenseElementsAttr)
    if isinstance(value, constant) and value.type is type and is_llvm_type(type):
        return builder.create(ConstantOp, value, loc=loc)
    return None


ALL_OPS: list[type[Operation]] = [*VALUE_OPS, *CAST_OPS, *MEMORY_OPS, *ATOMIC_OPS, *GLOBAL_OPS]
ALL_OPS += CALL_OPS + ARITH_OPS + CONTROL_OPS

DIALECT = Dialect(
    "llvm",
    ops=ALL_OPS,
    types=[LLVMPointerType, LLVMStructType, LLVMArrayType, LLVMFunctionType],
    attributes=[LinkageAttr, TailCallKindAttr, LLVMFastmathFlagsAttr, CConvAttr],
    materialize_constant=materialize_constant,
)

__all__ = [
    "DIALECT",
    "DYNAMIC_INDEX",
    "FASTMATH_NONE",
    "GEP_INBOUNDS",
    "GEP_NUSW",
    "GEP_NUW",
    "AddrSpaceCastOp",
    "AddressOfOp",
    "AllocaOp",
    "AsmDialect",
    "AtomicBinOp",
    "AtomicOrdering",
    "AtomicRMWOp",
    "CmpXchgOp",
    "BitcastOp",
    "CConvAttr",
    "LLVMBrOp",
    "LLVMCallOp",
    "LLVMCondBrOp",
    "LLVMFuncOp",
    "LLVMFunctionType",
    "LLVMReturnOp",
    "UnreachableOp",
    "CallIntrinsicOp",
    "ConstantOp",
    "ExtractElementOp",
    "ExtractValueOp",
    "FenceOp",
    "GEPOp",
    "GlobalOp",
    "InlineAsmOp",
    "InsertElementOp",
    "InsertValueOp",
    "IntToPtrOp",
    "LLVMArrayType",
    "LLVMFastmathFlagsAttr",
    "LLVMPointerType",
    "LLVMStructType",
    "LinkageAttr",
    "LoadOp",
    "PoisonOp",
    "PtrToIntOp",
    "StoreOp",
    "TailCallKindAttr",
    "UndefOp",
    "ZeroOp",
    "is_llvm_type",
    "materialize_constant",
]
