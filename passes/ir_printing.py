"""IR printing instrumentation (``--print-ir-before/after[-all|-change|-failure]``).

Output follows MLIR, so tools and habits carry over::

    // -----// IR Dump After CSE (cse) //----- //
    func.func @f(...) { ... }

With ``module_scope`` the header names the op the pass ran on and the whole top-level op is
printed: ``// -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, TextIO

from .fingerprint import fingerprint
from .instrumentation import PassInstrumentation

if TYPE_CHECKING:
    from layoutc.ir.core.operation import Operation

    from .base import Pass

PassFilter = Callable[["Pass", "Operation"], bool]


def select_passes(arguments: Collection[str] | None, everything: bool) -> PassFilter | None:
    """A filter matching every pass (``everything``), those named in ``arguments``, or None."""
    if everything:
        return lambda p, op: True
    if arguments:
        names = frozenset(arguments)
        return lambda p, op: p.argument in names
    return None


class IRPrinting(PassInstrumentation):
    """Prints the IR around the passes selected by the ``before``/``after`` filters."""

    def __init__(
        self,
        before: PassFilter | None = None,
        after: PassFilter | None = None,
        *,
        only_after_change: bool = False,
        only_after_failure: bool = False,
        module_scope: bool = False,
        generic: bool = False,
        debug_info: bool = False,
        stream: TextIO | None = None,
    ):
        self.before = before
        self.after = after
        self.only_after_change = only_after_change
        self.only_after_failure = only_after_failure
        self.module_scope = module_scope
        self.generic = generic
        self.debug_info = debug_info
        self.stream = stream
        self._fingerprints: dict[int, list[int]] = {}

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _print(self, header: str, op: Operation) -> None:
        if self.module_scope:
            header += f" ('{op.name}' operation"
            sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
            value = getattr(sym, "value", None)
            if isinstance(value, str):
                header += f": @{value}"
            header += ")"
            top = op
            while top.parent_op is not None:
                top = top.parent_op
            target = top
        else:
            target = op
        text = target.to_text(generic=self.generic, debug_info=self.debug_info)
        self._out().write(f"// -----// {header} //----- //\n{text}\n\n")

    def run_before_pass(self, pass_: Pass, op: Operation) -> None:
        if self.only_after_change:
            self._fingerprints.setdefault(id(pass_), []).append(fingerprint(op))
        if self.before is not None and self.before(pass_, op):
            self._print(f"IR Dump Before {pass_.name} ({pass_.argument})", op)

    def _pop_fingerprint(self, pass_: Pass) -> int | None:
        stack = self._fingerprints.get(id(pass_))
        return stack.pop() if stack else None

    def run_after_pass(self, pass_: Pass, op: Operation) -> None:
        before = self._pop_fingerprint(pass_) if self.only_after_change else None
        if self.only_after_failure or self.after is None or not self.after(pass_, op):
            return
        if before is not None and before == fingerprint(op):
            return
        self._print(f"IR Dump After {pass_.name} ({pass_.argument})", op)

    def run_after_pass_failed(self, pass_: Pass, op: Operation) -> None:
        if self.only_after_change:
            self._pop_fingerprint(pass_)
        if self.after is None or not self.after(pass_, op):
            return
        self._print(f"IR Dump After {pass_.name} Failed ({pass_.argument})", op)
