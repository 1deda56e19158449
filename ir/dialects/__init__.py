"""Dialects shipped with layoutc and the registry a Context loads them from.

Each dialect lives in its own module exposing ``DIALECT: Dialect``. To add a dialect, write
``ir/dialects/<name>.py`` and add one line to ``_DIALECT_MODULES`` below (docs/ir.md explains
how to declare ops, types and attributes). Modules are imported only when a Context first needs
the dialect, so ``import layoutc`` stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.context import Dialect

# dialect name -> module (relative to this package) defining DIALECT
_DIALECT_MODULES: dict[str, str] = {
    "builtin": "builtin",
    "func": "func",
    "arith": "arith",
    "scf": "scf",
    "cf": "cf",
    "layout": "layout",
    "gpu": "gpu",
    "tile": "tile",
    "llvm": "llvm",
    "nvvm": "nvvm",
}


def _loader(module: str) -> Callable[[], Dialect]:
    def load() -> Dialect:
        return importlib.import_module(f"{__name__}.{module}").DIALECT

    return load


def default_registry() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> loader, for every dialect layoutc ships."""
    return {name: _loader(module) for name, module in _DIALECT_MODULES.items()}


def available_dialects() -> list[str]:
    return sorted(_DIALECT_MODULES)
