"""The pass registry: passes and named pipelines found by name (pipelines, ``layoutc-opt``).

Registering a pass is one decorator on its class::

    @register_pass
    class FoldStaticStrides(Pass):
        argument = "fold-static-strides"
        summary = "..."

and, so that ``layoutc-opt`` and pipelines find it without importing everything up front, one
line naming its module in ``PASS_MODULES`` below. Modules are imported in that order only until
a name being looked up is found (all of them for ``--list-passes`` or an unknown name), which
keeps ``import layoutc`` and ``layoutc-opt``'s start-up light.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import TypeVar

from .base import Pass

PASS_MODULES: list[str] = [
    "layoutc.passes.canonicalize",
    "layoutc.passes.cse",
    "layoutc.passes.dce",
    "layoutc.passes.symbol_dce",
    "layoutc.passes.inline",
    "layoutc.passes.layout",
    "layoutc.passes.conversion.scf_to_cf",
    "layoutc.passes.conversion.gpu_to_nvvm",
    "layoutc.passes.conversion.to_llvm",
    "layoutc.passes.target_features",
    "layoutc.passes.conversion.bounds_checks",
    "layoutc.passes.conversion.arith_to_llvm",
    "layoutc.passes.conversion.cf_to_llvm",
    "layoutc.passes.conversion.func_to_llvm",
]
"""Modules that register passes when imported (add one line per new pass module)."""

#: The entry-point group through which installed packages add passes and pipelines: each entry
#: point names a module that registers them when imported, with ``register_pass`` and
#: ``register_pipeline`` as the built-in modules do
#: (``[project.entry-points."layoutc.passes"] demo = "demo_pkg.passes"``). Plugin modules are
#: imported after the built-in ones, only when a name is not found among those.
PLUGIN_GROUP = "layoutc.passes"

_P = TypeVar("_P", bound=type[Pass])

_passes: dict[str, type[Pass]] = {}
_pipelines: dict[str, PipelineRegistration] = {}
_imported: set[str] = set()


@dataclass(frozen=True)
class PipelineRegistration:
    """A named pipeline: ``name`` in a pipeline expands to ``text`` (anchored at ``anchor``)."""

    name: str
    text: str
    summary: str


def register_pass(cls: _P) -> _P:
    """Class decorator: make ``cls`` available under ``cls.argument``."""
    if not (isinstance(cls, type) and issubclass(cls, Pass)):
        raise TypeError(f"register_pass expects a Pass subclass, got {cls!r}")
    name = cls.argument
    if not name:
        raise ValueError(f"pass {cls.__name__} has no 'argument' (its pipeline name)")
    existing = _passes.get(name) or _pipelines.get(name)
    if existing is not None and existing is not cls:
        raise ValueError(f"a pass or pipeline named '{name}' is already registered")
    _passes[name] = cls
    return cls


def register_pipeline(name: str, text: str, summary: str = "") -> None:
    """Make ``name`` expand to the pass list ``text`` (``"canonicalize,cse"``)."""
    if name in _passes or (name in _pipelines and _pipelines[name].text != text):
        raise ValueError(f"a pass or pipeline named '{name}' is already registered")
    _pipelines[name] = PipelineRegistration(name, text, summary)


_plugin_modules: list[str] | None = None


def plugin_modules() -> list[str]:
    """The modules installed packages declare in the ``layoutc.passes`` group (read once)."""
    global _plugin_modules
    if _plugin_modules is None:
        from importlib.metadata import entry_points

        _plugin_modules = sorted({ep.value for ep in entry_points(group=PLUGIN_GROUP)})
    return _plugin_modules


def _import_next() -> bool:
    """Import the first module of PASS_MODULES (then of the plugins) not imported yet; False
    when none is left."""
    for module in PASS_MODULES:
        if module not in _imported:
            _imported.add(module)
            importlib.import_module(module)
            return True
    for module in plugin_modules():
        if module not in _imported:
            _imported.add(module)
            try:
                importlib.import_module(module)
            except Exception as e:  # a broken plugin must not break every pipeline
                warnings.warn(
                    f"layoutc: skipping the pass plugin module {module!r} ({PLUGIN_GROUP} entry "
                    f"point): {type(e).__name__}: {e}",
                    stacklevel=2,
                )
            return True
    return False


def load_pass_modules() -> None:
    """Import every module listed in PASS_MODULES."""
    while _import_next():
        pass


def lookup_pass(name: str) -> type[Pass] | None:
    """The pass registered as ``name``, importing pass modules in order until it appears."""
    cls = _passes.get(name)
    while cls is None and name not in _pipelines and _import_next():
        cls = _passes.get(name)
    return cls


def lookup_pipeline(name: str) -> PipelineRegistration | None:
    reg = _pipelines.get(name)
    while reg is None and name not in _passes and _import_next():
        reg = _pipelines.get(name)
    return reg


def registered_passes() -> list[type[Pass]]:
    """Every registered pass, sorted by argument."""
    load_pass_modules()
    return [_passes[k] for k in sorted(_passes)]


def registered_pipelines() -> list[PipelineRegistration]:
    load_pass_modules()
    return [_pipelines[k] for k in sorted(_pipelines)]
