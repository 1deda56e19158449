"""The parameter list a kernel's code really has, read from its PTX or cubin.

A manifest states the ABI the launcher marshals arguments by; the code states the ABI it reads
them with. ``load`` compares the two (count and byte size of every parameter) before anything
is launched, so an edited or mismatched manifest (an ``f32`` scalar turned ``f64``, a parameter
added or dropped) is an ``ArtifactError``, not a kernel reading garbage.

cubin: the ELF section ``.nv.info.<kernel>`` holds one ``EIATTR_KPARAM_INFO`` attribute per
parameter (ordinal, offset, size in bits 18..31 of its last word) and ``EIATTR_PARAM_CBANK``
(offset and total size of the parameter bank). PTX: the ``.entry`` declaration's ``.param``
list. Plain Python (``struct``, ``re``): the production loader imports it.
"""

from __future__ import annotations

import re
import struct

_EIFMT_SVAL = 4
_EIATTR_KPARAM_INFO = 0x17
_SHT_NULL = 0


class CodeAbiError(ValueError):
    """The code is malformed where its parameter list should be."""


def cubin_param_sizes(image: bytes, kernel: str) -> list[int] | None:
    """Byte sizes of ``kernel``'s parameters by ordinal, from a cubin's ``.nv.info``; None
    when the image has no such section (not an ELF cubin, or a kernel it does not hold)."""
    if image[:4] != b"\x7fELF":
        return None
    if len(image) < 0x40 or image[4] != 2 or image[5] != 1:  # ELFCLASS64, little-endian
        raise CodeAbiError("not a 64-bit little-endian ELF file")
    try:
        (shoff,) = struct.unpack_from("<Q", image, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
        if shentsize < 0x40 or shstrndx >= shnum or shoff + shnum * shentsize > len(image):
            raise CodeAbiError("ELF section table out of bounds")
        sections = []
        for i in range(shnum):
            name, _typ, _flags, _addr, offset, size = struct.unpack_from(
                "<IIQQQQ", image, shoff + i * shentsize
            )
            if offset + size > len(image):
                raise CodeAbiError(f"ELF section {i} out of bounds")
            sections.append((name, offset, size))
        _, str_off, str_size = sections[shstrndx]
        strtab = image[str_off : str_off + str_size]
        wanted = f".nv.info.{kernel}".encode()
        for name, offset, size in sections:
            end = strtab.find(b"\0", name)
            if name < len(strtab) and strtab[name : end if end >= 0 else None] == wanted:
                return _kparam_sizes(image[offset : offset + size])
    except struct.error as e:
        raise CodeAbiError(f"truncated ELF file: {e}") from None
    return None


def _kparam_sizes(info: bytes) -> list[int]:
    sizes: dict[int, int] = {}
    pos = 0
    while pos + 4 <= len(info):
        fmt, attr = info[pos], info[pos + 1]
        if fmt != _EIFMT_SVAL:  # NVAL/BVAL/HVAL: four bytes in all
            pos += 4
            continue
        (length,) = struct.unpack_from("<H", info, pos + 2)
        payload = info[pos + 4 : pos + 4 + length]
        pos += 4 + length
        if attr == _EIATTR_KPARAM_INFO:
            if len(payload) < 12:
                raise CodeAbiError("truncated EIATTR_KPARAM_INFO")
            _index, ordinal, _offset, packed = struct.unpack_from("<IHHI", payload)
            if ordinal in sizes:
                raise CodeAbiError(f"parameter {ordinal} described twice")
            sizes[ordinal] = (packed >> 18) & 0x3FFF
    if sorted(sizes) != list(range(len(sizes))):
        raise CodeAbiError(f"parameter ordinals {sorted(sizes)} are not 0..n-1")
    return [sizes[i] for i in range(len(sizes))]


_PTX_TYPE_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}
_PTX_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+\d+\s+)?\.[busf](8|16|32|64|128)\b(?:\s+\.ptr)?(?:\s+\.\w+)*?"
    r"(?:\s+\.align\s+\d+)?\s+[%$\w.]+\s*(?:\[(\d+)\])?"
)


def ptx_param_sizes(text: str, kernel: str) -> list[int] | None:
    """Byte sizes of ``kernel``'s parameters from its PTX ``.entry``; None when the text has
    no entry of that name."""
    m = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\(", text)
    if m is None:
        return None
    end = text.find(")", m.end())
    if end < 0:
        raise CodeAbiError(f"unterminated parameter list of .entry {kernel}")
    body = text[m.end() : end].strip()
    if not body:
        return []
    sizes = []
    for decl in body.split(","):
        p = _PTX_PARAM.fullmatch(decl.strip())
        if p is None:
            raise CodeAbiError(f"cannot read PTX parameter {decl.strip()!r}")
        sizes.append(_PTX_TYPE_BYTES[p.group(1)] * int(p.group(2) or 1))
    return sizes
