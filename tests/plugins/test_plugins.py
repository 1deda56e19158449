"""Plugins from outside the tree: the demo package in tests/plugins/layoutc_demo_plugin is
installed (pip, into a private folder) and layoutc finds its dialect, pass and pipeline through
the ``layoutc.dialects`` and ``layoutc.passes`` entry points, in ``layoutc-opt`` and pipelines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "layoutc_demo_plugin"

INPUT = """\
func.func @f(%x: f32) -> f32 {
  %y = demo.square %x : f32
  %z = demo.square %y : f32
  return %z : f32
}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The plugin installed as a package (with its dist-info and entry points)."""
    target = tmp_path_factory.mktemp("plugin_site")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(PLUGIN),
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"installing the demo plugin failed:\n{proc.stdout}\n{proc.stderr}")
    assert list(target.glob("layoutc_demo_plugin-*.dist-info/entry_points.txt"))
    return target


def _opt(site: Path, *args: str, stdin: str = INPUT) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "layoutc.cli.opt", *args, "-"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
    )


def test_list_passes_shows_the_plugins_pass_and_pipeline(site):
    proc = _opt(site, "--list-passes")
    assert proc.returncode == 0, proc.stderr
    assert "--demo-expand" in proc.stdout and "Expand demo.square into arith.mulf" in proc.stdout
    assert "--demo-lowering" in proc.stdout


def test_plugin_dialect_parses_verifies_and_round_trips(site):
    proc = _opt(site)
    assert proc.returncode == 0, proc.stderr
    assert "%y = demo.square %x : f32" in proc.stdout


def test_pipelines_name_the_plugins_pass_and_pipeline(site):
    for pipeline in ("builtin.module(demo-lowering)", "builtin.module(func.func(demo-expand))"):
        proc = _opt(site, "-p", pipeline)
        assert proc.returncode == 0, proc.stderr
        assert "demo." not in proc.stdout
        assert "%0 = arith.mulf %x, %x : f32" in proc.stdout
        assert "arith.mulf %0, %0 : f32" in proc.stdout


def test_without_the_plugin_the_names_are_unknown():
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-m", "layoutc.cli.opt", "-p", "builtin.module(demo-lowering)", "-"],
        input="module {}\n",
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode != 0 and "demo-lowering" in proc.stderr


KERNEL = """\
func.func @squares(%x: !tile.ptr<f32, gmem, 4>, %out: !tile.ptr<f32, gmem, 4>, %n: i32) attributes {gpu.kernel} {
  %0 = gpu.thread_id x
  %1 = arith.index_cast %n : i32 to index
  %2 = arith.cmpi slt, %0, %1 : index
  scf.if %2 {
    %3 = tile.load %x[%0] : !tile.ptr<f32, gmem, 4> -> f32
    %4 = demo.square %3 : f32
    tile.store %4, %out[%0] : !tile.ptr<f32, gmem, 4>
  }
  return
}
"""

COMPILE = """\
import sys
import numpy as np
import layoutc.embed as embed

kernel = embed.compile_module(
    sys.stdin.read(),
    target="cpu",
    pipeline="builtin.module(demo-lowering,layout-lowering,convert-to-llvm{target=host})",
)
x = np.arange(-5, 5, dtype=np.float32)
out = np.zeros_like(x)
kernel.load()(x, out, 10, grid=1, block=32)
np.testing.assert_array_equal(out, x * x)
print("ok", "demo" in kernel.llvm_ir)
"""


def test_a_compile_pipeline_names_the_plugins_pipeline(site):
    """A host compiler's kernel uses the plugin's op, and the embedding API's pipeline
    string names the plugin's pipeline before layoutc's own lowering; the kernel runs."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", COMPILE], input=KERNEL, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["ok", "False"]
