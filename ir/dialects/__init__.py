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
    "math": "math",
}


def _loader(module: str) -> Callable[[], Dialect]:
    def load() -> Dialect:
        return importlib.import_module(f"{__name__}.{module}").DIALECT

    return load


#: The entry-point group through which installed packages add dialects: each entry point is
#: named after its dialect and refers to a ``Dialect`` object or a function returning one
#: (``[project.entry-points."layoutc.dialects"] demo = "demo_pkg.dialect:DIALECT"``).
PLUGIN_GROUP = "layoutc.dialects"

_plugins: dict[str, Callable[[], Dialect]] | None = None


def _plugin_loader(entry_point: object) -> Callable[[], Dialect]:
    def load() -> Dialect:
        from ..core.context import Dialect

        obj = entry_point.load()  # type: ignore[attr-defined]
        dialect = obj if isinstance(obj, Dialect) else obj()
        if not isinstance(dialect, Dialect):
            raise TypeError(
                f"entry point {entry_point.value!r} in group {PLUGIN_GROUP!r} gives "  # type: ignore[attr-defined]
                f"{type(dialect).__name__}, not a Dialect"
            )
        return dialect

    return load


def plugin_dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> loader for every dialect installed packages declare (read once; a
    plugin never replaces a dialect layoutc ships)."""
    global _plugins
    if _plugins is None:
        from importlib.metadata import entry_points

        _plugins = {
            ep.name: _plugin_loader(ep)
            for ep in entry_points(group=PLUGIN_GROUP)
            if ep.name not in _DIALECT_MODULES
        }
    return _plugins


def shipped_registry() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> loader, for every dialect layoutc ships (no plugin lookup: reading the
    installed packages' entry points costs more than starting ``layoutc-opt``, so a Context asks
    for plugins only when a dialect name is not one of these)."""
    return {name: _loader(module) for name, module in _DIALECT_MODULES.items()}


def default_registry() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> loader, for every dialect layoutc ships and every installed plugin's."""
    return {**plugin_dialects(), **shipped_registry()}


def dialect_loader(name: str) -> Callable[[], Dialect] | None:
    """The loader of dialect ``name``: a shipped one, else an installed plugin's (the entry
    points are read only here, on the first name layoutc does not ship)."""
    module = _DIALECT_MODULES.get(name)
    if module is not None:
        return _loader(module)
    return plugin_dialects().get(name)


def available_dialects() -> list[str]:
    return sorted({*_DIALECT_MODULES, *plugin_dialects()})
