"""Cached analyses of the op a pass runs on (MLIR's AnalysisManager, without nesting).

``pass.get_analysis(DominanceInfo)`` computes the analysis once per op and keeps it for later
passes of the same pipeline until a pass that did not declare it preserved has run. An
analysis class is constructed with the op (``cls(op)``) or, when its constructor takes no
argument, with nothing (``DominanceInfo()``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from layoutc.ir.core.operation import Operation

_TAKES_OP: dict[type, bool] = {}


def _construct(cls: type, op: Operation) -> Any:
    takes = _TAKES_OP.get(cls)
    if takes is None:
        try:
            params = [
                p
                for p in inspect.signature(cls).parameters.values()
                if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
        except (TypeError, ValueError):
            params = []
        takes = _TAKES_OP[cls] = bool(params)
    return cls(op) if takes else cls()


class AnalysisManager:
    """Analyses of one op, with the preserved set of the pass currently running."""

    __slots__ = ("_cache", "_preserve_all", "_preserved", "op")

    def __init__(self, op: Operation):
        self.op = op
        self._cache: dict[type, Any] = {}
        self._preserved: set[type] = set()
        self._preserve_all = False

    def get(self, cls: type) -> Any:
        found = self._cache.get(cls)
        if found is None:
            found = self._cache[cls] = _construct(cls, self.op)
        return found

    def get_cached(self, cls: type) -> Any | None:
        return self._cache.get(cls)

    def preserve_all(self) -> None:
        self._preserve_all = True

    @property
    def preserves_all(self) -> bool:
        """Whether the pass running now declared that it kept every analysis (it did not change
        the IR)."""
        return self._preserve_all

    def preserve(self, classes: Iterable[type]) -> None:
        self._preserved.update(classes)

    def begin_pass(self) -> None:
        self._preserved = set()
        self._preserve_all = False

    def end_pass(self) -> None:
        """Drop every analysis the finished pass did not preserve."""
        if not self._preserve_all:
            for cls in [c for c in self._cache if c not in self._preserved]:
                del self._cache[cls]
        self.begin_pass()

    def invalidate(self) -> None:
        self._cache.clear()
