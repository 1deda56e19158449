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

``tile.tma_im2col_descriptor`` (24 words) normalises the tensor to rank 5, (C, W, H, D, N):
words 4-8 and 9-13 are those five dimensions' extents and byte strides (a missing spatial
dimension has extent 1, stride 0), then

| word | field |
|---|---|
| 14 | channels per pixel |
| 15 | pixels per load |
| 16-18 | the bounding box's lower corner (W, H, D; missing: 0) |
| 19-21 | its upper corner (W, H, D; missing: 0) |
| 22-24 | the traversal strides (W, H, D; missing: 1) |

GPU target: the descriptor is a grid-constant kernel parameter the runtime encodes with
``cuTensorMapEncodeTiled`` at launch (runtime/tma.py). The op becomes a new argument of the
kernel, appended after the others, with upstream's argument attributes ``llvm.byval``
(``!llvm.array<128 x i8>``), ``llvm.align = 64`` and ``nvvm.grid_constant`` (PTX
``.param .align 64 .b8 p[128]``, its generic address taken with ``cvta.param``), plus
``layoutc.tma``: what the runtime needs to encode it (the source argument's index, the box,
the TMA dimension order, the swizzle, and each extent and stride as a constant or the index
of the argument carrying it; an im2col descriptor adds its mode, pixels and corners, and its
traversal strides when any is not 1).
Descriptors of one tensor with the same box share an argument.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.types import i64, index
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.func import FuncOp
from layoutc.ir.dialects.llvm import AllocaOp, ConstantOp, GEPOp, LLVMArrayType, PtrToIntOp, StoreOp
from layoutc.ir.dialects.llvm.arith_ops import SExtOp

from .tensor_access import IndexEmitter

WORDS = 16
IM2COL_WORDS = 25
CHANNELS, PIXELS, LOWER, UPPER, TRAVERSAL = 14, 15, 16, 19, 22
BASE, RANK, ELEM_BYTES, SWIZZLE, DIMS, STRIDES, BOX = 0, 1, 2, 3, 4, 9, 14
BOX_BITS = 12


TMA_ATTR = "layoutc.tma"
DESCRIPTOR_BYTES = 128


def _enclosing_func(op: Any) -> Any:
    func = op.parent_op
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op
    return func


def _argument_source(value: Any, entry: Any) -> int | None:
    """``k >= 0`` for a constant ``k``, ``-1 - i`` for argument ``i`` of the kernel (through
    integer casts), None for anything computed."""
    from layoutc.ir.core.folding import constant_value
    from layoutc.ir.core.values import BlockArgument

    for _ in range(8):
        if isinstance(value, BlockArgument):
            return -1 - value.index if value.block is entry else None
        c = constant_value(value)
        if isinstance(c, IntegerAttr):
            return int(c.value) if c.value >= 0 else None
        d = value.defining_op
        if not isinstance(d, _CASTS) or len(d.operands) != 1:
            return None
        value = d.operands[0]
    return None


#: Integer casts an extent or stride may go through between the argument and the descriptor.
_CASTS = (arith.IndexCastOp, arith.IndexCastUIOp, arith.ExtSIOp, arith.ExtUIOp, SExtOp)


def _gpu_descriptor(op: Any, error: Any) -> None:
    """The descriptor as a grid-constant kernel argument (see the module docstring)."""
    from layoutc.ir.core.attributes import (
        ArrayAttr,
        DenseArrayAttr,
        DictionaryAttr,
        StringAttr,
        TypeAttr,
        UnitAttr,
    )
    from layoutc.ir.core.types import FunctionType, i8
    from layoutc.ir.core.values import BlockArgument
    from layoutc.ir.dialects.llvm.types import LLVMPointerType
    from layoutc.ir.dialects.tile import TmaIm2colDescriptorOp

    func = _enclosing_func(op)
    entry = func.regions[0].blocks[0]
    if not isinstance(op.ptr, BlockArgument) or op.ptr.block is not entry:
        raise error(
            op,
            "TMA on the GPU needs the descriptor of a kernel-argument tensor (the runtime "
            "encodes it at launch from the argument): make the copy of the argument itself and "
            "tile its lc.get_tma_tensor() instead of a view",
        )
    entries = []
    for what, values in (("extent", op.extents), ("stride", op.strides)):
        for i, v in enumerate(values):
            src = _argument_source(v, entry)
            if src is None:
                raise error(
                    op,
                    f"TMA on the GPU: {what} {i} of the descriptor is computed in the kernel; "
                    "the runtime encodes descriptors from the argument tensor's own layout",
                )
            entries.append(src)
    n = len(op.extents)
    spec = DictionaryAttr(
        {
            "source": IntegerAttr(op.ptr.index, i64),
            "box": DenseArrayAttr(i64, op.box_extents),
            "dims": DenseArrayAttr(i64, op.dim_modes),
            "swizzle": IntegerAttr(op.swizzle.value, i64),
            "extents": DenseArrayAttr(i64, entries[:n]),
            "strides": DenseArrayAttr(i64, entries[n:]),
        }
    )
    if isinstance(op, TmaIm2colDescriptorOp):
        lower, upper = op.corners
        spec = DictionaryAttr(
            {
                **dict(spec.entries),
                "mode": StringAttr("im2col"),
                "pixels": IntegerAttr(op.pixels.value, i64),
                "lower": DenseArrayAttr(i64, lower),
                "upper": DenseArrayAttr(i64, upper),
                **(
                    {"traversal": DenseArrayAttr(i64, op.traversal_strides)}
                    if op.traversal is not None
                    else {}
                ),
            }
        )
    attrs = list(func.arg_attrs) if func.arg_attrs is not None else []
    attrs += [DictionaryAttr()] * (len(entry.args) - len(attrs))
    for i, a in enumerate(attrs):
        if dict(a.entries).get(TMA_ATTR) == spec:
            op.replace_all_uses_with([entry.args[i]])
            op.erase()
            return
    t = LLVMPointerType(0)
    arg = entry.add_argument(t, op.location)
    arg.name_hint = f"tma{sum(TMA_ATTR in dict(a.entries) for a in attrs)}"
    attrs.append(
        DictionaryAttr(
            {
                "llvm.byval": TypeAttr(LLVMArrayType(DESCRIPTOR_BYTES, i8)),
                "llvm.align": IntegerAttr(64, i64),
                "nvvm.grid_constant": UnitAttr(),
                TMA_ATTR: spec,
            }
        )
    )
    ftype = func.type
    func.function_type = TypeAttr(FunctionType([*ftype.inputs, t], ftype.results))
    func.arg_attrs = ArrayAttr(attrs)
    op.replace_all_uses_with([arg])
    op.erase()


def lower_tma_descriptor(lw: Any, op: Any, error: Any) -> None:
    """Replace ``op`` by the CPU descriptor (host) or a grid-constant kernel argument (nvvm)."""
    if lw.target != "host":
        _gpu_descriptor(op, error)
        return
    from layoutc.ir.dialects.tile import TmaIm2colDescriptorOp

    im2col = isinstance(op, TmaIm2colDescriptorOp)
    words = IM2COL_WORDS if im2col else WORDS
    elem_bytes = op.ptr.type.element_bits // 8
    func = _enclosing_func(op)
    entry = func.regions[0].blocks[0]
    eb = Builder(InsertionPoint.at_start(entry), op.location)
    one = eb.create(ConstantOp, IntegerAttr(1, i64)).results[0]
    slot = eb.create(AllocaOp, one, LLVMArrayType(words, i64), 64).results[0]
    b = Builder(InsertionPoint.before_op(op), op.location)
    e = IndexEmitter(b)

    def store(word: int, value: Any) -> None:
        if isinstance(value, int):
            v = b.create(ConstantOp, IntegerAttr(value, i64)).results[0]
        elif value.type is index:
            v = b.create(arith.IndexCastOp, value, i64).results[0]
        else:
            v = value
        p = b.create(GEPOp, slot, [0, word], LLVMArrayType(words, i64)).results[0]
        b.create(StoreOp, v, p, 8)

    store(BASE, b.create(PtrToIntOp, op.ptr, i64).results[0])
    dims = op.dim_modes
    store(RANK, len(dims))
    store(ELEM_BYTES, elem_bytes)
    store(SWIZZLE, op.swizzle.value)
    if im2col:
        # (C, W, H, D, N): the spatial dimensions the tensor lacks have extent 1, stride 0
        spatial = len(dims) - 2
        slots = dims[:-1] + [None] * (3 - spatial) + dims[-1:]
    else:
        slots = dims + [None] * (5 - len(dims))
    box_word = 0
    for k, m in enumerate(slots):
        if m is not None:
            extent = op.extents[m]
            step = e.mul(op.strides[m], elem_bytes)
            box = op.box_extents[k] if not im2col else 1
        else:
            extent, step, box = 1, 0, 1
        store(DIMS + k, extent if isinstance(extent, int) else e._v(extent))
        store(STRIDES + k, step if isinstance(step, int) else e._v(step))
        box_word |= box << (BOX_BITS * k)
    if im2col:
        lower, upper = op.corners
        steps = op.traversal_strides
        store(CHANNELS, op.channels.value)
        store(PIXELS, op.pixels.value)
        for k in range(3):
            store(LOWER + k, lower[k] if k < len(lower) else 0)
            store(UPPER + k, upper[k] if k < len(upper) else 0)
            store(TRAVERSAL + k, steps[k] if k < len(steps) else 1)
    else:
        store(BOX, box_word)
    op.replace_all_uses_with([slot])
    op.erase()
