"""IEEE binary floating-point formats used by the builtin float types.

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


FLOAT_FORMATS: dict[str, FloatFormat] = {
    "f16": FloatFormat("f16", 11, -14, 15, 16),
    "bf16": FloatFormat("bf16", 8, -126, 127, 16),
    "tf32": FloatFormat("tf32", 11, -126, 127, 19),
    "f32": FloatFormat("f32", 24, -126, 127, 32),
    "f64": FloatFormat("f64", 53, -1022, 1023, 64),
}
