"""``gpu.printf`` in both flavours, with one output format (C's printf conversions).

- GPU: CUDA's device ``vprintf(const char *fmt, void *args)`` ABI, as MLIR's NVVM lowering and
  clang emit it: the arguments after C's default promotions (integers narrower than 32 bits to
  ``i32``, floats to ``double``) packed in a stack struct of natural alignment, its address and
  a global constant format string passed to ``vprintf`` (declared, resolved by the CUDA driver).
- CPU: the C library's variadic ``printf`` with the same promoted arguments, then
  ``fflush(NULL)`` so the text reaches the file descriptor before Python writes after it.

``gpu.printf`` survives convert-to-llvm (as MLIR lowers it in a pattern of its own); this
module is where it becomes calls.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import gpu
from llvmlite import ir

from .translate_function import FunctionTranslator
from .translate_host import NVVM_HOST
from .translate_nvvm import NVVM_GPU
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


@NVVM_GPU.register(gpu.PrintfOp)
def _printf_gpu(ft: FunctionTranslator, op: gpu.PrintfOp) -> None:
    b = ft.builder
    fmt = _format_pointer(ft, op.format.value)
    args = _args(ft, op)
    if args:
        struct = ir.LiteralStructType([a.type for a in args])
        with b.goto_entry_block():
            buf = b.alloca(struct, name="printf.args")
        for i, a in enumerate(args):
            b.store(a, b.gep(buf, [I32(0), I32(i)], inbounds=True))
        buf_ptr = b.bitcast(buf, _I8P)
    else:
        buf_ptr = ir.Constant(_I8P, None)
    vprintf = ft.module.intrinsic("vprintf", I32, [_I8P, _I8P])
    b.call(vprintf, [fmt, buf_ptr])


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
