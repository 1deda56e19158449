"""The parameter list a kernel's code really has, read from its PTX or cubin.

A manifest states the ABI the launcher marshals arguments by; the code states the ABI it reads
them with. ``load`` compares the two (count and byte size of every parameter) before anything
is launched, so an edited or mismatched manifest (an ``f32`` scalar turned ``f64``, a parameter
added or dropped) is an ``ArtifactError``, not a kernel reading garbage.

cubin: the ELF section ``.nv.info.<kernel>`` holds one ``EIATTR_KPARAM_INFO`` attribute per
parameter (ordinal, offset, size in bits 18..31 of its last word), read by cubin_info.py (the
one ELF reader). PTX: the ``.entry`` declaration's ``.param`` list. Plain Python (``struct``,
``re``): the production loader imports it.
"""

from __future__ import annotations

import re
import struct

from .cubin_info import CubinError, param_sizes

CodeAbiError = CubinError
"""The code is malformed where its parameter list should be."""


def cubin_param_sizes(image: bytes, kernel: str) -> list[int] | None:
    """Byte sizes of ``kernel``'s parameters by ordinal, from a cubin's ``.nv.info``; None
    when the image has no such section (not an ELF cubin, or a kernel it does not hold)."""
    try:
        return param_sizes(image, kernel)
    except struct.error as e:
        raise CodeAbiError(f"truncated ELF file: {e}") from None


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
