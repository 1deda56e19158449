"""A pass instrumentation that times every pass, snapshots the IR for dumps, and notes what
prove-vectorization decided (the ``vector_bits`` of every copy, fill and clear) before lowering
erases it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from layoutc.passes.instrumentation import PassInstrumentation

from .dumps import DumpSink

if TYPE_CHECKING:
    from layoutc.ir.core.operation import Operation
    from layoutc.passes.base import Pass


def top_level(op: Operation) -> Operation:
    while op.parent_op is not None:
        op = op.parent_op
    return op


def vector_widths(module: Operation) -> list[int]:
    """The access width of every copy, copy_if, fill and clear in ``module``, in program order.

    That is the op's ``vector_bits``; a converting copy (element types differ) has none, as it
    moves one element per access: its width is one source element's (what each load reads).
    0 when prove-vectorization could not tell (an opaque tensor).
    """
    from layoutc.ir.dialects.tile import ClearOp, CopyIfOp, CopyOp, FillOp

    widths = []
    for op in module.walk_ops():
        if not isinstance(op, (CopyOp, CopyIfOp, FillOp, ClearOp)):
            continue
        attr = op.properties.get("vector_bits") or op.attributes.get("vector_bits")
        bits = int(getattr(attr, "value", 0) or 0)
        if not bits and isinstance(op, (CopyOp, CopyIfOp)):
            src, dst = op.src.type, op.dst.type
            if getattr(src, "element", None) is not getattr(dst, "element", None):
                bits = src.element_bits
        widths.append(bits)
    return widths


class PassRecorder(PassInstrumentation):
    """Per-pass wall time (``timings``: ``[(argument, seconds)]`` in run order) and IR dumps."""

    def __init__(self, sink: DumpSink | None, debug_info: bool = False) -> None:
        self.sink = sink if sink is not None and sink.active else None
        self.debug_info = debug_info
        self.timings: list[tuple[str, float]] = []
        self.vector_bits: list[int] | None = None
        self._started: list[float] = []

    def run_before_pass(self, pass_: Pass, op: Operation) -> None:
        self._started.append(time.perf_counter())

    def _finish(self, pass_: Pass, op: Operation, failed: bool) -> None:
        seconds = time.perf_counter() - self._started.pop()
        self.timings.append((pass_.argument, seconds))
        if pass_.argument == "prove-vectorization" and not failed:
            self.vector_bits = vector_widths(top_level(op))
        if self.sink is not None:
            suffix = " Failed" if failed else ""
            text = top_level(op).to_text(debug_info=self.debug_info)
            self.sink.ir(
                pass_.argument + ("-failed" if failed else ""),
                f"{pass_.name}{suffix} ({pass_.argument})",
                text,
            )

    def run_after_pass(self, pass_: Pass, op: Operation) -> None:
        self._finish(pass_, op, False)

    def run_after_pass_failed(self, pass_: Pass, op: Operation) -> None:
        self._finish(pass_, op, True)

    def pass_seconds(self) -> dict[str, float]:
        """Seconds per pass argument, repeated passes numbered: ``canonicalize#2``."""
        out: dict[str, float] = {}
        seen: dict[str, int] = {}
        for name, seconds in self.timings:
            seen[name] = seen.get(name, 0) + 1
            key = name if seen[name] == 1 else f"{name}#{seen[name]}"
            out[key] = out.get(key, 0.0) + seconds
        return out
