"""``arith.remf`` in llvm ops: C's ``fmod``, exactly, on every target.

layoutc's remainder of floats is one definition everywhere: C ``fmod`` (what CuTe's C++ and
``numpy.fmod`` compute): the result is ``x - n * y`` for ``n`` the quotient ``x / y`` rounded
toward zero, computed exactly; it has the sign of ``x`` (``fmod(-0, y) = -0``); ``fmod(x, inf)
= x`` for finite ``x``; ``x`` infinite, ``y`` zero or a NaN operand give NaN. LLVM's ``frem``
means the same, but LLVM's NVPTX back end lowers it to ``x - trunc(x / y) * y``, which is
wrong for -0, infinite ``y`` and large quotients. So ``convert-arith-to-llvm`` does not emit
``llvm.frem``: ``arith.remf`` becomes a call of an internal ``llvm.func`` (one per element
type and module, ``@__layoutc_fmod_f32`` / ``_f64``) whose body computes fmod with plain llvm
ops, and any LLVM back end (upstream MLIR's ``translate_module_to_llvmir`` then NVPTX
included) computes the same values. f16 and bf16 go through f32 (the remainder of two f16
values is an f16 value, so both conversions are exact); vectors element by element.

The body subtracts ``|y| * 2^k`` from ``|x|`` for decreasing ``k``: each subtraction is exact
(Sterbenz's lemma: the running remainder stays below twice the subtrahend), each halving too,
and the result gets the sign bit of ``x``.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import SymbolTable
from layoutc.ir.core.types import FloatType, Type, f32, f64

#: element type -> (integer type, sign mask, magnitude mask, +inf, quiet NaN) as MLIR text.
_BITS = {
    f32: ("i32", -(1 << 31), (1 << 31) - 1, "0x7F800000", "0x7FC00000"),
    f64: ("i64", -(1 << 63), (1 << 63) - 1, "0x7FF0000000000000", "0x7FF8000000000000"),
}

_BODY = """\
llvm.func internal @{name}(%x: {t}, %y: {t}) -> {t} {{
  %sign = llvm.mlir.constant({sign} : {i}) : {i}
  %mag = llvm.mlir.constant({mag} : {i}) : {i}
  %inf = llvm.mlir.constant({inf} : {t}) : {t}
  %nan = llvm.mlir.constant({nan} : {t}) : {t}
  %zero = llvm.mlir.constant(0.000000e+00 : {t}) : {t}
  %two = llvm.mlir.constant(2.000000e+00 : {t}) : {t}
  %half = llvm.mlir.constant(5.000000e-01 : {t}) : {t}
  %xi = llvm.bitcast %x : {t} to {i}
  %yi = llvm.bitcast %y : {t} to {i}
  %axi = llvm.and %xi, %mag : {i}
  %ayi = llvm.and %yi, %mag : {i}
  %ax = llvm.bitcast %axi : {i} to {t}
  %ay = llvm.bitcast %ayi : {i} to {t}
  %uno = llvm.fcmp "uno" %x, %y : {t}
  %xinf = llvm.fcmp "oeq" %ax, %inf : {t}
  %yzero = llvm.fcmp "oeq" %ay, %zero : {t}
  %bad0 = llvm.or %uno, %xinf : i1
  %bad = llvm.or %bad0, %yzero : i1
  %small = llvm.fcmp "olt" %ax, %ay : {t}
  %early = llvm.select %bad, %nan, %x : i1, {t}
  %exit = llvm.or %bad, %small : i1
  llvm.cond_br %exit, ^done(%early : {t}), ^grow(%ay : {t})
^grow(%s: {t}):
  %s2 = llvm.fmul %s, %two : {t}
  %fits = llvm.fcmp "ole" %s2, %ax : {t}
  llvm.cond_br %fits, ^grow(%s2 : {t}), ^shrink(%ax, %s : {t}, {t})
^shrink(%r: {t}, %d: {t}):
  %ge = llvm.fcmp "oge" %r, %d : {t}
  %diff = llvm.fsub %r, %d : {t}
  %r2 = llvm.select %ge, %diff, %r : i1, {t}
  %d2 = llvm.fmul %d, %half : {t}
  %more = llvm.fcmp "oge" %d2, %ay : {t}
  llvm.cond_br %more, ^shrink(%r2, %d2 : {t}, {t}), ^signed(%r2 : {t})
^signed(%m: {t}):
  %mi = llvm.bitcast %m : {t} to {i}
  %xs = llvm.and %xi, %sign : {i}
  %ri = llvm.or %mi, %xs : {i}
  %res = llvm.bitcast %ri : {i} to {t}
  llvm.br ^done(%res : {t})
^done(%v: {t}):
  llvm.return %v : {t}
}}
"""


def fmod_function_name(t: FloatType) -> str:
    return f"__layoutc_fmod_{t.text}"


def fmod_function_text(t: FloatType) -> str:
    """The helper's definition (f32 or f64) as MLIR text."""
    i, sign, mag, inf, nan = _BITS[t]
    return _BODY.format(
        name=fmod_function_name(t), t=t.text, i=i, sign=sign, mag=mag, inf=inf, nan=nan
    )


def compute_type(t: Type) -> FloatType:
    """The type the helper computes ``t`` in: f64 stays, everything else goes through f32."""
    return f64 if t is f64 else f32


def ensure_fmod_function(near: Operation, t: FloatType) -> str:
    """Define the helper for ``t`` in the symbol table that holds ``near`` (once); its name."""
    from layoutc.ir.core.parser import parse
    from layoutc.ir.dialects.llvm import LLVMFuncOp

    table: Any = near.parent_op
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op
    if table is None:
        raise ValueError("arith.remf outside a module: nowhere to define its fmod")
    name = fmod_function_name(t)
    block = table.regions[0].blocks[0]
    for op in block.ops:
        if isinstance(op, LLVMFuncOp) and op.sym_name.value == name:
            return name
    func = next(iter(parse(fmod_function_text(t)).regions[0].blocks[0].ops))
    block.insert_before(func.detach(), block.first_op)
    return name
