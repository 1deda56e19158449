"""The README's first two commands (set up and run the main job; set up and run the suite) are
the first thing in it, CI runs exactly the second (.ci/run reads it from the README), and the
first one's main job works. The harness does not run that block itself (it would install the
package and run this suite again): these tests stand for it."""

from __future__ import annotations

import re
import shlex
import subprocess

from doc_blocks import ROOT, page_blocks, sh_commands


def _first_block():
    return page_blocks(ROOT / "README.md")[0]


def test_the_two_commands_come_first():
    lines = (ROOT / "README.md").read_text().splitlines()
    block = _first_block()
    assert [ln for ln in lines[: block.line - 1] if ln.strip()] == ["# layoutc"]
    commands = [c.text for c in sh_commands(block)]
    assert len(commands) == 2
    main, suite = commands
    setup = "python3 -m venv .venv && . .venv/bin/activate && "
    assert main == setup + "pip install -e . && layoutc run examples/copy_1d.py"
    assert (
        suite == setup + "pip install -e '.[test]' && python -m pytest -q -n auto --dist loadfile"
    )


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    (pattern,) = re.findall(r'grep -m1 -E "([^"]+)" README\.md', script)
    found = subprocess.run(
        ["grep", "-m1", "-E", pattern, "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found == sh_commands(_first_block())[1].text
    assert 'exec bash -euo pipefail -c "$cmd"' in script


def test_the_main_job_runs(doc_env, tmp_path):
    """``layoutc run examples/copy_1d.py`` (the first command after its install) succeeds and
    checks its result, on the CPU."""
    main = sh_commands(_first_block())[0].text
    job = main.rsplit("&& ", 1)[1]
    p = subprocess.run(
        [*shlex.split(job), "--target", "cpu"],
        cwd=ROOT,
        env=doc_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "check     passed" in p.stdout
