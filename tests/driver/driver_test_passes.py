"""Passes for driver tests (registered once, on import)."""

from __future__ import annotations

from layoutc.passes.base import Pass
from layoutc.passes.registry import register_pass


@register_pass
class RemarkEveryKernel(Pass):
    """Test pass: one remark per kernel, at the kernel's definition."""

    argument = "test-driver-remark"
    summary = "emit a remark at every func.func (driver tests)"

    def run_on_operation(self, op):
        for f in op.walk_ops():
            if f.name == "func.func":
                self.emit_remark(f.location, f"kernel {f.sym_name.value} seen by the test pass")


@register_pass
class CrashingPass(Pass):
    """Test pass: raises, as a buggy pass would."""

    argument = "test-driver-crash"
    summary = "raise an exception (driver tests)"

    def run_on_operation(self, op):
        raise RuntimeError("deliberate failure in a test pass")
