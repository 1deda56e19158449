"""User errors leave the public entry points (calling a kernel, ``kernel.trace``,
``kernel.specialize``, ``lc.compile``) with only the user's frames; internal errors keep
layoutc's frames, and so does everything with ``LAYOUTC_FULL_TRACEBACK=1``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import traceback

import layoutc as lc
import numpy as np
import pytest
from layoutc.frontend.locations import is_internal_file
from layoutc.frontend.tracebacks import api_boundary

X = np.zeros(64, np.float32)


@lc.kernel
def mismatch(a: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.copy(lc.make_fragment(8, lc.f32), lc.make_fragment(4, lc.f32))


def _files(e: BaseException) -> list[str]:
    return [f.filename for f in traceback.extract_tb(e.__traceback__)]


def _internal_frames(e: BaseException) -> list[str]:
    return [f for f in _files(e) if is_internal_file(f)]


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param(lambda: mismatch.trace(mismatch.specialize(X, block=1)), id="trace"),
        pytest.param(lambda: lc.compile(mismatch, X, block=1, target="cpu"), id="compile"),
        pytest.param(lambda: mismatch(X, grid=1, block=1), id="call"),
        pytest.param(lambda: mismatch.specialize(np.zeros(4, np.float64)), id="spec-error"),
    ],
)
def test_user_errors_show_only_user_frames(entry, monkeypatch):
    monkeypatch.delenv("LAYOUTC_FULL_TRACEBACK", raising=False)
    with pytest.raises((lc.CompileError, lc.SpecError)) as info:
        entry()
    assert _internal_frames(info.value) == []
    assert _files(info.value)[-1] == __file__  # the user's call is still there


def test_the_environment_switch_keeps_every_frame(monkeypatch):
    monkeypatch.setenv("LAYOUTC_FULL_TRACEBACK", "1")
    with pytest.raises(lc.CompileError) as info:
        lc.compile(mismatch, X, block=1, target="cpu", cache=False)
    assert _internal_frames(info.value)


class _Internal(lc.CompileError):
    internal = True


def test_internal_errors_keep_their_frames(monkeypatch):
    monkeypatch.delenv("LAYOUTC_FULL_TRACEBACK", raising=False)
    # a function defined in layoutc's own folder stands for a crash deep in the compiler
    raise_internal = _compiled_in_layoutc(
        "def crash(kind):\n    raise kind('internal error: a bug')\n"
    )
    with pytest.raises(_Internal) as info:
        api_boundary(raise_internal)(_Internal)
    assert _internal_frames(info.value)
    with pytest.raises(lc.CompileError) as info:
        api_boundary(raise_internal)(lc.CompileError)
    assert _internal_frames(info.value) == []


def _compiled_in_layoutc(source: str):
    """A function whose code claims a file inside layoutc's package (what a frame of
    layoutc's internals looks like to the filter)."""
    import layoutc.frontend

    fake = os.path.join(os.path.dirname(layoutc.frontend.__file__), "_test_internal_frame.py")
    namespace: dict = {}
    exec(compile(source, fake, "exec"), namespace)
    return namespace["crash"]


SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import layoutc as lc

    @lc.kernel
    def k(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(M):(1)"]):
        lc.copy(src, dst)

    k(np.zeros(16, np.float32), np.zeros(64, np.float32), grid=1, block=1)
    """
)


def test_a_script_prints_the_diagnostic_after_its_own_frames(tmp_path):
    script = tmp_path / "user_kernel.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "LAYOUTC_CACHE": "0"}
    env.pop("LAYOUTC_FULL_TRACEBACK", None)
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    frames = [line for line in lines if line.startswith('  File "')]
    assert frames == [f'  File "{script}", line 9, in <module>'], result.stderr
    assert "error: cannot prove that the source size N equals the destination size M" in (
        result.stderr
    )
