"""``gpu.printf`` on the CPU, with the GPU's output format (C's printf conversions).

On the GPU, convert-to-llvm lowers ``gpu.printf`` to CUDA's ``vprintf(const char *fmt, void
*args)`` in llvm ops (passes/conversion/printf_to_llvm.py). On the CPU it survives
convert-to-llvm and becomes here the C library's variadic ``printf`` with the same promoted
arguments (integers narrower than 32 bits to ``i32``, floats to ``double``), then
``fflush(NULL)`` so the text reaches the file descriptor before Python writes after it.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import gpu
from llvmlite import ir

from .translate_function import FunctionTranslator
from .translate_host import NVVM_HOST
from .translate_types import I32

_I8 = ir.IntType(8)
_I8P = _I8.as_pointer()
_F64 = ir.DoubleType()


def _format_pointer(ft: FunctionTranslator, text: str) -> ir.Value:
    """An ``i8*`` to a NUL-terminated private constant holding ``text`` (one per string)."""
    data = text.encode() + b"\0"
    strings = ft.module.helpers.setdefault("printf_strings", {})
    g = strings.get(data)
    if g is None:
        ty = ir.ArrayType(_I8, len(data))
        g = ir.GlobalVariable(ft.module.llvm, ty, f"__layoutc_printf_fmt{len(strings)}")
        g.linkage = "private"
        g.global_constant = True
        g.unnamed_addr = True
        g.initializer = ir.Constant(ty, bytearray(data))
        strings[data] = g
    return ft.builder.bitcast(g, _I8P)


def _promote(ft: FunctionTranslator, value: ir.Value, unsigned: bool = False) -> ir.Value:
    b = ft.builder
    t = value.type
    if isinstance(t, (ir.HalfType, ir.FloatType)) or str(t) == "bfloat":
        return b.fpext(value, _F64)
    if isinstance(t, ir.IntType) and t.width < 32:
        # i1 (a predicate) is 0 or 1; other narrow integers are signed, as layoutc's are
        return b.zext(value, I32) if t.width == 1 or unsigned else b.sext(value, I32)
    return value


def _args(ft: FunctionTranslator, op: Any) -> list[ir.Value]:
    out = []
    for v in op.args:
        value = ft.get(v)
        if v.type.text == "bf16":  # its i16 bits (docs/codegen.md): the f32 with those high bits
            b = ft.builder
            value = b.bitcast(b.shl(b.zext(value, I32), I32(16)), ir.FloatType())
        out.append(_promote(ft, value))
    return out


@NVVM_HOST.register(gpu.PrintfOp)
def _printf_host(ft: FunctionTranslator, op: gpu.PrintfOp) -> None:
    b = ft.builder
    fmt = _format_pointer(ft, op.format.value)
    module = ft.module.llvm
    printf = module.globals.get("printf")
    if printf is None:
        printf = ir.Function(module, ir.FunctionType(I32, [_I8P], var_arg=True), "printf")
    b.call(printf, [fmt, *_args(ft, op)])
    fflush = ft.module.intrinsic("fflush", I32, [_I8P])
    b.call(fflush, [ir.Constant(_I8P, None)])
