"""Memory spaces and element types of the tile dialect.

Kept free of IR imports so that the atom registry and the tiled-copy/MMA helpers (pure
algebra) can use the same names as the types without loading the IR.
"""

from __future__ import annotations

GMEM = "gmem"
SMEM = "smem"
RMEM = "rmem"
COORD = "coord"

MEMORY_SPACES: tuple[str, ...] = (GMEM, SMEM, RMEM)
"""Spaces that hold data (``coord`` tensors hold coordinates and have no memory)."""

ALL_SPACES: tuple[str, ...] = (*MEMORY_SPACES, COORD)

SPACE_DESCRIPTIONS = {
    GMEM: "global memory",
    SMEM: "shared memory",
    RMEM: "registers",
    COORD: "coordinates",
}

# Element type name -> storage width in bits. `i1` is stored as one byte (C++ `bool`), which is
# what predicate tensors in registers and memory hold. `tf32` values occupy 32 bits.
ELEMENT_BITS: dict[str, int] = {
    "i1": 8,
    "i8": 8,
    "i16": 16,
    "i32": 32,
    "i64": 64,
    "f8E4M3FN": 8,
    "f8E5M2": 8,
    "f16": 16,
    "bf16": 16,
    "tf32": 32,
    "f32": 32,
    "f64": 64,
}

FLOAT_ELEMENTS = frozenset({"f8E4M3FN", "f8E5M2", "f16", "bf16", "tf32", "f32", "f64"})
INTEGER_ELEMENTS = frozenset({"i1", "i8", "i16", "i32", "i64"})


def element_bits(name: str) -> int:
    """Storage width of an element type in bits (ValueError for an unknown element type)."""
    bits = ELEMENT_BITS.get(name)
    if bits is None:
        raise ValueError(
            f"unsupported element type '{name}'; expected one of {', '.join(ELEMENT_BITS)}"
        )
    return bits


def element_bytes(name: str) -> int:
    return element_bits(name) // 8
