"""The ahead-of-time launches the docs show (``layoutc compile examples/F.py::k ... --block B``,
then ``lib.k(x, y, grid=G)`` in the next Python block), run on the CPU with that block and that
grid on the example's own inputs: every output must equal the example's reference, and nothing
may be written past the end of an array. A block or a grid that does not match the example's
tiles (the README once launched copy_1d's 1024-element, 128-thread tiles with block 256 and
one block per 4096 elements) fails here, without a GPU."""

from __future__ import annotations

import ast
import re
import shlex

import numpy as np
import pytest
from doc_blocks import ROOT, all_blocks, sh_commands

_COMPILE = re.compile(r"\blayoutc compile (examples/\w+\.py)::(\w+)\b")


class _TorchLike(np.ndarray):
    """A numpy array that also answers torch's ``numel()`` (the docs launch torch tensors)."""

    def numel(self) -> int:
        return self.size


def documented_launches():
    blocks = all_blocks()
    found = []
    for i, block in enumerate(blocks):
        if block.lang != "sh":
            continue
        for cmd in sh_commands(block):
            m = _COMPILE.search(cmd.text)
            if not m:
                continue
            argv = shlex.split(cmd.text)
            if "--block" not in argv:  # the kernel's own block: nothing to compare
                continue
            block_arg = argv[argv.index("--block") + 1]
            later = [b for b in blocks[i + 1 :] if b.page == block.page and b.lang == "python"]
            call = next(
                (c for b in later for c in _calls(b.code, m[2])), None
            )  # the first launch of the kernel after the command
            if call is None:  # built, not launched, on this page
                continue
            found.append(pytest.param(m[1], m[2], block_arg, *call, id=f"{block.page}:{cmd.line}"))
    return found


def _calls(code: str, kernel: str):
    for node in ast.walk(ast.parse(code)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == kernel
        ):
            grid = next(k.value for k in node.keywords if k.arg == "grid")
            yield [a.id for a in node.args], ast.unparse(grid)


LAUNCHES = documented_launches()


def test_the_docs_show_aot_launches():
    assert {p.id.split(":")[0] for p in LAUNCHES} >= {"README.md", "docs/driver.md"}


@pytest.mark.parametrize("path, kernel, block, names, grid", LAUNCHES)
def test_documented_launch_covers_the_example_exactly(path, kernel, block, names, grid):
    import layoutc as lc
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    examples = find_examples(vars(load_source(ROOT / path)), path)
    (example,) = [e for e in examples if e.kernel.name == kernel]
    arguments = example.inputs(example.size, np.random.default_rng(0))
    want = example.reference(
        {k: v.copy() if hasattr(v, "copy") else v for k, v in arguments.items()}
    )
    guarded = {}
    for name, value in arguments.items():
        if isinstance(value, np.ndarray):
            buf = np.full(value.size + 4096, np.nan, value.dtype)
            buf[: value.size] = value.ravel()
            guarded[name] = buf
            arguments[name] = buf[: value.size].reshape(value.shape).view(_TorchLike)
    args = example.ordered_arguments(arguments)
    threads = tuple(int(b) for b in block.split(","))
    ck = lc.compile(example.kernel, *args, block=threads, target="cpu")
    env = dict(zip(names, args))
    ck(*args, grid=eval(grid, {}, env))
    for name, expected in want.items():
        np.testing.assert_array_equal(arguments[name], expected, err_msg=f"{path}: {name}")
    for name, buf in guarded.items():
        tail = buf[arguments[name].size :]
        assert np.isnan(tail).all(), f"{name}: the launch wrote past the end of the array"
