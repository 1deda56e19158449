"""The last step of ``convert-to-llvm``: give every value its LLVM-level type and fix the ops
whose meaning depended on ``index``.

Types change in place (``index`` -> ``iN``, ``!tile.ptr`` -> ``!llvm.ptr<as>``, ``tf32`` ->
``i32``, FP8 -> ``i8``); ``arith.constant``s of ``index`` get ``iN`` values, FP8 ones their bits; ``arith.index_cast(ui)`` between
two now-equal widths disappear and otherwise become ``extsi``/``extui``/``trunci``;
``builtin.unrealized_conversion_cast``s whose two sides now agree disappear.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr, TypeAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.dense import DenseElementsAttr
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import IndexType, IntegerType, VectorType, bit_width
from layoutc.ir.dialects import arith, func, gpu, llvm
from layoutc.ir.dialects.builtin import UnrealizedConversionCastOp

from .llvm_types import LLVMTypeConverter
from .tile_to_llvm import ConversionError

_LEGAL_DIALECTS = frozenset({"builtin", "func", "arith", "cf", "llvm", "nvvm"})


def retype(module: Operation, types: LLVMTypeConverter) -> None:
    conv = types.convert
    ops = list(module.walk_ops(include_self=False))
    for op in ops:
        for r in op.results:
            r.type = conv(r.type)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.type = conv(a.type)
        if isinstance(op, func.FuncOp):
            op.function_type = TypeAttr(conv(op.type))
        elif isinstance(op, arith.ConstantOp):
            v = op.value
            t = op.results[0].type
            if v.type is not t and isinstance(v, (IntegerAttr, DenseElementsAttr)):
                op.value = _retyped_constant(op, v, t)
            elif v.type is not t and isinstance(v, FloatAttr) and v.type.width == 8:
                fmt = v.type.format  # an FP8 constant: its bits, rounded to the format
                op.value = IntegerAttr(fmt.to_bits(fmt.round(v.value)), t)
        elif isinstance(op, (llvm.GEPOp, llvm.AllocaOp, llvm.GlobalOp)):
            key = "global_type" if isinstance(op, llvm.GlobalOp) else "elem_type"
            ta = op.properties[key]
            op.properties[key] = TypeAttr(conv(ta.type))
    for op in ops:
        if op.parent is None:
            continue
        if isinstance(op, (arith.IndexCastOp, arith.IndexCastUIOp)):
            _fix_index_cast(op)
        elif isinstance(op, UnrealizedConversionCastOp):
            _reconcile(op)
    for op in module.walk_ops(include_self=False):
        dialect = op.name.split(".", 1)[0]
        if dialect not in _LEGAL_DIALECTS and not isinstance(op, gpu.PrintfOp):
            # gpu.printf stays for code generation (CUDA's vprintf ABI, or the C library's
            # printf on the CPU: compiler/codegen/translate_printf.py)
            raise ConversionError(op, f"cannot be converted to the LLVM level: {_hint(dialect)}")


def _retyped_constant(op: Any, value: Any, t: Any) -> Any:
    """An index constant (or vector of them) as the same integer(s) of the LLVM-level type."""
    try:
        if isinstance(value, DenseElementsAttr):
            integers = all(isinstance(e, IntegerAttr) for e in value.elements)
            if not (
                integers and isinstance(t, VectorType) and isinstance(t.element_type, IntegerType)
            ):
                raise ConversionError(op, f"not supported: the constant {value.text} as {t.text}")
            for e in value.elements:
                if isinstance(e.type, IndexType):
                    _require_signed_fit(op, e.value, t.element_type.width)
            return DenseElementsAttr(t, [e.value for e in value.elements])
        if isinstance(value.type, IndexType) and isinstance(t, IntegerType):
            _require_signed_fit(op, value.value, t.width)
        return IntegerAttr(value.value, t)
    except ValueError:
        hint = (
            " (the index type is 32 bits wide here; convert-to-llvm{index-bitwidth=64} holds it)"
            if value.type.text == "index"
            else ""
        )
        raise ConversionError(op, f"constant {value.text} does not fit {t.text}{hint}") from None


def _require_signed_fit(op: Any, v: int, width: int) -> None:
    """``index`` is signed: refuse (as not fitting) a value outside iN's signed range, which
    the signless range would otherwise take and wrap (2^31 + k is not -2^31 + k in an address
    computation)."""
    if not -(1 << (width - 1)) <= v < (1 << (width - 1)):
        raise ValueError(f"integer {v} does not fit in i{width}")


def _hint(dialect: str) -> str:
    return {
        "layout": "run lower-layouts first",
        "tile": "run lower-algorithms and lower-layouts first",
    }.get(dialect, f"no conversion for the '{dialect}' dialect")


def _fix_index_cast(op: Any) -> None:
    src, dst = op.input.type, op.results[0].type
    ws = bit_width(src.element_type if isinstance(src, VectorType) else src)
    wd = bit_width(dst.element_type if isinstance(dst, VectorType) else dst)
    if ws == wd:
        op.replace_all_uses_with([op.input])
        op.erase()
        return
    b = Builder(InsertionPoint.before_op(op), op.location)
    if wd < ws:
        new = b.create(arith.TruncIOp, op.input, dst)
    elif isinstance(op, arith.IndexCastOp):
        new = b.create(arith.ExtSIOp, op.input, dst)
    else:
        new = b.create(arith.ExtUIOp, op.input, dst)
    op.replace_all_uses_with(new)
    op.erase()


def _reconcile(op: Any) -> None:
    ins, outs = op.operands, op.results
    if len(ins) == len(outs) and all(a.type is b.type for a, b in zip(ins, outs)):
        op.replace_all_uses_with(list(ins))
        op.erase()
        return
    if not any(r.uses for r in outs):
        op.erase()
        return
    types = ", ".join(v.type.text for v in ins) + " to " + ", ".join(r.type.text for r in outs)
    raise ConversionError(op, f"cannot reconcile a cast from {types} at the LLVM level")
