"""The Pass base class: declared options and statistics, an anchor, failure and diagnostics.

A pass is a class with a pipeline ``argument`` (``"cse"``), an optional ``anchor`` (the op
name it runs on, e.g. ``"func.func"``; None means any op) and ``run_on_operation(op)``. The
pass manager creates one instance per pipeline position, calls :meth:`Pass.initialize` once per
run and ``run_on_operation`` for every op it is scheduled on. A pass reports problems with
:meth:`Pass.emit_error` and gives up with :meth:`Pass.signal_failure`; it never raises for
user input (an exception escaping a pass is turned into an internal-error diagnostic and a
crash reproducer by the pass manager).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from layoutc.ir.core.diagnostics import Diagnostic, Severity

from .options import ListOption, Option, OptionError, Statistic, collect_declared

if TYPE_CHECKING:
    from layoutc.ir.core.context import Context
    from layoutc.ir.core.diagnostics import DiagnosticEngine
    from layoutc.ir.core.location import Location
    from layoutc.ir.core.operation import Operation

    from .analysis import AnalysisManager

__all__ = ["ListOption", "Option", "Pass", "Statistic"]


class Pass:
    """Base of all passes. Subclasses set ``argument`` and override ``run_on_operation``."""

    argument: ClassVar[str] = ""
    """The name used in pipelines and on the command line (``canonicalize``)."""
    display_name: ClassVar[str] = ""
    """The name shown in IR dumps and reports (MLIR's pass class name); the class name if empty."""
    summary: ClassVar[str] = ""
    description: ClassVar[str] = ""
    anchor: ClassVar[str | None] = None
    """The op name this pass runs on; None runs on any op."""

    _options: ClassVar[dict[str, Option[Any]]] = {}
    _statistics: ClassVar[dict[str, Statistic]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._options = collect_declared(cls, Option, lambda o: o.name)
        cls._statistics = collect_declared(cls, Statistic, lambda s: s.name)

    def __init__(self, **options: Any):
        """Options by attribute name (``max_iterations=5``) or spelled name."""
        self._option_values: dict[str, Any] = {o.attr: o.default for o in self._options.values()}
        self._statistic_values: dict[str, int] = {}
        by_attr = {o.attr: o for o in self._options.values()}
        for key, value in options.items():
            opt = by_attr.get(key) or self._options.get(key)
            if opt is None:
                known = ", ".join(sorted(self._options)) or "none"
                raise OptionError(f"no such option '{key}' for pass '{self.argument}' ({known})")
            self._option_values[opt.attr] = opt.coerce(value)
        self._failed = False
        self.context: Context | None = None
        self._analyses: AnalysisManager | None = None

    # -- naming ----------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Display name (``CSE``, ``Canonicalizer``)."""
        return self.display_name or type(self).__name__

    def pipeline_text(self) -> str:
        """``argument{opt=value ...}`` listing the options that differ from their defaults, so
        that the text rebuilds exactly this pass."""
        parts = [
            f"{o.name}={o.format(value)}"
            for o in self._options.values()
            if (value := self._option_values[o.attr]) != o.default
        ]
        return f"{self.argument}{{{' '.join(parts)}}}" if parts else self.argument

    @classmethod
    def options(cls) -> list[Option[Any]]:
        """Declared options, in declaration order."""
        return list(cls._options.values())

    @classmethod
    def statistic_declarations(cls) -> list[Statistic]:
        return list(cls._statistics.values())

    def statistics(self) -> list[tuple[Statistic, int]]:
        """Declared statistics with their accumulated values."""
        return [(s, self._statistic_values.get(s.attr, 0)) for s in self._statistics.values()]

    def can_schedule_on(self, op_name: str) -> bool:
        return self.anchor is None or self.anchor == op_name

    # -- hooks -----------------------------------------------------------------------------------
    def initialize(self, context: Context) -> None:
        """Called once per pass-manager run before any ``run_on_operation`` (build patterns)."""

    def run_on_operation(self, op: Operation) -> None:
        raise NotImplementedError(f"pass '{self.argument}' does not implement run_on_operation")

    # -- failure and diagnostics -------------------------------------------------------------------
    def signal_failure(self) -> None:
        """Mark this run as failed; the pass manager stops the pipeline after this pass."""
        self._failed = True

    @property
    def diagnostics(self) -> DiagnosticEngine:
        if self.context is None:
            raise RuntimeError(f"pass '{self.argument}' is not being run by a pass manager")
        return self.context.diagnostics

    def emit(
        self,
        severity: Severity,
        where: Operation | Location | None,
        message: str,
        notes: Iterable[tuple[str, Location | None]] = (),
    ) -> Diagnostic:
        """Emit a diagnostic at an op (``'name' op message``) or a location."""
        from layoutc.ir.core.operation import Operation

        if isinstance(where, Operation):
            diag = where.diagnostic(message, severity)
        else:
            diag = Diagnostic(severity, message, where)
        for text, loc in notes:
            diag.attach_note(text, loc)
        return self.diagnostics.emit(diag)

    def emit_error(
        self,
        where: Operation | Location | None,
        message: str,
        notes: Iterable[tuple[str, Location | None]] = (),
    ) -> Diagnostic:
        return self.emit(Severity.ERROR, where, message, notes)

    def emit_warning(self, where: Operation | Location | None, message: str) -> Diagnostic:
        return self.emit(Severity.WARNING, where, message)

    def emit_remark(self, where: Operation | Location | None, message: str) -> Diagnostic:
        return self.emit(Severity.REMARK, where, message)

    # -- analyses --------------------------------------------------------------------------------
    def get_analysis(self, cls: type[Any]) -> Any:
        """The analysis ``cls`` of the op being processed, cached until the IR changes."""
        if self._analyses is None:
            raise RuntimeError("get_analysis is only available while the pass runs")
        return self._analyses.get(cls)

    def mark_all_analyses_preserved(self) -> None:
        """This run changed nothing that cached analyses depend on."""
        if self._analyses is not None:
            self._analyses.preserve_all()

    def mark_analyses_preserved(self, *classes: type[Any]) -> None:
        if self._analyses is not None:
            self._analyses.preserve(classes)

    def __repr__(self) -> str:
        return f"<pass {self.pipeline_text()}>"
