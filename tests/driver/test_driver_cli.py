"""``layoutc compile`` (AOT artifacts) and the CLI's error reporting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from driver_kernels import SCALAR_PIPELINE
from layoutc.cli.main import main

KERNELS = str(Path(__file__).with_name("driver_kernels.py"))


def aot(out, *extra):
    return main(
        [
            "compile",
            f"{KERNELS}::branchy",
            "--target",
            "sm_90",
            "--target",
            "sm_80",
            "--spec",
            "n=i32,div=4",
            "--block",
            "128",
            "--pipeline",
            SCALAR_PIPELINE,
            "-o",
            str(out),
            *extra,
        ]
    )


def test_compile_writes_a_loadable_deterministic_artifact(tmp_path, capsys):
    assert aot(tmp_path / "a") == 0
    out = capsys.readouterr().out
    assert "branchy [sm_90]:" in out and "branchy [sm_80]:" in out
    assert out.count("; assumes n%4==0") == 2  # the facts the artifact states
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    expected = {
        "manifest.json",
        "branchy.mlir",
        "branchy.sm_90.llvm.mlir",
        "branchy.sm_80.llvm.mlir",
        "branchy.sm_90.ll",
        "branchy.sm_80.ll",
        "branchy.sm_90.ptx",
        "branchy.sm_80.ptx",
    }
    assert expected <= set(names)
    from layoutc.runtime.artifact import read_manifest

    manifest = read_manifest(tmp_path / "a")
    (entry,) = manifest["kernels"]
    assert entry["name"] == "branchy"
    assert entry["params"] == [{"name": "n", "kind": "scalar", "dtype": "i32", "divisible_by": 4}]
    assert entry["equal"] == [] and manifest["version"] == 2
    assert entry["launch_bounds"]["block"] == [128, 1, 1]
    assert [v["arch"] for v in entry["variants"]] == ["sm_90", "sm_80"]
    assert "layoutc.divisible_by = 4" in (tmp_path / "a" / "branchy.mlir").read_text()
    assert "nvvm.read.ptx.sreg.tid.x" in (tmp_path / "a" / "branchy.sm_90.llvm.mlir").read_text()

    assert aot(tmp_path / "b") == 0
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert json.loads((tmp_path / "b" / "manifest.json").read_text()) == manifest


def test_compile_dumps_and_remarks(tmp_path, capsys):
    assert aot(tmp_path / "a", "--dump-dir", str(tmp_path / "d"), "--remarks") == 0
    builds = sorted(p.name for p in (tmp_path / "d").iterdir())
    assert [b.split(".")[1] for b in builds] == ["sm_80", "sm_90"]
    assert (tmp_path / "d" / builds[0] / "00-traced.mlir").is_file()
    assert "layoutc remarks for kernel 'branchy [sm_90]' (0)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["compile", f"{KERNELS}::branchy", "--target", "sm_90", "-o", "X"], 2, "--spec n=i32"),
        (["compile", f"{KERNELS}::nope", "--target", "sm_90", "-o", "X"], 1, "kernels: branchy"),
        (["compile", f"{KERNELS}", "--target", "sm_90", "-o", "X"], 2, "name the kernel"),
        (["compile", "missing.py::k", "--target", "sm_90", "-o", "X"], 1, "no such file"),
        (
            ["compile", f"{KERNELS}::branchy", "--spec", "m=i32", "--target", "sm_90", "-o", "X"],
            2,
            "does not take",
        ),
        (
            ["compile", f"{KERNELS}::branchy", "--spec", "n=f33", "--target", "sm_90", "-o", "X"],
            1,
            "expected an element type",
        ),
        (
            ["compile", f"{KERNELS}::branchy", "--spec", "n=i32", "--target", "sm_75", "-o", "X"],
            1,
            "sm_75",
        ),
        (
            ["compile", f"{KERNELS}::branchy", "--spec", "n=i32", "--target", "cpu", "-o", "X"],
            1,
            "not supported: AOT artifacts for the CPU",
        ),
        (["compile", f"{KERNELS}::branchy", "--block", "0", "-o", "X"], 2, "positive"),
    ],
)
def test_compile_errors_are_one_clear_message(argv, status, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == status
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_compile_error_in_user_code_is_a_located_diagnostic(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import layoutc as lc\n\n"
        "@lc.kernel\n"
        "def k(n: int):\n"
        "    x = lc.thread_idx.x + undefined_name\n"
    )
    status = main(["compile", f"{bad}::k", "--spec", "n=i32", "--target", "sm_90", "-o", "X"])
    assert status == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:5:") and "error:" in err and "undefined_name" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["run", "compile"])
def test_a_syntax_error_is_a_diagnostic_at_the_user_s_line(tmp_path, capsys, command):
    bad = tmp_path / "typo.py"
    bad.write_text("import layoutc as lc\n\n\ndef f(x:\n    return x\n")
    ref = str(bad) if command == "run" else f"{bad}::k"
    extra = [] if command == "run" else ["--target", "sm_90", "-o", str(tmp_path / "X")]
    assert main([command, ref, *extra]) == 1
    err = capsys.readouterr().err
    first, source, caret = err.rstrip("\n").split("\n")
    assert first == f"{bad}:4:6: error: SyntaxError: '(' was never closed"
    assert source == "def f(x:" and caret == "     ^"
    assert "importlib" not in err and "Traceback" not in err


def test_a_syntax_error_in_an_imported_neighbour_points_at_the_neighbour(tmp_path, capsys):
    (tmp_path / "helper.py").write_text("x = (1 +\n     2 +)\n")
    main_file = tmp_path / "prog.py"
    main_file.write_text("import helper\n")
    assert main(["run", str(main_file)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'helper.py'}:2:9: error: SyntaxError: invalid syntax\n")
    assert err.split("\n")[1:3] == ["     2 +)", "        ^"]


def test_a_file_that_raises_while_loading_shows_its_own_traceback(tmp_path, capsys):
    bad = tmp_path / "boom.py"
    bad.write_text("raise ValueError('boom at import')\n")
    assert main(["compile", f"{bad}::k", "--target", "sm_90", "-o", "X"]) == 1
    err = capsys.readouterr().err
    assert "the file raised while loading" in err and "boom at import" in err
    assert "layoutc/driver" not in err
