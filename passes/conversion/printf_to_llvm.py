"""``gpu.printf`` -> CUDA's ``vprintf`` in llvm ops (part of ``convert-to-llvm{target=nvvm}``),
as upstream MLIR's GPU-to-NVVM lowering does, so that the last stage of the GPU pipeline holds
only llvm and nvvm ops.

The format becomes a private constant global (``"...\\00"``, one per distinct text); the
arguments, after C's default promotions (integers narrower than 32 bits to ``i32``: ``i1``
zero-extended, others sign-extended, as layoutc's integers are signed; floats to ``f64``), are
stored into a struct allocated in the function's entry block, and
``llvm.call @vprintf(%format, %args)`` passes both (``llvm.func @vprintf(!llvm.ptr, !llvm.ptr)
-> i32`` is declared once; the CUDA driver resolves it). The CPU flavour keeps ``gpu.printf``
for its translation (the C library's printf).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import IntegerAttr, StringAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import FloatType, IntegerType, Type, f64, i8, i32, i64
from layoutc.ir.core.values import Value
from layoutc.ir.dialects.func import FuncOp
from layoutc.ir.dialects.gpu import PrintfOp
from layoutc.ir.dialects.llvm import (
    AddressOfOp,
    AllocaOp,
    ConstantOp,
    GEPOp,
    GlobalOp,
    LLVMArrayType,
    LLVMCallOp,
    LLVMFuncOp,
    LLVMFunctionType,
    LLVMPointerType,
    LLVMStructType,
    StoreOp,
    ZeroOp,
)
from layoutc.ir.dialects.llvm.arith_ops import FPExtOp, SExtOp, ZExtOp

VPRINTF = "vprintf"
_PTR = LLVMPointerType(0)


def lower_printf_to_vprintf(module: Operation) -> int:
    """Lower every ``gpu.printf`` in ``module``; return how many."""
    printfs = [op for op in module.walk_ops() if isinstance(op, PrintfOp)]
    if not printfs:
        return 0
    top = module.regions[0].blocks[0]
    first = top.first_op
    symbols = {op.sym_name.value for op in top.ops if "sym_name" in op.properties}
    if VPRINTF not in symbols:
        decl = LLVMFuncOp(VPRINTF, LLVMFunctionType([_PTR, _PTR], i32), declaration=True)
        top.insert_before(decl, first)
    formats: dict[str, GlobalOp] = {}
    for op in printfs:
        text = op.format.value + "\0"
        g = formats.get(text)
        if g is None:
            name = _unique(f"__layoutc_printf_fmt{len(formats)}", symbols)
            size = len(text.encode("utf-8"))
            g = GlobalOp(
                name,
                LLVMArrayType(size, i8),
                linkage="private",
                value=StringAttr(text),
                constant=True,
                loc=op.location,
            )
            top.insert_before(g, first)
            formats[text] = g
        _lower(op, g)
    return len(printfs)


def _unique(name: str, taken: set[str]) -> str:
    n, out = 0, name
    while out in taken:
        n += 1
        out = f"{name}_{n}"
    taken.add(out)
    return out


def _promote(b: Builder, v: Value) -> Value:
    t: Type = v.type
    if isinstance(t, FloatType) and t.width < 64:
        return b.create(FPExtOp, v, f64).results[0]
    if isinstance(t, IntegerType) and t.width < 32:
        cls = ZExtOp if t.width == 1 else SExtOp
        return b.create(cls, v, i32).results[0]
    return v


def _lower(op: Any, fmt: GlobalOp) -> None:
    b = Builder(InsertionPoint.before_op(op), op.location)
    address = b.create(AddressOfOp, fmt).results[0]
    args = [_promote(b, v) for v in op.args]
    if args:
        struct = LLVMStructType([a.type for a in args])
        func = op.parent_op
        while func is not None and not isinstance(func, (FuncOp, LLVMFuncOp)):
            func = func.parent_op
        assert func is not None, "gpu.printf outside a function"
        entry = Builder(InsertionPoint.at_start(func.body.blocks[0]), op.location)
        one = entry.create(ConstantOp, IntegerAttr(1, i64)).results[0]
        buf = Builder(InsertionPoint.after_op(one.defining_op), op.location).create(
            AllocaOp, one, struct
        )
        for i, a in enumerate(args):
            slot = b.create(GEPOp, buf.results[0], [0, i], struct).results[0]
            b.create(StoreOp, a, slot)
        pointer = buf.results[0]
    else:
        pointer = b.create(ZeroOp, _PTR).results[0]
    b.create(LLVMCallOp, VPRINTF, [address, pointer], i32)
    op.erase()
