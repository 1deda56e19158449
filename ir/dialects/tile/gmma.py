"""Hopper GMMA (wgmma) shared-memory operands: layout atoms, the proof of canonicity, and the
64-bit matrix descriptor.

``wgmma.mma_async`` reads A and B from shared memory through a *matrix descriptor*
(PTX ISA, "Matrix Descriptor Format"): a 64-bit word holding

========  =================================================================
bits      field
========  =================================================================
[0,14)    start address >> 4 (shared-window byte address of the tile)
[16,30)   leading dimension byte offset >> 4 (LBO)
[32,46)   stride dimension byte offset >> 4 (SBO)
[49,52)   base offset (the swizzle pattern's phase; 0 for aligned tiles)
[62,64)   layout type: 0 interleave (no swizzle), 1 128B, 2 64B, 3 32B swizzle
========  =================================================================

The hardware walks the tile in *core matrices* of 8 rows x 16 bytes and applies the swizzle
to the absolute byte address (``Swizzle<B,4,3>``: address bits [7,7+B) XORed into [4,4+B)).
:func:`hardware_offset` is that address function, the one model this module, the proof and
the CPU runtime's emulation agree on.

A shared-memory layout is a *canonical GMMA layout* when the element at (mn, k) of the
instruction's (MN x K) operand tile lies exactly where the hardware looks for it, for some
LBO and SBO; CuTe's canonical forms (``include/cute/atom/mma_traits_sm90_gmma.hpp``), with
T = 128 / element bits elements per 16 bytes and W = 1, 2, 4, 8 for interleave, 32B, 64B and
128B swizzles, are, in elements:

- K-major:  ``Sw o ((8,m),(T,2)) : ((W*T, SBO), (1, LBO))``, where LBO is T for swizzled
  layouts (the two 16-byte halves of a row are adjacent) and free for interleave;
- MN-major, swizzled: ``Sw o ((T,W,m),(8,k)) : ((1,T,LBO),(W*T,SBO))``;
- MN-major, interleave: ``((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))``.

:func:`prove_canonical` derives LBO and SBO from the layout and then checks every element of
the tile against :func:`hardware_offset` (the layout is static, so the check is exhaustive and
is a proof); a layout that is not canonical gets a :class:`GmmaLayoutError` naming the first
condition that fails. :func:`layout_atom` builds CuTe's ``Layout_{K,MN}_{INTER,SW32,SW64,
SW128}_Atom<T>``, which ``tile_to_shape`` repeats into layouts the proof accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...algebra import ComposedLayout, Layout, LayoutError, Swizzle

__all__ = [
    "LAYOUT_TYPES",
    "SWIZZLE_WIDTH",
    "CanonicalGmma",
    "GmmaDescriptor",
    "GmmaLayoutError",
    "hardware_offset",
    "infer_canonical",
    "layout_atom",
    "layout_atom_names",
    "prove_canonical",
    "swizzle_address",
]

#: descriptor layout-type code of each swizzle mode (PTX ISA; CuTe's GMMA::LayoutType)
LAYOUT_TYPES: dict[str, int] = {"INTER": 0, "SW128": 1, "SW64": 2, "SW32": 3}
#: 16-byte chunks per swizzled row (W): 1 (interleave), 2, 4, 8
SWIZZLE_WIDTH: dict[str, int] = {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}
_MODE_OF_TYPE = {v: k for k, v in LAYOUT_TYPES.items()}
_MODE_OF_WIDTH = {v: k for k, v in SWIZZLE_WIDTH.items()}
_FIELD_LIMIT = 1 << 18  # 14 bits of (bytes >> 4)


class GmmaLayoutError(LayoutError):
    """A shared-memory layout that is not a canonical GMMA layout (the message says why)."""


# ---------------------------------------------------------------------------------------------
# the descriptor
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GmmaDescriptor:
    """The fields of a wgmma matrix descriptor, in bytes (the encoding drops the 4 low bits)."""

    start_address: int
    leading_byte_offset: int
    stride_byte_offset: int
    base_offset: int = 0
    layout_type: int = 0

    def encode(self) -> int:
        """The 64-bit descriptor word."""
        for name in ("start_address", "leading_byte_offset", "stride_byte_offset"):
            v = getattr(self, name)
            if v % 16 or not 0 <= v < _FIELD_LIMIT:
                raise GmmaLayoutError(
                    f"GMMA descriptor: {name} {v} must be a multiple of 16 below {_FIELD_LIMIT}"
                )
        if not 0 <= self.base_offset < 8 or self.layout_type not in _MODE_OF_TYPE:
            raise GmmaLayoutError(
                f"GMMA descriptor: base offset {self.base_offset} / layout type "
                f"{self.layout_type} out of range"
            )
        return (
            (self.start_address >> 4)
            | (self.leading_byte_offset >> 4) << 16
            | (self.stride_byte_offset >> 4) << 32
            | self.base_offset << 49
            | self.layout_type << 62
        )

    @classmethod
    def decode(cls, word: int) -> GmmaDescriptor:
        """The fields of a 64-bit descriptor word (as the hardware reads them)."""
        mask = (1 << 14) - 1
        return cls(
            start_address=(word & mask) << 4,
            leading_byte_offset=((word >> 16) & mask) << 4,
            stride_byte_offset=((word >> 32) & mask) << 4,
            base_offset=(word >> 49) & 7,
            layout_type=(word >> 62) & 3,
        )

    @property
    def swizzle_mode(self) -> str:
        return _MODE_OF_TYPE[self.layout_type]


# ---------------------------------------------------------------------------------------------
# the hardware's address function
# ---------------------------------------------------------------------------------------------


def swizzle_address(address: int, mode: str) -> int:
    """The byte address the hardware accesses: ``Swizzle<B,4,3>`` on the absolute address."""
    b = {1: 0, 2: 1, 4: 2, 8: 3}[SWIZZLE_WIDTH[mode]]
    if b == 0:
        return address
    return address ^ ((address >> 3) & (((1 << b) - 1) << 4))


def hardware_offset(
    major: str, mode: str, element_bits: int, lbo: int, sbo: int, mn: int, k: int
) -> int:
    """Byte offset from the start address (before the swizzle) at which the hardware reads
    element (mn, k) of a K- or MN-major operand with these LBO/SBO (bytes)."""
    eb = element_bits // 8
    t = 16 // eb
    w = SWIZZLE_WIDTH[mode]
    if major == "K":
        if w == 1:
            return (mn % 8) * 16 + (mn // 8) * sbo + (k % t) * eb + (k // t) * lbo
        return (mn % 8) * 16 * w + (mn // 8) * sbo + k * eb
    if major != "MN":
        raise ValueError(f"major must be 'K' or 'MN', got {major!r}")
    if w == 1:
        return (mn % t) * eb + (mn // t) * sbo + (k % 8) * 16 + (k // 8) * lbo
    return ((mn % t) * eb + ((mn // t) % w) * 16 + (mn // (t * w)) * lbo + (k % 8) * 16 * w) + (
        k // 8
    ) * sbo


# ---------------------------------------------------------------------------------------------
# layout atoms
# ---------------------------------------------------------------------------------------------


def _log2(x: int) -> int:
    return x.bit_length() - 1


def _gmma_swizzle(mode: str, element_bits: int) -> Swizzle:
    """``Swizzle<B,4,3>`` on bytes as a swizzle on ``element_bits``-bit element offsets."""
    t = 128 // element_bits
    return Swizzle(_log2(SWIZZLE_WIDTH[mode]), _log2(t), 3)


def _check_element_bits(element_bits: int) -> None:
    if element_bits not in (8, 16, 32):
        raise GmmaLayoutError(
            f"GMMA operands have 8-, 16- or 32-bit elements, got {element_bits}-bit elements"
        )


def layout_atom(major: str, mode: str, element_bits: int) -> Any:
    """CuTe's ``GMMA::Layout_{major}_{mode}_Atom<T>`` for ``element_bits``-bit elements:
    ``Layout_K_SW128_Atom`` of 16-bit elements is ``Sw<3,3,3> o (8,64):(64,1)``."""
    _check_element_bits(element_bits)
    if mode not in LAYOUT_TYPES:
        raise GmmaLayoutError(
            f"unknown GMMA swizzle mode {mode!r}; expected one of {', '.join(LAYOUT_TYPES)}"
        )
    t = 128 // element_bits
    row = SWIZZLE_WIDTH[mode] * t
    if major == "K":
        inner = Layout((8, row), (row, 1))
    elif major == "MN":
        inner = Layout((row, 8), (1, row))
    else:
        raise GmmaLayoutError(f"GMMA major must be 'K' or 'MN', got {major!r}")
    if mode == "INTER":
        return inner
    return ComposedLayout(_gmma_swizzle(mode, element_bits), 0, inner)


def layout_atom_names() -> list[str]:
    """CuTe's names: ``Layout_K_SW128_Atom``, ``Layout_MN_INTER_Atom``, ..."""
    return [f"Layout_{m}_{s}_Atom" for m in ("K", "MN") for s in ("INTER", "SW32", "SW64", "SW128")]


# ---------------------------------------------------------------------------------------------
# the proof
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CanonicalGmma:
    """What the proof found: the operand's major, swizzle mode, LBO and SBO (bytes), and the
    element offset of the tile's first element before the swizzle (int or symbolic)."""

    major: str
    mode: str
    element_bits: int
    lbo: int
    sbo: int
    start: Any

    @property
    def layout_type(self) -> int:
        return LAYOUT_TYPES[self.mode]

    @property
    def alignment(self) -> int:
        """Bytes the allocation's base must be aligned to for the swizzle phase to be 0 (the
        swizzle pattern repeats every 8 rows of 16*W bytes)."""
        w = SWIZZLE_WIDTH[self.mode]
        return 16 if w == 1 else 128 * w

    def descriptor(self, start_address: int) -> GmmaDescriptor:
        return GmmaDescriptor(start_address, self.lbo, self.sbo, 0, self.layout_type)

    def static_bits(self) -> int:
        """The descriptor with start address 0: OR in ``(address >> 4) & 0x3FFF``."""
        return self.descriptor(0).encode()

    def __str__(self) -> str:
        return f"{self.major}-major {self.mode}, LBO {self.lbo} bytes, SBO {self.sbo} bytes"


def _split_swizzle(layout: Any, what: str) -> tuple[Swizzle | None, Any, Layout]:
    if isinstance(layout, Layout):
        return None, 0, layout
    if (
        isinstance(layout, ComposedLayout)
        and isinstance(layout.outer, Swizzle)
        and isinstance(layout.inner, Layout)
    ):
        return layout.outer, layout.offset, layout.inner
    raise GmmaLayoutError(
        f"{what}: the layout {layout} is neither a layout nor a swizzled layout "
        "(Sw<B,M,S> o offset o layout)"
    )


def _mode_of(sw: Swizzle | None, element_bits: int, what: str) -> str:
    if sw is None or sw.is_identity():
        return "INTER"
    t = 128 // element_bits
    if sw.base == _log2(t) and sw.shift == 3 and sw.bits in (1, 2, 3):
        return _MODE_OF_WIDTH[1 << sw.bits]
    raise GmmaLayoutError(
        f"{what}: the swizzle {sw} is not a GMMA swizzle for {element_bits}-bit elements "
        f"(expected none, Sw<1,{_log2(t)},3> (32B), Sw<2,{_log2(t)},3> (64B) or "
        f"Sw<3,{_log2(t)},3> (128B))"
    )


def _offsets(inner: Layout, mn: int, k: int, what: str) -> list[list[int]]:
    n = inner.size()
    if type(n) is not int or n != mn * k:
        raise GmmaLayoutError(
            f"{what}: the layout {inner} has {n} elements, not the {mn}x{k} of the operand tile"
        )
    table = []
    for kk in range(k):
        row = []
        for m in range(mn):
            v = inner(m + mn * kk)
            if type(v) is not int:
                raise GmmaLayoutError(
                    f"{what}: the layout {inner} is not static (element ({m},{kk}) is at {v})"
                )
            row.append(v)
        table.append(row)
    return table


def prove_canonical(
    layout: Any, major: str, element_bits: int, mn: int, k: int, what: str = "GMMA operand"
) -> CanonicalGmma:
    """Prove that ``layout`` (elements, over the column-major (mn, k) operand tile) is a
    canonical GMMA layout of the given major; return its descriptor fields, or raise
    GmmaLayoutError with the condition that fails."""
    _check_element_bits(element_bits)
    sw, start, inner = _split_swizzle(layout, what)
    mode = _mode_of(sw, element_bits, what)
    eb = element_bits // 8
    t = 16 // eb
    w = SWIZZLE_WIDTH[mode]
    where = f"{what} ({major}-major {mode}, {element_bits}-bit elements)"
    if k * eb != 32:
        raise GmmaLayoutError(f"{where}: the K extent must be {32 // eb} elements, got {k}")
    f = _offsets(inner, mn, k, what)

    def stride(a: tuple[int, int], b: tuple[int, int]) -> int:
        return (f[b[1]][b[0]] - f[a[1]][a[0]]) * eb

    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise GmmaLayoutError(f"{where}: {msg}")

    need(f[0][0] == 0, f"the first element must be at offset 0 of the layout, got {f[0][0]}")
    if major == "K":
        need(mn % 8 == 0, f"the M/N extent {mn} is not a multiple of 8")
        need(stride((0, 0), (0, 1)) == eb, "consecutive K elements must be contiguous")
        need(
            stride((0, 0), (1, 0)) == 16 * w,
            f"rows of a core matrix must be {16 * w} bytes apart, got {stride((0, 0), (1, 0))}",
        )
        lbo = stride((0, 0), (0, t))
        if w > 1:
            need(
                lbo == 16,
                f"the two 16-byte halves of a row must be adjacent, got {lbo} bytes apart",
            )
            lbo = 16  # unused by swizzled K-major layouts; CuTe encodes 1 (16 bytes)
        sbo = stride((0, 0), (8, 0)) if mn > 8 else 0
    elif major == "MN":
        need(element_bits == 16, f"MN-major operands need 16-bit elements, got {element_bits}-bit")
        need(mn % (t * w) == 0, f"the M/N extent {mn} is not a multiple of {t * w} elements")
        need(stride((0, 0), (1, 0)) == eb, "consecutive M/N elements must be contiguous")
        if w == 1:
            need(
                stride((0, 0), (0, 1)) == 16,
                f"consecutive K rows of a core matrix must be 16 bytes apart, got "
                f"{stride((0, 0), (0, 1))}",
            )
            sbo = stride((0, 0), (t, 0)) if mn > t else 0
            lbo = stride((0, 0), (0, 8))
        else:
            need(
                stride((0, 0), (t, 0)) == 16,
                f"the {w} 16-byte chunks of a swizzled row must be adjacent, got "
                f"{stride((0, 0), (t, 0))} bytes apart",
            )
            need(
                stride((0, 0), (0, 1)) == 16 * w,
                f"consecutive K rows must be {16 * w} bytes apart, got {stride((0, 0), (0, 1))}",
            )
            lbo = stride((0, 0), (t * w, 0)) if mn > t * w else 0
            sbo = stride((0, 0), (0, 8))
    else:
        raise GmmaLayoutError(f"GMMA major must be 'K' or 'MN', got {major!r}")
    for name, v in (("LBO", lbo), ("SBO", sbo)):
        need(
            v % 16 == 0 and 0 <= v < _FIELD_LIMIT,
            f"the {name} of {v} bytes is not a multiple of 16 in [0, {_FIELD_LIMIT})",
        )
    for kk in range(k):
        for m in range(mn):
            got = f[kk][m] * eb
            want = hardware_offset(major, mode, element_bits, lbo, sbo, m, kk)
            need(
                got == want,
                f"element ({m},{kk}) is at byte {got}, the descriptor (LBO {lbo}, SBO {sbo}) "
                f"reads byte {want}",
            )
    if type(start) is int and (start * eb) % 16:
        raise GmmaLayoutError(
            f"{where}: the tile starts at element {start}, not on a 16-byte boundary"
        )
    return CanonicalGmma(major, mode, element_bits, lbo, sbo, start)


def infer_canonical(
    layout: Any,
    element_bits: int,
    mn: int,
    k: int,
    what: str = "GMMA operand",
    majors: tuple[str, ...] = ("K", "MN"),
) -> CanonicalGmma:
    """The first of ``majors`` under which ``layout`` is canonical; otherwise a
    GmmaLayoutError listing why each fails."""
    reasons = []
    for major in majors:
        try:
            return prove_canonical(layout, major, element_bits, mn, k, what)
        except GmmaLayoutError as e:
            reasons.append(str(e))
    if len(reasons) == 1:
        raise GmmaLayoutError(f"{reasons[0]}; {layout} is not a canonical GMMA layout")
    raise GmmaLayoutError(f"{layout} is not a canonical GMMA layout: " + "; and as ".join(reasons))
