"""`Swizzle<B,M,S>`: the XOR address permutation CuTe uses against shared-memory bank conflicts.

For an offset with bit fields `...YYY...ZZZ<M bits>`, Swizzle<B,M,S> XORs the B bits YYY
(starting at bit M + max(0,S)) into the B bits ZZZ (starting at bit M - min(0,S)). It is an
involution, so it is its own inverse. Applied to a layout with `composition(Swizzle, layout)`
it gives the swizzled layouts `Sw<B,M,S> o 0 o layout` (a `ComposedLayout`).
"""

from __future__ import annotations

from typing import Any

from .errors import LayoutError
from .limits import MAX_SWIZZLE_BITS


def _shiftr(x: int, s: int) -> int:
    return x >> s if s >= 0 else x << -s


class Swizzle:
    """CuTe's Swizzle<BBits, MBase, SShift> functor on integer offsets."""

    __slots__ = ("base", "bits", "shift", "yyy_mask", "zzz_mask")

    def __init__(self, bits: int, base: int, shift: int | None = None):
        if shift is None:
            shift = bits
        for name, v in (("B", bits), ("M", base), ("S", shift)):
            if type(v) is not int:
                raise LayoutError(f"Swizzle: {name} must be a static integer, got {v!r}")
        if bits < 0 or base < 0:
            raise LayoutError(f"Swizzle<{bits},{base},{shift}>: B and M must be non-negative")
        if max(bits, base, abs(shift)) > MAX_SWIZZLE_BITS:
            raise LayoutError(
                f"Swizzle<{bits},{base},{shift}>: B, M and |S| are bit positions of a 64-bit "
                f"offset, at most {MAX_SWIZZLE_BITS}"
            )
        if abs(shift) < bits:
            raise LayoutError(f"Swizzle<{bits},{base},{shift}>: |S| must be at least B")
        self.bits = bits
        self.base = base
        self.shift = shift
        msk = (1 << bits) - 1
        self.yyy_mask = msk << (base + max(0, shift))
        self.zzz_mask = msk << (base - min(0, shift))

    @property
    def swizzle_code(self) -> int:
        return self.yyy_mask | self.zzz_mask

    def is_identity(self) -> bool:
        return self.bits == 0

    def __call__(self, offset: Any) -> Any:
        if type(offset) is int:
            return offset ^ _shiftr(offset & self.yyy_mask, self.shift)
        if self.bits == 0:
            return offset
        raise LayoutError(
            f"not supported: applying {self} to the non-static offset {offset} "
            "(swizzles of symbolic offsets are emitted as XOR operations when lowering)"
        )

    def apply(self, offset: Any) -> Any:
        return self(offset)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Swizzle) and (self.bits, self.base, self.shift) == (
            other.bits,
            other.base,
            other.shift,
        )

    def __hash__(self) -> int:
        return hash(("Swizzle", self.bits, self.base, self.shift))

    def cute_format(self, static_markers: bool = False) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __str__(self) -> str:
        return self.cute_format()

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"

    def __reduce__(self) -> tuple:
        return (Swizzle, (self.bits, self.base, self.shift))


def _ctz32(x: int) -> int:
    """countr_zero of a uint32 (32 for 0), as CuTe's make_swizzle uses it."""
    x &= 0xFFFFFFFF
    if x == 0:
        return 32
    return (x & -x).bit_length() - 1


def make_swizzle(y_mask: int, z_mask: int) -> Swizzle:
    """The Swizzle whose YYY mask is `y_mask` and ZZZ mask is `z_mask` (CuTe's make_swizzle<Y,Z>)."""
    if type(y_mask) is not int or type(z_mask) is not int:
        raise LayoutError(
            f"make_swizzle: masks must be static integers, got {y_mask!r}, {z_mask!r}"
        )
    if y_mask < 0 or z_mask < 0:
        raise LayoutError(f"make_swizzle: masks must be non-negative, got {y_mask}, {z_mask}")
    by = bin(y_mask).count("1")
    bz = bin(z_mask).count("1")
    if by != bz:
        raise LayoutError(
            f"make_swizzle({y_mask:#b}, {z_mask:#b}): the masks have different numbers of bits"
        )
    tz_y = _ctz32(y_mask)
    tz_z = _ctz32(z_mask)
    base = min(tz_y, tz_z) % 32
    shift = tz_y - tz_z
    if abs(shift) < by:
        raise LayoutError(f"make_swizzle({y_mask:#b}, {z_mask:#b}): the masks overlap")
    sw = Swizzle(by, base, shift)
    if (y_mask | z_mask) != sw.swizzle_code:
        raise LayoutError(
            f"make_swizzle({y_mask:#b}, {z_mask:#b}): the masks are not contiguous bit fields a swizzle can represent"
        )
    return sw


def compose_swizzles(a: Swizzle, b: Swizzle) -> Swizzle:
    """composition(Swizzle, Swizzle): merge two swizzles of the same shift (CuTe)."""
    if a.shift != b.shift:
        raise LayoutError(f"composition({a}, {b}): can only merge swizzles of the same shift")
    return make_swizzle(a.yyy_mask ^ b.yyy_mask, a.zzz_mask ^ b.zzz_mask)
