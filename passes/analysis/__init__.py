"""Analyses shared by passes: the analysis manager and the symbolic value analysis.

``AnalysisManager`` (``manager.py``) caches analyses per op for the pass manager.
``symbolic.py`` is the symbolic value analysis of docs/dialects.md: index values, layouts and
tensors of the IR as symbolic algebra values, and ``emit`` to rebuild expressions as ``arith``.
The symbolic side is imported lazily (it loads the layout and tile dialects).
"""

from __future__ import annotations

import importlib
from typing import Any

from .manager import AnalysisManager

_LAZY: dict[str, str] = {
    "SymbolicAnalysis": "symbolic",
    "TensorInfo": "symbolic",
    "IndexEmitter": "emitter",
    "emit": "emitter",
    "sym_of": "symbolic",
    "layout_of": "symbolic",
    "tensor_of": "symbolic",
    "value_of": "symbolic",
}

__all__ = ["AnalysisManager", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'layoutc.passes.analysis' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
