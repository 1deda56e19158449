"""Shared helpers for the front-end tests (module name unique across test areas): trace a
kernel, FileCheck its IR, find lines in test sources."""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

from filecheck.matcher import Matcher
from filecheck.options import Options


def trace_ir(kernel: Any, *args: Any, block: Any = 128, debug_info: bool = False, **kw: Any) -> str:
    """The traced module's text for a call with ``args``."""
    spec = kernel.specialize(*args, block=block, **kw)
    module, _, _ = kernel.trace(spec)
    return module.to_text(debug_info=debug_info)


def filecheck(text: str, checks: str, substitutions: dict[str, str] | None = None) -> None:
    """Run FileCheck's matching of ``checks`` (CHECK lines) against ``text``; fail loudly.

    ``substitutions`` replaces placeholders (e.g. ``<<0>>`` by a location) in the checks.
    """
    for key, value in (substitutions or {}).items():
        checks = checks.replace(key, value)
    with tempfile.TemporaryDirectory() as d:
        inp = os.path.join(d, "input.mlir")
        chk = os.path.join(d, "checks.txt")
        with open(inp, "w") as f:
            f.write(text)
        with open(chk, "w") as f:
            f.write(checks)
        rc = Matcher.from_opts(Options(match_filename=chk, input_file=inp)).run()
    assert rc == 0, f"FileCheck failed on:\n{text}"


def line_of(path: str, marker: str) -> int:
    """The 1-based number of the only line of ``path`` with the comment ``# <marker>``."""
    pattern = re.compile(rf"# {re.escape(marker)}(?![\w-])")
    with open(path) as f:
        hits = [i for i, line in enumerate(f, 1) if pattern.search(line)]
    assert len(hits) == 1, f"marker {marker!r} found on lines {hits}"
    return hits[0]


def position(path: str, marker: str, token: str) -> tuple[int, int]:
    """(line, 1-based column of ``token``) on the line marked with ``marker``."""
    line = line_of(path, marker)
    with open(path) as f:
        text = f.read().splitlines()[line - 1]
    col = text.index(token)
    return line, col + 1


def loc_text(path: str, marker: str, token: str) -> str:
    """``path:line:col`` as diagnostics print it."""
    line, col = position(path, marker, token)
    return f"{path}:{line}:{col}"


def mlir_loc(path: str, marker: str, token: str) -> str:
    """``loc("path":line:col)`` as the IR printer writes it."""
    line, col = position(path, marker, token)
    return f'loc("{path}":{line}:{col})'
