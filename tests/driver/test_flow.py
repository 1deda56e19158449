"""A compile is one walk down (docs/architecture.md): the stages of flow.py, walked by hand,
give what ``layoutc.compile`` gives, and no stage climbs back to jit.py."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.driver import build, flow
from layoutc.driver.argspecs import spec_of_call
from layoutc.driver.options import CompileOptions
from layoutc.driver.pipeline import default_pipeline
from layoutc.passes import Pass
from layoutc.passes.registry import lookup_pass, register_pass

DRIVER = Path(flow.__file__).parent
STAGES = ("argspecs", "flow", "build", "stored", "cache", "compiled", "spec_facts", "aot")


def _imports(module: str) -> set[str]:
    tree = ast.parse((DRIVER / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_no_stage_imports_the_entry_points() -> None:
    for module in STAGES:
        bad = {m for m in _imports(module) if m in (".jit", "layoutc.driver.jit")}
        assert not bad, f"compiler/driver/{module}.py climbs back to jit.py"


def test_stages_by_hand_equal_compile() -> None:
    sys.path.insert(0, str(DRIVER.parents[1] / "examples"))
    from copy_1d import THREADS, copy_1d

    target, options = lc.driver.resolve_target("cpu"), CompileOptions()
    tensor = lc.spec("f32[(N):(1)],align=16")
    spec = spec_of_call(copy_1d, [tensor, tensor], {}, THREADS, "N%1024==0")
    traced = flow.trace_kernel(copy_1d, spec)
    lowered = build.run_passes(traced.module, traced.name, traced.runtime_spec, target, options)
    products = build.generate_code(lowered, target, options)
    ck = lc.compile(
        copy_1d, tensor, tensor, block=THREADS, target="cpu", assume="N%1024==0", cache=False
    )
    assert products.llvm_ir == ck.llvm_ir
    assert products.runtime_spec == ck.runtime_spec
    assert products.vector_bits == ck.vector_bits
    assert set(ck.timings) >= {"spec", "trace", "print_ir", "passes", "translate"}
    x = np.arange(4096, dtype=np.float32)
    y = np.zeros_like(x)
    lc.CompiledKernel(products, kernel=copy_1d, spec=spec, abi=traced.abi)(x, y, grid=4)
    assert (x == y).all()


class _DropReturns(Pass):
    """Erases every llvm.return: the functions lose their terminators (a broken pass)."""

    argument = "test-flow-drop-returns"

    def run_on_operation(self, op):
        for o in list(op.walk_ops()):
            if o.name == "llvm.return":
                o.erase()


def test_the_ir_is_verified_after_the_pipeline_or_after_each_pass(monkeypatch) -> None:
    """The driver verifies once after the passes unless ``verify_each`` (or
    ``LAYOUTC_VERIFY_EACH``) asks for every pass; the code is the same either way, and a pass
    that breaks the IR is caught by the final verification too."""
    monkeypatch.delenv("LAYOUTC_VERIFY_EACH", raising=False)
    assert not CompileOptions().verifies_each()
    monkeypatch.setenv("LAYOUTC_VERIFY_EACH", "1")
    assert CompileOptions().verifies_each()
    assert not CompileOptions(verify_each=False).verifies_each()
    monkeypatch.setenv("LAYOUTC_VERIFY_EACH", "0")
    assert not CompileOptions().verifies_each()
    assert CompileOptions(verify_each=True).verifies_each()

    sys.path.insert(0, str(DRIVER.parents[1] / "examples"))
    from copy_1d import THREADS, copy_1d

    tensor = lc.spec("f32[(N):(1)],align=16")

    def compile_(**options):
        return lc.compile(
            copy_1d, tensor, tensor, block=THREADS, target="cpu", assume="N%1024==0",
            cache=False, **options,
        )  # fmt: skip

    assert compile_(verify_each=False).llvm_ir == compile_(verify_each=True).llvm_ir
    if lookup_pass(_DropReturns.argument) is None:
        register_pass(_DropReturns)
    broken = default_pipeline(lc.driver.resolve_target("cpu"), 64, True)
    broken = broken[: broken.rindex(")")] + f",{_DropReturns.argument})"
    with pytest.raises(Exception, match="pass pipeline failed to verify"):
        compile_(verify_each=False, pipeline=broken)
    with pytest.raises(Exception, match=f"pass '{_DropReturns.argument}'.*failed to verify"):
        compile_(verify_each=True, pipeline=broken)
