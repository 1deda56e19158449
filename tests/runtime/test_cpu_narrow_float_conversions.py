"""bf16 and f16 conversions on the CPU runtime: the compiler-rt functions LLVM calls on x86
(f32 <-> f16 without F16C, f64 <-> f16 always, f32 -> bf16 without AVX512-BF16, f64 -> bf16
always) are supplied by the runtime's support module.

Kernels are compiled for baseline x86-64 so the calls are emitted whatever this machine has.
bf16 results must equal the input rounded once to nearest even (computed exactly with
fractions); f16 results must equal numpy's conversions; NaN stays NaN.
"""

from __future__ import annotations

import ctypes
import math
import platform
import struct
from fractions import Fraction

import numpy as np
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
define i16 @f16_from_f32(float %x) {
  %b = fptrunc float %x to half
  %i = bitcast half %b to i16
  ret i16 %i
}
define i16 @f16_from_f64(double %x) {
  %b = fptrunc double %x to half
  %i = bitcast half %b to i16
  ret i16 %i
}
define float @f32_from_f16(i16 %x) {
  %h = bitcast i16 %x to half
  %f = fpext half %h to float
  ret float %f
}
define double @f64_from_f16(i16 %x) {
  %h = bitcast i16 %x to half
  %f = fpext half %h to double
  ret double %f
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
    for libcall in ("__truncsfbf2", "__truncdfbf2", "__truncsfhf2", "__truncdfhf2"):
        assert libcall in asm  # the libcalls are really used
    assert "__extendhfsf2" in asm
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.finalize_object()

    def fn(name, res, arg):
        return ctypes.CFUNCTYPE(res, arg)(engine.get_function_address(name))

    u16, f32, f64 = ctypes.c_uint16, ctypes.c_float, ctypes.c_double
    return (
        engine,
        fn("from_f32", u16, f32),
        fn("from_f64", u16, f64),
        {
            "f16_from_f32": fn("f16_from_f32", u16, f32),
            "f16_from_f64": fn("f16_from_f64", u16, f64),
            "f32_from_f16": fn("f32_from_f16", f32, u16),
            "f64_from_f16": fn("f64_from_f16", f64, u16),
        },
    )


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


F16_EDGES = [
    *EDGES,
    65504.0,  # f16 max
    65519.99,  # below the midpoint to 65536: max
    65520.0,  # the midpoint: ties to even (infinity)
    2**-14,  # smallest normal
    2**-24,  # smallest subnormal
    2**-25,  # half of it: ties to even (zero)
    2**-25 + 2**-40,  # just above: smallest subnormal
    3 * 2**-26,  # 0.75 of the smallest subnormal: rounds up
    1.0 + 2**-11,  # tie at 1: even (1.0)
    1.0 + 3 * 2**-11,  # tie: even (1 + 2^-9)
    6.1e-5,  # just below 2^-14: the largest subnormals
    -7.0e-8,
]


def _np_f16_bits(x, src) -> int:
    return int(np.array(x, dtype=src).astype(np.float16).view(np.uint16))


def _check_f16(bits: int, want: int) -> None:
    if (want & 0x7C00) == 0x7C00 and (want & 0x3FF):
        assert (bits & 0x7C00) == 0x7C00 and (bits & 0x3FF), hex(bits)
    else:
        assert bits == want, (hex(bits), hex(want))


@pytest.mark.parametrize("x", F16_EDGES)
def test_to_f16_match_numpy(converters, x):
    conv = converters[3]
    with np.errstate(over="ignore"):
        _check_f16(conv["f16_from_f64"](x), _np_f16_bits(x, np.float64))
        x32 = ctypes.c_float(x).value
        _check_f16(conv["f16_from_f32"](x32), _np_f16_bits(x32, np.float32))


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=True))
def test_f64_to_f16_random(converters, x):
    with np.errstate(over="ignore"):
        _check_f16(converters[3]["f16_from_f64"](x), _np_f16_bits(x, np.float64))


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=True))
def test_f32_to_f16_random(converters, x):
    with np.errstate(over="ignore"):
        _check_f16(converters[3]["f16_from_f32"](x), _np_f16_bits(x, np.float32))


def test_every_f16_widens_exactly(converters):
    conv = converters[3]
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    want32 = every.view(np.float16).astype(np.float32)
    got32 = np.array([conv["f32_from_f16"](int(b)) for b in every], dtype=np.float32)
    got64 = np.array([conv["f64_from_f16"](int(b)) for b in every], dtype=np.float64)
    nan = np.isnan(want32)
    assert np.array_equal(np.isnan(got32), nan) and np.array_equal(np.isnan(got64), nan)
    assert np.array_equal(got32.view(np.uint32)[~nan], want32.view(np.uint32)[~nan])
    assert np.array_equal(got64[~nan], want32[~nan].astype(np.float64))
