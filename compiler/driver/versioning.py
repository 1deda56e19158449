"""The compiler's identity for on-disk cache keys.

``cache.default_compiler_version`` covers code generation and the CUDA libraries; the output
also depends on the passes, the dialects' folders and canonicalisations and the runtime's ABI,
so the driver's version string adds a fingerprint of every layoutc source file (names, sizes
and modification times: editing any of them during development invalidates cached code).
"""

from __future__ import annotations

import hashlib
import importlib
from functools import cache
from pathlib import Path

_PACKAGES = ("layoutc", "layoutc.ir", "layoutc.passes", "layoutc.runtime")


@cache
def source_fingerprint() -> str:
    """A short hash over every ``.py`` file of layoutc's four source folders."""
    h = hashlib.sha256()
    seen: set[Path] = set()
    for name in _PACKAGES:
        root = Path(importlib.import_module(name).__file__ or "").resolve().parent
        if root in seen:
            continue
        seen.add(root)
        for path in sorted(root.rglob("*.py")):
            st = path.stat()
            h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


@cache
def compiler_version() -> str:
    from .cache import default_compiler_version

    return f"{default_compiler_version()};sources={source_fingerprint()}"
