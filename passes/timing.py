"""Wall-clock timing of passes and tool phases, reported in MLIR's ``--mlir-timing`` format.

A :class:`Timer` is a node of a tree (``Parser``, ``'func.func' Pipeline`` > ``CSE``, ...);
:class:`TimingInstrumentation` hangs pass and pipeline timers under a parent timer, merging
repeated runs of the same pass (a nested pipeline runs once per function). The report::

    ===-------------------------------------------------------------------------===
                             ... Execution time report ...
    ===-------------------------------------------------------------------------===
      Total Execution Time: 0.0203 seconds

      ----Wall Time----  ----Name----
        0.0014 (  6.9%)  Parser
        0.0150 ( 73.9%)  'func.func' Pipeline
        0.0100 ( 49.3%)    Canonicalizer
        ...
        0.0203 (100.0%)  Total
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .instrumentation import PassInstrumentation

if TYPE_CHECKING:
    from layoutc.ir.core.operation import Operation

    from .base import Pass
    from .manager import OpPassManager

_RULE = "===" + "-" * 73 + "==="


class Timer:
    """A named span of wall time with child timers (merged by key)."""

    __slots__ = ("_children", "_started", "elapsed", "name")

    def __init__(self, name: str):
        self.name = name
        self.elapsed = 0.0
        self._started: float | None = None
        self._children: dict[Any, Timer] = {}

    def child(self, key: Any, name: str | None = None) -> Timer:
        """The child timer for ``key`` (created on first use)."""
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = Timer(name if name is not None else str(key))
        return found

    @property
    def children(self) -> list[Timer]:
        return list(self._children.values())

    def start(self) -> None:
        self._started = time.perf_counter()

    def stop(self) -> None:
        if self._started is not None:
            self.elapsed += time.perf_counter() - self._started
            self._started = None

    def __enter__(self) -> Timer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class TimingInstrumentation(PassInstrumentation):
    """Times every pass and nested pipeline under ``parent``."""

    def __init__(self, parent: Timer):
        self._stack: list[Timer] = [parent]

    def run_before_pipeline(self, pipeline: OpPassManager, op: Operation) -> None:
        t = self._stack[-1].child(id(pipeline), f"'{pipeline.anchor}' Pipeline")
        self._stack.append(t)
        t.start()

    def run_after_pipeline(self, pipeline: OpPassManager, op: Operation) -> None:
        self._stack.pop().stop()

    def run_before_pass(self, pass_: Pass, op: Operation) -> None:
        t = self._stack[-1].child(id(pass_), pass_.name)
        self._stack.append(t)
        t.start()

    def run_after_pass(self, pass_: Pass, op: Operation) -> None:
        self._stack.pop().stop()

    run_after_pass_failed = run_after_pass


def format_timing_report(root: Timer, total: float | None = None, display: str = "tree") -> str:
    """The report for ``root``'s children; ``total`` defaults to ``root.elapsed``.

    ``display="list"`` merges timers of the same name and sorts them by time, as MLIR's
    ``--mlir-timing-display=list``.
    """
    total = root.elapsed if total is None else total
    lines = [
        _RULE,
        " " * 25 + "... Execution time report ...",
        _RULE,
        f"  Total Execution Time: {total:.4f} seconds",
        "",
        "  ----Wall Time----  ----Name----",
    ]

    def row(seconds: float, name: str, depth: int) -> str:
        pct = 100.0 * seconds / total if total > 0 else 0.0
        return f"  {seconds:8.4f} ({pct:5.1f}%)  {'  ' * depth}{name}"

    accounted = sum(c.elapsed for c in root.children)
    if display == "list":
        merged: dict[str, float] = {}

        def collect(t: Timer) -> None:
            for c in t.children:
                merged[c.name] = merged.get(c.name, 0.0) + c.elapsed
                collect(c)

        collect(root)
        for name, seconds in sorted(merged.items(), key=lambda kv: -kv[1]):
            lines.append(row(seconds, name, 0))
    else:

        def emit(t: Timer, depth: int) -> None:
            for c in t.children:
                lines.append(row(c.elapsed, c.name, depth))
                emit(c, depth + 1)

        emit(root, 0)
    rest = total - accounted
    if rest > 0:
        lines.append(row(rest, "Rest", 0))
    lines.append(row(total, "Total", 0))
    return "\n".join(lines) + "\n"
