"""The pass manager: scheduling on nested ops, failure, verification, instrumentation,
analyses, statistics and crash handling."""

from __future__ import annotations

import io
import os

import pytest
from layoutc.ir.core import Context, DominanceInfo, parse
from layoutc.ir.core.attributes import UnitAttr
from layoutc.passes import (
    IRPrinting,
    Pass,
    PassInstrumentation,
    PassManager,
    Statistic,
    Timer,
    TimingInstrumentation,
    format_timing_report,
)
from layoutc.passes.ir_printing import select_passes
from layoutc.passes.registry import register_pass

MODULE = """
module {
  func.func @f(%a: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.addi %a, %a : i32
    %2 = arith.muli %0, %1 : i32
    return %2 : i32
  }
  func.func @g() {
    return
  }
  module @inner {
    func.func @h() {
      return
    }
  }
}
"""


def load() -> tuple[Context, object]:
    ctx = Context()
    return ctx, parse(MODULE, ctx)


class Record(Pass):
    argument = "test-record"
    seen: list[str]

    def __init__(self, log: list[str], tag: str = "", **kw):
        super().__init__(**kw)
        self.log = log
        self.tag = tag
        self.initialized = 0

    def initialize(self, context):
        self.initialized += 1

    def run_on_operation(self, op):
        sym = op.properties.get("sym_name")
        self.log.append(f"{self.tag}{op.name}@{sym.value if sym else ''}")


class Fail(Pass):
    argument = "test-fail"

    def __init__(self, message: str | None = None):
        super().__init__()
        self.message = message

    def run_on_operation(self, op):
        if self.message:
            self.emit_error(op, self.message)
        self.signal_failure()


class Crash(Pass):
    argument = "test-crash-unregistered"

    def run_on_operation(self, op):
        raise ZeroDivisionError("boom")


class BreakIR(Pass):
    """Erases every func.return: the functions lose their terminators."""

    argument = "test-break-ir"

    def run_on_operation(self, op):
        for o in list(op.walk_ops()):
            if o.name == "func.return":
                o.erase()


def test_nested_pipelines_run_on_direct_children_only():
    ctx, module = load()
    log: list[str] = []
    pm = PassManager(ctx)
    pm.add(Record(log, "top:"))
    pm.nest("func.func").add(Record(log, "func:"))
    pm.nest("builtin.module").nest("func.func").add(Record(log, "inner:"))
    pm.nest("any").add(Record(log, "any:"))
    assert pm.run(module)
    assert log == [
        "top:builtin.module@",
        "func:func.func@f",
        "func:func.func@g",
        "inner:func.func@h",
        "any:func.func@f",
        "any:func.func@g",
        "any:builtin.module@inner",
    ]
    assert pm.pipeline_text() == (
        "builtin.module(test-record,func.func(test-record),"
        "builtin.module(func.func(test-record)),any(test-record))"
    )


def test_initialize_runs_once_per_run():
    ctx, module = load()
    p = Record([])
    pm = PassManager(ctx)
    pm.nest("func.func").add(p)
    assert pm.run(module) and pm.run(module)
    assert p.initialized == 2


def test_instrumentation_hooks_nest_in_order():
    ctx, module = load()
    events: list[str] = []

    class Spy(PassInstrumentation):
        def run_before_pipeline(self, pipeline, op):
            events.append(f"begin {pipeline.anchor}")

        def run_after_pipeline(self, pipeline, op):
            events.append(f"end {pipeline.anchor}")

        def run_before_pass(self, pass_, op):
            events.append(f"before {pass_.argument}")

        def run_after_pass(self, pass_, op):
            events.append(f"after {pass_.argument}")

        def run_after_pass_failed(self, pass_, op):
            events.append(f"failed {pass_.argument}")

    pm = PassManager.parse("builtin.module(func.func(cse),dce)", ctx)
    pm.add_instrumentation(Spy())
    assert pm.run(module)
    assert events == [
        "begin func.func",
        *["before cse", "after cse"] * 2,
        "end func.func",
        "before dce",
        "after dce",
    ]
    events.clear()
    pm = PassManager(ctx)
    pm.add_instrumentation(Spy())
    pm.nest("func.func").add(Fail("nope"))
    with ctx.diagnostics.collect():
        assert not pm.run(module)
    assert events == ["begin func.func", "before test-fail", "failed test-fail", "end func.func"]


def test_failure_stops_the_pipeline_and_always_reports():
    ctx, module = load()
    log: list[str] = []
    pm = PassManager(ctx)
    pm.add(Fail("the input is wrong"))
    pm.add(Record(log))
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert log == []
    assert [d.message for d in diags] == ["'builtin.module' op the input is wrong"]
    # A pass that fails silently still gets an error.
    pm = PassManager(ctx)
    pm.add(Fail())
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert [d.message for d in diags] == ["'builtin.module' op pass 'test-fail' (Fail) failed"]


def test_verification_after_each_pass():
    ctx, module = load()
    pm = PassManager(ctx)
    pm.add(BreakIR())
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert diags and all(d.severity.label == "error" for d in diags)
    assert "failed to verify" in diags[0].notes[0].message
    assert "test-break-ir" in diags[0].notes[0].message
    ctx, module = load()
    pm = PassManager(ctx, verify=False)
    pm.add(BreakIR())
    assert pm.run(module)


class Preserving(Pass):
    """Changes nothing and says so."""

    argument = "test-preserving"

    def run_on_operation(self, op):
        self.mark_all_analyses_preserved()


def count_verifies(monkeypatch) -> list[object]:
    import layoutc.passes.manager as manager

    calls: list[object] = []
    real = manager.verify_op

    def counting(op):
        calls.append(op)
        return real(op)

    monkeypatch.setattr(manager, "verify_op", counting)
    return calls


def test_no_verification_after_a_pass_that_preserved_everything(monkeypatch):
    """As MLIR: a pass that declared every analysis preserved did not change the IR."""
    calls = count_verifies(monkeypatch)
    ctx, module = load()
    pm = PassManager(ctx)
    pm.add(Preserving())
    pm.add(Record([]))
    with ctx.diagnostics.collect() as diags:
        assert pm.run(module)
    assert not diags
    assert len(calls) == 1  # after test-record only


def test_verification_at_the_end_only(monkeypatch):
    """verify=False, verify_at_end=True (the driver's default): one verification, after the
    last pass, which still catches a pass that broke the IR and says how to find it."""
    calls = count_verifies(monkeypatch)
    ctx, module = load()
    pm = PassManager(ctx, verify=False, verify_at_end=True)
    pm.add(Record([]))
    pm.add(Record([]))
    with ctx.diagnostics.collect() as diags:
        assert pm.run(module)
    assert not diags and len(calls) == 1
    pm = PassManager(ctx, verify=False, verify_at_end=True)
    pm.add(BreakIR())
    pm.add(Record([]))
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert diags and all(d.severity.label == "error" for d in diags)
    assert "pass pipeline failed to verify" in diags[0].notes[0].message
    assert "LAYOUTC_VERIFY_EACH=1" in diags[0].notes[0].message
    assert len(calls) == 2


def test_no_verification_at_all(monkeypatch):
    calls = count_verifies(monkeypatch)
    ctx, module = load()
    pm = PassManager(ctx, verify=False)
    pm.add(BreakIR())
    with ctx.diagnostics.collect() as diags:
        assert pm.run(module)
    assert not diags and not calls


def test_anchor_mismatch_is_a_diagnostic():
    ctx, module = load()
    pm = PassManager(ctx, anchor="func.func")
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert "anchored on 'func.func'" in diags[0].message


def test_exceptions_become_diagnostics_and_reproducers(tmp_path):
    ctx, module = load()
    pm = PassManager.parse("builtin.module(cse)", ctx)
    pm.nest("func.func").add(Crash())
    path = tmp_path / "repro.mlir"
    pm.enable_crash_reproducer(str(path))
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    (diag,) = diags
    assert diag.message == (
        "'func.func' op internal error in pass 'test-crash-unregistered' (Crash): "
        "ZeroDivisionError: boom"
    )
    notes = [n.message for n in diag.notes]
    assert notes[0].startswith("raised at ") and "test_pass_manager.py" in notes[0]
    assert notes[1] == (
        f"reproducer written to '{path}'; replay with: layoutc-opt --run-reproducer {path}"
    )
    assert pm.last_reproducer == str(path)
    text = path.read_text()
    assert '"builtin.module"()' in text  # generic form of the input
    assert "loc(" in text  # with locations
    assert 'pipeline: "builtin.module(cse,func.func(test-crash-unregistered))"' in text
    # Without a reproducer the note says how to get one.
    ctx, module = load()
    pm = PassManager(ctx)
    pm.add(Crash())
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert "--crash-reproducer" in diags[0].notes[-1].message


def test_reproducer_on_plain_failure_defaults_to_a_temporary_file():
    ctx, module = load()
    pm = PassManager(ctx)
    pm.add(Fail("bad"))
    pm.enable_crash_reproducer()
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert [d.message for d in diags] == [
        "'builtin.module' op bad",
        "failures have been detected while processing the pass pipeline",
    ]
    path = pm.last_reproducer
    assert path is not None and os.path.exists(path)
    try:
        with open(path) as f:
            assert "mlir_reproducer" in f.read()
    finally:
        os.unlink(path)


class CountDominance(Pass):
    argument = "test-count-dominance"
    built: list[object] = []

    def __init__(self, preserve: bool):
        super().__init__()
        self.preserve = preserve

    def run_on_operation(self, op):
        info = self.get_analysis(DominanceInfo)
        CountDominance.built.append(info)
        if self.preserve:
            self.mark_all_analyses_preserved()


def test_analyses_are_cached_until_invalidated():
    ctx, module = load()
    CountDominance.built.clear()
    pm = PassManager(ctx)
    fn = pm.nest("func.func")
    fn.add(CountDominance(preserve=True))
    fn.add(CountDominance(preserve=False))
    fn.add(CountDominance(preserve=True))
    assert pm.run(module)
    a, b, c = CountDominance.built[:3]  # the passes on @f
    assert a is b and c is not b
    with pytest.raises(RuntimeError, match="only available while the pass runs"):
        CountDominance(True).get_analysis(DominanceInfo)


def test_statistics_accumulate_over_nested_runs():
    ctx, module = load()
    pm = PassManager.parse("builtin.module(func.func(cse))", ctx)
    assert pm.run(module)
    (cse,) = pm.passes()
    stats = {s.name: v for s, v in cse.statistics()}
    assert stats == {"num-cse'd": 1, "num-dce'd": 0}
    assert isinstance(type(cse).num_cse, Statistic)


def test_ir_printing_after_change_only():
    ctx, module = load()

    class Touch(Pass):
        argument = "test-touch"

        def run_on_operation(self, op):
            if op.properties["sym_name"].value == "g":
                op.attributes["touched"] = UnitAttr()

    out = io.StringIO()
    pm = PassManager(ctx)
    pm.nest("func.func").add(Touch())
    pm.add_instrumentation(
        IRPrinting(after=select_passes((), True), only_after_change=True, stream=out)
    )
    assert pm.run(module)
    text = out.getvalue()
    assert text.count("// -----// IR Dump After Touch (test-touch) //----- //") == 1
    assert "func.func @g() attributes {touched}" in text
    assert "@f" not in text


def test_ir_printing_module_scope_and_filters():
    ctx, module = load()
    out = io.StringIO()
    pm = PassManager.parse("builtin.module(func.func(cse,dce))", ctx)
    pm.add_instrumentation(
        IRPrinting(before=select_passes(["dce"], False), module_scope=True, stream=out)
    )
    assert pm.run(module)
    headers = [line for line in out.getvalue().splitlines() if line.startswith("// -----//")]
    assert headers == [
        "// -----// IR Dump Before DCE (dce) ('func.func' operation: @f) //----- //",
        "// -----// IR Dump Before DCE (dce) ('func.func' operation: @g) //----- //",
    ]
    assert out.getvalue().count("module @inner") == 2  # the whole module each time


def test_timing_tree_mirrors_the_pipeline():
    ctx, module = load()
    root = Timer("root")
    pm = PassManager.parse("builtin.module(func.func(canonicalize,cse),symbol-dce)", ctx)
    pm.add_instrumentation(TimingInstrumentation(root))
    with root:
        assert pm.run(module)
    (pipeline, sdce) = root.children
    assert pipeline.name == "'func.func' Pipeline" and sdce.name == "SymbolDCE"
    assert [t.name for t in pipeline.children] == ["Canonicalizer", "CSE"]
    assert pipeline.elapsed >= sum(t.elapsed for t in pipeline.children)
    report = format_timing_report(root)
    lines = report.splitlines()
    assert lines[1].strip() == "... Execution time report ..."
    assert lines[-1].endswith("(100.0%)  Total")
    assert any(line.endswith("    CSE") for line in lines)


def test_registered_crashing_pass_is_reported_by_the_cli(tmp_path):
    """End to end: layoutc-opt turns a crash into a diagnostic and a replayable reproducer."""
    from layoutc.cli.opt import main

    @register_pass
    class CrashCli(Pass):
        argument = "test-crash"
        anchor = "func.func"

        def run_on_operation(self, op):
            raise KeyError("missing")

    src = tmp_path / "in.mlir"
    src.write_text("func.func @f() {\n  return\n}\n")
    err = io.StringIO()
    assert main([str(src), "--test-crash"], stdout=io.StringIO(), stderr=err) == 1
    text = err.getvalue()
    assert "in.mlir:1:1: error: 'func.func' op internal error in pass 'test-crash'" in text
    assert "Traceback" not in text
    repro = text.split("reproducer written to '")[1].split("'")[0]
    try:
        err2 = io.StringIO()
        assert main(["--run-reproducer", repro], stdout=io.StringIO(), stderr=err2) == 1
        assert "internal error in pass 'test-crash' (CrashCli): KeyError: 'missing'" in (
            err2.getvalue()
        )
    finally:
        os.unlink(repro)
