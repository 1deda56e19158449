"""bf16 rounding on the CPU runtime: the compiler-rt functions LLVM calls on x86 (f32 -> bf16
without AVX512-BF16, f64 -> bf16 always) are supplied by the runtime's support module.

Kernels are compiled for baseline x86-64 so the calls are emitted whatever this machine has; the
results must equal f64 -> bf16 rounded once to nearest even (computed exactly with fractions),
NaN staying NaN.
"""

from __future__ import annotations

import ctypes
import math
import platform
import struct
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="x86 libcalls"
)

_IR = """
define i16 @from_f32(float %x) {
  %b = fptrunc float %x to bfloat
  %i = bitcast bfloat %b to i16
  ret i16 %i
}
define i16 @from_f64(double %x) {
  %b = fptrunc double %x to bfloat
  %i = bitcast bfloat %b to i16
  ret i16 %i
}
"""


@pytest.fixture(scope="module")
def converters():
    from layoutc.runtime.cpu_jit import _llvm, support_symbols

    llvm = _llvm()
    support_symbols()
    module = llvm.parse_assembly(_IR)
    target = llvm.Target.from_triple(llvm.get_process_triple())
    tm = target.create_target_machine(cpu="x86-64", features="", opt=2)
    asm = tm.emit_assembly(module)
    assert "__truncsfbf2" in asm and "__truncdfbf2" in asm  # the libcalls are really used
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.finalize_object()
    f32 = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(engine.get_function_address("from_f32"))
    f64 = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_double)(
        engine.get_function_address("from_f64")
    )
    return engine, f32, f64


def _bf16_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _expected_bits(x: float) -> int | None:
    """bf16 bits of x rounded once to nearest even; None for NaN (any NaN is accepted)."""
    if math.isnan(x):
        return None
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        return sign | 0x7F80
    target = Fraction(abs(x))
    # Candidates: every finite non-negative bf16, found by bisection on the monotone bit order.
    lo, hi = 0, 0x7F7F
    while lo < hi:  # largest bits with value <= target
        mid = (lo + hi + 1) // 2
        if Fraction(_bf16_value(mid)) <= target:
            lo = mid
        else:
            hi = mid - 1
    below = lo
    if Fraction(_bf16_value(below)) == target:
        return sign | below
    above_value = Fraction(2**128) if below == 0x7F7F else Fraction(_bf16_value(below + 1))
    below_value = Fraction(_bf16_value(below))
    mid = (below_value + above_value) / 2
    if target < mid or (target == mid and below % 2 == 0):
        return sign | below
    return sign | (0x7F80 if below == 0x7F7F else below + 1)


EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    1.00390625,  # exactly half a bf16 ulp above 1: ties to even (1.0)
    1.01171875,  # 1 + 3/256: ties to even (1 + 4/256)
    1.00390625 + 2**-30,  # just above the tie: rounds up (f64 double rounding would not)
    3.3895313892515355e38,  # bf16 max
    3.3961e38,  # beyond the midpoint to 2^128: infinity
    3.3928e38,  # below the midpoint: bf16 max
    1e39,
    -1e39,
    2**-133,  # bf16 subnormal
    2**-140,
    1e-300,
    float("inf"),
    float("-inf"),
    float("nan"),
]


def _check(bits: int, x: float) -> None:
    want = _expected_bits(x)
    if want is None:
        assert (bits & 0x7F80) == 0x7F80 and (bits & 0x7F) != 0, hex(bits)
    else:
        assert bits == want, (x, hex(bits), hex(want))


@pytest.mark.parametrize("x", EDGES)
def test_f64_to_bf16_rounds_once_to_nearest_even(converters, x):
    _check(converters[2](x), x)


@pytest.mark.parametrize("x", EDGES)
def test_f32_to_bf16_rounds_to_nearest_even(converters, x):
    x32 = ctypes.c_float(x).value  # f32 rounding (to infinity beyond its range)
    _check(converters[1](x32), x32)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_f64_to_bf16_random(converters, x):
    _check(converters[2](x), x)


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=True, allow_infinity=True))
def test_f32_to_bf16_random(converters, x):
    _check(converters[1](x), x)
