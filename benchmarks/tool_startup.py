"""Start-up cost of the command-line tools (``layoutc-opt``, ``filecheck``, ``import layoutc``).

Run: python benchmarks/tool_startup.py [--repeat N] [--against PYTHON]

Every lit RUN line starts ``layoutc-opt`` and ``filecheck`` as fresh Python processes, so their
start-up is most of the lit suite's cost (tests/lit: about 230 layoutc-opt and 165 filecheck
processes). Prints the best CPU time (user + system, of the child process) of each command and
its ratio to a bare ``python -c pass`` measured in the same run, so the numbers compare across
machines and loads. ``--against`` names the interpreter of another checkout's venv (say, the
main branch's) and adds its numbers, measured in alternation with this one's, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "lit"
# Byte-compiled modules are written and reused (as under lit, which does not pass this on):
# otherwise every run would compile the sources again and time that instead.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _cpu_seconds(cmd: list[str], stdin: str) -> float:
    """CPU seconds (user + sys) the child used, from wait4's rusage."""
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_ENV
    )
    assert proc.stdin is not None
    proc.stdin.write(stdin.encode())
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def cases(py: str) -> list[tuple[str, list[str], str]]:
    opt = [py, "-m", "layoutc.cli.opt"]
    tile = str(LIT / "tile" / "coordinate-origins.mlir")
    llvm = str(LIT / "conversion" / "to-llvm.mlir")
    return [
        ("python -c pass", [py, "-c", "pass"], ""),
        ("python -c 'import layoutc'", [py, "-c", "import layoutc"], ""),
        ("filecheck --version", [py, "-m", "filecheck", "--version"], ""),
        ("layoutc-opt (module {})", [*opt, "-"], "module {}"),
        ("layoutc-opt --help", [*opt, "--help"], ""),
        ("layoutc-opt tile/coordinate-origins", [*opt, tile, "--allow-unregistered-dialect"], ""),
        (
            "layoutc-opt tile/... -p canonicalize",
            [*opt, tile, "--allow-unregistered-dialect", "-p", "builtin.module(canonicalize)"],
            "",
        ),
        (
            "layoutc-opt conversion/to-llvm -p convert-to-llvm",
            [*opt, llvm, "--split-input-file", "-p", "builtin.module(convert-to-llvm)"],
            "",
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5, help="runs per command (best is kept)")
    ap.add_argument("--against", metavar="PYTHON", help="another venv's interpreter to compare")
    args = ap.parse_args()
    pythons = [sys.executable] + ([args.against] if args.against else [])
    todo = [cases(py) for py in pythons]
    best = [{name: float("inf") for name, _, _ in c} for c in todo]
    for round_ in range(args.repeat + 1):  # interleaved, so that every command sees the same load
        for i in range(len(todo[0])):
            for k, c in enumerate(todo):
                name, cmd, stdin = c[i]
                seconds = _cpu_seconds(cmd, stdin)
                if round_:  # the first round writes the byte code
                    best[k][name] = min(best[k][name], seconds)
    header = f"{'command':<52} {'CPU ms':>8} {'x python':>9}"
    if args.against:
        header += f" {'other ms':>9} {'other/this':>10}"
    print(header)
    python = best[0][todo[0][0][0]]
    for name, _, _ in todo[0]:
        row = f"{name:<52} {best[0][name] * 1e3:>8.0f} {best[0][name] / python:>9.1f}"
        if args.against:
            row += f" {best[1][name] * 1e3:>9.0f} {best[1][name] / best[0][name]:>10.2f}"
        print(row)


if __name__ == "__main__":
    main()
