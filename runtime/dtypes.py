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
        DType("f8e4m3", 1, "B", "float"),  # OCP E4M3 (no infinities): torch.float8_e4m3fn
        DType("f8e5m2", 1, "B", "float"),  # OCP E5M2: torch.float8_e5m2
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
    "float8_e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2",
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


def unsupported(name: str) -> str:
    """The array library's own name for an element type with no ABI equivalent (``complex64``),
    kept so that errors can name it; never equal to an ABI name, so it never matches one."""
    return name if name not in DTYPES else f"{name} (unsupported)"


def numpy_element_name(name: str) -> str:
    """ABI name of a numpy/CuPy ``dtype.name``, or numpy's own name when there is none."""
    return _NUMPY_NAMES.get(name) or unsupported(name)


def torch_element_name(torch_dtype: object) -> str:
    """ABI name of a torch dtype, or torch's own name (``complex64``) when there is none."""
    text = str(torch_dtype)
    return from_torch(torch_dtype) or unsupported(text.removeprefix("torch."))


_DLPACK_KINDS = {0: "i", 1: "u", 2: "f", 4: "bf"}


#: DLPack 1.1's FP8 type codes (kDLFloat8_e4m3fn, kDLFloat8_e5m2)
_DLPACK_FP8 = {10: "f8e4m3", 12: "f8e5m2"}


def from_dlpack(code: int, bits: int, lanes: int) -> str | None:
    """A DLPack ``DLDataType`` -> ABI name, or None when it has no ABI equivalent."""
    if lanes != 1:
        return None
    if code in _DLPACK_FP8:
        return _DLPACK_FP8[code] if bits == 8 else None
    prefix = _DLPACK_KINDS.get(code)
    if prefix is None:
        return None
    name = f"{prefix}{bits}"
    return name if name in DTYPES else None


_DLPACK_KIND_NAMES = {
    0: "int",
    1: "uint",
    2: "float",
    3: "opaque",
    4: "bfloat",
    5: "complex",
    6: "bool",
}


def dlpack_element_name(code: int, bits: int, lanes: int) -> str:
    """ABI name of a DLPack ``DLDataType``, or a numpy-style name (``complex64``) for one with
    no ABI equivalent."""
    name = from_dlpack(code, bits, lanes)
    if name is not None:
        return name
    kind = _DLPACK_KIND_NAMES.get(code, f"DLPack type code {code} ")
    text = "bool" if code == 6 and bits == 8 else f"{kind}{bits}"
    return unsupported(text if lanes == 1 else f"{text}x{lanes}")


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


_TYPESTR_KINDS = {"i": "int", "u": "uint", "f": "float", "c": "complex", "b": "bool"}


def typestr_element_name(typestr: str) -> str:
    """ABI name of an array-interface typestr, or a numpy-style name (``complex64``, ``bool``)
    or the typestr itself for one with no ABI equivalent."""
    name = from_typestr(typestr)
    if name is not None:
        return name
    kind = _TYPESTR_KINDS.get(typestr[1:2])
    size = typestr[2:]
    if kind is None or not size.isdigit():
        return unsupported(f"typestr {typestr!r}")
    return unsupported("bool" if kind == "bool" else f"{kind}{int(size) * 8}")


def bf16_bits(value: float) -> int:
    """The bfloat16 bit pattern of ``value``, rounded to nearest even like the hardware."""
    import struct

    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:  # NaN stays a quiet NaN
        return (bits >> 16) | 0x0040
    rounding = 0x7FFF + ((bits >> 16) & 1)
    return ((bits + rounding) >> 16) & 0xFFFF
