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
    memo = types._memo
    conv = types.convert
    kinds = _KINDS
    ops = list(module.walk_ops(include_self=False))
    casts = []
    illegal = None
    for op in ops:
        for r in op.results:
            t = r.type
            new = memo.get(t)
            r.type = new if new is not None else conv(t)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.type = conv(a.type)
        found = kinds.get(type(op))
        action, legal = found if found is not None else _classify(op)
        if not legal and illegal is None:
            illegal = op  # the first in walk order is reported (below)
        if action is _PLAIN:
            continue
        if action is _FUNC:
            op.function_type = TypeAttr(conv(op.type))
        elif action is _CONSTANT:
            v = op.value
            t = op.results[0].type
            if v.type is not t and isinstance(v, (IntegerAttr, DenseElementsAttr)):
                op.value = _retyped_constant(op, v, t)
            elif v.type is not t and isinstance(v, FloatAttr) and v.type.width == 8:
                fmt = v.type.format  # an FP8 constant: its bits, rounded to the format
                op.value = IntegerAttr(fmt.to_bits(fmt.round(v.value)), t)
        elif action is _TYPED:
            key = "global_type" if isinstance(op, llvm.GlobalOp) else "elem_type"
            ta = op.properties[key]
            op.properties[key] = TypeAttr(conv(ta.type))
        else:
            casts.append(op)
    for op in casts:
        if op.parent is None:
            continue
        if isinstance(op, UnrealizedConversionCastOp):
            _reconcile(op)
        else:
            _fix_index_cast(op)
    # The ops made above are arith casts and the ones erased are casts (legal ops): the first
    # illegal op of the walk is the first a walk of the result would find.
    if illegal is not None:
        dialect = illegal.name.split(".", 1)[0]
        raise ConversionError(illegal, f"cannot be converted to the LLVM level: {_hint(dialect)}")


# What retype does besides converting result and block argument types, per op class: the
# action, and whether the op may stay at the LLVM level (its dialect is one of
# _LEGAL_DIALECTS; gpu.printf stays for code generation: CUDA's vprintf ABI, or the C
# library's printf on the CPU, compiler/codegen/translate_printf.py).
_PLAIN, _FUNC, _CONSTANT, _TYPED, _CAST = "plain", "func", "constant", "typed", "cast"
_KINDS: dict[type, tuple[str, bool]] = {}


def _classify(op: Operation) -> tuple[str, bool]:
    if isinstance(op, func.FuncOp):
        action = _FUNC
    elif isinstance(op, arith.ConstantOp):
        action = _CONSTANT
    elif isinstance(op, (llvm.GEPOp, llvm.AllocaOp, llvm.GlobalOp)):
        action = _TYPED
    elif isinstance(op, (arith.IndexCastOp, arith.IndexCastUIOp, UnrealizedConversionCastOp)):
        action = _CAST
    else:
        action = _PLAIN
    legal = op.name.split(".", 1)[0] in _LEGAL_DIALECTS or isinstance(op, gpu.PrintfOp)
    if op._def is not None:  # (an unregistered op's name is its own, not its class's)
        _KINDS[type(op)] = (action, legal)
    return action, legal


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
