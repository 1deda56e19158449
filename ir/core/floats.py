"""IEEE binary floating-point formats (and the two FP8 formats) used by the builtin float types.

Python floats are binary64; narrower formats (f32, f16, bf16, tf32) are modelled by rounding a
binary64 value to the narrower format (round-to-nearest-even, with subnormals and overflow to
infinity), so folded constants and printed literals carry exactly the value the target computes.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class FloatFormat:
    """Precision ``p`` (significand bits incl. the implicit one), exponent range, bit width."""

    name: str
    precision: int
    emin: int
    emax: int
    width: int

    @property
    def exponent_bits(self) -> int:
        return self.width - self.precision

    @property
    def max_finite(self) -> float:
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.precision), self.emax)

    def round(self, x: float) -> float:
        """Round a binary64 value to the nearest value of this format (ties to even)."""
        if self.precision == 53 or x == 0.0 or not math.isfinite(x):
            return x
        mag = abs(x)
        _, e = math.frexp(mag)  # mag = m * 2**e, 0.5 <= m < 1: leading bit has exponent e-1
        if e - 1 > self.emax:
            return math.copysign(math.inf, x)
        quantum = max(e - 1, self.emin) - (self.precision - 1)
        y = math.ldexp(round(math.ldexp(mag, -quantum)), quantum)
        if y > self.max_finite:
            y = math.inf
        return math.copysign(y, x)

    def to_bits(self, x: float) -> int:
        """The bit pattern of ``x`` (already representable in this format)."""
        if self.width == 64:
            return struct.unpack("<Q", struct.pack("<d", x))[0]
        if self.width == 16 and self.emax == 15:
            return struct.unpack("<H", struct.pack("<e", x))[0]
        bits32 = struct.unpack("<I", struct.pack("<f", x))[0]
        # bf16 and tf32 are truncations of the binary32 layout (same exponent range).
        return bits32 >> (32 - self.width)

    def from_bits(self, bits: int) -> float:
        """The value of a bit pattern of this format."""
        bits &= (1 << self.width) - 1
        if self.width == 64:
            return struct.unpack("<d", struct.pack("<Q", bits))[0]
        if self.width == 16 and self.emax == 15:
            return struct.unpack("<e", struct.pack("<H", bits))[0]
        return struct.unpack("<f", struct.pack("<I", bits << (32 - self.width)))[0]

    def format(self, x: float) -> str | None:
        """MLIR's decimal spelling of a finite value that parses back exactly, else None."""
        if not math.isfinite(x):
            return None
        text = f"{x:.6e}"
        if self._same(self.round(float(text)), x):
            return text
        for digits in range(1, 18):
            text = f"{x:.{digits}g}"
            if self._same(self.round(float(text)), x):
                break
        else:  # pragma: no cover - 17 significant digits always round-trip binary64
            text = repr(x)
        if "e" in text:
            mantissa, exp = text.split("e")
            if "." not in mantissa:
                mantissa += ".0"
            return f"{mantissa}e{exp}"
        return text if "." in text else text + ".0"

    def _same(self, a: float, b: float) -> bool:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@dataclass(frozen=True)
class Fp8Format(FloatFormat):
    """An 8-bit float of the OCP FP8 formats (MLIR's ``f8E4M3FN``, ``f8E5M2``): 1 sign bit,
    ``width - precision`` exponent bits (bias 7 and 15: ``2^(e-1) - 1``), ``precision - 1``
    mantissa bits. ``finite_only`` (E4M3FN) has no infinities: the all-ones exponent is an
    ordinary binade except its all-ones mantissa, the one NaN, so the largest value is 448 and
    an overflow is NaN; E5M2 is IEEE-like (infinities, NaNs, largest 57344)."""

    finite_only: bool = False

    @property
    def bias(self) -> int:
        return (1 << (self.width - self.precision - 1)) - 1

    @property
    def max_finite(self) -> float:
        if self.finite_only:  # S.1111.110: the top binade without its NaN code
            return math.ldexp(2.0 - math.ldexp(1.0, 2 - self.precision), self.emax)
        return super().max_finite

    def round(self, x: float) -> float:
        if x == 0.0 or not math.isfinite(x):
            return math.nan if self.finite_only and math.isinf(x) else x
        mag = abs(x)
        _, e = math.frexp(mag)
        quantum = max(e - 1, self.emin) - (self.precision - 1)
        y = math.ldexp(round(math.ldexp(mag, -quantum)), quantum)
        if y > self.max_finite:
            y = math.nan if self.finite_only else math.inf
        return math.copysign(y, x)

    def to_bits(self, x: float) -> int:
        mbits = self.precision - 1
        ebits = self.width - self.precision
        sign = 0x80 if math.copysign(1.0, x) < 0 else 0
        if math.isnan(x):
            return 0x7F if self.finite_only else 0x7E
        mag = abs(x)
        if math.isinf(mag):
            return sign | (((1 << ebits) - 1) << mbits)
        if mag == 0.0:
            return sign
        _, e = math.frexp(mag)
        exp = max(e - 1, self.emin)
        mant = int(math.ldexp(mag, mbits - exp))  # exact: x is representable
        if e - 1 < self.emin:  # subnormal
            return sign | mant
        return sign | ((exp + self.bias) << mbits) | (mant - (1 << mbits))

    def from_bits(self, bits: int) -> float:
        bits &= 0xFF
        mbits = self.precision - 1
        ebits = self.width - self.precision
        sign = -1.0 if bits & 0x80 else 1.0
        exp = (bits >> mbits) & ((1 << ebits) - 1)
        mant = bits & ((1 << mbits) - 1)
        top = (1 << ebits) - 1
        if self.finite_only and exp == top and mant == (1 << mbits) - 1:
            return math.nan
        if not self.finite_only and exp == top:
            return sign * math.inf if mant == 0 else math.nan
        if exp == 0:
            return sign * math.ldexp(mant, self.emin - mbits)
        return sign * math.ldexp((1 << mbits) + mant, exp - self.bias - mbits)


FLOAT_FORMATS: dict[str, FloatFormat] = {
    "f8E4M3FN": Fp8Format("f8E4M3FN", 4, -6, 8, 8, finite_only=True),
    "f8E5M2": Fp8Format("f8E5M2", 3, -14, 15, 8),
    "f16": FloatFormat("f16", 11, -14, 15, 16),
    "bf16": FloatFormat("bf16", 8, -126, 127, 16),
    "tf32": FloatFormat("tf32", 11, -126, 127, 19),
    "f32": FloatFormat("f32", 24, -126, 127, 32),
    "f64": FloatFormat("f64", 53, -1022, 1023, 64),
}
