"""Element types of kernel parameters and how foreign array libraries spell them.

The ABI names are short and fixed (``f32``, ``bf16``, ``i64``, ...); every adapter (numpy,
torch, CuPy, DLPack, ``__cuda_array_interface__`` typestr) maps into them here, so there is one
place that knows that ``torch.bfloat16``, DLPack ``(4, 16)`` and ``<V2``-less ``bfloat16`` agree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    """One ABI element type: its name, size, and ``struct`` format for scalar packing."""

    name: str
    itemsize: int
    struct_format: str
    kind: str  # "int", "uint" or "float"

    @property
    def bits(self) -> int:
        return self.itemsize * 8


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("i8", 1, "b", "int"),
        DType("i16", 2, "h", "int"),
        DType("i32", 4, "i", "int"),
        DType("i64", 8, "q", "int"),
        DType("u8", 1, "B", "uint"),
        DType("u16", 2, "H", "uint"),
        DType("u32", 4, "I", "uint"),
        DType("u64", 8, "Q", "uint"),
        DType("f16", 2, "e", "float"),
        DType("bf16", 2, "H", "float"),  # packed from its bit pattern
        DType("f32", 4, "f", "float"),
        DType("f64", 8, "d", "float"),
    )
}


def dtype(name: str) -> DType:
    """The ABI dtype called ``name``, or a clear error listing the valid names."""
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(
            f"unknown element type {name!r}; expected one of {', '.join(DTYPES)}"
        ) from None


_NUMPY_NAMES = {
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
}


def from_numpy_name(name: str) -> str | None:
    """numpy/CuPy ``dtype.name`` (also ml_dtypes' ``bfloat16``) -> ABI name, or None."""
    return _NUMPY_NAMES.get(name)


def from_torch(torch_dtype: object) -> str | None:
    """``torch.float32`` -> ``f32`` without importing torch (by the dtype's printed name)."""
    text = str(torch_dtype)
    return _NUMPY_NAMES.get(text[6:]) if text.startswith("torch.") else None


_DLPACK_KINDS = {0: "i", 1: "u", 2: "f", 4: "bf"}


def from_dlpack(code: int, bits: int, lanes: int) -> str | None:
    """A DLPack ``DLDataType`` -> ABI name, or None when it has no ABI equivalent."""
    if lanes != 1:
        return None
    prefix = _DLPACK_KINDS.get(code)
    if prefix is None:
        return None
    name = f"{prefix}{bits}"
    return name if name in DTYPES else None


def from_typestr(typestr: str) -> str | None:
    """An array-interface typestr (``<f4``, ``|u1``) -> ABI name, or None."""
    if len(typestr) < 3 or typestr[0] not in "<|=":
        return None
    kind, size = typestr[1], typestr[2:]
    if not size.isdigit():
        return None
    bits = int(size) * 8
    prefix = {"i": "i", "u": "u", "f": "f"}.get(kind)
    name = f"{prefix}{bits}" if prefix else None
    return name if name in DTYPES else None


def bf16_bits(value: float) -> int:
    """The bfloat16 bit pattern of ``value``, rounded to nearest even like the hardware."""
    import struct

    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:  # NaN stays a quiet NaN
        return (bits >> 16) | 0x0040
    rounding = 0x7FFF + ((bits >> 16) & 1)
    return ((bits + rounding) >> 16) & 0xFFFF
