"""The executed-docs machinery itself: what it reads from a page, and that a page whose shown
output is wrong fails (so the docs tests can fail)."""

from __future__ import annotations

import pytest
from doc_blocks import page_blocks, sh_commands
from doc_runner import DocMismatch, PageSession

PAGE = """# A page

```sh
$ echo one \\
    two
one two
$ printf 'a\\nb\\n'
a
b
```

```python
print(6 * 7)
```

```text
42
```

```python
x = [1, 2]
len(x)  # -> 2
```

```mlir file=f.mlir
func.func @f(%a: i32) -> i32 {
  return %a : i32
}
```

```sh
cat f.mlir > /dev/null
```

```python gpu
raise RuntimeError("needs a GPU")
```

```text
not attached: a gpu block's output would be, but this follows the gpu block
```
"""


def _session(tmp_path, text, name="page.md"):
    page = tmp_path / name
    page.write_text(text)
    work = tmp_path / "work"
    work.mkdir()
    return page_blocks(page), PageSession(
        name, page_blocks(page), work, {"PATH": "/usr/bin:/bin"}, gpu=False
    )


def test_blocks_languages_outputs_and_markers(tmp_path):
    blocks, _ = _session(tmp_path, PAGE)
    assert [b.lang for b in blocks] == ["sh", "python", "python", "mlir", "sh", "python"]
    assert blocks[1].output == "42\n" and blocks[1].output_line == 16
    assert blocks[3].file == "f.mlir" and blocks[5].gpu and blocks[5].output is not None
    assert [(c.text, c.output) for c in sh_commands(blocks[0])] == [
        ("echo one  two", "one two\n"),
        ("printf 'a\\nb\\n'", "a\nb\n"),
    ]
    assert [(c.text, c.output) for c in sh_commands(blocks[4])] == [
        ("cat f.mlir > /dev/null", None)
    ]


def test_a_page_that_tells_the_truth_passes(tmp_path):
    blocks, session = _session(tmp_path, PAGE)
    results = [session.result(b) for b in blocks]
    assert results[:5] == [None] * 5
    assert results[5] == "needs a GPU"


@pytest.mark.parametrize(
    "wrong",
    [
        "```sh\n$ echo one\ntwo\n```\n",  # a command's output
        "```python\nprint(6 * 7)\n```\n\n```text\n43\n```\n",  # a block's output
        "```python\nlen([1])  # -> 2\n```\n",  # a shown value
        "```python\nprint('unshown')\n```\n",  # output the page does not show
        "```sh\nfalse\n```\n",  # a listed command that fails
        "```mlir\nfunc.func @f() {\n  %x = arith.addi %y, %y : i32\n  return\n}\n```\n",
        "```\nbare\n```\n",  # a block without a language
        "```python norun:\npass\n```\n",  # norun without a reason
        "```sh\n$ echo 1.5 s\n... ms\n```\n",  # '...' matches text, not other text around it
    ],
)
def test_a_page_that_lies_fails(tmp_path, wrong):
    (block,), session = _session(tmp_path, "# p\n\n" + wrong)
    result = session.result(block)
    assert isinstance(result, (DocMismatch, AssertionError)), result
