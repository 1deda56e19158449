"""Narrow float data for the CPU runtime, which numpy cannot hold: the bit patterns in an
unsigned integer array, exported through DLPack with the narrow type's code."""

from __future__ import annotations

import numpy as np
from layoutc.runtime import dlpack


class Bits:
    """``bits`` (uint8/uint16 array) seen as DLPack type ``(code, bits)``."""

    def __init__(self, bits: np.ndarray, code: int):
        self.bits, self.code, self.shape = bits, code, bits.shape

    def __dlpack__(self, stream=None, **kwargs):
        capsule = self.bits.__dlpack__()
        dlpack.read_capsule(capsule).dtype.code = self.code
        return capsule

    def __dlpack_device__(self):
        return self.bits.__dlpack_device__()


def bf16(values: np.ndarray) -> tuple[Bits, np.ndarray]:
    """(bf16 data rounded toward zero from ``values``, its exact float64 values)."""
    bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    exact = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return Bits(bits, 4), exact  # kDLBfloat


#: (exponent bits, mantissa bits, finite only) of the OCP FP8 formats
FP8 = {"f8e4m3": (4, 3, True), "f8e5m2": (5, 2, False)}
#: DLPack 1.1's type codes (kDLFloat8_e4m3fn, kDLFloat8_e5m2)
FP8_DLPACK = {"f8e4m3": 10, "f8e5m2": 12}


def fp8_values(bits: np.ndarray, name: str) -> np.ndarray:
    """The exact float64 value of each FP8 byte, decoded from the OCP definition: sign,
    exponent with bias 2^(e-1) - 1, mantissa; exponent 0 is subnormal; E4M3 (FN) has no
    infinities and its one NaN is S.1111.111, E5M2 has IEEE infinities and NaNs."""
    e, m, finite_only = FP8[name]
    bias = (1 << (e - 1)) - 1
    b = bits.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp = (b >> m) & ((1 << e) - 1)
    mant = b & ((1 << m) - 1)
    normal = np.ldexp(1.0 + mant / (1 << m), exp - bias)
    sub = np.ldexp(mant / (1 << m), 1 - bias)
    out = sign * np.where(exp == 0, sub, normal)
    top = (1 << e) - 1
    if finite_only:
        out = np.where((exp == top) & (mant == (1 << m) - 1), np.nan, out)
    else:
        out = np.where(exp == top, np.where(mant == 0, sign * np.inf, np.nan), out)
    return out


def fp8(rng: np.random.Generator, shape: tuple[int, ...], name: str) -> tuple[Bits, np.ndarray]:
    """Random FP8 data (every sign and mantissa, exponents within 2^-4..2^4 so that f32 sums
    stay accurate; subnormals included) and its exact float64 values."""
    e, m, _ = FP8[name]
    bias = (1 << (e - 1)) - 1
    exp = rng.integers(bias - 4, bias + 5, shape)
    exp = np.where(rng.random(shape) < 0.05, 0, exp)  # some subnormals
    byte = (rng.integers(0, 2, shape) << 7) | (exp << m) | rng.integers(0, 1 << m, shape)
    bits = byte.astype(np.uint8)
    return Bits(bits, FP8_DLPACK[name]), fp8_values(bits, name)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    """The float64 values of bf16 bit patterns."""
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
