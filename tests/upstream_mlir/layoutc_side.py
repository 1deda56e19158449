"""layoutc's side of the upstream tests (no tests here), as top-level functions so that a
process pool runs them: compiling the examples with every stage dumped, printing stages in
the generic form and reading upstream's prints back are most of the tests' time, and each
piece is independent of the others."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("cpu", "sm_80", "sm_90")
#: The dialects whose names layoutc borrows: their ops must be upstream's (docs/ir.md).
UPSTREAM_DIALECTS = ("builtin", "func", "arith", "math", "scf", "cf", "gpu", "llvm", "nvvm")


def borrowed_op_names() -> list[str]:
    """Every op layoutc registers in a dialect that carries an upstream dialect's name."""
    import importlib

    names: list[str] = []
    for d in UPSTREAM_DIALECTS:
        names += importlib.import_module(f"layoutc.ir.dialects.{d}").DIALECT.ops
    return names


def generic(text: str, name: str) -> str:
    """layoutc's generic form of ``text`` (unregistered ops allowed: test files use a made-up
    ``test`` dialect)."""
    from layoutc.ir.core import Context, parse
    from layoutc.ir.core.printer import print_op

    return print_op(parse(text, Context(allow_unregistered=True), buffer_name=name), generic=True)


def normalise(text: str) -> str:
    """Value and block names are the printer's; the rest must be identical."""
    text = re.sub(r"%[\w.$-]+", "%v", text)
    text = re.sub(r"%v:(\d+)", lambda m: ", ".join(["%v"] * int(m.group(1))), text)
    return re.sub(r"\^bb\d+", "^bb", text)


def compile_jobs() -> list[tuple[str, int, str]]:
    """(example file, example index, target) for every example and target."""
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    jobs = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        n = len(find_examples(vars(load_source(path)), str(path)))
        jobs += [(str(path), i, t) for i in range(n) for t in TARGETS]
    return jobs


def compile_stages(job: tuple[str, int, str]) -> tuple[str, list[tuple[str, str]], str | None]:
    """``_compile_stages`` with any failure as a plain error naming the job (it crosses a
    process boundary)."""
    try:
        return _compile_stages(job)
    except Exception as e:
        raise RuntimeError(f"{job}: {type(e).__name__}: {e}") from None


def _compile_stages(job: tuple[str, int, str]) -> tuple[str, list[tuple[str, str]], str | None]:
    """Compile one example for one target with every stage dumped: (the target compiled for,
    [(stage name, its text)] in pipeline order, the PTX). sm_80 gives nothing for a kernel
    that needs sm_90; sm_90 becomes sm_90a for a kernel that needs that (wgmma)."""
    import layoutc as lc
    import numpy as np
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    path, index, target = job
    ex = find_examples(vars(load_source(Path(path))), path)[index]
    args = ex.inputs(ex.size, np.random.default_rng(0))
    block = dict(ex.launch(args)).get("block")
    with tempfile.TemporaryDirectory() as tmp:
        for t in (target, "sm_90a") if target == "sm_90" else (target,):
            d = Path(tmp) / f"{ex.kernel.name}.{t}"
            try:
                compiled = lc.compile(
                    ex.kernel,
                    *ex.ordered_arguments(args),
                    target=t,
                    block=block,
                    dump_dir=str(d),
                    cache=False,
                )
            except lc.CompileError:
                if t == "cpu":
                    raise
                continue  # sm_80: a kernel for sm_90 only (TMA, clusters); sm_90: wgmma
            stages = [(f"{d.name}/{s.name}", s.read_text()) for s in sorted(d.glob("*.mlir"))]
            return t, stages, None if t == "cpu" else compiled.ptx
    if target == "sm_80":
        return target, [], None
    raise AssertionError(f"{ex.kernel.name} compiles for neither sm_90 nor sm_90a")


def generic_of(item: tuple[str, str]) -> str:
    """``generic`` of ``(name, text)`` (a failure comes back as a plain error: layoutc's
    DiagnosticError does not survive pickling)."""
    try:
        return generic(item[1], item[0])
    except Exception as e:
        raise RuntimeError(f"{item[0]}: {e}") from None


def read_back(item: tuple[str, str, str]) -> str | None:
    """``(name, upstream's print, layoutc's generic form)``: None when layoutc reads the
    print back to the same IR, else what went wrong."""
    name, custom, mine = item
    try:
        back = generic(custom, name)
    except Exception as e:
        return f"layoutc cannot read upstream's print: {str(e)[:400]}"
    return None if normalise(back) == normalise(mine) else "the IR changed through upstream"


def pool_map(fn: Callable[[Any], Any], items: Iterable[Any], chunksize: int = 1) -> list[Any]:
    """``fn`` over ``items`` in one process per CPU (spawned: the test process has threads)."""
    items = list(items)
    workers = min(len(items), os.cpu_count() or 1)
    if workers <= 1:
        return [fn(x) for x in items]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        return list(pool.map(fn, items, chunksize=chunksize))
