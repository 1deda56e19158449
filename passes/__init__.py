"""layoutc.passes: the pass manager, pipelines, the greedy rewrite driver and the passes.

Names are re-exported lazily (module ``__getattr__``) so that importing one pass module does
not import every other one. See docs/passes.md.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "Pass": "base",
    "Option": "options",
    "ListOption": "options",
    "Statistic": "options",
    "OptionError": "options",
    "register_pass": "registry",
    "register_pipeline": "registry",
    "registered_passes": "registry",
    "registered_pipelines": "registry",
    "lookup_pass": "registry",
    "PASS_MODULES": "registry",
    "OpPassManager": "manager",
    "PassManager": "manager",
    "PipelineError": "manager",
    "run_pipeline": "manager",
    "PassInstrumentation": "instrumentation",
    "IRPrinting": "ir_printing",
    "Timer": "timing",
    "TimingInstrumentation": "timing",
    "format_timing_report": "timing",
    "format_statistics_report": "statistics",
    "FrozenPatternSet": "patterns",
    "GreedyRewriteConfig": "greedy",
    "GreedyRewriteResult": "greedy",
    "apply_patterns_greedily": "greedy",
    "OperationFolder": "folder",
    "AnalysisManager": "analysis",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'layoutc.passes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
