"""What a cubin says about its kernels, read in pure Python (no driver, no GPU).

A cubin is an ELF file. Per-kernel facts the CUDA toolchain records live in ``.nv.info``
sections as a list of attributes (``EIATTR_*``), each 4-byte aligned: a format byte, an
attribute byte, then a value: none, a byte or a half word packed into the same 4 bytes, or a
16-bit size followed by that many bytes. The global ``.nv.info`` holds register counts and
stack sizes keyed by the kernel's symbol index; ``.nv.info.<kernel>`` holds the parameter bank.
Host compilers and the embedding API (docs/embedding.md) read registers and stack sizes from
here without loading the code.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_EIFMT_SVAL = 4
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_MIN_STACK_SIZE = 0x12
_EIATTR_KPARAM_INFO = 0x17
_EIATTR_MAX_STACK_SIZE = 0x23
_EIATTR_REGCOUNT = 0x2F
_EIATTR_PARAM_CBANK = 0x0A


class CubinError(ValueError):
    """The bytes are not a cubin this reader understands."""


@dataclass(frozen=True)
class KernelResources:
    """Registers per thread, stack (local memory) bytes per thread, parameter bytes."""

    registers: int | None
    stack_bytes: int | None
    param_bytes: int | None
    param_sizes: tuple[int, ...] | None

    def to_json(self) -> dict[str, object]:
        return {
            "registers": self.registers,
            "stack_bytes": self.stack_bytes,
            "param_bytes": self.param_bytes,
            "param_sizes": list(self.param_sizes) if self.param_sizes is not None else None,
        }


def _sections(data: bytes) -> dict[str, tuple[int, int, int]]:
    """Section name -> (offset, size, link) of a 64-bit little-endian ELF (every bound checked:
    the bytes may come from a file someone edited)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise CubinError("not a 64-bit little-endian ELF file (a cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize < 64 or shoff + shentsize * shnum > len(data) or shstrndx >= shnum:
        raise CubinError("ELF section table out of bounds")
    headers = []
    for i in range(shnum):
        name, kind, _flags, _addr, off, size, link = struct.unpack_from(
            "<IIQQQQI", data, shoff + i * shentsize
        )
        if off + size > len(data) and kind != 8:  # SHT_NOBITS has no bytes in the file
            raise CubinError(f"ELF section {i} out of bounds")
        headers.append((name, off, size, link))
    str_off, str_size = headers[shstrndx][1], headers[shstrndx][2]
    out = {}
    for name, off, size, link in headers:
        if name >= str_size:
            raise CubinError("ELF section name out of bounds")
        end = data.find(b"\0", str_off + name, str_off + str_size)
        out[data[str_off + name : end if end >= 0 else str_off + str_size].decode("latin-1")] = (
            off,
            size,
            link,
        )
    return out


def _attributes(data: bytes, off: int, size: int) -> list[tuple[int, bytes]]:
    out = []
    pos, end = off, off + size
    while pos + 4 <= end:
        fmt, attr = data[pos], data[pos + 1]
        if fmt == _EIFMT_SVAL:
            n = struct.unpack_from("<H", data, pos + 2)[0]
            if pos + 4 + n > end:
                raise CubinError("truncated .nv.info attribute")
            out.append((attr, data[pos + 4 : pos + 4 + n]))
            pos += 4 + n
        else:  # no value, a byte or a half word: packed into 4 bytes
            out.append((attr, data[pos + 2 : pos + 4]))
            pos += 4
    return out


def _symbol_index(data: bytes, sections: dict[str, tuple[int, int, int]], kernel: str) -> int:
    symtab = sections.get(".symtab")
    if symtab is None:
        raise CubinError("no symbol table")
    off, size, _link = symtab
    strtab = sections.get(".strtab")
    if strtab is None:
        raise CubinError("no string table")
    s_off, s_size, _ = strtab
    wanted = kernel.encode()
    for i in range(size // 24):
        name = struct.unpack_from("<I", data, off + i * 24)[0]
        if name < s_size:
            end = data.find(b"\0", s_off + name, s_off + s_size)
            if data[s_off + name : end] == wanted:
                return i
    raise CubinError(f"no kernel named {kernel!r} in the cubin")


def param_sizes(cubin: bytes, kernel: str) -> list[int] | None:
    """Byte sizes of ``kernel``'s parameters by ordinal (``EIATTR_KPARAM_INFO`` in
    ``.nv.info.<kernel>``); None when the image is not an ELF file or has no such section.
    Malformed attributes are a CubinError."""
    if cubin[:4] != b"\x7fELF":
        return None
    own = _sections(cubin).get(f".nv.info.{kernel}")
    if own is None:
        return None
    sizes: dict[int, int] = {}
    for attr, value in _attributes(cubin, own[0], own[1]):
        if attr != _EIATTR_KPARAM_INFO:
            continue
        if len(value) < 12:
            raise CubinError("truncated EIATTR_KPARAM_INFO")
        _index, ordinal, _offset, packed = struct.unpack_from("<IHHI", value)
        if ordinal in sizes:
            raise CubinError(f"parameter {ordinal} described twice")
        sizes[ordinal] = (packed >> 18) & 0x3FFF
    if sorted(sizes) != list(range(len(sizes))):
        raise CubinError(f"parameter ordinals {sorted(sizes)} are not 0..n-1")
    return [sizes[i] for i in range(len(sizes))]


def kernel_resources(cubin: bytes, kernel: str) -> KernelResources:
    """Registers, stack bytes and parameter sizes of ``kernel`` in ``cubin``."""
    sections = _sections(cubin)
    sym = _symbol_index(cubin, sections, kernel)
    registers = stack = None
    info = sections.get(".nv.info")
    if info is not None:
        for attr, value in _attributes(cubin, info[0], info[1]):
            if len(value) != 8 or struct.unpack_from("<I", value)[0] != sym:
                continue
            amount = struct.unpack_from("<I", value, 4)[0]
            if attr == _EIATTR_REGCOUNT:
                registers = amount
            elif attr in (_EIATTR_FRAME_SIZE, _EIATTR_MAX_STACK_SIZE):
                stack = max(stack or 0, amount)
            elif attr == _EIATTR_MIN_STACK_SIZE and stack is None:
                stack = amount
    param_bytes = None
    own = sections.get(f".nv.info.{kernel}")
    if own is not None:
        for attr, value in _attributes(cubin, own[0], own[1]):
            if attr == _EIATTR_PARAM_CBANK and len(value) == 8:
                param_bytes = struct.unpack_from("<H", value, 6)[0]
    sizes = param_sizes(cubin, kernel)
    ordered = tuple(sizes) if sizes else None
    return KernelResources(registers, stack, param_bytes, ordered)
