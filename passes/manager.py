"""The pass manager: pipelines of passes on nested ops, verification, instrumentation, crashes.

An :class:`OpPassManager` holds passes for ops of one name (its ``anchor``; ``any`` accepts
every op) and nested managers, which run on the ops *directly* nested in the regions of the op
being processed, exactly like MLIR's ``builtin.module(func.func(cse))``. The top-level
:class:`PassManager` owns the context (diagnostics), the instrumentations and the crash
reproducer settings, and runs everything with :meth:`PassManager.run`.

Failure model: a pass signals failure (after emitting diagnostics) and the pipeline stops; the
IR is verified after every pass unless ``verify=False`` (as MLIR, not after a pass that
declared every analysis preserved: it did not change the IR, which was verified before it);
with ``verify=False, verify_at_end=True`` it is verified once, after the whole pipeline (what
the driver does by default: docs/driver.md, "Compile time"). An exception escaping a pass
becomes an ``internal error`` diagnostic at the op (plus a reproducer file when enabled), never
a traceback for the user.
"""

from __future__ import annotations

import gc
import os
import threading
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from layoutc.ir.core.diagnostics import Diagnostic, DiagnosticEngine, Severity
from layoutc.ir.core.location import FileLineColLoc, UnknownLoc
from layoutc.ir.core.verifier import verify_op

from .analysis import AnalysisManager
from .base import Pass
from .instrumentation import PassInstrumentation
from .options import OptionError, parse_option_values
from .pipeline_parser import NestedSpec, PassSpec, PipelineSyntaxError, parse_pipeline
from .registry import lookup_pass, lookup_pipeline
from .reproducer import ReproducerConfig, write_reproducer

if TYPE_CHECKING:
    from layoutc.ir.core.context import Context
    from layoutc.ir.core.operation import Operation


class _RunDepth(threading.local):
    """PassManager.run calls on this thread's stack (nested runs leave the heap to the
    outermost)."""

    value = 0


_RUN_DEPTH = _RunDepth()

PIPELINE_BUFFER = "<pass-pipeline>"
"""Buffer name of pipeline strings in diagnostics (``<pass-pipeline>:1:17: error: ...``)."""


class PipelineError(Exception):
    """A pipeline string (or pass list) that cannot be built; points into the text."""

    def __init__(self, message: str, text: str = "", position: int = 0):
        super().__init__(message)
        self.message = message
        self.text = text
        self.position = position

    def diagnostic(self) -> Diagnostic:
        loc = FileLineColLoc(PIPELINE_BUFFER, 1, self.position + 1) if self.text else UnknownLoc()
        return Diagnostic(Severity.ERROR, self.message, loc)

    def emit(self, engine: DiagnosticEngine) -> Diagnostic:
        """Emit as a diagnostic, with the pipeline text registered for a source excerpt."""
        if self.text:
            engine.sources.add(PIPELINE_BUFFER, self.text)
        return engine.emit(self.diagnostic())

    def __str__(self) -> str:
        if not self.text:
            return self.message
        return f"{PIPELINE_BUFFER}:1:{self.position + 1}: {self.message}"


class OpPassManager:
    """Passes and nested pipelines for ops named ``anchor`` (``"any"``: every op)."""

    def __init__(self, anchor: str = "builtin.module"):
        self.anchor = anchor
        self.elements: list[Pass | OpPassManager] = []

    # -- building ------------------------------------------------------------------------------
    def add(self, pass_: Pass) -> OpPassManager:
        """Append a pass (it must be able to run on this manager's ops)."""
        if not isinstance(pass_, Pass):
            raise TypeError(f"expected a Pass instance, got {pass_!r}")
        if pass_.anchor is not None and pass_.anchor != self.anchor:
            raise PipelineError(_misplaced(pass_, self.anchor))
        self.elements.append(pass_)
        return self

    def nest(self, anchor: str) -> OpPassManager:
        """Append (and return) a pipeline run on the ops named ``anchor`` nested in these ops."""
        nested = OpPassManager(anchor)
        self.elements.append(nested)
        return nested

    def add_pipeline(self, text: str) -> OpPassManager:
        """Append the passes of a textual pipeline (``"canonicalize,func.func(cse)"``).

        ``anchor(...)`` with this manager's own anchor is unwrapped, so both
        ``builtin.module(cse)`` and ``cse`` may be added to a module pass manager.
        """
        try:
            elements = parse_pipeline(text)
        except PipelineSyntaxError as e:
            raise PipelineError(e.message, text, e.position) from None
        if len(elements) == 1 and isinstance(elements[0], NestedSpec):
            only = elements[0]
            if only.anchor == self.anchor:
                elements = only.elements
        _build(self, elements, text)
        return self

    # -- inspection ----------------------------------------------------------------------------
    def passes(self) -> Iterator[Pass]:
        """Every pass, nested ones included, in pipeline order."""
        for e in self.elements:
            if isinstance(e, Pass):
                yield e
            else:
                yield from e.passes()

    def pipeline_text(self) -> str:
        """The textual pipeline (``builtin.module(canonicalize{...},cse)``) that rebuilds this."""
        inner = ",".join(e.pipeline_text() for e in self.elements)
        return f"{self.anchor}({inner})"

    def __repr__(self) -> str:
        return f"<OpPassManager {self.pipeline_text()}>"


def _suggest(name: str) -> str:
    from .registry import registered_passes, registered_pipelines

    known = [c.argument for c in registered_passes()] + [p.name for p in registered_pipelines()]
    import difflib  # only for a misspelt name: keeps the tools' start-up light

    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _misplaced(pass_: Pass, anchor: str) -> str:
    return (
        f"pass '{pass_.argument}' runs on '{pass_.anchor}' ops and cannot be scheduled on "
        f"'{anchor}' ops; nest it: {anchor}({pass_.anchor}({pass_.argument}))"
    )


def _build(pm: OpPassManager, elements: list[PassSpec | NestedSpec], text: str) -> None:
    for spec in elements:
        if isinstance(spec, NestedSpec):
            if spec.anchor != "any" and "." not in spec.anchor:
                is_pass = lookup_pass(spec.anchor) or lookup_pipeline(spec.anchor)
                raise PipelineError(
                    f"'{spec.anchor}' is a pass, not an operation name; only operation names "
                    "(or 'any') take a nested pipeline"
                    if is_pass
                    else f"expected an operation name ('dialect.op') or 'any' before '(', "
                    f"found '{spec.anchor}'",
                    text,
                    spec.position,
                )
            nested = pm.nest(spec.anchor)
            _build(nested, spec.elements, text)
            continue
        cls = lookup_pass(spec.name)
        if cls is None:
            registered = lookup_pipeline(spec.name)
            if registered is None:
                raise PipelineError(
                    f"'{spec.name}' does not refer to a registered pass or pass pipeline"
                    + _suggest(spec.name),
                    text,
                    spec.position,
                )
            if spec.options is not None:
                raise PipelineError(
                    f"pipeline '{spec.name}' does not take options", text, spec.options_position
                )
            try:
                pm.add_pipeline(registered.text)
            except PipelineError as e:
                raise PipelineError(
                    f"in registered pipeline '{spec.name}': {e.message}", text, spec.position
                ) from None
            continue
        try:
            values = (
                parse_option_values(
                    cls._options, spec.options, f"pass '{spec.name}'", spec.options_position
                )
                if spec.options is not None
                else {}
            )
        except OptionError as e:
            raise PipelineError(e.message, text, e.position) from None
        pass_ = cls(**values)
        if pass_.anchor is not None and pass_.anchor != pm.anchor:
            raise PipelineError(_misplaced(pass_, pm.anchor), text, spec.position)
        pm.elements.append(pass_)


class PassManager(OpPassManager):
    """The top-level pass manager: runs its pipeline on one op with instrumentation."""

    def __init__(
        self,
        context: Context | None = None,
        anchor: str = "builtin.module",
        *,
        verify: bool = True,
        verify_at_end: bool = False,
    ):
        super().__init__(anchor)
        if context is None:
            from layoutc.ir.core.context import Context

            context = Context()
        self.context = context
        self.verify_each = verify
        self.verify_at_end = verify_at_end
        """Without ``verify_each``: verify the IR once after the last pass."""
        self.instrumentations: list[PassInstrumentation] = []
        self._reproducer_enabled = False
        self._reproducer_path: str | None = None
        self._reproducer_on_failure = True
        self._snapshot: str | None = None
        self.last_reproducer: str | None = None
        """Path of the reproducer written by the last failed run, if any."""
        self.reproducer_input: str | None = None
        """The IR text the run starts from, when the caller has it (a tool reading a file);
        used for reproducers instead of printing the IR again."""

    @classmethod
    def parse(
        cls,
        pipeline: str,
        context: Context | None = None,
        *,
        anchor: str = "builtin.module",
        verify: bool = True,
        verify_at_end: bool = False,
    ) -> PassManager:
        """A pass manager for a textual pipeline; raise PipelineError when it is invalid."""
        pm = cls(context, anchor, verify=verify)
        pm.verify_at_end = verify_at_end
        pm.add_pipeline(pipeline)
        return pm

    # -- configuration ---------------------------------------------------------------------------
    def add_instrumentation(self, instrumentation: PassInstrumentation) -> None:
        self.instrumentations.append(instrumentation)

    def enable_crash_reproducer(self, path: str | None = None, *, on_failure: bool = True) -> None:
        """Write a reproducer when a pass raises (and, if ``on_failure``, when one fails).

        Without ``path`` a fresh temporary file is used. The IR is snapshotted as text when a
        run starts, which costs one print of the module.
        """
        self._reproducer_enabled = True
        self._reproducer_path = os.fspath(path) if path is not None else None
        self._reproducer_on_failure = on_failure

    # -- running ---------------------------------------------------------------------------------
    def run(self, op: Operation) -> bool:
        """Run the pipeline on ``op``; diagnostics go to the context's engine. True on success."""
        engine = self.context.diagnostics
        self.last_reproducer = None
        if self.anchor != "any" and op.name != self.anchor:
            engine.emit(
                op.diagnostic(
                    f"cannot run a pass pipeline anchored on '{self.anchor}' on this operation"
                )
            )
            return False
        self._snapshot = None
        if self._reproducer_enabled:
            self._snapshot = (
                self.reproducer_input
                if self.reproducer_input is not None
                else op.to_text(generic=True, debug_info=True)
            )
        for p in self.passes():
            p.context = self.context
            try:
                p.initialize(self.context)
            except Exception as e:
                self._report_crash(p, op, e, during="initializing")
                return False
        # The IR is a large graph of reference cycles: keep the cyclic garbage collector from
        # rescanning it on every collection while passes run (new garbage is still collected).
        # Only the outermost run decides: gc.get_freeze_count() walks every frozen object, and
        # nested runs (the inliner's default pipeline, once per function) would pay for the
        # whole heap each time.
        depth = _RUN_DEPTH
        freeze = depth.value == 0 and gc.isenabled() and gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        depth.value += 1
        try:
            ok = self._run_manager(self, op)
            if ok and self.verify_at_end and not self.verify_each:
                ok = self._verify_output(op)
        finally:
            depth.value -= 1
            self._snapshot = None
            if freeze:
                gc.unfreeze()
        return ok

    def _run_manager(self, pm: OpPassManager, op: Operation) -> bool:
        analyses = AnalysisManager(op)
        for element in pm.elements:
            if isinstance(element, Pass):
                if not self._run_pass(element, op, analyses):
                    return False
            else:
                ok = self._run_nested(element, op)
                analyses.invalidate()
                if not ok:
                    return False
        return True

    def _run_nested(self, pm: OpPassManager, op: Operation) -> bool:
        anchor = pm.anchor
        targets = [
            child
            for region in op.regions
            for block in region.blocks
            for child in block.ops
            if anchor == "any" or child.name == anchor
        ]
        instruments = self.instrumentations
        for inst in instruments:
            inst.run_before_pipeline(pm, op)
        ok = True
        try:
            for child in targets:
                if child.parent is None:  # erased by an earlier run of this pipeline
                    continue
                if not self._run_manager(pm, child):
                    ok = False
                    break
        finally:
            for inst in reversed(instruments):
                inst.run_after_pipeline(pm, op)
        return ok

    def _run_pass(self, pass_: Pass, op: Operation, analyses: AnalysisManager) -> bool:
        engine = self.context.diagnostics
        errors_before = engine.error_count
        pass_._failed = False
        pass_._analyses = analyses
        analyses.begin_pass()
        instruments = self.instrumentations
        for inst in instruments:
            inst.run_before_pass(pass_, op)
        crashed = False
        try:
            pass_.run_on_operation(op)
        except Exception as e:
            crashed = True
            self._report_crash(pass_, op, e)
        finally:
            pass_._analyses = None
        failed = crashed or pass_._failed
        # As MLIR: a pass that preserved every analysis did not change the (verified) IR.
        if not failed and self.verify_each and not analyses.preserves_all:
            problems = verify_op(op)
            for d in problems:
                d.attach_note(
                    f"the IR produced by pass '{pass_.argument}' ({pass_.name}) failed to verify"
                )
                engine.emit(d)
            failed = bool(problems)
        if failed:
            for inst in reversed(instruments):
                inst.run_after_pass_failed(pass_, op)
            analyses.invalidate()
            if not crashed:
                if engine.error_count == errors_before:
                    engine.emit(op.diagnostic(f"pass '{pass_.argument}' ({pass_.name}) failed"))
                if self._reproducer_enabled and self._reproducer_on_failure:
                    path = self._write_reproducer()
                    if path is not None:
                        diag = Diagnostic(
                            Severity.ERROR,
                            "failures have been detected while processing the pass pipeline",
                        )
                        diag.attach_note(_replay_note(path))
                        engine.emit(diag)
            return False
        for inst in reversed(instruments):
            inst.run_after_pass(pass_, op)
        analyses.end_pass()
        return True

    def _verify_output(self, op: Operation) -> bool:
        """Verify the pipeline's result once (``verify_at_end``); False, reported, if invalid."""
        problems = verify_op(op)
        if not problems:
            return True
        engine = self.context.diagnostics
        for d in problems:
            d.attach_note(
                "the IR produced by the pass pipeline failed to verify (verify after each pass "
                "to find the pass that broke it: LAYOUTC_VERIFY_EACH=1, or layoutc-opt)"
            )
            engine.emit(d)
        if self._reproducer_enabled and self._reproducer_on_failure:
            path = self._write_reproducer()
            if path is not None:
                diag = Diagnostic(
                    Severity.ERROR, "failures have been detected while processing the pass pipeline"
                )
                diag.attach_note(_replay_note(path))
                engine.emit(diag)
        return False

    # -- crashes -----------------------------------------------------------------------------------
    def _report_crash(
        self, pass_: Pass, op: Operation, error: BaseException, during: str = ""
    ) -> None:
        where = f" while {during}" if during else ""
        diag = op.diagnostic(
            f"internal error in pass '{pass_.argument}' ({pass_.name}){where}: "
            f"{type(error).__name__}: {error}"
        )
        frames = traceback.extract_tb(error.__traceback__)
        if frames:
            last = frames[-1]
            diag.attach_note(f"raised at {last.filename}:{last.lineno} in {last.name}")
        if self._reproducer_enabled:
            path = self._write_reproducer()
            if path is not None:
                diag.attach_note(_replay_note(path))
        else:
            diag.attach_note(
                "this is a bug in layoutc; enable a crash reproducer "
                "(layoutc-opt --crash-reproducer=FILE) to capture the input"
            )
        self.context.diagnostics.emit(diag)

    def _write_reproducer(self) -> str | None:
        if self._snapshot is None:
            return None
        config = ReproducerConfig(
            pipeline=self.pipeline_text(),
            # a replay verifies after each pass, so it names the pass that broke the IR
            verify_each=self.verify_each or self.verify_at_end,
            allow_unregistered_dialect=self.context.allow_unregistered,
        )
        try:
            path = write_reproducer(self._reproducer_path, self._snapshot, config)
        except OSError as e:
            self.context.diagnostics.emit(
                Diagnostic(Severity.WARNING, f"could not write the crash reproducer: {e}")
            )
            return None
        self.last_reproducer = path
        return path


def _replay_note(path: str) -> str:
    return f"reproducer written to '{path}'; replay with: layoutc-opt --run-reproducer {path}"


def run_pipeline(
    op: Operation, pipeline: str, context: Context | None = None, **kwargs: Any
) -> bool:
    """Parse ``pipeline`` and run it on ``op`` (convenience for tests and scripts)."""
    return PassManager.parse(pipeline, context, **kwargs).run(op)
