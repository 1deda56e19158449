"""layoutc-opt in-process: exit status, streams, outputs, and no traceback for any bad input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from layoutc.cli.opt import main, split_chunks

GOOD = "func.func @f(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n  %0 = arith.addi %a, %c0 : i32\n  return %0 : i32\n}\n"


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(args, stdin=io.StringIO(stdin) if stdin is not None else None, stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_stdin_and_pipeline(tmp_path: Path):
    rc, out, err = run(["-", "--canonicalize"], stdin=GOOD)
    assert (rc, err) == (0, "")
    assert "return %a : i32" in out and "arith.addi" not in out
    rc, out, _ = run(["-", "--print-generic"], stdin=GOOD)
    assert rc == 0 and '"func.func"()' in out


def test_output_file(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    dst = tmp_path / "out.mlir"
    rc, out, err = run([str(src), "-o", str(dst), "-p", "builtin.module(canonicalize)"])
    assert (rc, out, err) == (0, "", "")
    assert "return %a : i32" in dst.read_text()
    rc, _, err = run([str(src), "-o", str(tmp_path / "no" / "such" / "dir.mlir")])
    assert rc == 1 and err.startswith("layoutc-opt: error: could not write output file")


@pytest.mark.parametrize(
    ("args", "stdin", "status", "message"),
    [
        (["-"], "func.func @f(", 1, "<stdin>:1:14: error:"),
        (["-"], '"x.y"() : () -> ()', 1, "belongs to an unregistered dialect"),
        (["-"], "\udcff", 1, "error:"),
        (["-", "-p", "builtin.module(nope)"], GOOD, 1, "does not refer to a registered pass"),
        (["-", "--nope"], GOOD, 2, "unrecognized argument '--nope'"),
        (["-", "--canonicalize=max-iterations=x"], GOOD, 1, "invalid value 'x'"),
        (["-", "--run-reproducer"], GOOD, 1, "has no {-# ... #-} reproducer block"),
        (["-", "--run-reproducer"], GOOD + "{-# external_resources: {} #-}", 1, "mlir_reproducer"),
        (["-", "--timing-display=pie"], GOOD, 2, "invalid choice"),
    ],
)
def test_errors_are_diagnostics(args, stdin, status, message):
    rc, out, err = run(args, stdin=stdin)
    assert rc == status
    assert message in err
    assert "Traceback" not in err
    assert out == ""


def test_invalid_utf8(tmp_path: Path):
    src = tmp_path / "bad.mlir"
    src.write_bytes(b"func.func @f() {\n  return\n}\n// \xff\xfe\n")
    rc, _, err = run([str(src)])
    assert rc == 1
    assert err == "layoutc-opt: error: input is not valid UTF-8: byte 0xff on line 4\n"


def test_split_chunks_keep_line_numbers():
    text = "a\n// -----\nb\nc\n  // ----- trailing\nd"
    assert split_chunks(text) == [("a", 0), ("b\nc", 2), ("d", 5)]


def test_split_input_outputs_and_status():
    text = GOOD + "// -----\nfunc.func @g() {\n  return %x : i32\n}\n// -----\n" + GOOD
    rc, out, err = run(["-", "--split-input-file"], stdin=text)
    assert rc == 1
    assert out.count("// -----") == 2 and out.count("func.func @f") == 2
    assert err.startswith("<stdin>:8:10: error: use of undeclared SSA value name '%x'")
    rc, out, err = run(["-", "--split-input-file", "--verify-diagnostics"], stdin=text)
    assert rc == 1 and "unexpected error: use of undeclared" in err


def test_verify_diagnostics_accepts_matching_failures():
    text = "func.func @g() -> i32 {\n  // expected-error@+1 {{undeclared SSA value}}\n  return %x : i32\n}\n"
    rc, out, err = run(["-", "--verify-diagnostics"], stdin=text)
    assert (rc, out, err) == (0, "", "")


def test_no_verify_flag_reaches_the_pass_manager(monkeypatch):
    from layoutc.passes import manager

    seen = []
    original = manager.PassManager.__init__

    def spy(self, context=None, anchor="builtin.module", *, verify=True):
        seen.append(verify)
        original(self, context, anchor, verify=verify)

    monkeypatch.setattr(manager.PassManager, "__init__", spy)
    assert run(["-", "--cse", "--no-verify"], stdin=GOOD)[0] == 0
    # The manager that runs the pipeline is built last (the first one only checks the text).
    assert seen[-1] is False
    assert run(["-", "--cse"], stdin=GOOD)[0] == 0
    assert seen[-1] is True


def test_console_script_starts_without_sympy_or_llvmlite():
    code = (
        "import io, sys\n"
        "from layoutc.cli.opt import main\n"
        f"rc = main(['-', '--canonicalize', '--cse'], stdin=io.StringIO({GOOD!r}), stdout=io.StringIO())\n"
        "heavy = [m for m in ('sympy', 'llvmlite', 'numpy') if m in sys.modules]\n"
        "print(rc, heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "0 []", proc.stderr
