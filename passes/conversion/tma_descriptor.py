"""``tile.tma_descriptor`` at the LLVM level.

Host target: the CPU runtime's descriptor, 16 ``i64`` words in an ``alloca`` that the TMA
helpers of runtime/cpu_support_ir.py read at the same word offsets (tests/hopper/test_tma_cpu.py
runs both against a numpy model of the hardware):

| word | field |
|---|---|
| 0 | base address |
| 1 | rank (TMA dimensions) |
| 2 | element bytes |
| 3 | swizzle span in bytes (0, 32, 64, 128) |
| 4-8 | extents, TMA dimension order (innermost first; unused: 1) |
| 9-13 | strides in bytes (unused: 0) |
| 14 | box extents, 12 bits each, dimension 0 in the low bits (unused: 1) |

GPU target: the descriptor is a grid-constant kernel parameter the runtime encodes with
``cuTensorMapEncodeTiled``; that parameter is not part of the kernel ABI yet, so a GPU build
is refused with a clear diagnostic (docs/hopper.md, "Not done").
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.types import i64, index
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.func import FuncOp
from layoutc.ir.dialects.llvm import AllocaOp, ConstantOp, GEPOp, LLVMArrayType, PtrToIntOp, StoreOp

from .tensor_access import IndexEmitter

WORDS = 16
BASE, RANK, ELEM_BYTES, SWIZZLE, DIMS, STRIDES, BOX = 0, 1, 2, 3, 4, 9, 14
BOX_BITS = 12


def lower_tma_descriptor(lw: Any, op: Any, error: Any) -> None:
    """Replace ``op`` by the CPU descriptor (host) or refuse (nvvm)."""
    if lw.target != "host":
        raise error(
            op,
            "not supported yet: TMA on the GPU (the descriptor as a grid-constant kernel "
            "parameter is not part of the kernel ABI yet); run TMA kernels with target='cpu'",
        )
    elem_bytes = op.ptr.type.element_bits // 8
    func = op.parent_op
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op
    entry = func.regions[0].blocks[0]
    eb = Builder(InsertionPoint.at_start(entry), op.location)
    one = eb.create(ConstantOp, IntegerAttr(1, i64)).results[0]
    slot = eb.create(AllocaOp, one, LLVMArrayType(WORDS, i64), 64).results[0]
    b = Builder(InsertionPoint.before_op(op), op.location)
    e = IndexEmitter(b)

    def store(word: int, value: Any) -> None:
        if isinstance(value, int):
            v = b.create(ConstantOp, IntegerAttr(value, i64)).results[0]
        elif value.type is index:
            v = b.create(arith.IndexCastOp, value, i64).results[0]
        else:
            v = value
        p = b.create(GEPOp, slot, [0, word], LLVMArrayType(WORDS, i64)).results[0]
        b.create(StoreOp, v, p, 8)

    store(BASE, b.create(PtrToIntOp, op.ptr, i64).results[0])
    dims = op.dim_modes
    store(RANK, len(dims))
    store(ELEM_BYTES, elem_bytes)
    store(SWIZZLE, op.swizzle.value)
    box_word = 0
    for k in range(5):
        if k < len(dims):
            m = dims[k]
            extent = op.extents[m]
            step = e.mul(op.strides[m], elem_bytes)
            box = op.box_extents[k]
        else:
            extent, step, box = 1, 0, 1
        store(DIMS + k, extent if isinstance(extent, int) else e._v(extent))
        store(STRIDES + k, step if isinstance(step, int) else e._v(step))
        box_word |= box << (BOX_BITS * k)
    store(BOX, box_word)
    op.replace_all_uses_with([slot])
    op.erase()
