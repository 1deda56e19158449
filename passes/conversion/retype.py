"""The last step of ``convert-to-llvm``: give every value its LLVM-level type and fix the ops
whose meaning depended on ``index``.

Types change in place (``index`` -> ``iN``, ``!tile.ptr`` -> ``!llvm.ptr<as>``, ``tf32`` ->
``i32``); ``arith.constant``s of ``index`` get ``iN`` values; ``arith.index_cast(ui)`` between
two now-equal widths disappear and otherwise become ``extsi``/``extui``/``trunci``;
``builtin.unrealized_conversion_cast``s whose two sides now agree disappear.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import IntegerAttr, TypeAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.dense import DenseElementsAttr
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import IntegerType, VectorType, bit_width
from layoutc.ir.dialects import arith, gpu

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
        if op.name == "func.func":
            op.function_type = TypeAttr(conv(op.type))
        elif op.name == "arith.constant":
            v = op.value
            t = op.results[0].type
            if v.type is not t and isinstance(v, (IntegerAttr, DenseElementsAttr)):
                op.value = _retyped_constant(op, v, t)
        elif op.name in ("llvm.getelementptr", "llvm.alloca", "llvm.mlir.global"):
            key = "global_type" if op.name == "llvm.mlir.global" else "elem_type"
            ta = op.properties[key]
            op.properties[key] = TypeAttr(conv(ta.type))
    for op in ops:
        if op.parent is None:
            continue
        if op.name in ("arith.index_cast", "arith.index_castui"):
            _fix_index_cast(op)
        elif op.name == "builtin.unrealized_conversion_cast":
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
            return DenseElementsAttr(t, [e.value for e in value.elements])
        return IntegerAttr(value.value, t)
    except ValueError:
        hint = (
            " (the index type is 32 bits wide here; convert-to-llvm{index-bitwidth=64} holds it)"
            if value.type.text == "index"
            else ""
        )
        raise ConversionError(op, f"constant {value.text} does not fit {t.text}{hint}") from None


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
    elif op.name == "arith.index_cast":
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
