"""Find the fenced code blocks of README.md and docs/*.md, and what each one claims.

The convention (docs/conventions.md, "Executed docs"): a fence's info string is
``LANG [gpu] [mlir] [file=NAME] [norun: REASON]``. LANG is one of ``LANGUAGES``; ``text`` is not run,
except that a ``text`` block right after a code block (only blank lines between) is that block's
expected output. In ``sh`` blocks, ``$ `` lines are commands (``\\`` continues one) and the lines
up to the next ``$ `` are what it prints; a block without ``$ `` lines is a list of commands that
must succeed. In ``python`` blocks, a line ending in ``# -> TEXT`` shows ``str()`` of its
expression. In every shown output, ``...`` stands for any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("sh", "python", "mlir", "json", "toml", "c", "text")
_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>.*)$")


@dataclass
class Block:
    page: str  # path relative to the repository root
    line: int  # 1-based line of the opening fence
    lang: str
    info: str
    code: str
    gpu: bool = False
    mlir: bool = False  # needs upstream MLIR's Python bindings (tests marked mlir)
    norun: str | None = None  # the reason, when the block is not run
    file: str | None = None  # saved under this name in the page's working directory
    output: str | None = None  # the following ``text`` block, when there is one
    output_line: int | None = None
    problems: list[str] = field(default_factory=list)  # convention violations

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _parse_info(block: Block) -> None:
    info = block.info.strip()
    if "norun:" in info:
        info, reason = info.split("norun:", 1)
        block.norun = reason.strip()
        if not block.norun:
            block.problems.append("'norun:' must say why the block cannot run")
    words = info.split()
    block.lang = words[0] if words else ""
    for word in words[1:]:
        if word == "gpu":
            block.gpu = True
        elif word == "mlir":
            block.mlir = True
        elif word.startswith("file="):
            block.file = word[len("file=") :]
        else:
            block.problems.append(f"unknown word {word!r} in the fence's info string")
    if block.lang not in LANGUAGES:
        block.problems.append(
            f"fence language {block.lang!r}: give every block one of {', '.join(LANGUAGES)}"
        )


def page_blocks(path: Path) -> list[Block]:
    """The blocks of one page in order, each ``text`` block that shows another's output
    attached to it (and not listed itself)."""
    lines = path.read_text().splitlines()
    page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    blocks: list[Block] = []
    ends: list[int] = []  # 0-based index of each block's closing fence
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m["indent"])
        j = i + 1
        while j < len(lines) and not re.match(r"^ *```\s*$", lines[j]):
            j += 1
        body = [ln[indent:] if ln[:indent].strip() == "" else ln for ln in lines[i + 1 : j]]
        block = Block(page, i + 1, "", m["info"], "\n".join(body) + ("\n" if body else ""))
        _parse_info(block)
        if j >= len(lines):
            block.problems.append("the block is not closed")
        prev = blocks[-1] if blocks else None
        gap = lines[ends[-1] + 1 : i] if ends else None
        if (
            block.lang == "text"
            and prev is not None
            and prev.lang in ("sh", "python")
            and prev.output is None
            and gap is not None
            and all(not g.strip() for g in gap)
        ):
            prev.output, prev.output_line = block.code, block.line
            prev.problems.extend(block.problems)
        else:
            blocks.append(block)
        ends.append(j)
        i = j + 1
    return blocks


def all_blocks() -> list[Block]:
    return [b for p in doc_pages() for b in page_blocks(p)]


@dataclass
class Command:
    line: int  # line in the page
    text: str  # the command, continuation lines joined
    output: str | None  # None in a command list (output not shown)


def sh_commands(block: Block) -> list[Command]:
    """The commands of a ``sh`` block with what each shows (a session), or, in a block
    without ``$ `` prompts, every command line (comments and blank lines skipped)."""
    lines = block.code.splitlines()
    session = any(ln.startswith("$ ") for ln in lines)
    out: list[Command] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if session and not ln.startswith("$ "):
            if out and out[-1].output is not None:
                out[-1].output += ln + "\n"
            i += 1
            continue
        if not session and (not ln.strip() or ln.lstrip().startswith("#")):
            i += 1
            continue
        start = i
        text = ln[2:] if session else ln
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        out.append(Command(block.line + 1 + start, text, "" if session else None))
        i += 1
    return out
