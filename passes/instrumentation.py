"""Pass instrumentation: hooks the pass manager calls around every pass and nested pipeline.

IR printing (:mod:`.ir_printing`) and timing (:mod:`.timing`) are instrumentations; a user may
add their own with ``PassManager.add_instrumentation``. Hooks run in registration order before
a pass and in reverse order after it, as in MLIR.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from layoutc.ir.core.operation import Operation

    from .base import Pass
    from .manager import OpPassManager


class PassInstrumentation:
    """Base class; every hook does nothing by default."""

    def run_before_pipeline(self, pipeline: OpPassManager, op: Operation) -> None:
        """A nested pipeline is about to run on the ops nested in ``op``."""

    def run_after_pipeline(self, pipeline: OpPassManager, op: Operation) -> None:
        """A nested pipeline finished (successfully or not) on the ops nested in ``op``."""

    def run_before_pass(self, pass_: Pass, op: Operation) -> None:
        pass

    def run_after_pass(self, pass_: Pass, op: Operation) -> None:
        pass

    def run_after_pass_failed(self, pass_: Pass, op: Operation) -> None:
        pass
