"""Run the blocks of one documentation page in order, the way a reader would.

Every page gets a working directory (a copy of ``examples/`` inside, so ``layoutc run
examples/...`` works and nothing is written into the checkout). Its ``python`` blocks share one
namespace; each is saved as ``kernel.py`` in a folder of its own (kernels need their source in a
file) and run with that working directory as the current one. ``sh`` commands run with bash
there, with the venv's ``layoutc``/``layoutc-opt`` first on the PATH. ``mlir`` blocks go
through ``layoutc-opt`` (parse and verify, then print, re-parse and print the same text).
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

from doc_blocks import ROOT, Block, sh_commands

_CHECKER = doctest.OutputChecker()
_SHOW = re.compile(r"#\s*->\s?(.*)$")


class DocMismatch(AssertionError):
    """A block printed something other than what the page shows."""


def normalize(text: str) -> str:
    lines = [ln.rstrip() for ln in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def check_output(where: str, shown: str, got: str) -> None:
    """``got`` must be ``shown``, where ``...`` in ``shown`` stands for any text."""
    want, have = normalize(shown), normalize(got)
    if want == have or _CHECKER.check_output(want, have, doctest.ELLIPSIS):
        return
    example = doctest.Example("", want)
    raise DocMismatch(
        f"{where}: the output differs from the page's\n"
        + _CHECKER.output_difference(example, have, doctest.ELLIPSIS)
    )


def _shown_lines(code: str) -> dict[int, str]:
    """``{line: text}`` of the ``# -> text`` comments of a Python block (1-based lines)."""
    shown = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            m = _SHOW.match(tok.string)
            if m:
                shown[tok.start[0]] = m.group(1).rstrip()
    return shown


def _instrument(tree: ast.Module, shown: dict[int, str]) -> set[int]:
    """Replace each expression statement whose last line shows a value by a check of it;
    return the lines used (a ``# ->`` on any other line is a convention error)."""
    used: set[int] = set()

    class Show(ast.NodeTransformer):
        def visit_Expr(self, node: ast.Expr) -> ast.AST:
            line = node.end_lineno
            if line not in shown:
                return node
            used.add(line)
            call = ast.Call(
                func=ast.Name("__docs_show__", ast.Load()),
                args=[node.value, ast.Constant(shown[line]), ast.Constant(line)],
                keywords=[],
            )
            return ast.copy_location(ast.Expr(call), node)

    Show().visit(tree)
    ast.fix_missing_locations(tree)
    return used


def have_upstream_mlir() -> bool:
    """Upstream MLIR's bindings (``mlir.ir``) are installed."""
    import importlib.util

    try:
        return importlib.util.find_spec("mlir.ir") is not None
    except (ImportError, ValueError):
        return False


class PageSession:
    """The state of one page while its blocks run: working directory, namespace, results."""

    def __init__(
        self, page: str, blocks: list[Block], workdir: Path, env: dict[str, str], gpu: bool
    ):
        self.page = page
        self.blocks = blocks
        self.workdir = workdir
        self.env = env
        self.gpu = gpu
        self.namespace: dict = {"__name__": "__docs__"}
        self.results: dict[int, BaseException | str | None] = {}  # line -> error, skip or None
        self.next = 0
        shutil.copytree(
            ROOT / "examples", workdir / "examples", ignore=shutil.ignore_patterns("__pycache__")
        )

    def result(self, block: Block) -> BaseException | str | None:
        """Run the page's blocks up to ``block`` (once each) and return its result."""
        while block.line not in self.results:
            b = self.blocks[self.next]
            self.next += 1
            try:
                self.results[b.line] = self._run(b)
            except BaseException as e:  # recorded for its own test
                if isinstance(e, KeyboardInterrupt):
                    raise
                self.results[b.line] = e
        return self.results[block.line]

    def _run(self, b: Block) -> str | None:
        if b.problems:
            raise AssertionError(f"{b.id}: " + "; ".join(b.problems))
        if b.norun is not None:
            return f"not run: {b.norun}"
        if b.gpu and not self.gpu:
            if b.lang == "python":  # at least well-formed where it cannot run
                compile(b.code, b.id, "exec")
            return "needs a GPU"
        if b.mlir and not have_upstream_mlir():
            if b.lang == "python":
                compile(b.code, b.id, "exec")
            return "needs upstream MLIR's Python bindings (docs/ir.md)"
        if b.file is not None:
            (self.workdir / b.file).write_text(b.code)
            if b.lang != "mlir":
                return None
        if b.lang == "c":
            raise AssertionError(f"{b.id}: a c block cannot run here: say why with 'norun:'")
        run = {
            "sh": self._sh,
            "python": self._python,
            "mlir": self._mlir,
            "json": self._json,
            "toml": self._toml,
        }
        if b.lang in run:
            run[b.lang](b)
        return None

    # -- sh --------------------------------------------------------------------------------

    def _sh(self, b: Block) -> None:
        for cmd in sh_commands(b):
            where = f"{self.page}:{cmd.line}: $ {cmd.text}"
            p = subprocess.run(
                ["bash", "-c", cmd.text],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=300,
            )
            got = p.stdout.replace(f"{self.workdir}/", "")
            if cmd.output is None or not cmd.output.strip():
                if p.returncode != 0:
                    raise DocMismatch(f"{where}: exit status {p.returncode}\n{got}")
                if cmd.output is not None:
                    check_output(where, "", got)
                continue
            check_output(where, cmd.output, got)

    # -- python ----------------------------------------------------------------------------

    def _python(self, b: Block) -> None:
        folder = self.workdir / ".blocks" / f"L{b.line}"
        folder.mkdir(parents=True)
        path = folder / "kernel.py"
        path.write_text(b.code)
        shown = _shown_lines(b.code)
        tree = ast.parse(b.code, str(path))
        unused = set(shown) - _instrument(tree, shown)
        if unused:
            raise AssertionError(
                f"{b.id}: '# ->' on line(s) {sorted(unused)} of the block does not follow an "
                "expression statement"
            )
        code = compile(tree, str(path), "exec")
        mismatches: list[str] = []

        def show(value, want, line):
            got = str(value)
            if not (got == want or _CHECKER.check_output(want, got, doctest.ELLIPSIS)):
                mismatches.append(f"line {b.line + line}: shows {want!r}, is {got!r}")

        self.namespace["__docs_show__"] = show
        out = io.StringIO()
        cwd = os.getcwd()
        env_before = dict(os.environ)
        path_before = list(sys.path)
        modules_before = set(sys.modules)
        os.chdir(self.workdir)
        os.environ.clear()
        os.environ.update(self.env)
        error: BaseException | None = None
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                exec(code, self.namespace)
        except Exception as e:
            error = e
        finally:
            # The page's imports stay in its namespace, not in the process: another page
            # importing the same example name gets its own copy from its own folder.
            sys.path[:] = path_before
            for name in set(sys.modules) - modules_before:
                origin = getattr(sys.modules[name], "__file__", None)
                if origin and os.path.abspath(origin).startswith(str(self.workdir)):
                    del sys.modules[name]
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env_before)
        got = out.getvalue()
        if error is not None:
            if b.output is None:
                raise error
            got += str(error) + "\n"
        got = re.sub(re.escape(f"{self.workdir}/.blocks/") + r"L\d+/", "", got)
        got = got.replace(f"{self.workdir}/", "")
        if b.output is not None:
            check_output(f"{self.page}:{b.output_line}", b.output, got)
        elif got.strip():
            raise DocMismatch(
                f"{b.id}: the block prints, but the page does not show it (add a ```text block "
                f"after it):\n{got}"
            )
        if mismatches:
            raise DocMismatch(f"{b.id}: " + "; ".join(mismatches))

    # -- mlir, json ------------------------------------------------------------------------

    def _opt(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(Path(sys.executable).parent / "layoutc-opt"), *args],
            cwd=self.workdir,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def _mlir(self, b: Block) -> None:
        name = b.file or f"L{b.line}.mlir"
        (self.workdir / name).write_text(b.code)
        if "{-#" in b.code:  # a crash reproducer: the pipeline is in the file
            p = self._opt("--run-reproducer", name)
            if p.returncode:
                raise DocMismatch(f"{b.id}: layoutc-opt --run-reproducer\n{p.stderr}")
            return
        if "expected-" in b.code:
            p = self._opt(name, "--verify-diagnostics")
            if p.returncode:
                raise DocMismatch(f"{b.id}: layoutc-opt --verify-diagnostics\n{p.stderr}")
            return
        first = self._opt(name)
        if first.returncode:
            raise DocMismatch(f"{b.id}: layoutc-opt does not accept it\n{first.stderr}")
        (self.workdir / f"{name}.printed.mlir").write_text(first.stdout)
        again = self._opt(f"{name}.printed.mlir")
        if again.returncode or again.stdout != first.stdout:
            raise DocMismatch(
                f"{b.id}: the printed form does not round-trip\n{first.stdout}\n{again.stderr}"
            )

    def _toml(self, b: Block) -> None:
        try:
            import tomllib
        except ImportError:  # Python 3.10
            return
        try:
            tomllib.loads(b.code)
        except tomllib.TOMLDecodeError as e:
            raise DocMismatch(f"{b.id}: not TOML: {e}") from None

    def _json(self, b: Block) -> None:
        try:
            json.loads(b.code)
        except json.JSONDecodeError as e:
            raise DocMismatch(f"{b.id}: not JSON: {e}") from None
