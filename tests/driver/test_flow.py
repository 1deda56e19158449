"""A compile is one walk down (docs/architecture.md): the stages of flow.py, walked by hand,
give what ``layoutc.compile`` gives, and no stage climbs back to jit.py."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
from layoutc.driver import build, flow
from layoutc.driver.argspecs import spec_of_call
from layoutc.driver.options import CompileOptions

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
