"""layoutc.ir: the layout algebra and the IR.

The algebra (``layoutc.ir.Layout``, ...; see ir/algebra/) and the IR core
(``layoutc.ir.Operation``, ``layoutc.ir.parse``, ...; see ir/core/) are re-exported here lazily
(PEP 562 module ``__getattr__``): importing ``layoutc.ir.core`` to parse IR that uses no
layouts (``layoutc-opt`` on func/arith/llvm input) does not load the algebra, and importing the
algebra does not load the IR.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBPACKAGES = ("algebra", "core", "dialects")


def _algebra_names() -> list[str]:
    return list(importlib.import_module(__name__ + ".algebra").__all__)


def __getattr__(name: str) -> Any:
    if name == "__all__":  # ``from layoutc.ir import *``: the algebra's public names
        return _algebra_names()
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("__"):
        algebra = importlib.import_module(__name__ + ".algebra")
        if name in algebra.__all__:
            return getattr(algebra, name)
        if not name.startswith("_"):
            core = importlib.import_module(__name__ + ".core")
            if name in core.__all__:
                return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
